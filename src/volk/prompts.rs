//! Renders the prompts in `assets/prompts/` (compiled into the binary).
//!
//! Templates use `{{name}}` slots, filled in one pass: text that is injected (requirements,
//! source code, the current design) is never scanned for slots again, so braces in it
//! are harmless.

use std::fmt::Write as _;

use crate::brief::{Brief, Question};
use crate::design::{Artifacts, Section};

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

use crate::template::render;

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

/// The rules of the first prompt, one per line: what the design compiler checks and
/// what the scope fixes (project name, language and stack, test naming).
fn design_rules(brief: &Brief, context: &str) -> String {
    use crate::volk::conventions as c;
    let mut scope_texts: Vec<&str> = vec![
        &brief.task_summary,
        &brief.requirements,
        &brief.original_intent,
    ];
    scope_texts.extend(brief.structured_requirements.iter().map(String::as_str));
    scope_texts.extend(brief.nfrs.iter().map(String::as_str));
    if let Some(ux) = &brief.ux_design {
        scope_texts.push(ux);
    }
    let mut rules = Vec::new();
    let name = brief.project_name.trim();
    if !name.is_empty() {
        rules.push(format!(
            "- The project is called `{name}`: use that name in ARCHITECTURE, and derive the top-level package or module from it as the language allows (`library-loans` becomes `libraryloans` in Java, `library_loans` in Python)."
        ));
    }
    let stack = c::stack_in_scope(&scope_texts);
    let stack_text = if stack.is_empty() {
        String::new()
    } else {
        format!("; the scope names this stack: {}", stack.join(", "))
    };
    let language = match c::language_in_scope(&scope_texts) {
        Some((language, line)) => {
            rules.push(format!(
                "- Target language: {} (the scope says: \"{}\"){stack_text}. State {} in ARCHITECTURE.",
                language.name(),
                line,
                if stack.is_empty() { "it" } else { "both" }
            ));
            Some(language)
        }
        None => match c::language_in_context(context) {
            Some(language) => {
                rules.push(format!(
                    "- Target language: {}, the language of the existing sources below{stack_text}. State it in ARCHITECTURE.",
                    language.name()
                ));
                Some(language)
            }
            None => {
                rules.push(format!(
                    "- Target language: the scope names none: choose one and state it in ARCHITECTURE{stack_text}."
                ));
                None
            }
        },
    };
    rules.push(format!("- {}", c::test_convention(language)));
    rules.push(
        "- Every class in CLASS_DIAGRAM appears in API_SPEC under the same name, with the same methods.".into(),
    );
    rules.push(
        "- Every requirement is cited by its id (FR-01, NFR-01, ERR-01, …) as REQUIREMENTS defines it; ARCHITECTURE, API_SPEC and the open questions use only those ids.".into(),
    );
    rules.join("\n")
}

/// The scope's own sections; one with nothing in it is left out, never printed empty.
fn scope_sections(brief: &Brief) -> String {
    let mut out = String::new();
    let mut section = |title: &str, body: &str| {
        if !body.trim().is_empty() {
            let _ = write!(out, "\n# {title}\n{}\n", body.trim_end());
        }
    };
    section("Task", &brief.task_summary);
    // A requirements file is the whole scope: its title is the task already.
    section("Requirements", &brief.requirements);
    section("Intent", &brief.original_intent);
    if !brief.structured_requirements.is_empty() {
        section(
            "Structured requirements",
            &list(&brief.structured_requirements),
        );
    }
    if !brief.nfrs.is_empty() {
        section("Non-functional requirements", &list(&brief.nfrs));
    }
    out
}

/// The first design of a scope.
pub fn design(brief: &Brief, context: &str) -> String {
    render(
        DESIGN,
        &[
            ("rules", &design_rules(brief, context)),
            ("scope_sections", &scope_sections(brief)),
            ("ux_section", &ux_section(brief)),
            ("context_section", &context_section(context)),
        ],
    )
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
                "- OQ{}: Q: {}\n  A: {}",
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
    let mut prompt = render(
        REFLECT,
        &[
            ("questions", &numbered(&brief.reflection_questions)),
            ("current_design", &current),
        ],
    );
    prompt.push_str(&still_open(brief));
    prompt
}

/// What the design still leaves open at READY (the design compiler's findings and
/// the threads not addressed), for the reflection to weigh; empty when nothing is.
fn still_open(brief: &Brief) -> String {
    if brief.lint_feedback.is_empty() && brief.questions.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n\n# Still open at READY\nThe reviewer answered READY with these left open. Take them into account; do not claim the design is free of them.\n",
    );
    if !brief.lint_feedback.is_empty() {
        out.push_str("\nThe design compiler's findings:\n");
        out.push_str(&list(&brief.lint_feedback));
    }
    if !brief.questions.is_empty() {
        out.push_str("\nReview threads not addressed:\n");
        out.push_str(&list(
            &brief
                .questions
                .iter()
                .map(question_line)
                .collect::<Vec<_>>(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brief::Answer;

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

    fn first_prompt_of(scope: crate::cxp::Scope) -> String {
        let session = crate::volk::session::Session::new("t", "r", "/tmp/p".into(), scope, 3);
        design(&session.brief(crate::brief::Purpose::Design), "")
    }

    #[test]
    fn the_bundled_example_gets_its_name_language_and_test_convention() {
        let (scope, _, _) = crate::volk::runtime::scope_from_packet(
            "assets/demo/scope.json",
            crate::tui::cli::DEMO_SCOPE,
        )
        .unwrap();
        let p = first_prompt_of(scope);
        assert!(p.contains("The project is called `bookshelf`"), "{p}");
        assert!(
            p.contains("Target language: Python (the scope says: \"Runs on Python 3.11+ with the standard library only\"); the scope names this stack: SQLite, the standard library only."),
            "{p}"
        );
        assert!(
            p.contains(crate::design::lint::test_convention(
                crate::design::model::Lang::Python
            )),
            "{p}"
        );
        assert!(
            p.contains("Every class in CLASS_DIAGRAM appears in API_SPEC"),
            "{p}"
        );
        assert!(p.contains("Every requirement is cited by its id"), "{p}");
        assert!(
            p.contains("# Non-functional requirements\n- Every command answers"),
            "{p}"
        );
        assert!(!p.contains("(none)") && !p.contains("(not given)"), "{p}");
        assert!(!p.contains("{{"), "{p}");
    }

    #[test]
    fn a_markdown_scope_is_named_after_its_title_and_prints_no_empty_section() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scope.md");
        std::fs::write(
            &path,
            "# Link shortener\n\nA web service written in Go that stores links in Redis.\n\n## Non-functional requirements\n\n- Redirects answer within 50 ms\n",
        )
        .unwrap();
        let (scope, _, _) = crate::volk::runtime::load_design_input(&path).unwrap();
        let p = first_prompt_of(scope);
        assert!(p.contains("The project is called `Link shortener`"), "{p}");
        assert!(p.contains("Target language: Go"), "{p}");
        assert!(p.contains("Redis"), "{p}");
        assert!(
            p.contains(crate::design::lint::test_convention(
                crate::design::model::Lang::Go
            )),
            "{p}"
        );
        assert!(!p.contains("(none)") && !p.contains("(not given)"), "{p}");
        for empty in [
            "# Non-functional requirements",
            "# Structured requirements",
            "# Intent",
        ] {
            assert!(!p.lines().any(|l| l == empty), "{empty}: {p}");
        }
        assert!(p.contains("# Requirements\n# Link shortener\n"), "{p}");

        // No language named anywhere: the architect picks one and says so.
        std::fs::write(&path, "A small reading log\n\n1. Register a book\n").unwrap();
        let (scope, _, _) = crate::volk::runtime::load_design_input(&path).unwrap();
        assert_eq!(scope.project_name, "scope");
        let p = first_prompt_of(scope);
        assert!(p.contains("choose one and state it in ARCHITECTURE"), "{p}");
        assert!(
            p.contains(crate::design::lint::test_convention(
                crate::design::model::Lang::Java
            )),
            "{p}"
        );
        assert!(
            p.contains("_test.go") && p.contains(".spec.ts") && p.contains("#[cfg(test)]"),
            "{p}"
        );
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
        assert!(
            p.split("# This revision").nth(1).is_some_and(|tail| tail
                .trim_start()
                .starts_with("The design compiler found problems")),
            "{p}"
        );
        assert!(p.starts_with("# How to answer"), "stable text first: {p}");
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
