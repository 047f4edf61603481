//! The prompt asking the architect for an execution plan (`assets/prompts/plan.md`),
//! filled with the kinds, the finalized design and the feedback of earlier attempts.

use std::fmt::Write;

use crate::design::{Artifacts, Section};

use super::kinds::{FieldType, KindRegistry};
use super::model::DEFAULT_GIVEN;

const TEMPLATE: &str = include_str!("../../assets/prompts/plan.md");

/// The filled prompt. `given` adds artifacts that exist before the plan runs (besides
/// `analysis`); `history` is the decision history the plan must honour (the
/// architect's reflection and the person's steering, left out when empty); `feedback`
/// holds the one-line compiler diagnostics of the previous attempt (see
/// [`super::repair_notes`]).
pub fn plan_prompt(
    design: &Artifacts,
    kinds: &KindRegistry,
    given: &[String],
    history: &str,
    feedback: &[String],
) -> String {
    let mut given_ids = vec![format!("`{DEFAULT_GIVEN}`")];
    given_ids.extend(
        given
            .iter()
            .filter(|g| *g != DEFAULT_GIVEN)
            .map(|g| format!("`{g}`")),
    );

    let mut kinds_text = String::new();
    for kind in kinds.iter() {
        let fields = kind
            .fields
            .iter()
            .map(|(name, ty)| match ty {
                FieldType::OneOf(_) => format!("{name} ({})", ty.describe()),
                _ => name.clone(),
            })
            .collect::<Vec<_>>()
            .join(", ");
        let writes = if kind.writes_files {
            "; writes files"
        } else {
            ""
        };
        let _ = writeln!(
            kinds_text,
            "- `{}`: {}{writes}. Fields: {fields}.",
            kind.id, kind.description
        );
    }

    let mut design_text = String::new();
    for section in Section::ALL {
        let text = design.get(section).trim();
        if !text.is_empty() {
            let _ = write!(design_text, "## {}\n\n{text}\n\n", section.title());
        }
    }

    let feedback_text = if feedback.is_empty() {
        "(none: this is the first attempt)".to_string()
    } else {
        feedback.iter().map(|f| format!("- {f}\n")).collect()
    };

    let history_text = if history.trim().is_empty() {
        String::new()
    } else {
        format!(
            "# Decision history\n\nWhat was concluded before this plan, which the plan must honour.\n\n{}\n\n",
            history.trim()
        )
    };

    crate::template::render(
        TEMPLATE,
        &[
            ("history", &history_text),
            ("given", &given_ids.join(", ")),
            ("kinds", kinds_text.trim_end()),
            ("design", design_text.trim_end()),
            ("feedback", feedback_text.trim_end()),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_every_placeholder() {
        let design = Artifacts {
            architecture: "Layers.".into(),
            file_tree: "src/\n  app.py".into(),
            ..Artifacts::default()
        };
        let text = plan_prompt(
            &design,
            &KindRegistry::builtin(),
            &["design_docs".into()],
            "- Note from the person: one stage per module",
            &["P010 at 3:5: bad edge".into()],
        );
        assert!(!text.contains("{{"), "{text}");
        assert!(text.contains("`analysis`, `design_docs`"));
        assert!(text.contains("- `review_report`:"));
        assert!(text.contains("verdict (one of \"approved\", \"changes_requested\")"));
        assert!(text.contains("## File tree\n\nsrc/\n  app.py"));
        assert!(text.contains("# Decision history\n\nWhat was concluded"));
        assert!(text.contains("- Note from the person: one stage per module"));
        assert!(text.contains("- P010 at 3:5: bad edge"));
        assert_eq!(text.matches("runs a command").count(), 1, "{text}");
        assert!(text.contains("declares `kind: process_result` and\n   lists no `tools`"));
        assert!(!text.contains("## API spec"));
    }

    /// The design is the model's text: a slot written in it stays as written.
    #[test]
    fn a_slot_in_the_design_is_not_filled() {
        let design = Artifacts {
            architecture: "We print {{feedback}} literally.".into(),
            ..Artifacts::default()
        };
        let text = plan_prompt(&design, &KindRegistry::builtin(), &[], "", &["P010".into()]);
        assert!(text.contains("We print {{feedback}} literally."), "{text}");
    }
}
