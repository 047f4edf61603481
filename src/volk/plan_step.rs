//! The execution-plan step of finalization: the prompt that asks for a plan, and the
//! compiler's verdict on what came back (see `crate::plan`).

use crate::brief::Brief;
use crate::plan::{self, KindRegistry};
use serde::{Deserialize, Serialize};

/// The execution plan's progress.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanState {
    /// The last plan the reasoner wrote (extracted JSON).
    pub source: Option<String>,
    /// Human-readable diagnostics of `source`.
    pub diagnostics: String,
    /// Whether `source` compiled without errors.
    pub ok: bool,
    /// The person's steering notes, oldest first; they win over the model's choices.
    pub notes: Vec<String>,
    /// The artifacts the loop gave the plan besides `analysis`, so `volk plan check`
    /// on the project checks it as the loop did.
    #[serde(default)]
    pub given: Vec<String>,
}

/// The name diagnostics give the plan source.
const SOURCE_NAME: &str = "execution_plan.json";

/// Artifacts that exist before the plan's first stage, besides `analysis`.
pub fn given() -> Vec<String> {
    vec![plan::LOOP_GIVEN.to_string()]
}

/// The outcome of checking a plan reply, as shown to the person.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanCheck {
    /// The plan JSON extracted from the reply, if any.
    pub source: Option<String>,
    pub ok: bool,
    pub error_count: usize,
    /// rustc-style diagnostics with snippets, no colour.
    pub diagnostics_human: String,
    /// One line per diagnostic, fed back to the reasoner for a repair.
    pub repair_notes: Vec<String>,
    /// The stage graph, when the JSON had the plan's shape.
    pub graph: Vec<String>,
}

/// The prompt for a plan attempt: the decision history (the architect's reflection and
/// the person's notes) first, then the compiler's findings on the previous attempt.
pub fn prompt(brief: &Brief, state: &PlanState) -> String {
    let history = crate::brief::reflected::plan_history(&brief.reflections, &state.notes);
    let feedback: Vec<String> = brief
        .plan_feedback
        .iter()
        .filter(|f| !state.notes.contains(f))
        .cloned()
        .collect();
    let design = brief.current.clone().unwrap_or_default();
    plan::plan_prompt(
        &design,
        &KindRegistry::builtin(),
        &given(),
        &history,
        &feedback,
    )
}

/// Extracts the plan from a reply and compiles it.
pub fn check(reply: &str) -> PlanCheck {
    let Some(source) = plan::extract_json(reply) else {
        let message =
            "the reply contains no JSON object: answer with the plan inside a ```json fence";
        return PlanCheck {
            source: None,
            ok: false,
            error_count: 1,
            diagnostics_human: format!("error: {message}"),
            repair_notes: vec![message.to_string()],
            graph: Vec::new(),
        };
    };
    let compiled = plan::compile(source, &KindRegistry::builtin(), &given());
    PlanCheck {
        source: Some(source.to_string()),
        ok: compiled.valid_plan().is_some(),
        error_count: compiled.error_count(),
        diagnostics_human: plan::render_human(SOURCE_NAME, source, &compiled.diagnostics),
        repair_notes: plan::repair_notes(&compiled.diagnostics),
        graph: compiled.plan.as_ref().map(plan::draw).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brief::Purpose;
    use crate::reasoner::offline::draft;

    #[test]
    fn the_offline_plan_compiles_and_draws() {
        let brief = Brief {
            task_summary: "Build a task CLI".into(),
            requirements: "1. Add tasks\n2. List tasks".into(),
            ..Brief::default()
        };
        let design = crate::design::parser::parse(&draft(Purpose::Design, &brief));
        let brief = Brief {
            current: Some(design),
            ..brief
        };
        let check = check(&draft(Purpose::Plan, &brief));
        assert!(check.ok, "{}", check.diagnostics_human);
        assert!(!check.graph.is_empty());
    }

    #[test]
    fn a_broken_plan_gives_repair_notes_with_codes() {
        let check = check("```json\n{\"goal\": \"x\", \"stages\": [], \"edges\": []}\n```");
        assert!(!check.ok);
        assert!(!check.repair_notes.is_empty());
        let none = super::check("no json here");
        assert!(!none.ok && none.source.is_none());
    }

    #[test]
    fn notes_come_first_in_the_prompt() {
        let state = PlanState {
            notes: vec!["one stage per module".into()],
            ..PlanState::default()
        };
        let brief = Brief {
            plan_feedback: vec![
                "one stage per module".into(),
                "P010 at 3:5: bad edge".into(),
            ],
            ..Brief::default()
        };
        let p = prompt(&brief, &state);
        let note = p
            .find("Note from the person: one stage per module")
            .unwrap();
        let finding = p.find("P010 at 3:5").unwrap();
        assert!(note < finding);
        assert_eq!(p.matches("one stage per module").count(), 1, "{p}");
    }

    #[test]
    fn the_reflection_is_history_the_plan_answers_to() {
        let brief = Brief {
            reflections: vec![crate::brief::reflected::Reflection {
                cycle: 2,
                answers: crate::brief::reflected::split(
                    &["[RFQ-011] Which requirement is covered least?".into()],
                    "1. NFR-01 has no load test.",
                ),
            }],
            ..Brief::default()
        };
        let p = prompt(&brief, &PlanState::default());
        assert!(p.contains("# Decision history"), "{p}");
        assert!(
            p.contains(
                "- RFQ-011: Which requirement is covered least?\n  NFR-01 has no load test."
            ),
            "{p}"
        );
        assert!(p.contains("Declined: <gap>"));
        let bare = prompt(&Brief::default(), &PlanState::default());
        assert!(!bare.contains("# Decision history"), "{bare}");
    }
}
