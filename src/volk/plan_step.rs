//! The execution-plan step of finalization: the prompt that asks for a plan, and the
//! check of what came back.

use std::fmt::Write as _;

use crate::reasoner::Brief;
use crate::volk::prompts::{design_text, render};
use crate::volk::session::PlanState;

const PLAN: &str = "Write the execution plan that implements the finalized design below, as one JSON object {\"goal\", \"stages\", \"edges\"} and nothing else.\n{{feedback}}\n# The design\n\n{{current_design}}\n";

/// The outcome of checking a plan reply, as shown to the person.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanCheck {
    /// The plan JSON extracted from the reply, if any.
    pub source: Option<String>,
    pub ok: bool,
    pub error_count: usize,
    pub diagnostics_human: String,
    pub graph: Vec<String>,
}

/// The prompt for a plan attempt: notes from the person and compiler diagnostics first.
pub fn prompt(brief: &Brief, plan: &PlanState) -> String {
    let mut feedback = String::new();
    for note in &plan.notes {
        let _ = writeln!(
            feedback,
            "\nSteering from the person (it wins over your own choices): {note}"
        );
    }
    for extra in &brief.plan_feedback {
        if !plan.notes.contains(extra) {
            let _ = writeln!(feedback, "\n{extra}");
        }
    }
    let current = brief.current.as_ref().map(design_text).unwrap_or_default();
    render(
        PLAN,
        &[("feedback", &feedback), ("current_design", &current)],
    )
}

/// Extracts and checks the plan in a reply.
pub fn check(reply: &str) -> PlanCheck {
    let Some(source) = extract_json(reply) else {
        return PlanCheck {
            source: None,
            ok: false,
            error_count: 1,
            diagnostics_human: "error: the reply contains no JSON object".into(),
            graph: Vec::new(),
        };
    };
    match serde_json::from_str::<serde_json::Value>(source) {
        Ok(value) if value.get("stages").is_some_and(|s| s.is_array()) => PlanCheck {
            source: Some(source.to_string()),
            ok: true,
            error_count: 0,
            diagnostics_human: String::new(),
            graph: Vec::new(),
        },
        Ok(_) => PlanCheck {
            source: Some(source.to_string()),
            ok: false,
            error_count: 1,
            diagnostics_human: "error: the plan has no `stages` array".into(),
            graph: Vec::new(),
        },
        Err(e) => PlanCheck {
            source: Some(source.to_string()),
            ok: false,
            error_count: 1,
            diagnostics_human: format!("error: invalid JSON: {e}"),
            graph: Vec::new(),
        },
    }
}

/// The JSON in a reply: a fenced block, else the outermost `{ … }`.
pub fn extract_json(reply: &str) -> Option<&str> {
    if let Some(start) = reply.find("```json") {
        let body = &reply[start + 7..];
        if let Some(end) = body.find("```") {
            return Some(body[..end].trim());
        }
    }
    let start = reply.find('{')?;
    let end = reply.rfind('}')?;
    (end > start).then(|| &reply[start..=end])
}
