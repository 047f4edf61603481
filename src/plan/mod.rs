//! Execution plans: model, kinds, compiler and diagnostics.
//!
//! A finalized design goes to the implementers with a plan of stages and edges.
//! [`compile`] reads the plan's JSON, checks every rule of the plan language and
//! reports each violation with a stable code and its place in the source, so that
//! both a person and the architect (in a repair round) can fix it.

pub mod cli;
pub(crate) mod diagnostic;
pub(crate) mod draw;
pub(crate) mod extract;
pub mod json;
pub(crate) mod kinds;
pub(crate) mod model;
pub(crate) mod prompt;
pub(crate) mod read;
pub mod render;
pub(crate) mod rules;

pub use diagnostic::{Code, Diagnostic, Location, Related, Severity};
pub use draw::{Prompts, boxes, draw, draw_with, outline};
pub use extract::extract_json;
pub use kinds::{FieldType, Kind, KindRegistry, KindsError};
pub use model::{
    Condition, DEFAULT_GIVEN, Edge, Endpoint, ExecutionPlan, LOOP_GIVEN, Operator, Stage,
};
pub use prompt::plan_prompt;
pub use render::{render_human, render_human_styled, render_json, repair_notes, summary};

use diagnostic::LineIndex;

/// The outcome of compiling one plan source.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The plan as read, whenever the JSON has the plan's shape, even if rules fail
    /// (so it can still be drawn). Use [`Compiled::valid_plan`] for a plan that may
    /// be approved.
    pub plan: Option<ExecutionPlan>,
    /// Sorted by position in the source.
    pub diagnostics: Vec<Diagnostic>,
}

impl Compiled {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The plan, only when it compiled without errors.
    pub fn valid_plan(&self) -> Option<&ExecutionPlan> {
        if self.has_errors() {
            None
        } else {
            self.plan.as_ref()
        }
    }

    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    pub fn warning_count(&self) -> usize {
        self.diagnostics.len() - self.error_count()
    }
}

/// Compiles a plan. `given` names artifacts that exist before the first stage, in
/// addition to `analysis`, which always does.
pub fn compile(source: &str, kinds: &KindRegistry, given: &[String]) -> Compiled {
    let mut diagnostics = Vec::new();
    let plan = match json::parse(source) {
        Err(e) => {
            diagnostics.push(Diagnostic::new(
                Code::JsonSyntax,
                format!("invalid JSON: {}", e.message),
                "",
                e.span,
            ));
            None
        }
        Ok(root) => read::read(&root, &mut diagnostics).map(|(plan, spans)| {
            let mut all_given = Vec::with_capacity(given.len() + 1);
            all_given.push(DEFAULT_GIVEN.to_string());
            all_given.extend(given.iter().filter(|g| *g != DEFAULT_GIVEN).cloned());
            rules::check(&plan, &spans, kinds, &all_given, &mut diagnostics);
            plan
        }),
    };
    if !diagnostics.is_empty() {
        diagnostics.sort_by_key(|d| (d.location.start, d.code));
        LineIndex::new(source).locate_all(&mut diagnostics);
    }
    Compiled { plan, diagnostics }
}
