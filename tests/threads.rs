//! Review threads, hand edits and settled parts, headless: the real `volk run` against
//! an OpenAI-compatible server on 127.0.0.1 that answers each cycle with scripted text
//! and records the prompts it was sent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support;
use serde_json::{Value, json};
use support::provider::Provider as Server;

// ---------------------------------------------------------------- volk

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn packet(&self) -> Value {
        assert_eq!(self.code, 0, "stderr: {}", self.stderr);
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }
}

/// `volk run` with the scripted server, a home without a git identity unless the test
/// writes one, and nothing inherited that could steer it.
fn run(ws: &Path, server: &Server, packet: &Value) -> Ran {
    run_with(ws, server, packet, "0")
}

fn run_with(ws: &Path, server: &Server, packet: &Value, lint_repairs: &str) -> Ran {
    let home = ws.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(["run", "--packet", "-", "--workspace"])
        .arg(ws)
        // The design compiler's repair pass is off unless a test is about it.
        .args(["--lint-repairs", lint_repairs])
        .args(["--reasoner", "openai", "--model", "scripted", "--base-url"])
        .arg(server.v1())
        .current_dir(ws)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("OPENAI_API_KEY", "sk-threads-test")
        .env("VOLK_LOG", ws.join("volk.log"))
        .env("VOLK_CONFIG_DIR", ws.join("no-user-config"))
        .env_remove("VOLK_REASONER")
        .env_remove("VOLK_MODEL")
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
        .write_all(packet.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn scope() -> Value {
    json!({
        "header": {"from_agent": "U:PM", "to_agent": "U:Ar", "subject": "scope_validated", "thread_id": "thread-16"},
        "payload": {"task_summary": "Build a task CLI", "project_name": "tasks", "requirements": "1. Add tasks\n2. List tasks"}
    })
}

fn feedback(cycle: u32, payload: Value) -> Value {
    let mut payload = payload;
    payload["design_cycle"] = json!(cycle);
    payload
        .as_object_mut()
        .unwrap()
        .entry("verdict")
        .or_insert(json!("QUESTIONS"));
    json!({
        "header": {"from_agent": "J:Junior", "to_agent": "U:Ar", "subject": "design_feedback", "thread_id": "thread-16"},
        "payload": payload
    })
}

const ARCH: &str = "A command-line front end over a SQLite store.\n\n## Open questions\n1. Time zones? Assumed local time.";
const REQS: &str = "FUNCTIONAL:\n1. FR-01: Add tasks with a name.\n2. FR-02: List tasks.\n3. FR-03: Complete tasks.";
const TREE: &str = "src/\n  cli.py\n  store.py";
const API: &str = "Module: src/store.py\n  add(name: str) -> int";
const CLASSES: &str = "classDiagram\n  Cli --> Store";

fn design(arch: &str, reqs: &str, tree: &str, api: &str, changes: Option<&str>) -> String {
    let mut text = format!(
        "ARCHITECTURE:\n{arch}\n\nREQUIREMENTS:\n{reqs}\n\nFILE_TREE:\n{tree}\n\nAPI_SPEC:\n{api}\n\nCLASS_DIAGRAM:\n{CLASSES}\n"
    );
    if let Some(changes) = changes {
        text.push_str("\nCHANGES:\n");
        text.push_str(changes);
        text.push('\n');
    }
    text
}

fn first_design() -> String {
    design(ARCH, REQS, TREE, API, None)
}

fn project(ws: &Path) -> PathBuf {
    ws.join("tasks")
}

/// (summary, body, author) of each commit, oldest first.
fn commits(dir: &Path) -> Vec<(String, String, String)> {
    let repo = git2::Repository::open(dir).unwrap();
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    let mut out: Vec<_> = walk
        .map(|oid| {
            let c = repo.find_commit(oid.unwrap()).unwrap();
            (
                c.summary().ok().flatten().unwrap_or_default().to_string(),
                c.body().ok().flatten().unwrap_or_default().to_string(),
                c.author().name().unwrap_or_default().to_string(),
            )
        })
        .collect();
    out.reverse();
    out
}

fn journal(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join(".volk/journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn thread<'a>(packet: &'a Value, id: &str) -> &'a Value {
    packet["payload"]["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("no thread {id} in {}", packet["payload"]["threads"]))
}

fn design_file(ws: &Path, name: &str) -> String {
    std::fs::read_to_string(project(ws).join("design").join(name)).unwrap()
}

// ---------------------------------------------------------------- threads

#[test]
fn claims_are_checked_against_the_diff_and_unaddressed_threads_come_back() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    let api2 = format!("{API}\n  create_table() -> None");
    let reqs2 = format!("{REQS}\n4. FR-04: Export CSV.");
    let cycle2 = design(
        ARCH,
        &reqs2,
        TREE,
        &api2,
        Some(
            "- Q1.1 api_spec: added create_table\n\
             - Q1.2 none: completed tasks keep a status flag (FR-03)\n\
             - Q1.4 file_tree: added an async module",
        ),
    );
    let arch3 = ARCH.replace("SQLite", "SQLite (WAL mode)");
    let cycle3 = design(&arch3, &reqs2, TREE, &api2, None);
    let server = Server::scripted(vec![first_design(), cycle2, cycle3]);

    let p1 = run(ws, &server, &scope()).packet();
    assert_eq!(p1["payload"]["threads"], json!([]));

    let p2 = run(
        ws,
        &server,
        &feedback(
            1,
            json!({"questions": [
                "What is the schema?",
                "Delete or flag?",
                "Time zones?",
                "[api_spec:2] Async?"
            ]}),
        ),
    )
    .packet();
    let prompt2 = &server.prompts()[1];
    assert!(prompt2.contains("- Q1.1: What is the schema?"), "{prompt2}");
    assert!(
        prompt2.contains("- Q1.4 [api_spec line 2]: Async?"),
        "{prompt2}"
    );
    assert!(prompt2.contains("CHANGES:"));

    let q11 = thread(&p2, "Q1.1");
    assert_eq!(q11["status"], "addressed");
    assert_eq!(q11["question"], "What is the schema?");
    assert_eq!(q11["cycle_asked"], 1);
    assert_eq!(q11["anchor"], Value::Null);
    assert_eq!(
        q11["changes"],
        json!([{"artifact": "api_spec", "summary": "added create_table"}])
    );
    let q12 = thread(&p2, "Q1.2");
    assert_eq!(q12["status"], "answered");
    assert_eq!(q12["answer"], "completed tasks keep a status flag (FR-03)");
    assert_eq!(thread(&p2, "Q1.3")["status"], "unaddressed");
    let q14 = thread(&p2, "Q1.4");
    assert_eq!(q14["status"], "unaddressed", "file_tree did not change");
    assert_eq!(q14["anchor"], "api_spec:2");
    for t in p2["payload"]["threads"].as_array().unwrap() {
        let keys: Vec<_> = t.as_object().unwrap().keys().cloned().collect();
        assert_eq!(
            keys,
            [
                "id",
                "question",
                "anchor",
                "cycle_asked",
                "status",
                "answer",
                "changes",
                "follows",
                "closed_by"
            ]
        );
    }
    let unrequested = &p2["payload"]["unrequested_changes"];
    assert_eq!(unrequested.as_array().unwrap().len(), 1, "{unrequested}");
    assert_eq!(unrequested[0]["artifact"], "requirements");
    assert!(unrequested[0]["summary"].is_string());

    let log = commits(&project(ws));
    let (summary, body, _) = log.last().unwrap();
    assert!(summary.starts_with("Design cycle 2"), "{summary}");
    assert!(
        body.contains("- Q1.1 addressed: What is the schema?"),
        "{body}"
    );
    assert!(body.contains("- Q1.2 answered: Delete or flag?"), "{body}");
    assert!(body.contains("- Q1.3 unaddressed: Time zones?"), "{body}");
    assert!(
        body.contains("Unrequested changes:\n- requirements:"),
        "{body}"
    );
    let statuses: Vec<_> = journal(&project(ws))
        .into_iter()
        .filter(|e| e["event"] == "thread_status")
        .map(|e| (e["detail"]["thread"].clone(), e["detail"]["to"].clone()))
        .collect();
    assert!(statuses.contains(&(json!("Q1.1"), json!("open"))));
    assert!(statuses.contains(&(json!("Q1.1"), json!("addressed"))));
    assert!(statuses.contains(&(json!("Q1.4"), json!("unaddressed"))));

    // The next cycle: one new question, Q1.4 closed, and an answer with no CHANGES.
    let p3 = run(
        ws,
        &server,
        &feedback(2, json!({"questions": ["WAL?"], "close": ["Q1.4"]})),
    )
    .packet();
    let prompt3 = &server.prompts()[2];
    let carried = prompt3
        .find("- Q1.3 (asked after cycle 1, still not addressed): Time zones?")
        .unwrap_or_else(|| panic!("{prompt3}"));
    let new = prompt3.find("- Q2.1: WAL?").unwrap();
    assert!(carried < new, "earlier threads first");
    assert!(
        !prompt3.contains("Q1.4"),
        "a closed thread is not asked again"
    );
    assert!(
        !prompt3.contains("Q1.1: What is the schema?"),
        "an addressed thread is not asked again"
    );
    assert_eq!(thread(&p3, "Q1.4")["status"], "closed");
    assert_eq!(thread(&p3, "Q1.3")["status"], "unaddressed");
    assert_eq!(thread(&p3, "Q2.1")["status"], "unaddressed");
    assert_eq!(thread(&p3, "Q1.1")["status"], "addressed");
    assert_eq!(
        p3["payload"]["unrequested_changes"],
        json!([{"artifact": "architecture", "summary": "changed; the answer had no CHANGES section"}])
    );
    let (_, body3, _) = commits(&project(ws)).pop().unwrap();
    assert!(body3.contains("- Q2.1 unaddressed: WAL?"), "{body3}");
    assert!(
        journal(&project(ws))
            .iter()
            .any(|e| e["event"] == "thread_status"
                && e["detail"]["thread"] == "Q1.4"
                && e["detail"]["to"] == "closed")
    );

    // Closing a thread that does not exist is bad input, and changes nothing.
    let bad = run(ws, &server, &feedback(3, json!({"close": ["Q9.9"]})));
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("payload.close: no thread Q9.9"),
        "{}",
        bad.stderr
    );
    assert_eq!(server.prompts().len(), 3);
}

// ---------------------------------------------------------------- hand edits

#[test]
fn a_hand_edit_is_committed_binding_and_survives_a_model_that_drops_it() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    let edited_reqs = REQS.replace("2. FR-02: List tasks.", "2. FR-02: List tasks by due date.");
    let api2 = format!("{API}\n  list() -> list");
    // Cycle 2 drops the edit (the model wrote the old FR-02) and changes the API.
    let cycle2 = design(
        ARCH,
        REQS,
        TREE,
        &api2,
        Some("- Q1.1 api_spec: added list()"),
    );
    // Cycle 3 rewrites FR-01, which the reviewer edited too: a conflict.
    let cycle3_reqs = edited_reqs.replace("Add tasks with a name.", "Add tasks with a title.");
    let cycle3 = design(
        ARCH,
        &cycle3_reqs,
        TREE,
        &api2,
        Some("- Q2.1 requirements: FR-01 names a title"),
    );
    let server = Server::scripted(vec![first_design(), cycle2, cycle3]);
    run(ws, &server, &scope()).packet();

    let file = project(ws).join("design/requirements.md");
    std::fs::write(&file, format!("{edited_reqs}\n")).unwrap();
    let p2 = run(
        ws,
        &server,
        &feedback(1, json!({"questions": ["How are tasks listed?"]})),
    )
    .packet();
    let log = commits(&project(ws));
    let names: Vec<_> = log.iter().map(|(s, _, _)| s.as_str()).collect();
    let edit = names
        .iter()
        .position(|s| *s == "Reviewer edit: requirements")
        .unwrap_or_else(|| panic!("{names:?}"));
    assert!(names[edit + 1].starts_with("Design cycle 2"), "{names:?}");
    assert_eq!(
        log[edit].2, "J:Junior",
        "no git identity: headless reviewer"
    );
    let prompt = &server.prompts()[1];
    assert!(
        prompt.contains("The reviewer's own edits (binding)"),
        "{prompt}"
    );
    assert!(
        prompt.contains("+2. FR-02: List tasks by due date."),
        "{prompt}"
    );
    assert!(prompt.contains("-2. FR-02: List tasks."), "{prompt}");
    assert_eq!(
        design_file(ws, "requirements.md"),
        format!("{edited_reqs}\n")
    );
    assert_eq!(p2["payload"]["requirements"], edited_reqs);
    assert_eq!(p2["payload"]["conflicts"], json!([]));
    assert_eq!(thread(&p2, "Q1.1")["status"], "addressed");

    // A person with a git identity edits FR-01; the model rewrites it too.
    std::fs::write(
        ws.join("home/.gitconfig"),
        "[user]\n\tname = Ada Reviewer\n\temail = ada@example.com\n",
    )
    .unwrap();
    let mine = edited_reqs.replace(
        "Add tasks with a name.",
        "Add tasks with a name and a due date.",
    );
    std::fs::write(&file, format!("{mine}\n")).unwrap();
    let p3 = run(
        ws,
        &server,
        &feedback(2, json!({"questions": ["Names or titles?"]})),
    )
    .packet();
    let log = commits(&project(ws));
    let (summary, _, author) = &log[log.len() - 2];
    assert_eq!(summary, "Reviewer edit: requirements");
    assert_eq!(author, "Ada Reviewer");
    let conflicts = p3["payload"]["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{conflicts:?}");
    assert_eq!(conflicts[0]["artifact"], "requirements");
    let line = conflicts[0]["line"].as_u64().unwrap() as usize;
    let text = design_file(ws, "requirements.md");
    assert!(
        text.lines().nth(line - 1).unwrap().starts_with("<<<<<<<"),
        "{text}"
    );
    assert!(text.contains("1. FR-01: Add tasks with a name and a due date."));
    assert!(text.contains("1. FR-01: Add tasks with a title."));
    let d050: Vec<_> = p3["payload"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "D050")
        .collect();
    assert_eq!(d050.len(), 1);
    assert_eq!(d050[0]["severity"], "error");
    assert_eq!(d050[0]["artifact"], "requirements");
    assert_eq!(d050[0]["file"], "design/requirements.md");
    assert_eq!(d050[0]["line"], line);
    assert!(d050[0]["column"].is_number() && d050[0]["message"].is_string());
}

// ---------------------------------------------------------------- settled parts

#[test]
fn settled_parts_are_restored_byte_for_byte() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    let reqs2 = REQS
        .replace("2. FR-02: List tasks.", "2. FR-02: List every task, paged.")
        .replace(
            "3. FR-03: Complete tasks.",
            "3. FR-03: Complete or reopen tasks.",
        );
    let cycle2 = design(
        ARCH,
        &reqs2,
        "lib/\n  main.py",
        API,
        Some("- Q1.1 requirements: FR-03 can reopen"),
    );
    let server = Server::scripted(vec![first_design(), cycle2]);
    run(ws, &server, &scope()).packet();
    let tree_before = design_file(ws, "file_tree.md");

    let bad = run(
        ws,
        &server,
        &feedback(
            1,
            json!({"questions": ["Reopen?"], "settled": ["the tree"]}),
        ),
    );
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("payload.settled: 'the tree'"),
        "{}",
        bad.stderr
    );
    assert_eq!(server.prompts().len(), 1, "nothing was sent");

    let p2 = run(
        ws,
        &server,
        &feedback(
            1,
            json!({"questions": ["Reopen?"], "settled": ["file_tree", "FR-02"]}),
        ),
    )
    .packet();
    let prompt = &server.prompts()[1];
    assert!(prompt.contains("# Settled parts (read-only)"), "{prompt}");
    assert!(
        prompt.contains("```text\n2. FR-02: List tasks.\n```"),
        "{prompt}"
    );
    assert_eq!(design_file(ws, "file_tree.md"), tree_before);
    let reqs = design_file(ws, "requirements.md");
    assert!(reqs.contains("\n2. FR-02: List tasks.\n"), "{reqs}");
    assert!(
        reqs.contains("3. FR-03: Complete or reopen tasks."),
        "{reqs}"
    );
    let mut restored: Vec<_> = p2["payload"]["restored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["artifact"].clone(), r["item"].clone()))
        .collect();
    restored.sort_by_key(|r| r.1.to_string());
    assert_eq!(
        restored,
        [
            (json!("requirements"), json!("FR-02")),
            (json!("file_tree"), json!("file_tree")),
        ]
    );
    assert_eq!(p2["payload"]["settled"], json!(["file_tree", "FR-02"]));
    assert!(p2["payload"]["file_tree"] == TREE);
    assert_eq!(thread(&p2, "Q1.1")["status"], "addressed");
    let restored_notes = journal(&project(ws))
        .into_iter()
        .filter(|e| e["event"] == "settled_restored")
        .count();
    assert_eq!(restored_notes, 2);
    assert!(p2.to_string().len() > 10);
}

// ---------------------------------------------------------------- with the design compiler

#[test]
fn changes_sent_before_a_lint_repair_still_account_for_the_cycle() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    let api2 = format!("{API}\n  create_table() -> None");
    // Every answer has design errors, so each cycle gets its one repair pass; the
    // repaired cycle 2 leaves the CHANGES section out.
    let server = Server::scripted(vec![
        first_design(),
        first_design(),
        design(
            ARCH,
            REQS,
            TREE,
            &api2,
            Some("- Q1.1 api_spec: added create_table"),
        ),
        design(ARCH, REQS, TREE, &api2, None),
    ]);
    run_with(ws, &server, &scope(), "1").packet();
    let p2 = run_with(
        ws,
        &server,
        &feedback(1, json!({"questions": ["What is the schema?"]})),
        "1",
    )
    .packet();
    assert_eq!(server.prompts().len(), 4, "one repair pass per cycle");
    assert!(server.prompts()[3].contains("- Q1.1: What is the schema?"));
    assert_eq!(thread(&p2, "Q1.1")["status"], "addressed");
    assert_eq!(p2["payload"]["unrequested_changes"], json!([]));
}

// ---------------------------------------------------------------- with edit blocks

#[test]
fn an_edit_block_in_settled_text_is_dropped_and_asks_for_no_repair() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    let touches_settled = "REQUIREMENTS:\n<<<<<<< SEARCH\n2. FR-02: List tasks.\n=======\n2. FR-02: List every task.\n>>>>>>> REPLACE\n\nCHANGES:\n- Q1.1 requirements: FR-02 lists every task\n";
    let server = Server::scripted(vec![first_design(), touches_settled.to_string()]);
    run(ws, &server, &scope()).packet();
    let p2 = run(
        ws,
        &server,
        &feedback(1, json!({"questions": ["Reopen?"], "settled": ["FR-02"]})),
    )
    .packet();
    let prompts = server.prompts();
    assert_eq!(prompts.len(), 2, "settled text is not negotiated");
    let reqs = design_file(ws, "requirements.md");
    assert!(reqs.contains("2. FR-02: List tasks.\n"), "{reqs}");
    assert_eq!(
        thread(&p2, "Q1.1")["status"],
        "unaddressed",
        "its only change was dropped"
    );
    assert_eq!(
        p2["payload"]["restored"],
        json!([{"artifact": "requirements", "item": "FR-02"}]),
        "the dropped block is reported"
    );
    assert_eq!(p2["payload"]["design_cycle"], 2);
}
