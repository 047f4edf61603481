//! The offline drafter: a deterministic reasoner that drafts a design from the scope
//! itself, with no model, key or network. It makes demos, tests and air-gapped runs
//! possible, and it streams through the same [`Reasoner`] trait as the HTTP providers so
//! the same parser path runs. Everything it writes says plainly that it was drafted
//! offline.

mod scope;

use std::fmt::Write as _;
use std::time::Duration;

use futures_util::StreamExt;

use crate::brief::{Brief, Purpose};
use crate::design::Section;
use crate::design::edit::repair::RepairKind;
use crate::design::edit::write::update_answer;
use crate::project::slug::slugify;
use crate::reasoner::{EventStream, Reasoner, ReasonerRequest, StreamEvent, Usage};

use scope::{Family, SystemKind, requirement_items, system_kind};

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

    fn label(&self) -> String {
        "offline drafter (no model)".to_string()
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
            cached_prompt_tokens: 0,
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

/// One unit of the drafted system, derived from the functional requirements that
/// name the same verb and object.
struct Component {
    /// CapWords type name, e.g. `AddTasks`.
    name: String,
    /// snake_case module name, e.g. `add_tasks`.
    module: String,
    /// The first requirement it implements, as written.
    requirement: String,
}

/// What the drafter works from: the scope's requirements by family (texts exactly as
/// written) and the components of the functional ones.
struct Drafted {
    functional: Vec<String>,
    non_functional: Vec<String>,
    errors: Vec<String>,
    components: Vec<Component>,
    /// For each functional requirement, the component that serves it (`None`: the
    /// entry point serves it).
    served_by: Vec<Option<usize>>,
    kind: SystemKind,
}

const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "to", "for", "with", "in", "on", "by", "be", "as", "is",
    "all", "each", "any", "must", "should", "shall", "can", "will", "user", "users", "system",
    "allow", "allows", "able", "let", "lets", "owner", "owners", "visitor", "visitors", "instead",
];

/// The scope's requirement items: the `requirements` text, else the structured
/// list, else the task summary.
fn requirement_lists(brief: &Brief) -> (Vec<String>, Vec<String>, Vec<String>) {
    let (mut functional, mut non_functional, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for item in requirement_items(&brief.requirements) {
        match item.family {
            Family::Functional => functional.push(item.text),
            Family::NonFunctional => non_functional.push(item.text),
            Family::Error => errors.push(item.text),
        }
    }
    if functional.is_empty() {
        functional = brief
            .structured_requirements
            .iter()
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty())
            .collect();
    }
    if functional.is_empty() && !brief.task_summary.trim().is_empty() {
        functional.push(brief.task_summary.trim().to_string());
    }
    (functional, non_functional, errors)
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

/// Module names the drafter writes itself, which a component must not take.
const RESERVED_MODULES: &[&str] = &["cli", "api", "store", "main", "app"];

fn draft_scope(brief: &Brief) -> Drafted {
    let (functional, mut non_functional, errors) = requirement_lists(brief);
    non_functional.extend(
        brief
            .nfrs
            .iter()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty()),
    );
    let mut components: Vec<Component> = Vec::new();
    let mut served_by = Vec::with_capacity(functional.len());
    for requirement in &functional {
        let words = verb_and_object(requirement);
        if words.is_empty() {
            served_by.push(None);
            continue;
        }
        let mut module = words.join("_");
        if module.starts_with(|c: char| c.is_ascii_digit())
            || RESERVED_MODULES.contains(&module.as_str())
        {
            module = format!("feature_{module}");
        }
        if let Some(at) = components.iter().position(|c| c.module == module) {
            served_by.push(Some(at));
            continue;
        }
        let name = module
            .split('_')
            .map(|w| {
                let mut chars = w.chars();
                chars
                    .next()
                    .map(|f| f.to_ascii_uppercase().to_string() + chars.as_str())
                    .unwrap_or_default()
            })
            .collect::<String>();
        served_by.push(Some(components.len()));
        components.push(Component {
            name,
            module,
            requirement: requirement.clone(),
        });
    }
    let scope = format!(
        "{} {} {}",
        brief.task_summary, brief.requirements, brief.original_intent
    );
    Drafted {
        functional,
        non_functional,
        errors,
        components,
        served_by,
        kind: system_kind(&scope),
    }
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

/// The drafted entry point, which depends on the kind of system the scope asks for.
struct Entry {
    name: &'static str,
    module: &'static str,
    role: &'static str,
    flow: &'static str,
    functions: &'static [&'static str],
    invalid_input: &'static str,
    default_nfr: &'static str,
}

impl Entry {
    fn of(kind: SystemKind) -> Entry {
        match kind {
            SystemKind::Cli => Entry {
                name: "Cli",
                module: "cli",
                role: "parses commands and calls one handler per command.",
                flow: "Cli -> handler -> Store -> handler -> Cli (printed result).",
                functions: &["main(argv: list[str] | None = None) -> int"],
                invalid_input: "a one-line error and a non-zero exit status",
                default_nfr: "Every command answers within 200 ms on local data.",
            },
            SystemKind::WebService => Entry {
                name: "Api",
                module: "api",
                role: "routes each HTTP request to one handler per endpoint and turns its result into a response.",
                flow: "HTTP request -> Api -> handler -> Store -> handler -> Api (HTTP response).",
                functions: &[
                    "serve(host: str, port: int) -> None",
                    "handle(method: str, path: str, body: bytes) -> tuple[int, bytes]",
                ],
                invalid_input: "HTTP 400 with a body naming the field",
                default_nfr: "Every request is answered within 200 ms on local data.",
            },
        }
    }
}

fn draft_design(brief: &Brief) -> String {
    let package = package_name(brief);
    let drafted = draft_scope(brief);
    let comps = &drafted.components;
    let entry = Entry::of(drafted.kind);
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
        "1. **{}** (`{package}.{}`): {}",
        entry.name, entry.module, entry.role
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
    let _ = writeln!(out, "{}\n", entry.flow);
    let _ = writeln!(out, "## Traceability\n");
    for (i, served) in drafted.served_by.iter().enumerate() {
        let (name, module) = match served.and_then(|c| comps.get(c)) {
            Some(c) => (c.name.as_str(), c.module.as_str()),
            None => (entry.name, entry.module),
        };
        let _ = writeln!(
            out,
            "- FR-{:02}: served by {name} (`{package}.{module}`).",
            i + 1
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
            "1. How should invalid input be reported? Assumed: {}.",
            entry.invalid_input
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
    for (i, r) in drafted.functional.iter().enumerate() {
        let _ = writeln!(out, "{}. FR-{:02}: {r}", i + 1, i + 1);
    }
    let _ = writeln!(out, "\nNON-FUNCTIONAL:");
    if drafted.non_functional.is_empty() {
        let _ = writeln!(out, "1. NFR-01: {}", entry.default_nfr);
    } else {
        for (i, n) in drafted.non_functional.iter().enumerate() {
            let _ = writeln!(out, "{}. NFR-{:02}: {n}", i + 1, i + 1);
        }
    }
    let _ = writeln!(out, "\nERRORS:");
    let default_errors = [
        "Invalid input is refused with a message naming the field.",
        "A storage failure is reported and leaves stored data unchanged.",
    ];
    let errors: Vec<&str> = if drafted.errors.is_empty() {
        default_errors.to_vec()
    } else {
        drafted.errors.iter().map(String::as_str).collect()
    };
    for (i, e) in errors.iter().enumerate() {
        let _ = writeln!(out, "{}. ERR-{:02}: {e}", i + 1, i + 1);
    }
    out.push('\n');

    // FILE_TREE
    let _ = writeln!(out, "FILE_TREE:");
    let _ = writeln!(out, "src/");
    let _ = writeln!(out, "└── {package}/");
    let _ = writeln!(out, "    ├── __init__.py");
    let _ = writeln!(out, "    ├── {}.py", entry.module);
    for c in comps {
        let _ = writeln!(out, "    ├── {}.py", c.module);
    }
    let _ = writeln!(out, "    └── store.py");
    let _ = writeln!(out, "tests/");
    let _ = writeln!(out, "├── test_{}.py", entry.module);
    for c in comps {
        let _ = writeln!(out, "├── test_{}.py", c.module);
    }
    let _ = writeln!(out, "└── test_store.py\n");

    // API_SPEC
    let _ = writeln!(out, "API_SPEC:");
    let _ = writeln!(out, "Module: src/{package}/{}.py", entry.module);
    for signature in entry.functions {
        let _ = writeln!(out, "  {signature}");
    }
    out.push('\n');
    for c in comps {
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
    for c in comps {
        let _ = writeln!(out, "  class {} {{\n    +run(args) str\n  }}", c.name);
    }
    let _ = writeln!(
        out,
        "  class Store {{\n    +save(record) int\n    +load_all() list\n  }}"
    );
    for c in comps {
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
        b.questions = vec![crate::brief::Question {
            thread: Some("Q1.1".into()),
            ..crate::brief::Question::new("What is the schema?")
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
