//! Renders the prompts in `assets/prompts/` (compiled into the binary).
//!
//! Templates use `{{name}}` slots, filled in one pass: text that is injected (requirements,
//! source code, the current design) is never scanned for slots again, so braces in it
//! are harmless.

use std::fmt::Write as _;

use crate::design::{Artifacts, Section};
use crate::volk::brief::{Brief, Question};

pub const SYSTEM: &str = include_str!("../../assets/prompts/system.md");
const DESIGN: &str = include_str!("../../assets/prompts/design.md");
const UPDATE: &str = include_str!("../../assets/prompts/update.md");
const ANSWERS: &str = include_str!("../../assets/prompts/answers.md");
/// The retry of an answer without section markers.
const REFORMAT: &str = include_str!("../../assets/prompts/reformat.md");
/// The opening of an update that answers the reviewer's questions.
const UPDATE_QUESTIONS: &str = include_str!("../../assets/prompts/update_questions.md");
/// The opening of a repair pass of the design compiler, which nobody asked for.
const UPDATE_LINT: &str = include_str!("../../assets/prompts/update_lint.md");
const REFLECT: &str = include_str!("../../assets/prompts/reflect.md");

/// Injected context larger than this is cut with a visible marker.
pub const CONTEXT_CAP: usize = 100 * 1024;

/// Fills `{{name}}` slots from `values`; an unknown slot is left as it is.
pub fn render(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                let name = &after[..end];
                match values.iter().find(|(k, _)| *k == name) {
                    Some((_, value)) => out.push_str(value),
                    None => {
                        out.push_str("{{");
                        out.push_str(name);
                        out.push_str("}}");
                    }
                }
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Cuts `text` to at most `cap` bytes (on a line boundary when possible) and says so.
pub fn cap(text: &str, cap: usize) -> String {
    if text.len() <= cap {
        return text.to_string();
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(nl) = text[..end].rfind('\n') {
        end = nl + 1;
    }
    format!(
        "{}\n[… truncated by volk: {} of {} bytes shown, cap {} KB …]\n",
        &text[..end],
        end,
        text.len(),
        cap / 1024
    )
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        return "(none)".to_string();
    }
    let mut out = String::new();
    for item in items {
        // An item of several lines (a multi-line question) keeps them, indented.
        let _ = writeln!(out, "- {}", item.trim().replace('\n', "\n  "));
    }
    out
}

/// A reviewer's question as the architect reads it: its thread id, the line it points
/// at, whether it is carried over or follows up another, then the question. The only
/// place a question becomes prompt text, for the workbench and packets alike.
pub fn question_line(q: &Question) -> String {
    let mut line = q.thread.clone().unwrap_or_default();
    if let Some(a) = &q.anchor {
        let _ = write!(line, " [{} line {}", a.section.key(), a.line);
        if !a.quote.trim().is_empty() {
            let _ = write!(line, ": \"{}\"", a.quote.trim());
        }
        line.push(']');
    }
    if let Some(cycle) = q.carried_from {
        let _ = write!(line, " (asked after cycle {cycle}, still not addressed)");
    }
    if let Some(old) = &q.follows {
        let _ = write!(line, " (follows up {old})");
    }
    let text = q.text.trim();
    if line.is_empty() {
        text.to_string()
    } else {
        format!("{}: {text}", line.trim_start())
    }
}

fn numbered(items: &[String]) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        // A question of several lines keeps them, indented under its number.
        let item = item.trim().replace('\n', "\n   ");
        let _ = writeln!(out, "{}. {item}", i + 1);
    }
    out
}

fn ux_section(brief: &Brief) -> String {
    match &brief.ux_design {
        Some(ux) => format!("\n# UX design (from U:Ux)\n{}\n", ux.trim()),
        None => String::new(),
    }
}

fn context_section(context: &str) -> String {
    if context.trim().is_empty() {
        return String::new();
    }
    format!(
        "\n# Existing API sources\nThe codebase already has these types and functions. Reuse them with their real names, constructors and import paths instead of inventing new ones.\n\n{}\n",
        cap(context, CONTEXT_CAP)
    )
}

/// The design as the prompt shows it: the five sections under their markers.
pub fn design_text(artifacts: &Artifacts) -> String {
    let mut out = String::new();
    for section in Section::ALL {
        let _ = writeln!(out, "{}:\n{}\n", section.marker(), artifacts.get(section));
    }
    out
}

fn requirements(brief: &Brief) -> &str {
    if brief.requirements.trim().is_empty() {
        "(see the task)"
    } else {
        &brief.requirements
    }
}

/// The first design of a scope.
pub fn design(brief: &Brief, context: &str) -> String {
    render(
        DESIGN,
        &[
            ("task_summary", &brief.task_summary),
            ("requirements", requirements(brief)),
            (
                "original_intent",
                if brief.original_intent.is_empty() {
                    "(not given)"
                } else {
                    &brief.original_intent
                },
            ),
            (
                "structured_requirements",
                &list(&brief.structured_requirements),
            ),
            ("nfrs", &list(&brief.nfrs)),
            ("ux_section", &ux_section(brief)),
            ("context_section", &context_section(context)),
            ("test_convention", &test_convention_text()),
        ],
    )
}

/// The test layout the design compiler checks (D022), in its own words, so the
/// first design and the checker agree: one line per language, then what needs none.
fn test_convention_text() -> String {
    use crate::design::lint::{DECLARATIVE_FILES, test_convention};
    use crate::design::model::Lang;
    let mut out = String::from(
        "Name and place each test by its language's convention; a test covers the module whose path it mirrors:\n",
    );
    for lang in Lang::ALL {
        let _ = writeln!(out, "- {}", test_convention(lang));
    }
    out.push_str(DECLARATIVE_FILES);
    out
}

/// The retry of an answer that had no section markers: the answer, and the markers
/// to put it under. Nothing else, so it costs a fraction of the call it repairs.
pub fn reformat(brief: &Brief) -> String {
    let markers: Vec<String> = Section::ALL
        .iter()
        .map(|s| format!("{}:", s.marker()))
        .collect();
    render(
        REFORMAT,
        &[
            ("markers", &markers.join("\n")),
            ("answer", brief.reformat.as_deref().unwrap_or_default()),
        ],
    )
}

/// A revision answering the reviewer's questions; earlier answers bind it.
pub fn update(brief: &Brief, context: &str) -> String {
    if let Some(repair) = &brief.repair {
        return crate::volk::patch_cycle::repair_prompt(brief, repair);
    }
    let answers_section = if brief.answers.is_empty() {
        String::new()
    } else {
        let mut lines = String::new();
        for (i, a) in brief.answers.iter().enumerate() {
            let _ = writeln!(
                lines,
                "{}. Q: {}\n   A: {}",
                i + 1,
                a.question.trim(),
                a.answer.trim()
            );
        }
        render(ANSWERS, &[("answers", &lines)])
    };
    let current = brief.current.as_ref().map(design_text).unwrap_or_default();
    let cycle = brief.cycle.saturating_sub(1).max(1).to_string();
    let opening = if brief.questions.is_empty() && !brief.lint_feedback.is_empty() {
        render(UPDATE_LINT, &[("cycle", &cycle)])
    } else {
        render(
            UPDATE_QUESTIONS,
            &[
                ("cycle", &cycle),
                (
                    "questions",
                    &list(
                        &brief
                            .questions
                            .iter()
                            .map(question_line)
                            .collect::<Vec<_>>(),
                    ),
                ),
            ],
        )
    };
    render(
        UPDATE,
        &[
            ("opening", &opening),
            ("answers_section", &answers_section),
            ("lint_section", &lint_section(brief)),
            ("review_section", &brief.review),
            ("task_summary", &brief.task_summary),
            ("requirements", requirements(brief)),
            ("ux_section", &ux_section(brief)),
            ("context_section", &context_section(context)),
            ("current_design", &current),
        ],
    )
}

/// The design compiler's findings on the current design, if any (`volk lint` codes).
fn lint_section(brief: &Brief) -> String {
    if brief.lint_feedback.is_empty() {
        return String::new();
    }
    format!(
        "\n# Problems the design compiler found in the current design\nFix every error; fix the warnings where the fix is right. Lines are those of `design/<artifact>.md`.\n{}",
        list(&brief.lint_feedback)
    )
}

/// The reflection pass before finalizing.
pub fn reflect(brief: &Brief) -> String {
    let current = brief.current.as_ref().map(design_text).unwrap_or_default();
    render(
        REFLECT,
        &[
            ("questions", &numbered(&brief.reflection_questions)),
            ("current_design", &current),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::volk::brief::Answer;

    #[test]
    fn render_is_single_pass() {
        let out = render("a {{x}} b {{y}} {{z}}", &[("x", "{{y}}"), ("y", "Y")]);
        assert_eq!(out, "a {{y}} b Y {{z}}");
    }

    #[test]
    fn the_design_prompt_states_the_test_convention_the_checker_enforces() {
        let prompt = design(&Brief::default(), "");
        for lang in crate::design::model::Lang::ALL {
            assert!(
                prompt.contains(crate::design::lint::test_convention(lang)),
                "{lang:?}"
            );
        }
        assert!(prompt.contains(crate::design::lint::DECLARATIVE_FILES));
        assert!(!prompt.contains("{{test_convention}}"));
    }

    #[test]
    fn cap_marks_truncation() {
        let text = "line\n".repeat(100);
        let out = cap(&text, 50);
        assert!(out.len() < 200);
        assert!(out.contains("truncated by volk"));
        assert_eq!(cap("short", 50), "short");
    }

    #[test]
    fn design_prompt_asks_for_markers_and_open_questions() {
        let brief = Brief {
            task_summary: "Build X".into(),
            ..Brief::default()
        };
        let p = design(&brief, "struct Foo;");
        for s in Section::ALL {
            assert!(p.contains(&format!("{}:", s.marker())));
        }
        assert!(p.contains("## Open questions"));
        assert!(p.contains("# Existing API sources"));
        assert!(p.contains("struct Foo;"));
    }

    #[test]
    fn a_repair_pass_of_the_design_compiler_claims_no_question_from_the_reviewer() {
        let brief = Brief {
            task_summary: "Build X".into(),
            cycle: 1,
            lint_feedback: vec!["error[D030] design/class_diagram.md:3:9: Phantom".into()],
            ..Brief::default()
        };
        let p = update(&brief, "");
        assert!(p.starts_with("The design compiler found problems"), "{p}");
        assert!(!p.contains("The reviewer's questions"), "{p}");
        assert!(
            !p.contains("cannot implement it without the answers"),
            "{p}"
        );
        assert!(p.contains("error[D030]"), "{p}");
        let asked = Brief {
            questions: vec!["Q1.1 Which schema?".into()],
            ..brief
        };
        let p = update(&asked, "");
        assert!(p.contains("The reviewer's questions"), "{p}");
        assert!(p.contains("Which schema?"), "{p}");
    }

    #[test]
    fn update_prompt_numbers_questions_and_binds_answers() {
        let brief = Brief {
            task_summary: "Build X".into(),
            cycle: 2,
            questions: vec!["What is the schema?".into(), "Flag or delete?".into()],
            answers: vec![Answer {
                question: "Shared?".into(),
                answer: "No".into(),
            }],
            current: Some(Artifacts {
                architecture: "A".into(),
                ..Artifacts::default()
            }),
            ..Brief::default()
        };
        let p = update(&brief, "");
        assert!(p.contains("- What is the schema?\n- Flag or delete?"));
        assert!(p.contains("CHANGES:"));
        assert!(p.contains("binding"));
        assert!(p.contains("Q: Shared?"));
        assert!(p.contains("ARCHITECTURE:\nA"));
        assert!(!p.contains("Existing API sources"));
    }
}
