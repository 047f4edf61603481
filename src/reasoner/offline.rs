//! The offline drafter: a deterministic reasoner that drafts a design from the scope
//! itself, with no model, key or network. It makes demos, tests and air-gapped runs
//! possible, and it streams through the same [`Reasoner`] trait as the HTTP providers so
//! the same parser path runs. Everything it writes says plainly that it was drafted
//! offline.

use std::fmt::Write as _;
use std::time::Duration;

use futures_util::StreamExt;

use crate::design::Section;
use crate::design::edit::repair::RepairKind;
use crate::design::edit::write::update_answer;
use crate::project::slug::slugify;
use crate::reasoner::{EventStream, Reasoner, ReasonerRequest, StreamEvent, Usage};
use crate::volk::brief::{Brief, Purpose};

/// Deterministic drafter. `pace` slows the stream down so a person can watch it.
#[derive(Debug, Clone, Default)]
pub struct OfflineDrafter {
    pace: Option<Duration>,
    chunk_bytes: usize,
}

impl OfflineDrafter {
    /// A drafter that waits `pace` between chunks of about `chunk_bytes` bytes.
    pub fn paced(pace: Duration, chunk_bytes: usize) -> Self {
        Self {
            pace: Some(pace),
            chunk_bytes,
        }
    }
}

impl Reasoner for OfflineDrafter {
    fn name(&self) -> &str {
        "offline"
    }

    fn model(&self) -> &str {
        "drafter"
    }

    fn stream(&self, request: ReasonerRequest) -> EventStream {
        let text = draft(request.purpose, &request.brief);
        let chunk = if self.chunk_bytes == 0 {
            64
        } else {
            self.chunk_bytes
        };
        let chunks = split_chunks(&text, chunk);
        let usage = Usage {
            prompt_tokens: (request.prompt.len() / 4) as u64,
            completion_tokens: (text.len() / 4) as u64,
        };
        let pace = self.pace;
        let body = futures_util::stream::iter(chunks).then(move |text| async move {
            if let Some(pace) = pace {
                tokio::time::sleep(pace).await;
            }
            Ok(StreamEvent::Text { text })
        });
        let tail = futures_util::stream::iter([
            Ok(StreamEvent::Usage { usage }),
            Ok(StreamEvent::Finished {
                stop_reason: Some("end_turn".to_string()),
            }),
        ]);
        Box::pin(body.chain(tail))
    }
}

/// Splits `text` into pieces of about `size` bytes on character boundaries.
fn split_chunks(text: &str, size: usize) -> Vec<String> {
    let mut out = Vec::with_capacity(text.len() / size + 1);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(text[start..end].to_string());
        start = end;
    }
    out
}

/// The full response text for one call.
pub fn draft(purpose: Purpose, brief: &Brief) -> String {
    match purpose {
        Purpose::Design => draft_design(brief),
        Purpose::Update => draft_update(brief),
        Purpose::Reflect => draft_reflection(brief),
        Purpose::Plan => draft_plan(brief),
    }
}

/// One unit of the drafted system, derived from one requirement.
struct Component {
    /// CapWords type name, e.g. `AddTasks`.
    name: String,
    /// snake_case module name, e.g. `add_tasks`.
    module: String,
    requirement: String,
}

const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "to", "for", "with", "in", "on", "by", "be", "as", "is",
    "all", "each", "any", "must", "should", "shall", "can", "will", "user", "users", "system",
    "allow", "allows", "able",
];

fn requirement_lines(brief: &Brief) -> Vec<String> {
    let mut lines: Vec<String> = brief
        .requirements
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches(|c: char| c.is_ascii_digit() || "-*.)# ".contains(c))
                .trim()
                .to_string()
        })
        .filter(|l| l.len() > 2)
        .collect();
    if lines.is_empty() {
        lines = brief.structured_requirements.clone();
    }
    if lines.is_empty() && !brief.task_summary.is_empty() {
        lines.push(brief.task_summary.clone());
    }
    lines
}

/// Words that end the object of a requirement's verb ("Attach short notes *to* a book").
const BOUNDARY_WORDS: &[&str] = &[
    "with", "to", "as", "by", "per", "and", "or", "in", "on", "for", "from", "into", "of", "at",
    "via", "using", "so", "that", "when", "if",
];

/// The requirement's verb and the noun it acts on: the last word before the first
/// boundary word ("Export the whole log as JSON" -> export, log), or the word right
/// after the verb when there is no boundary ("Mark tasks complete" -> mark, tasks).
fn verb_and_object(requirement: &str) -> Vec<String> {
    let words: Vec<String> = requirement
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let Some(verb_at) = words.iter().position(|w| !STOP_WORDS.contains(&w.as_str())) else {
        return Vec::new();
    };
    let rest = &words[verb_at + 1..];
    let phrase: Vec<&String> = rest
        .iter()
        .take_while(|w| !BOUNDARY_WORDS.contains(&w.as_str()))
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect();
    let bounded = rest.iter().any(|w| BOUNDARY_WORDS.contains(&w.as_str()));
    let object = if bounded {
        phrase.last()
    } else {
        phrase.first()
    };
    let mut out = vec![words[verb_at].clone()];
    out.extend(object.map(|w| (*w).clone()));
    out
}

fn components(brief: &Brief) -> Vec<Component> {
    let mut out: Vec<Component> = Vec::new();
    for requirement in requirement_lines(brief) {
        let words = verb_and_object(&requirement);
        if words.is_empty() {
            continue;
        }
        let module = words.join("_");
        if out.iter().any(|c| c.module == module) {
            continue;
        }
        let name = words
            .iter()
            .map(|w| {
                let mut chars = w.chars();
                chars
                    .next()
                    .map(|f| f.to_ascii_uppercase().to_string() + chars.as_str())
                    .unwrap_or_default()
            })
            .collect::<String>();
        out.push(Component {
            name,
            module,
            requirement,
        });
    }
    out
}

fn package_name(brief: &Brief) -> String {
    let base = if brief.project_name.is_empty() {
        &brief.task_summary
    } else {
        &brief.project_name
    };
    let slug = slugify(base).replace('-', "_");
    if slug.starts_with(|c: char| c.is_ascii_digit()) {
        format!("app_{slug}")
    } else {
        slug
    }
}

fn storage_choice(brief: &Brief) -> (&'static str, &'static str) {
    let scope = format!(
        "{} {} {}",
        brief.task_summary, brief.requirements, brief.original_intent
    )
    .to_ascii_lowercase();
    if scope.contains("sqlite") {
        ("SQLite", "sqlite3")
    } else if scope.contains("postgres") {
        ("PostgreSQL", "psycopg")
    } else {
        ("a JSON file", "json")
    }
}

fn draft_design(brief: &Brief) -> String {
    let package = package_name(brief);
    let comps = components(brief);
    let (storage, storage_lib) = storage_choice(brief);
    let mut out = String::with_capacity(8 * 1024);

    // ARCHITECTURE
    let _ = writeln!(out, "ARCHITECTURE:");
    let _ = writeln!(
        out,
        "# {} — architecture (cycle {})\n",
        package,
        brief.cycle.max(1)
    );
    let _ = writeln!(
        out,
        "> Drafted offline by volk's deterministic drafter from the scope alone; no model was consulted.\n"
    );
    if !brief.task_summary.is_empty() {
        let _ = writeln!(out, "Goal: {}\n", brief.task_summary);
    }
    let _ = writeln!(out, "## Components\n");
    let _ = writeln!(
        out,
        "1. **Cli** (`{package}.cli`): parses commands and calls one handler per command."
    );
    for (i, c) in comps.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}. **{}** (`{package}.{}`): implements \"{}\".",
            i + 2,
            c.name,
            c.module,
            c.requirement
        );
    }
    let _ = writeln!(
        out,
        "{}. **Store** (`{package}.store`): persists records in {storage}; the only component that touches storage.",
        comps.len() + 2
    );
    let _ = writeln!(out, "\n## Data flow\n");
    let _ = writeln!(
        out,
        "Cli -> handler -> Store -> handler -> Cli (printed result).\n"
    );
    let _ = writeln!(out, "## Traceability\n");
    for (i, c) in comps.iter().enumerate() {
        let _ = writeln!(
            out,
            "- FR-{:02}: served by {} (`{package}.{}`).",
            i + 1,
            c.name,
            c.module
        );
    }
    let _ = writeln!(
        out,
        "- Store (`{package}.store`) follows ADR-001 and ADR-002.\n"
    );
    if let Some(ux) = &brief.ux_design {
        let _ = writeln!(
            out,
            "## UX\n\nThe UX design is followed as given:\n\n{}\n",
            ux.trim()
        );
    }
    let _ = writeln!(out, "## Decisions (ADRs)\n");
    let _ = writeln!(
        out,
        "- ADR-001: handlers depend on a `Store` interface, not on {storage} directly, so tests can use a temporary store."
    );
    let _ = writeln!(
        out,
        "- ADR-002: storage is {storage} (module `{storage_lib}`), chosen from the scope's wording; revisit if the reviewer disagrees."
    );
    for (i, a) in brief.answers.iter().enumerate() {
        let _ = writeln!(
            out,
            "- ADR-{:03}: reviewer decision on \"{}\": {}",
            i + 3,
            a.question.trim(),
            a.answer.trim()
        );
    }
    let _ = writeln!(out, "\n## Open questions\n");
    if brief.questions.is_empty() {
        let _ = writeln!(
            out,
            "1. How should invalid input be reported? Assumed: a one-line error and a non-zero exit status."
        );
        let _ = writeln!(
            out,
            "2. Must data survive concurrent writers? Assumed: a single writer at a time."
        );
    } else {
        for (i, q) in brief.questions.iter().enumerate() {
            let thread = q
                .thread
                .as_ref()
                .map(|id| format!(", thread {id}"))
                .unwrap_or_default();
            let question = &q.text;
            let _ = writeln!(
                out,
                "{}. {} Assumed: the current design stands until the reviewer answers (recorded by the offline drafter{thread}; a model-backed reasoner would answer it).",
                i + 1,
                question.trim()
            );
        }
    }
    out.push('\n');

    // REQUIREMENTS
    let _ = writeln!(out, "REQUIREMENTS:");
    let _ = writeln!(out, "FUNCTIONAL:");
    for (i, c) in comps.iter().enumerate() {
        let _ = writeln!(out, "{}. FR-{:02}: {}", i + 1, i + 1, c.requirement);
    }
    let _ = writeln!(out, "\nNON-FUNCTIONAL:");
    if brief.nfrs.is_empty() {
        let _ = writeln!(
            out,
            "1. NFR-01: Every command answers within 200 ms on local data."
        );
    } else {
        for (i, n) in brief.nfrs.iter().enumerate() {
            let _ = writeln!(out, "{}. NFR-{:02}: {}", i + 1, i + 1, n.trim());
        }
    }
    let _ = writeln!(out, "\nERRORS:");
    let _ = writeln!(
        out,
        "1. ERR-01: Invalid input is refused with a message naming the field."
    );
    let _ = writeln!(
        out,
        "2. ERR-02: A storage failure is reported and leaves stored data unchanged.\n"
    );

    // FILE_TREE
    let _ = writeln!(out, "FILE_TREE:");
    let _ = writeln!(out, "src/");
    let _ = writeln!(out, "└── {package}/");
    let _ = writeln!(out, "    ├── __init__.py");
    let _ = writeln!(out, "    ├── cli.py");
    for c in &comps {
        let _ = writeln!(out, "    ├── {}.py", c.module);
    }
    let _ = writeln!(out, "    └── store.py");
    let _ = writeln!(out, "tests/");
    let _ = writeln!(out, "├── test_cli.py");
    for c in &comps {
        let _ = writeln!(out, "├── test_{}.py", c.module);
    }
    let _ = writeln!(out, "└── test_store.py\n");

    // API_SPEC
    let _ = writeln!(out, "API_SPEC:");
    let _ = writeln!(out, "Module: src/{package}/cli.py");
    let _ = writeln!(out, "  main(argv: list[str] | None = None) -> int\n");
    for c in &comps {
        let _ = writeln!(out, "Module: src/{package}/{}.py", c.module);
        let _ = writeln!(out, "  class {}:", c.name);
        let _ = writeln!(out, "    __init__(self, store: Store) -> None");
        let _ = writeln!(out, "    run(self, args: dict[str, str]) -> str\n");
    }
    let _ = writeln!(out, "Module: src/{package}/store.py");
    let _ = writeln!(out, "  class Store:");
    let _ = writeln!(out, "    __init__(self, path: str) -> None");
    let _ = writeln!(out, "    save(self, record: dict[str, object]) -> int");
    let _ = writeln!(out, "    load_all(self) -> list[dict[str, object]]\n");

    // CLASS_DIAGRAM
    let _ = writeln!(out, "CLASS_DIAGRAM:");
    let _ = writeln!(out, "classDiagram");
    for c in &comps {
        let _ = writeln!(out, "  class {} {{\n    +run(args) str\n  }}", c.name);
    }
    let _ = writeln!(
        out,
        "  class Store {{\n    +save(record) int\n    +load_all() list\n  }}"
    );
    for c in &comps {
        let _ = writeln!(out, "  {} --> Store", c.name);
    }
    // An update accounts for its changes, one line per review thread (`Q1.2: …`).
    let threads: Vec<String> = brief
        .questions
        .iter()
        .filter_map(|q| q.thread.clone())
        .collect();
    if !threads.is_empty() {
        let _ = writeln!(out, "\nCHANGES:");
        for id in threads {
            let _ = writeln!(
                out,
                "- {id} architecture: recorded the question under Open questions"
            );
        }
    }
    out
}

/// An update answered as a model is asked to: edit blocks for the sections that
/// change (the cycle heading, the recorded questions, the decisions added), nothing
/// for the rest. A repair request gets blocks, or whole sections, for the sections it
/// names.
fn draft_update(brief: &Brief) -> String {
    let full = draft_design(brief);
    let target = crate::design::parser::parse(&full);
    let current = brief.current.clone().unwrap_or_default();
    let mut out = match &brief.repair {
        None => update_answer(&current, &target, &Section::ALL, false),
        Some(repair) => {
            let sections: Vec<Section> = repair.sections.iter().map(|s| s.section).collect();
            update_answer(
                &current,
                &target,
                &sections,
                repair.kind == RepairKind::Full,
            )
        }
    };
    // The account of the changes goes with the blocks, as a model's would (a repair
    // answer adds none: the first answer's account is kept).
    if let Some(changes) = crate::design::parser::sections(&full)
        .changes()
        .filter(|_| brief.repair.is_none())
    {
        out.push_str("\nCHANGES:\n");
        out.push_str(changes);
        out.push('\n');
    }
    out
}

fn draft_reflection(brief: &Brief) -> String {
    let mut out = String::new();
    let files = brief
        .current
        .as_ref()
        .map(|a| a.file_tree.lines().filter(|l| l.contains(".py")).count())
        .unwrap_or(0);
    for (i, q) in brief.reflection_questions.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}. {}\n   Verdict: drafted offline, not evaluated by a model.\n   Evidence: the design names {files} Python files.\n   Next: review this point with a model-backed reasoner.",
            i + 1,
            q.trim()
        );
    }
    out
}

fn draft_plan(brief: &Brief) -> String {
    let mut modules: Vec<String> = brief
        .current
        .as_ref()
        .map(|a| {
            a.file_tree
                .lines()
                .filter_map(|l| {
                    let name =
                        l.trim_start_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_');
                    let stem = name.strip_suffix(".py")?;
                    (!stem.starts_with("test_") && stem != "__init__").then(|| stem.to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    // The same module name can appear in several directories (`api/models.py`,
    // `admin/models.py`); stage ids must stay unique, so keep the first.
    let mut seen = std::collections::HashSet::new();
    modules.retain(|m| seen.insert(slugify(m)));
    if modules.is_empty() {
        modules.push("app".to_string());
    }
    let mut stages = Vec::new();
    let mut edges = Vec::new();
    let mut previous: Option<(String, String)> = None;
    for m in &modules {
        let id = format!("implement_{}", slugify(m).replace('-', "_"));
        let produces = format!("{id}_files");
        let needs: Vec<String> = match &previous {
            Some((_, p)) => vec!["analysis".to_string(), p.clone()],
            None => vec!["analysis".to_string()],
        };
        stages.push(serde_json::json!({
            "id": id,
            "role": "implementer",
            "prompt": format!("Implement module `{m}` exactly as the API spec and file tree of the finalized design describe, with its tests."),
            "produces": produces,
            "kind": "file_written",
            "needs": needs,
            "tools": ["file_read", "file_write", "file_edit", "ShellTool"],
        }));
        if let Some((pid, pproduces)) = &previous {
            edges.push(serde_json::json!({
                "from": pid, "to": id,
                "condition": {"type": "artifact_validated", "artifact_id": pproduces}
            }));
        }
        previous = Some((id, produces));
    }
    let (last_id, last_produces) = previous.unwrap_or_default();
    let first_id = stages
        .first()
        .and_then(|s| s["id"].as_str())
        .unwrap_or_default()
        .to_string();
    stages.push(serde_json::json!({
        "id": "review_implementation",
        "role": "reviewer",
        "prompt": "Review the implementation against the design: every requirement met, every signature as specified, tests passing. Set verdict to approved or list what must change.",
        "produces": "implementation_review",
        "kind": "review_report",
        "needs": [last_produces],
    }));
    edges.push(serde_json::json!({
        "from": last_id, "to": "review_implementation",
        "condition": {"type": "artifact_validated", "artifact_id": last_produces}
    }));
    edges.push(serde_json::json!({
        "from": "review_implementation", "to": "done",
        "condition": {"type": "artifact_field_equals", "artifact_id": "implementation_review",
                       "field": "verdict", "value": "approved", "operator": "eq"}
    }));
    edges.push(serde_json::json!({
        "from": "review_implementation", "to": first_id,
        "condition": {"type": "artifact_field_equals", "artifact_id": "implementation_review",
                       "field": "verdict", "value": "approved", "operator": "neq"}
    }));
    let goal = if brief.task_summary.is_empty() {
        "Implement the finalized design.".to_string()
    } else {
        format!(
            "Implement the finalized design: {}.",
            brief.task_summary.trim_end_matches('.')
        )
    };
    let plan = serde_json::json!({"goal": goal, "stages": stages, "edges": edges});
    serde_json::to_string_pretty(&plan).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::parser::parse;

    fn brief() -> Brief {
        Brief {
            task_summary: "Build a task management CLI with SQLite storage".into(),
            project_name: "taskman".into(),
            requirements:
                "1. Add tasks with name and due date\n2. List all tasks\n3. Mark tasks complete"
                    .into(),
            nfrs: vec!["Response time < 200ms".into()],
            cycle: 1,
            ..Brief::default()
        }
    }

    #[test]
    fn design_has_all_five_sections_and_says_offline() {
        let a = parse(&draft(Purpose::Design, &brief()));
        for (s, text) in a.iter() {
            assert!(!text.is_empty(), "{s:?} empty");
        }
        assert!(a.architecture.contains("offline"));
        assert!(a.architecture.contains("## Open questions"));
        assert!(a.requirements.contains("FR-03: Mark tasks complete"));
        assert!(a.requirements.contains("NFR-01: Response time < 200ms"));
        assert!(a.file_tree.contains("add_tasks.py"));
        assert!(a.class_diagram.starts_with("classDiagram"));
        assert!(a.architecture.contains("SQLite"));
    }

    #[test]
    fn update_records_each_question() {
        let mut b = brief();
        b.questions = vec!["What is the schema?".into(), "Delete or flag?".into()];
        let a = parse(&draft(Purpose::Update, &b));
        assert!(a.architecture.contains("1. What is the schema?"));
        assert!(a.architecture.contains("2. Delete or flag?"));
    }

    #[test]
    fn components_are_named_by_verb_and_object() {
        let names = |r: &str| verb_and_object(r).join("_");
        assert_eq!(names("Attach short notes to a book"), "attach_notes");
        assert_eq!(
            names("Export the whole log as JSON for backup"),
            "export_log"
        );
        assert_eq!(names("Mark tasks complete"), "mark_tasks");
        assert_eq!(names("Add tasks with name and due date"), "add_tasks");
        assert_eq!(names("List all tasks"), "list_tasks");
        assert_eq!(names("Search books and notes by a word"), "search_books");
    }

    #[test]
    fn an_update_accounts_for_each_thread() {
        let mut b = brief();
        b.cycle = 2;
        b.current = Some(parse(&draft(Purpose::Design, &b)));
        b.questions = vec![crate::volk::brief::Question {
            thread: Some("Q1.1".into()),
            ..crate::volk::brief::Question::new("What is the schema?")
        }];
        let text = draft(Purpose::Update, &b);
        let changes = crate::design::parser::sections(&text)
            .changes()
            .map(str::to_string);
        assert_eq!(
            changes.as_deref(),
            Some("- Q1.1 architecture: recorded the question under Open questions"),
            "{text}"
        );
    }

    #[test]
    fn drafting_is_deterministic() {
        assert_eq!(
            draft(Purpose::Design, &brief()),
            draft(Purpose::Design, &brief())
        );
    }

    #[tokio::test]
    async fn stream_concatenates_to_the_draft() {
        let req = ReasonerRequest {
            purpose: Purpose::Design,
            system: String::new(),
            prompt: "p".into(),
            max_tokens: 100,
            brief: std::sync::Arc::new(brief()),
        };
        let got = crate::reasoner::collect(OfflineDrafter::default().stream(req))
            .await
            .unwrap();
        assert_eq!(got.text, draft(Purpose::Design, &brief()));
        assert!(got.usage.is_some());
    }
}
