//! `volk run` end to end: the real binary, real temp workspaces, real git repositories.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const EXAMPLE_1: &str = include_str!("fixtures/packets/example1_scope.json");
const EXAMPLE_2: &str = include_str!("fixtures/packets/example2_questions.json");
const EXAMPLE_3: &str = include_str!("fixtures/packets/example3_ready.json");

struct Run {
    output: Output,
}

impl Run {
    fn code(&self) -> i32 {
        self.output.status.code().unwrap_or(-1)
    }
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }
    fn packet(&self) -> Value {
        serde_json::from_str(&self.stdout())
            .unwrap_or_else(|e| panic!("stdout is not a packet ({e}): {}", self.stdout()))
    }
}

fn volk(workspace: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    use std::io::Write;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_volk"));
    cmd.arg("run")
        .arg("--workspace")
        .arg(workspace)
        .args(args)
        .current_dir(workspace)
        .env("VOLK_LOG", workspace.join("volk.log"))
        .env("VOLK_CONFIG_DIR", workspace.join("no-user-config"))
        .env_remove("VOLK_REASONER")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    Run {
        output: child.wait_with_output().unwrap(),
    }
}

fn send(workspace: &Path, packet: &str, extra: &[&str]) -> Run {
    let mut args = vec!["--packet", "-"];
    args.extend_from_slice(extra);
    volk(workspace, &args, Some(packet))
}

fn commits(dir: &Path) -> Vec<String> {
    let repo = git2::Repository::open(dir).unwrap();
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    walk.map(|oid| {
        repo.find_commit(oid.unwrap())
            .unwrap()
            .summary()
            .unwrap()
            .unwrap()
            .to_string()
    })
    .collect()
}

fn journal(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join(".volk/journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn examples_1_2_3_design_questions_ready() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();

    // 1: scope -> design_review for cycle 1
    let r1 = send(ws, EXAMPLE_1, &[]);
    assert_eq!(r1.code(), 0, "{}", r1.stderr());
    let p1 = r1.packet();
    assert_eq!(p1["header"]["from_agent"], "U:Ar");
    assert_eq!(p1["header"]["to_agent"], "J:Junior");
    assert_eq!(p1["header"]["subject"], "design_review");
    assert_eq!(p1["header"]["thread_id"], "thread-042");
    assert!(
        !p1["header"]["trace_id"].as_str().unwrap().is_empty(),
        "a missing trace id is generated"
    );
    assert_eq!(p1["payload"]["design_cycle"], 1);
    assert_eq!(
        p1["payload"]["task_summary"],
        "Build a task management CLI with SQLite storage"
    );
    let project = PathBuf::from(p1["payload"]["project_dir"].as_str().unwrap());
    assert_eq!(project.file_name().unwrap(), "taskman");
    for key in [
        "architecture",
        "requirements",
        "file_tree",
        "api_spec",
        "class_diagram",
    ] {
        let text = p1["payload"][key].as_str().unwrap();
        assert!(!text.is_empty(), "{key}");
        let file =
            std::fs::read_to_string(project.join("design").join(format!("{key}.md"))).unwrap();
        let section = volk::design::Section::from_key(key).unwrap();
        assert_eq!(
            file,
            volk::design::write::file_body(section, text),
            "{key} on disk equals the packet (the diagram inside a mermaid fence)"
        );
    }
    assert_eq!(p1["payload"]["diagnostics"], serde_json::json!([]));
    assert!(
        !p1["payload"]["open_questions"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(r1.stderr().contains("[U:Ar]"));
    assert_eq!(commits(&project), vec!["Design cycle 1: all artifacts"]);

    // 2: QUESTIONS -> cycle 2, the questions recorded in the update
    let r2 = send(ws, EXAMPLE_2, &[]);
    assert_eq!(r2.code(), 0, "{}", r2.stderr());
    let p2 = r2.packet();
    assert_eq!(p2["header"]["subject"], "design_review");
    assert_eq!(p2["payload"]["design_cycle"], 2);
    let arch = p2["payload"]["architecture"].as_str().unwrap();
    assert!(
        arch.contains("1. What is the exact SQLite schema for the tasks table?"),
        "{arch}"
    );
    assert!(arch.contains("2. Should completed tasks be deleted or retained with a status flag?"));
    assert_eq!(commits(&project).len(), 2);

    // 3: READY -> implement to U:Cd with everything
    let r3 = send(ws, EXAMPLE_3, &[]);
    assert_eq!(r3.code(), 0, "{}", r3.stderr());
    let p3 = r3.packet();
    assert_eq!(p3["header"]["to_agent"], "U:Cd");
    assert_eq!(p3["header"]["subject"], "implement");
    let payload = p3["payload"].as_object().unwrap();
    for key in [
        "architecture",
        "requirements",
        "file_tree",
        "api_spec",
        "class_diagram",
        "project_dir",
        "task_summary",
        "original_intent",
        "structured_requirements",
        "user_stories",
        "monorepo_src_section",
        "nfrs",
        "spec_metadata",
    ] {
        assert!(payload.contains_key(key), "implement payload lacks {key}");
    }
    assert_eq!(
        payload["structured_requirements"],
        serde_json::json!(["Add task", "List tasks", "Complete task"])
    );
    assert_eq!(
        payload["nfrs"],
        serde_json::json!(["Response time < 200ms"])
    );
    assert_eq!(
        payload["original_intent"],
        "A simple task manager for personal use"
    );
    assert_eq!(payload["forced"], false);
    // The reflection pass (default questions): answered on stderr, kept in the journal,
    // in design/reflection.md and in the payload, and in none of the five artifacts.
    assert!(
        r3.stderr()
            .contains("[U:Ar] reflection before finalizing (3 question(s))"),
        "{}",
        r3.stderr()
    );
    let answers_marker = "Verdict: drafted offline";
    assert!(r3.stderr().contains(answers_marker));
    let journal_text = std::fs::read_to_string(project.join(".volk/journal.jsonl")).unwrap();
    let done = journal_text
        .lines()
        .find(|l| l.contains("\"reflection_done\""))
        .unwrap();
    assert!(done.contains(answers_marker), "{done}");
    for entry in std::fs::read_dir(project.join("design")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let is_reflection = path.file_name().unwrap() == "reflection.md";
        assert_eq!(
            text.contains(answers_marker),
            is_reflection,
            "{}",
            path.display()
        );
    }
    assert_eq!(payload["reflection"].as_array().unwrap().len(), 3);
    let plan = &payload["execution_plan"];
    assert!(
        plan["stages"].as_array().is_some_and(|s| !s.is_empty()),
        "offline plan attached"
    );
    assert!(project.join("design/execution_plan.json").is_file());

    let log = commits(&project);
    assert!(log.len() >= 3, "{log:?}");
    assert!(
        log.iter()
            .any(|c| c.starts_with("Finalize design after 2 cycle(s)")),
        "{log:?}"
    );

    // outbox and journal
    let outbox: Vec<String> = entries(&project.join(".volk/outbox"))
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        outbox,
        vec![
            "001-design_review.json",
            "002-design_review.json",
            "003-implement.json"
        ]
    );
    let events: Vec<String> = journal(&project)
        .iter()
        .map(|e| e["event"].as_str().unwrap().to_string())
        .collect();
    for needed in [
        "design_started",
        "cycle_written",
        "feedback_received",
        "finalized_docs",
        "escalated",
        "committed",
    ] {
        assert!(
            events.iter().any(|e| e == needed),
            "journal lacks {needed}: {events:?}"
        );
    }
    for entry in journal(&project) {
        assert!(entry["time"].as_str().unwrap().ends_with('Z'));
        assert!(!entry["trace_id"].as_str().unwrap().is_empty());
    }

    // Resent, the same packet answers with the same implement packet and changes
    // nothing; a different one for the closed thread is refused.
    let outbox_before = entries(&project.join(".volk/outbox"));
    let journal_before = journal(&project).len();
    let again = send(ws, EXAMPLE_3, &[]);
    assert_eq!(again.code(), 0, "{}", again.stderr());
    assert_eq!(again.stdout(), r3.stdout());
    assert_eq!(commits(&project).len(), log.len());
    assert_eq!(entries(&project.join(".volk/outbox")), outbox_before);
    assert_eq!(journal(&project).len(), journal_before);
    let other = send(ws, &EXAMPLE_3.replace("\"READY\"", "\"QUESTIONS\""), &[]);
    assert_eq!(other.code(), 2, "{}", other.stderr());
    assert!(other.stdout().is_empty());
    assert_eq!(commits(&project).len(), log.len());
}

#[test]
fn refused_sender_creates_nothing() {
    let ws = tempfile::tempdir().unwrap();
    let packet = EXAMPLE_1.replace("U:PM", "U:Mallory");
    let r = send(ws.path(), &packet, &[]);
    assert_eq!(r.code(), 2);
    assert!(r.stdout().is_empty());
    let line = r.stderr();
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(
        line.contains("header.from_agent") && line.contains("U:Mallory"),
        "{line}"
    );
    let created: Vec<_> = entries(ws.path())
        .into_iter()
        .filter(|p| !p.ends_with("volk.log"))
        .collect();
    assert!(created.is_empty(), "{created:?}");
}

#[test]
fn invalid_json_names_file_line_and_column() {
    let ws = tempfile::tempdir().unwrap();
    let file = ws.path().join("broken.json");
    std::fs::write(
        &file,
        "{\n  \"header\": {\n    \"from_agent\": \"U:PM\",,\n",
    )
    .unwrap();
    let r = volk(ws.path(), &["--packet", file.to_str().unwrap()], None);
    assert_eq!(r.code(), 2);
    let err = r.stderr();
    assert!(err.contains("broken.json:3:"), "{err}");
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn missing_required_field_is_named() {
    let ws = tempfile::tempdir().unwrap();
    let packet = EXAMPLE_2.replace("\"verdict\": \"QUESTIONS\",", "");
    // The thread must exist for the feedback to be routed.
    assert_eq!(send(ws.path(), EXAMPLE_1, &[]).code(), 0);
    let r = send(ws.path(), &packet, &[]);
    assert_eq!(r.code(), 2);
    assert!(
        r.stderr().contains("payload.verdict: missing"),
        "{}",
        r.stderr()
    );
}

#[test]
fn unknown_subject_prints_nothing_and_succeeds() {
    let ws = tempfile::tempdir().unwrap();
    let packet = EXAMPLE_1.replace("scope_validated", "weather_report");
    let r = send(ws.path(), &packet, &[]);
    assert_eq!(r.code(), 0);
    assert!(r.stdout().is_empty());
    assert!(r.stderr().contains("weather_report"));
    assert!(!ws.path().join("taskman").exists());
}

#[test]
fn path_escaping_project_name_stays_in_the_workspace() {
    let ws = tempfile::tempdir().unwrap();
    let workspace = ws.path().join("ws");
    std::fs::create_dir(&workspace).unwrap();
    let packet = EXAMPLE_1.replace("\"taskman\"", "\"../../escape/../../etc\"");
    let r = send(&workspace, &packet, &[]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let project = PathBuf::from(r.packet()["payload"]["project_dir"].as_str().unwrap());
    assert_eq!(project.file_name().unwrap(), "escape-etc");
    assert_eq!(project.parent().unwrap(), workspace.canonicalize().unwrap());
    assert!(!ws.path().join("escape").exists());
}

#[test]
fn forced_escalation_at_the_cycle_limit() {
    let ws = tempfile::tempdir().unwrap();
    assert_eq!(send(ws.path(), EXAMPLE_1, &["--max-cycles", "1"]).code(), 0);
    let r = send(ws.path(), EXAMPLE_2, &["--max-cycles", "1"]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert!(
        r.stderr().contains("[U:Ar] Max design cycles reached"),
        "{}",
        r.stderr()
    );
    let p = r.packet();
    assert_eq!(p["header"]["subject"], "implement");
    assert_eq!(p["payload"]["forced"], true);
    let project = PathBuf::from(p["payload"]["project_dir"].as_str().unwrap());
    // The docs were written and committed before the packet was built.
    assert!(
        commits(&project)
            .iter()
            .any(|c| c.contains("at the cycle limit"))
    );
    assert!(project.join("design/architecture.md").is_file());
}

#[test]
fn stale_cycle_is_refused_without_changes() {
    let ws = tempfile::tempdir().unwrap();
    assert_eq!(send(ws.path(), EXAMPLE_1, &[]).code(), 0);
    let r = send(ws.path(), EXAMPLE_3, &[]); // READY for cycle 2 while at cycle 1
    assert_eq!(r.code(), 2);
    assert!(
        r.stderr().contains("payload.design_cycle"),
        "{}",
        r.stderr()
    );
    assert_eq!(commits(&ws.path().join("taskman")).len(), 1);
}

#[test]
fn two_threads_never_share_a_project() {
    let ws = tempfile::tempdir().unwrap();
    assert_eq!(send(ws.path(), EXAMPLE_1, &[]).code(), 0);
    let other = EXAMPLE_1.replace("thread-042", "thread-043");
    let r = send(ws.path(), &other, &[]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let dir = PathBuf::from(r.packet()["payload"]["project_dir"].as_str().unwrap());
    assert_eq!(dir.file_name().unwrap(), "taskman-2");
    // Feedback for the first thread continues the first project only.
    let r2 = send(ws.path(), EXAMPLE_2, &[]);
    assert_eq!(
        r2.packet()["payload"]["project_dir"].as_str().unwrap(),
        ws.path()
            .join("taskman")
            .canonicalize()
            .unwrap()
            .to_str()
            .unwrap()
    );
    assert_eq!(commits(&dir).len(), 1);
}

#[test]
fn feedback_for_an_unknown_thread_is_bad_input() {
    let ws = tempfile::tempdir().unwrap();
    let r = send(ws.path(), EXAMPLE_2, &[]);
    assert_eq!(r.code(), 2);
    assert!(
        r.stderr()
            .contains("no design session for thread thread-042"),
        "{}",
        r.stderr()
    );
}

#[test]
fn ux_design_and_impact_report_are_used() {
    let ws = tempfile::tempdir().unwrap();
    let packet = EXAMPLE_1
        .replace("\"from_agent\": \"U:PM\"", "\"from_agent\": \"U:Ux\"")
        .replace("scope_validated", "ux_complete")
        .replace(
            "\"spec_metadata\": {},",
            "\"spec_metadata\": {}, \"ux_design\": \"Screens: task list, add form\", \"parameters\": {\"_impact_report\": {\"severity\": \"low\"}},",
        );
    let r = send(ws.path(), &packet, &[]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert!(r.stderr().contains("UX design incorporated"));
    assert!(r.stderr().contains("impact report"));
    assert!(
        r.packet()["payload"]["architecture"]
            .as_str()
            .unwrap()
            .contains("Screens: task list")
    );
}

/// The tests of this project use no mocking library (constitutional requirement).
#[test]
fn no_mocking_framework_anywhere() {
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    for name in ["mockall", "mockito", "wiremock", "httpmock", "faux"] {
        assert!(!manifest.contains(name), "Cargo.toml names {name}");
    }
}

mod interactive {
    use std::sync::Arc;
    use std::time::Duration;

    use tokio::sync::mpsc::UnboundedReceiver;
    use volk::cxp::Feedback;
    use volk::reasoner::offline::OfflineDrafter;
    use volk::volk::open::prepare_project;
    use volk::volk::protocol::{Action, Event, Phase, RunOptions};
    use volk::volk::runtime::load_design_input;

    async fn until(
        events: &mut UnboundedReceiver<Event>,
        what: &str,
        pred: impl Fn(&Event) -> bool,
    ) -> Vec<Event> {
        let mut seen = Vec::new();
        loop {
            let event = tokio::time::timeout(Duration::from_secs(20), events.recv())
                .await
                .unwrap_or_else(|_| panic!("timed out waiting for {what}; saw {seen:?}"))
                .unwrap_or_else(|| panic!("runtime ended before {what}"));
            let hit = pred(&event);
            seen.push(event);
            if hit {
                return seen;
            }
        }
    }

    /// Opens the project as `volk open` does and starts its session; the opened
    /// thread (its lock) lives as long as the returned value.
    fn start(
        dir: std::path::PathBuf,
        reasoner: volk::reasoner::SharedReasoner,
        options: RunOptions,
    ) -> Result<
        (
            volk::volk::runtime::SessionHandle,
            tokio::sync::mpsc::UnboundedReceiver<Event>,
            volk::volk::open::Opened,
        ),
        volk::BadInput,
    > {
        let opened = volk::volk::open::open(volk::volk::open::Start::Open(dir), "test").unwrap();
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let handle = volk::volk::runtime::start(&opened, reasoner, options, tx)?;
        Ok((handle, rx, opened))
    }

    fn project(ws: &std::path::Path) -> std::path::PathBuf {
        let file = ws.join("scope.json");
        std::fs::write(&file, super::EXAMPLE_1).unwrap();
        let (scope, thread, trace) = load_design_input(&file).unwrap();
        let (session, created) = prepare_project(ws, scope, &thread, &trace, 99).unwrap();
        assert!(created);
        session.project_dir
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_workbench_loop_runs_to_an_approved_plan() {
        let ws = tempfile::tempdir().unwrap();
        let dir = project(ws.path());
        let (handle, mut events, _opened) = start(
            dir.clone(),
            Arc::new(OfflineDrafter::default()),
            RunOptions::default(),
        )
        .unwrap();
        let seen = until(&mut events, "cycle 1", |e| {
            matches!(e, Event::Phase(Phase::AwaitingReview { cycle: 1 }))
        })
        .await;
        assert!(
            seen.iter().any(|e| matches!(e, Event::Delta { .. })),
            "text streams as deltas"
        );
        assert!(
            seen.iter()
                .any(|e| matches!(e, Event::CycleReady { cycle: 1, .. }))
        );
        handle.act(Action::Review(Feedback::questions(
            1,
            vec!["Which schema?".into()],
            vec![],
        )));
        let seen = until(&mut events, "cycle 2", |e| {
            matches!(e, Event::Phase(Phase::AwaitingReview { cycle: 2 }))
        })
        .await;
        assert!(
            seen.iter()
                .any(|e| matches!(e, Event::Committed { cycle: 2, .. }))
        );
        // A verdict on a cycle that is no longer current (a second window, a late key)
        // is refused and changes nothing.
        handle.act(Action::Review(Feedback::ready(1)));
        let seen = until(
            &mut events,
            "stale refusal",
            |e| matches!(e, Event::Notice { text, .. } if text.contains("cycle 1")),
        )
        .await;
        assert!(
            !seen.iter().any(|e| matches!(
                e,
                Event::Stopped { .. } | Event::Phase(Phase::Failed { .. })
            )),
            "a refusal is not a failure: {seen:?}"
        );
        handle.act(Action::Review(Feedback::ready(2)));
        // The default reflection questions apply: the answers are shown, the person finalizes.
        let seen = until(&mut events, "reflection", |e| {
            matches!(e, Event::Phase(Phase::AwaitingFinalize))
        })
        .await;
        assert!(
            seen.iter()
                .any(|e| matches!(e, Event::Reflection { questions, .. } if !questions.is_empty()))
        );
        handle.act(Action::Finalize);
        let seen = until(&mut events, "plan approval", |e| {
            matches!(e, Event::Phase(Phase::AwaitingPlanApproval))
        })
        .await;
        // Finalizing writes the same text again and commits it, and does not present
        // itself as a new cycle (which would reset every tab's scroll position).
        assert!(!seen.iter().any(|e| matches!(e, Event::CycleReady { .. })));
        assert!(
            seen.iter()
                .any(|e| matches!(e, Event::Committing { cycle: 2 }))
        );
        handle.act(Action::ApprovePlan);
        let seen = until(&mut events, "finalized", |e| {
            matches!(e, Event::Phase(Phase::Finalized))
        })
        .await;
        let path = seen
            .iter()
            .find_map(|e| match e {
                Event::Finalized { packet } => Some(packet.clone()),
                _ => None,
            })
            .expect("implement packet written");
        assert!(path.starts_with(dir.join(".volk/outbox")));
        assert!(dir.join("design/execution_plan.json").is_file());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_commit_is_an_error_the_workbench_retries() {
        let ws = tempfile::tempdir().unwrap();
        let dir = project(ws.path());
        // Another process's git lock: the first cycle's commit cannot be made.
        std::fs::write(dir.join(".git/index.lock"), "").unwrap();
        let (handle, mut events, _opened) = start(
            dir.clone(),
            Arc::new(OfflineDrafter::default()),
            RunOptions::default(),
        )
        .unwrap();
        // Reported once: the failed phase, with the commit's error and the retry.
        let seen = until(&mut events, "the failed phase", |e| {
            matches!(e, Event::Phase(Phase::Failed { .. }))
        })
        .await;
        let Some(Event::Phase(Phase::Failed {
            message, retryable, ..
        })) = seen.last()
        else {
            unreachable!()
        };
        assert!(message.contains("index.lock") && *retryable, "{message}");
        assert!(
            !seen.iter().any(|e| matches!(e, Event::Stopped { .. })),
            "{seen:?}"
        );
        assert!(
            !seen
                .iter()
                .any(|e| matches!(e, Event::Notice { text, .. } if text.contains("committed"))),
            "{seen:?}"
        );
        std::fs::remove_file(dir.join(".git/index.lock")).unwrap();
        handle.act(Action::Retry);
        until(&mut events, "the commit", |e| {
            matches!(e, Event::Committed { cycle: 1, .. })
        })
        .await;
        until(&mut events, "cycle 1", |e| {
            matches!(e, Event::Phase(Phase::AwaitingReview { cycle: 1 }))
        })
        .await;
        let repo = git2::Repository::open(&dir).unwrap();
        let mut walk = repo.revwalk().unwrap();
        walk.push_head().unwrap();
        assert_eq!(walk.count(), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cancel_stops_the_call_and_retry_resumes_it() {
        let ws = tempfile::tempdir().unwrap();
        let dir = project(ws.path());
        let slow = OfflineDrafter::paced(Duration::from_millis(20), 8);
        let (handle, mut events, opened) =
            start(dir.clone(), Arc::new(slow), RunOptions::default()).unwrap();
        until(&mut events, "first delta", |e| {
            matches!(e, Event::Delta { .. })
        })
        .await;
        handle.act(Action::Cancel);
        let seen = until(&mut events, "cancelled", |e| {
            matches!(e, Event::Phase(Phase::Cancelled { .. }))
        })
        .await;
        assert!(
            !seen.iter().any(|e| matches!(
                e,
                Event::Stopped { .. } | Event::Phase(Phase::Failed { .. })
            )),
            "a cancel is no failure: {seen:?}"
        );
        assert!(!seen.iter().any(|e| matches!(e, Event::CycleReady { .. })));
        assert!(
            !dir.join("design/architecture.md").exists(),
            "a cancelled call writes no cycle"
        );
        let session = volk::volk::session::Session::load(&dir).unwrap().unwrap();
        assert!(matches!(session.phase, Phase::Cancelled { .. }));
        assert_eq!(session.phase.short_label(), "cancelled");
        drop(handle);
        drop(opened); // the thread lock: a second writer could not take it
        // A new process (here: a new runtime on the same directory) shows the cancelled
        // call and retries it on request.
        let (handle, mut events, _opened) = start(
            dir.clone(),
            Arc::new(OfflineDrafter::default()),
            RunOptions::default(),
        )
        .unwrap();
        until(&mut events, "cancelled phase", |e| {
            matches!(e, Event::Phase(Phase::Cancelled { .. }))
        })
        .await;
        handle.act(Action::Retry);
        until(&mut events, "cycle 1", |e| {
            matches!(e, Event::Phase(Phase::AwaitingReview { cycle: 1 }))
        })
        .await;
        assert!(dir.join("design/architecture.md").is_file());
    }
}
