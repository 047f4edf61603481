//! The architect's reflection is kept and used: a headless flow to READY against a
//! model server on 127.0.0.1 journals every answer, commits `design/reflection.md`,
//! carries the answers in the `implement` packet and puts each of them in the body of
//! the plan request. The same flow, after the person replaced `.gitignore`, never
//! commits `.volk/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use serde_json::Value;

use crate::support;
use support::provider::{Provider, openai_stream};

const SCOPE: &str = include_str!("fixtures/packets/example1_scope.json");

const DESIGN: &str = "ARCHITECTURE:\nA CLI over one SQLite store (FR-01, NFR-01).\n\n\
REQUIREMENTS:\n1. FR-01: The system must add a task.\n2. NFR-01: Listing answers within 200 ms.\n\n\
FILE_TREE:\nsrc/\n  main.py\ntests/\n  test_main.py\n\n\
API_SPEC:\nModule: src/main.py\n  def main() -> int  # FR-01\n\n\
CLASS_DIAGRAM:\nclassDiagram\n  class Cli\n";

/// What the architect concluded, one line per question; each must reach the plan.
const ANSWERS: [&str; 3] = [
    "No load test covers NFR-01; the latency budget is unchecked.",
    "The Redis client has no spec: nothing says who builds it.",
    "ADR-001 on SQLite is the riskiest; a 10k-task benchmark would prove it wrong.",
];

const PLAN: &str = r#"```json
{"goal": "A task CLI", "stages": [{"id": "build", "role": "implementer", "prompt": "Implement src/main.py and tests/test_main.py.", "produces": "code", "kind": "file_written", "needs": ["design_docs"], "tools": ["file_write"]}], "edges": [{"from": "build", "to": "done", "condition": {"type": "artifact_validated", "artifact_id": "code"}}]}
```"#;

/// The API key volk is given; a model that repeats it must not get it stored.
const KEY: &str = "sk-volk-reflection-test-4242";

fn provider() -> Provider {
    let reflection = format!(
        "1. {}\n2. {}\n3. {} (key {KEY})",
        ANSWERS[0], ANSWERS[1], ANSWERS[2]
    );
    Provider::start(Arc::new(move |_, request| {
        let prompt = request.prompt();
        let answer = if prompt.contains("Before this design is handed to implementation") {
            reflection.clone()
        } else if prompt.contains("execution plan") {
            PLAN.to_string()
        } else {
            DESIGN.to_string()
        };
        openai_stream(&answer, 29)
    }))
}

fn run(workspace: &Path, url: &str, packet: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(["run", "--packet", "-", "--workspace"])
        .arg(workspace)
        .args([
            "--reasoner",
            "openai",
            "--base-url",
            url,
            "--lint-repairs",
            "0",
        ])
        .current_dir(workspace)
        .env("VOLK_LOG", workspace.join("volk.log"))
        .env("VOLK_CONFIG_DIR", workspace.join("no-user-config"))
        .env_remove("VOLK_REASONER")
        .env("OPENAI_API_KEY", KEY)
        .env_remove("PRD_REFLECTION")
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
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn ready() -> String {
    serde_json::json!({
        "header": {"from_agent": "J:Junior", "to_agent": "U:Ar", "subject": "design_feedback", "thread_id": "thread-042"},
        "payload": {"verdict": "READY", "design_cycle": 1, "questions": []}
    })
    .to_string()
}

fn project(workspace: &Path) -> PathBuf {
    std::fs::read_dir(workspace)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join(".volk").is_dir())
        .expect("a project directory")
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_reflection_reaches_the_journal_git_the_packet_and_the_plan() {
    let ws = tempfile::tempdir().unwrap();
    let provider = provider();
    let url = provider.v1();
    run(ws.path(), &url, SCOPE);
    let out = run(ws.path(), &url, &ready());
    let dir = project(ws.path());

    let journal = std::fs::read_to_string(dir.join(".volk/journal.jsonl")).unwrap();
    let done: Value = journal
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["event"] == "reflection_done")
        .expect("a reflection_done entry");
    let answers = done["detail"]["answers"].as_array().unwrap();
    assert_eq!(answers.len(), 3, "{done}");
    for (entry, expected) in answers.iter().zip(ANSWERS) {
        assert!(entry["id"].as_str().unwrap().starts_with("RFQ-"), "{entry}");
        assert!(!entry["question"].as_str().unwrap().is_empty(), "{entry}");
        assert!(
            entry["answer"].as_str().unwrap().starts_with(expected),
            "{entry}"
        );
    }
    // Redacted like every other text the journal holds.
    let third = answers[2]["answer"].as_str().unwrap();
    assert!(third.contains("(key ") && !third.contains(KEY), "{third}");
    assert!(!journal.contains(KEY), "the key reached the journal");

    let committed = git(&dir, &["show", "HEAD:design/reflection.md"]);
    for answer in ANSWERS {
        assert!(committed.contains(answer), "{committed}");
    }
    assert!(
        committed.contains("## After READY on cycle 1"),
        "{committed}"
    );

    let packet: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(packet["header"]["subject"], "implement");
    let carried = packet["payload"]["reflection"].as_array().unwrap();
    assert_eq!(carried, answers);
    assert!(!String::from_utf8_lossy(&out.stdout).contains(KEY));

    let plan_request = provider
        .requests()
        .into_iter()
        .find(|r| r.prompt().contains("execution plan"))
        .expect("a plan request");
    for answer in ANSWERS {
        assert!(
            plan_request.raw.contains(answer),
            "{answer} not in the plan request"
        );
    }
    assert!(plan_request.prompt().contains("# Decision history"));
    assert!(packet["payload"]["execution_plan"].is_object());
}

#[test]
fn volk_dir_is_never_committed_after_the_gitignore_is_replaced() {
    let ws = tempfile::tempdir().unwrap();
    let provider = provider();
    let url = provider.v1();
    run(ws.path(), &url, SCOPE);
    let dir = project(ws.path());
    let exclude = std::fs::read_to_string(dir.join(".git/info/exclude")).unwrap();
    assert!(exclude.lines().any(|l| l == ".volk/"), "{exclude}");
    // The person replaces volk's .gitignore with their own.
    std::fs::write(dir.join(".gitignore"), "target/\n").unwrap();
    run(ws.path(), &url, &ready());
    let names = git(&dir, &["log", "--all", "--name-only", "--format="]);
    assert!(names.contains("design/reflection.md"), "{names}");
    assert!(!names.contains(".volk"), "{names}");
    // Even a .volk/ that git would otherwise stage is left out.
    std::fs::remove_file(dir.join(".git/info/exclude")).unwrap();
    let status = git(&dir, &["status", "--porcelain", "--untracked-files=all"]);
    assert!(
        status.contains(".volk/"),
        "the test must be able to fail: {status}"
    );
}
