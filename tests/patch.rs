//! Patch cycles headless: real `volk run` processes against an OpenAI-compatible
//! provider on 127.0.0.1 that answers with scripted text, real temp workspaces and git.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::support;
use support::provider::Provider;

const SCOPE: &str = include_str!("fixtures/packets/example1_scope.json");
const QUESTIONS: &str = include_str!("fixtures/packets/example2_questions.json");

/// The first design, as a model writes it.
const DESIGN: &str = "ARCHITECTURE:
# taskman

## Components
1. Cli: parses commands.
2. Store: SQLite persistence.

## Open questions
1. Schema? Assumed: one table.

REQUIREMENTS:
1. FR-01: Add a task with a name and a due date.
2. FR-02: List all tasks.
3. FR-03: Mark a task complete.

FILE_TREE:
src/
└── taskman/
    ├── cli.py
    └── store.py

API_SPEC:
Module: src/taskman/store.py
  class Store:
    add_task(self, name: str, due: str) -> int
    list_tasks(self) -> list[Task]
    complete(self, task_id: int) -> None

CLASS_DIAGRAM:
classDiagram
  Cli --> Store
";

struct Run {
    output: Output,
}

impl Run {
    fn packet(&self) -> Value {
        assert_eq!(
            self.output.status.code(),
            Some(0),
            "stderr: {}",
            String::from_utf8_lossy(&self.output.stderr)
        );
        serde_json::from_slice(&self.output.stdout).unwrap()
    }
}

fn send(workspace: &Path, provider: &Provider, packet: &str) -> Run {
    let args = [
        "--reasoner",
        "openai",
        "--model",
        "scripted",
        "--base-url",
        &provider.v1(),
    ];
    volk_run(workspace, &args, packet)
}

fn volk_run(workspace: &Path, args: &[&str], packet: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(["run", "--packet", "-", "--workspace"])
        .arg(workspace)
        // The scripted designs are not written to compile clean: no repair pass of the
        // design compiler, so every request the server sees is the patch cycle's.
        .args(["--lint-repairs", "0"])
        .args(args)
        .current_dir(workspace)
        .env("OPENAI_API_KEY", "sk-test-not-a-real-key")
        .env("VOLK_LOG", workspace.join("volk.log"))
        .env("VOLK_CONFIG_DIR", workspace.join("no-user-config"))
        .env_remove("VOLK_REASONER")
        .env_remove("VOLK_BASE_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(packet.as_bytes())
        .unwrap();
    Run {
        output: child.wait_with_output().unwrap(),
    }
}

const FILES: [(&str, &str); 5] = [
    ("architecture", "architecture.md"),
    ("requirements", "requirements.md"),
    ("file_tree", "file_tree.md"),
    ("api_spec", "api_spec.md"),
    ("class_diagram", "class_diagram.md"),
];

/// An artifact as volk reads it back from `design/` (the class diagram without the
/// Mermaid fence it is written in).
fn design_file(dir: &Path, name: &str) -> String {
    let artifacts = volk::design::write::read_design_docs(&dir.join("design")).unwrap();
    let section = volk::design::Section::ALL
        .into_iter()
        .find(|s| s.file_name() == name)
        .unwrap();
    artifacts.get(section).trim().to_string()
}

/// The packet's artifacts are the whole files on disk, never edit blocks.
fn assert_whole(packet: &Value, dir: &Path) {
    for (key, file) in FILES {
        let text = packet["payload"][key].as_str().unwrap();
        assert_eq!(text.trim(), design_file(dir, file), "{key}");
        for marker in ["<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"] {
            assert!(!text.contains(marker), "{key} carries an edit block");
        }
    }
}

fn journal(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join(".volk/journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs the scope (answered by [`DESIGN`]) and returns the project directory.
fn designed(workspace: &Path, provider: &Provider) -> PathBuf {
    let first = send(workspace, provider, SCOPE).packet();
    assert_eq!(first["payload"]["design_cycle"], 1);
    let dir = PathBuf::from(first["payload"]["project_dir"].as_str().unwrap());
    assert_whole(&first, &dir);
    assert_eq!(
        first["payload"]["cost"]["streamed_tokens"],
        tokens(DESIGN.len()),
        "cycle 1 streams the whole design"
    );
    dir
}

fn block(search: &str, replace: &str) -> String {
    format!("<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n")
}

fn tokens(bytes: usize) -> u64 {
    bytes.div_ceil(4) as u64
}

#[test]
fn blocks_for_two_sections_patch_them_and_keep_the_other_three() {
    let update = format!(
        "API_SPEC:\n{}\nARCHITECTURE:\n{}",
        block(
            "    add_task(self, name: str, due: str) -> int",
            "    add_task(self, name: str, due: date, priority: int = 0) -> int"
        ),
        // Written with trailing spaces the section does not have: still one match.
        block(
            "1. Schema? Assumed: one table.   ",
            "1. Schema: tasks(id INTEGER PRIMARY KEY, name TEXT, due DATE, done INTEGER)."
        ),
    );
    let provider = Provider::scripted(vec![DESIGN.to_string(), update.clone()]);
    let ws = tempfile::tempdir().unwrap();
    let dir = designed(ws.path(), &provider);
    let before: Vec<String> = FILES.iter().map(|(_, f)| design_file(&dir, f)).collect();

    let review = send(ws.path(), &provider, QUESTIONS).packet();
    assert_eq!(review["payload"]["design_cycle"], 2);
    assert_eq!(provider.prompts().len(), 2, "one request for the update");
    let update_prompt = &provider.prompts()[1];
    assert!(
        update_prompt.contains("<<<<<<< SEARCH"),
        "the update prompt explains blocks"
    );
    assert!(
        update_prompt.contains("a section you leave out is kept"),
        "and that a section left out is kept"
    );

    let api = design_file(&dir, "api_spec.md");
    assert_eq!(
        api,
        "Module: src/taskman/store.py\n  class Store:\n    add_task(self, name: str, due: date, priority: int = 0) -> int\n    list_tasks(self) -> list[Task]\n    complete(self, task_id: int) -> None"
    );
    let architecture = design_file(&dir, "architecture.md");
    assert!(architecture.contains("1. Schema: tasks(id INTEGER PRIMARY KEY"));
    assert!(architecture.contains("## Components\n1. Cli: parses commands."));
    assert!(!architecture.contains("Assumed: one table"));
    for (i, (_, file)) in FILES.iter().enumerate() {
        if !matches!(*file, "api_spec.md" | "architecture.md") {
            assert_eq!(design_file(&dir, file), before[i], "{file} is unchanged");
        }
    }
    assert_whole(&review, &dir);
    let full: usize = FILES.iter().map(|(_, f)| design_file(&dir, f).len()).sum();
    assert_eq!(
        review["payload"]["cost"],
        json!({"streamed_tokens": tokens(update.len()), "full_rewrite_tokens": tokens(full)})
    );
    let blocks: Vec<Value> = journal(&dir)
        .into_iter()
        .filter(|e| e["event"] == "edit_block")
        .collect();
    assert_eq!(blocks.len(), 2);
    assert!(blocks.iter().all(|b| b["detail"]["outcome"] == "applied"));
    let by_section = |key: &str| {
        blocks
            .iter()
            .find(|b| b["detail"]["section"] == key)
            .unwrap()
            .clone()
    };
    assert_eq!(by_section("api_spec")["detail"]["match"], "exact");
    assert_eq!(
        by_section("architecture")["detail"]["match"],
        "trailing_space"
    );
    let session: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(".volk/session.json")).unwrap())
            .unwrap();
    assert_eq!(
        session["patch"]["raw"][0]["text"], update,
        "the raw answer is kept"
    );
    let repo = git2::Repository::open(&dir).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(
        head.summary().unwrap(),
        Some("Design cycle 2: Architecture, API spec")
    );
}

#[test]
fn a_failing_block_is_sent_back_once_and_the_repair_is_applied() {
    let update = format!(
        "REQUIREMENTS:\n{}{}",
        block(
            "2. FR-02: List all tasks.",
            "2. FR-02: List all tasks, open ones first."
        ),
        block("4. FR-04: Delete a task.", "4. FR-04: Archive a task.")
    );
    let repair = format!(
        "REQUIREMENTS:\n{}",
        block(
            "3. FR-03: Mark a task complete.",
            "3. FR-03: Mark a task complete.\n4. FR-04: Archive a task."
        )
    );
    let provider = Provider::scripted(vec![DESIGN.to_string(), update.clone(), repair.clone()]);
    let ws = tempfile::tempdir().unwrap();
    let dir = designed(ws.path(), &provider);
    let review = send(ws.path(), &provider, QUESTIONS).packet();

    let prompts = provider.prompts();
    assert_eq!(prompts.len(), 3);
    let second = &prompts[2];
    assert!(
        second.contains("4. FR-04: Delete a task."),
        "the failing SEARCH text goes back"
    );
    assert!(second.contains("no match"), "with its reason");
    assert!(
        second.contains("2. FR-02: List all tasks, open ones first."),
        "the section's current text has the block that applied"
    );
    assert_eq!(
        design_file(&dir, "requirements.md"),
        "1. FR-01: Add a task with a name and a due date.\n2. FR-02: List all tasks, open ones first.\n3. FR-03: Mark a task complete.\n4. FR-04: Archive a task."
    );
    assert_whole(&review, &dir);
    assert_eq!(
        review["payload"]["cost"]["streamed_tokens"],
        tokens(update.len() + repair.len())
    );
    let outcomes: Vec<(String, String)> = journal(&dir)
        .into_iter()
        .filter(|e| e["event"] == "edit_block")
        .map(|e| {
            (
                e["detail"]["outcome"].as_str().unwrap().to_string(),
                e["detail"]["round"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("applied".into(), "answer".into()),
            ("failed".into(), "answer".into()),
            ("applied".into(), "repair".into())
        ]
    );
}

#[test]
fn a_failing_repair_asks_for_the_section_in_full() {
    let update = format!(
        "API_SPEC:\n{}",
        block("    remove(self) -> None", "    delete(self) -> None")
    );
    let repair = format!(
        "API_SPEC:\n{}",
        block("    drop(self) -> None", "    delete(self) -> None")
    );
    let full = "API_SPEC:\nModule: src/taskman/store.py\n  class Store:\n    add_task(self, name: str, due: str) -> int\n    delete(self, task_id: int) -> None\n";
    let provider = Provider::scripted(vec![DESIGN.to_string(), update, repair, full.to_string()]);
    let ws = tempfile::tempdir().unwrap();
    let dir = designed(ws.path(), &provider);
    let before_tree = design_file(&dir, "file_tree.md");
    let review = send(ws.path(), &provider, QUESTIONS).packet();
    let prompts = provider.prompts();
    assert_eq!(prompts.len(), 4);
    assert!(prompts[2].contains("    drop(self) -> None") || prompts[2].contains("remove(self)"));
    let third = &prompts[3];
    assert!(third.contains("in full"), "{third}");
    assert!(third.contains("API_SPEC:"));
    assert!(
        !third.contains("FILE_TREE:"),
        "only the failing section is asked for"
    );
    assert_eq!(
        design_file(&dir, "api_spec.md"),
        full.trim_start_matches("API_SPEC:\n").trim()
    );
    assert_eq!(design_file(&dir, "file_tree.md"), before_tree);
    assert_whole(&review, &dir);
    let requested: Vec<String> = journal(&dir)
        .into_iter()
        .filter(|e| e["event"] == "edit_repair_requested")
        .map(|e| e["detail"]["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(requested, ["blocks", "full"]);
}

#[test]
fn a_whole_answer_replaces_every_section_as_before() {
    let whole = DESIGN
        .replace(
            "add_task(self, name: str, due: str)",
            "add_task(self, name: str, due: date)",
        )
        .replace("1. Schema? Assumed: one table.", "None.");
    let provider = Provider::scripted(vec![DESIGN.to_string(), whole.clone()]);
    let ws = tempfile::tempdir().unwrap();
    let dir = designed(ws.path(), &provider);
    let review = send(ws.path(), &provider, QUESTIONS).packet();
    assert_eq!(provider.prompts().len(), 2);
    let expected = volk::design::parser::parse(&whole);
    for (key, file) in FILES {
        assert_eq!(
            design_file(&dir, file),
            expected.get(volk::design::Section::from_key(key).unwrap())
        );
    }
    assert_whole(&review, &dir);
    let cost = &review["payload"]["cost"];
    assert_eq!(cost["streamed_tokens"], tokens(whole.len()));
    assert!(
        cost["full_rewrite_tokens"].as_u64().unwrap() <= tokens(whole.len()),
        "a whole answer costs a full rewrite"
    );
}

fn feedback(thread: &str, cycle: u32, questions: &[&str]) -> String {
    json!({
        "header": {"from_agent": "J:Junior", "to_agent": "U:Ar", "subject": "design_feedback", "thread_id": thread},
        "payload": {"verdict": "QUESTIONS", "design_cycle": cycle, "questions": questions}
    })
    .to_string()
}

fn offline(workspace: &Path, packet: &str) -> Value {
    volk_run(workspace, &["--reasoner", "offline"], packet).packet()
}

/// The demo flow (the bundled scope, two question cycles) with the offline drafter:
/// each update cycle streams edit blocks, at most 0.3 of a full rewrite.
#[test]
fn demo_flow_update_cycles_stream_under_a_third_of_a_full_rewrite() {
    let ws = tempfile::tempdir().unwrap();
    let scope = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/scope.json"),
    )
    .unwrap();
    let first = offline(ws.path(), &scope);
    let thread = first["header"]["thread_id"].as_str().unwrap().to_string();
    let dir = PathBuf::from(first["payload"]["project_dir"].as_str().unwrap());
    let questions: [&[&str]; 2] = [
        &[
            "Where are the notes stored?",
            "Can a book be on two shelves?",
        ],
        &["How is the export file named?"],
    ];
    for (i, asked) in questions.iter().enumerate() {
        let cycle = i as u32 + 1;
        let review = offline(ws.path(), &feedback(&thread, cycle, asked));
        assert_eq!(review["payload"]["design_cycle"], cycle + 1);
        assert_whole(&review, &dir);
        let architecture = review["payload"]["architecture"].as_str().unwrap();
        for q in *asked {
            assert!(architecture.contains(q), "the drafter records {q}");
        }
        let cost = &review["payload"]["cost"];
        let streamed = cost["streamed_tokens"].as_f64().unwrap();
        let full = cost["full_rewrite_tokens"].as_f64().unwrap();
        let ratio = streamed / full;
        eprintln!(
            "demo cycle {}: streamed {streamed} tok, full rewrite {full} tok, ratio {ratio:.3}",
            cycle + 1
        );
        assert!(ratio <= 0.3, "cycle {}: ratio {ratio:.3}", cycle + 1);
    }
    let session: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(".volk/session.json")).unwrap())
            .unwrap();
    for raw in session["patch"]["raw"].as_array().unwrap() {
        assert!(raw["text"].as_str().unwrap().contains("<<<<<<< SEARCH"));
    }
}

/// A recorded patch cycle replays through the same path: the same blocks give the
/// same design, journal and cost.
#[test]
fn replay_plays_recorded_blocks_through_the_same_path() {
    let update = format!(
        "FILE_TREE:\n{}",
        block("    └── store.py", "    ├── store.py\n    └── schema.sql")
    );
    let provider = Provider::scripted(vec![DESIGN.to_string(), update]);
    let recorded = tempfile::tempdir().unwrap();
    let (first, second) = (
        recorded.path().join("c1.jsonl"),
        recorded.path().join("c2.jsonl"),
    );
    let live_ws = recorded.path().join("ws");
    std::fs::create_dir(&live_ws).unwrap();
    let with_record = |cassette: &Path| {
        vec![
            "--reasoner".to_string(),
            "openai".into(),
            "--model".into(),
            "scripted".into(),
            "--base-url".into(),
            provider.url.clone(),
            "--record".into(),
            cassette.display().to_string(),
        ]
    };
    let args: Vec<String> = with_record(&first);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let live_dir = PathBuf::from(
        volk_run(&live_ws, &args, SCOPE).packet()["payload"]["project_dir"]
            .as_str()
            .unwrap(),
    );
    let args: Vec<String> = with_record(&second);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let live_review = volk_run(&live_ws, &args, QUESTIONS).packet();

    // One cassette of both runs: the first whole, the second without its header.
    let mut cassette = std::fs::read_to_string(&first).unwrap();
    for line in std::fs::read_to_string(&second).unwrap().lines().skip(1) {
        cassette.push_str(line);
        cassette.push('\n');
    }
    let path = recorded.path().join("both.jsonl");
    std::fs::write(&path, cassette).unwrap();
    let replay_ws = tempfile::tempdir().unwrap();
    let reasoner = format!("replay:{}", path.display());
    let args = ["--reasoner", reasoner.as_str(), "--replay-speed", "0"];
    let replay_dir = PathBuf::from(
        volk_run(replay_ws.path(), &args, SCOPE).packet()["payload"]["project_dir"]
            .as_str()
            .unwrap(),
    );
    let replay_review = volk_run(replay_ws.path(), &args, QUESTIONS).packet();

    for (_, file) in FILES {
        assert_eq!(
            design_file(&replay_dir, file),
            design_file(&live_dir, file),
            "{file}"
        );
    }
    assert!(design_file(&replay_dir, "file_tree.md").contains("schema.sql"));
    assert_eq!(
        replay_review["payload"]["cost"],
        live_review["payload"]["cost"]
    );
    assert_whole(&replay_review, &replay_dir);
    assert!(
        journal(&replay_dir)
            .iter()
            .any(|e| e["event"] == "edit_block" && e["detail"]["outcome"] == "applied")
    );
}
