//! Sessions you can trust (issue 13, part A): one writer per thread, exactly-once
//! packets, directories never shared or adopted, every crash recovered by resending.
//! Real `volk run` processes racing and being killed with SIGKILL in temp workspaces,
//! real git repositories checked with the real `git fsck`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const EXAMPLE_1: &str = include_str!("fixtures/packets/example1_scope.json");
const EXAMPLE_2: &str = include_str!("fixtures/packets/example2_questions.json");
const EXAMPLE_3: &str = include_str!("fixtures/packets/example3_ready.json");

fn command(workspace: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_volk"));
    cmd.arg("run")
        .arg("--workspace")
        .arg(workspace)
        .args(extra)
        .current_dir(workspace)
        .env("VOLK_LOG", workspace.join("volk.log"))
        .env("VOLK_CONFIG_DIR", workspace.join("no-user-config"))
        .env_remove("VOLK_REASONER")
        .env_remove("VOLK_MAX_PACKET_BYTES")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn spawn(workspace: &Path, packet: &str, extra: &[&str]) -> Child {
    let mut child = command(workspace, extra).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A child killed before it reads its packet closes the pipe: not an error here.
    let _ = stdin.write_all(packet.as_bytes());
    drop(stdin);
    child
}

fn send(workspace: &Path, packet: &str, extra: &[&str]) -> Output {
    spawn(workspace, packet, extra).wait_with_output().unwrap()
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn commits(dir: &Path) -> Vec<String> {
    let Ok(repo) = git2::Repository::open(dir) else {
        return Vec::new();
    };
    let Ok(mut walk) = repo.revwalk() else {
        return Vec::new();
    };
    if walk.push_head().is_err() {
        return Vec::new();
    }
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

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn journal_events(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join(".volk/journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            // A cycle has up to three commits (cycle, finalization, plan): name each.
            format!(
                "{}@{}{}",
                v["event"].as_str().unwrap(),
                v["cycle"],
                v["detail"]["commit"].as_str().unwrap_or("")
            )
        })
        .collect()
}

fn session(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(".volk/session.json")).unwrap()).unwrap()
}

fn questions(other: &str) -> String {
    EXAMPLE_2.replace(
        "Should completed tasks be deleted or retained with a status flag?",
        other,
    )
}

/// Everything point 4 of the issue asks of a finished flow; returns what went wrong.
fn end_state_problems(ws: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let projects: Vec<PathBuf> = names(ws)
        .into_iter()
        .map(|n| ws.join(n))
        .filter(|p| p.is_dir() && !p.ends_with("no-user-config"))
        .collect();
    if projects.len() != 1 {
        problems.push(format!("{} project directories", projects.len()));
        return problems;
    }
    let dir = &projects[0];
    let log = commits(dir);
    let expected = [
        "Add the execution plan",
        "Finalize design after 2 cycle(s), after READY",
        "Design cycle 2: Architecture",
        "Design cycle 1: all artifacts",
    ];
    if log != expected {
        problems.push(format!("commits {log:?}"));
    }
    let outbox = names(&dir.join(".volk/outbox"));
    if outbox
        != [
            "001-design_review.json",
            "002-design_review.json",
            "003-implement.json",
        ]
    {
        problems.push(format!("outbox {outbox:?}"));
    }
    let events = journal_events(dir);
    let mut seen = std::collections::HashSet::new();
    for event in &events {
        let once = [
            "design_started",
            "cycle_written",
            "feedback_received",
            "committed",
            "finalized_docs",
            "escalated",
        ]
        .iter()
        .any(|e| event.starts_with(&format!("{e}@")));
        if once && !seen.insert(event.clone()) {
            problems.push(format!("journal step {event} twice"));
        }
    }
    let s = session(dir);
    if s["phase"]["phase"] != "finalized" || s["cycle"] != 2 {
        problems.push(format!("session at {} cycle {}", s["phase"], s["cycle"]));
    }
    let fsck = Command::new("git")
        .args(["fsck", "--no-dangling"])
        .current_dir(dir)
        .output()
        .unwrap();
    if !fsck.status.success() {
        problems.push(format!("git fsck: {}", text(&fsck.stderr)));
    }
    let tree = Command::new("git")
        .args(["ls-tree", "-r", "--name-only", "HEAD"])
        .current_dir(dir)
        .output()
        .unwrap();
    let tree = text(&tree.stdout);
    if tree
        .lines()
        .any(|l| l.contains("volk-tmp") || l.starts_with(".volk/"))
    {
        problems.push(format!("temp or session files committed: {tree}"));
    }
    for sub in ["design", ".volk/outbox", "."] {
        if names(&dir.join(sub))
            .iter()
            .any(|n| n.starts_with(".volk-tmp"))
        {
            problems.push(format!("temp file left in {sub}"));
        }
    }
    problems
}

#[test]
fn two_runs_of_the_same_ready_packet_send_one_implement_packet() {
    let trials = 6;
    let mut wrong = 0;
    for _ in 0..trials {
        let ws = tempfile::tempdir().unwrap();
        let ws = ws.path();
        assert_eq!(code(&send(ws, EXAMPLE_1, &[])), 0);
        assert_eq!(code(&send(ws, EXAMPLE_2, &[])), 0);
        let a = spawn(ws, EXAMPLE_3, &[]);
        let b = spawn(ws, EXAMPLE_3, &[]);
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        assert_eq!(code(&a), 0, "{}", text(&a.stderr));
        assert_eq!(code(&b), 0, "{}", text(&b.stderr));
        assert_eq!(a.stdout, b.stdout, "both print the one implement packet");
        let problems = end_state_problems(ws);
        if !problems.is_empty() {
            wrong += 1;
            eprintln!("{problems:?}");
        }
    }
    eprintln!("same READY twice at once: {trials} tried / {wrong} went wrong");
    assert_eq!(wrong, 0);
}

#[test]
fn two_different_questions_for_one_cycle_keep_one_and_refuse_the_other() {
    let trials = 6;
    let mut wrong = 0;
    for _ in 0..trials {
        let ws = tempfile::tempdir().unwrap();
        let ws = ws.path();
        assert_eq!(code(&send(ws, EXAMPLE_1, &[])), 0);
        let one = questions("Who may delete a task?");
        let two = questions("How are tasks sorted?");
        let a = spawn(ws, &one, &[]);
        let b = spawn(ws, &two, &[]);
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let mut codes = [code(&a), code(&b)];
        codes.sort();
        let loser = if code(&a) == 2 { &a } else { &b };
        let dir = ws.join("taskman");
        let s = session(&dir);
        let taken = s["history"][0]["feedback"]["questions"][1]
            .as_str()
            .unwrap_or("");
        let winner_text = if code(&a) == 0 {
            "Who may delete"
        } else {
            "How are tasks"
        };
        if codes != [0, 2]
            || !text(&loser.stderr).contains("stale")
            || !taken.starts_with(winner_text)
            || commits(&dir).len() != 2
            || names(&dir.join(".volk/outbox")).len() != 2
        {
            wrong += 1;
            eprintln!("codes {codes:?}: {} / {}", text(&a.stderr), text(&b.stderr));
        }
    }
    eprintln!("two QUESTIONS for one cycle at once: {trials} tried / {wrong} went wrong");
    assert_eq!(wrong, 0);
}

#[test]
fn two_new_threads_with_one_project_name_get_two_directories() {
    let trials = 6;
    let mut wrong = 0;
    for _ in 0..trials {
        let ws = tempfile::tempdir().unwrap();
        let ws = ws.path();
        let other = EXAMPLE_1.replace("thread-042", "thread-043");
        let a = spawn(ws, EXAMPLE_1, &[]);
        let b = spawn(ws, &other, &[]);
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let pa: Value = serde_json::from_slice(&a.stdout).unwrap_or_default();
        let pb: Value = serde_json::from_slice(&b.stdout).unwrap_or_default();
        let (da, db) = (&pa["payload"]["project_dir"], &pb["payload"]["project_dir"]);
        let mut dirs = vec![
            Path::new(da.as_str().unwrap_or(""))
                .file_name()
                .map(|n| n.to_string_lossy().into_owned()),
            Path::new(db.as_str().unwrap_or(""))
                .file_name()
                .map(|n| n.to_string_lossy().into_owned()),
        ];
        dirs.sort();
        let ok = code(&a) == 0
            && code(&b) == 0
            && dirs == [Some("taskman".to_string()), Some("taskman-2".to_string())]
            && session(Path::new(da.as_str().unwrap()))["thread_id"] == "thread-042"
            && session(Path::new(db.as_str().unwrap()))["thread_id"] == "thread-043"
            && commits(&ws.join("taskman")).len() == 1
            && commits(&ws.join("taskman-2")).len() == 1;
        if !ok {
            wrong += 1;
            eprintln!("{dirs:?} {} {}", text(&a.stderr), text(&b.stderr));
        }
    }
    eprintln!("two new threads, one project_name, at once: {trials} tried / {wrong} went wrong");
    assert_eq!(wrong, 0);
}

#[test]
fn the_same_scope_twice_at_once_makes_one_project() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    let a = spawn(ws, EXAMPLE_1, &[]);
    let b = spawn(ws, EXAMPLE_1, &[]);
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert_eq!(code(&a), 0, "{}", text(&a.stderr));
    assert_eq!(code(&b), 0, "{}", text(&b.stderr));
    assert_eq!(a.stdout, b.stdout);
    assert!(!ws.join("taskman-2").exists());
    assert_eq!(commits(&ws.join("taskman")).len(), 1);
    assert_eq!(
        names(&ws.join("taskman/.volk/outbox")),
        ["001-design_review.json"]
    );
}

#[test]
fn a_user_repository_a_symlink_and_a_file_are_never_taken_over() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    // A user's repository with uncommitted work and a secret where volk would go.
    let user = ws.join("taskman");
    std::fs::create_dir_all(user.join("design")).unwrap();
    let git = |args: &[&str], dir: &Path| {
        let out = Command::new("git")
            .args(["-c", "user.name=u", "-c", "user.email=u@x"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    git(&["init", "-q"], &user);
    std::fs::write(user.join("design/architecture.md"), "mine").unwrap();
    git(&["add", "."], &user);
    git(&["commit", "-qm", "user work"], &user);
    std::fs::write(user.join(".env"), "SECRET=1").unwrap();
    std::fs::write(user.join("design/architecture.md"), "mine, edited").unwrap();
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(&user).unwrap().permissions().mode()
    };
    // A symlinked directory and a plain file at the next names.
    let elsewhere = tempfile::tempdir().unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(elsewhere.path(), ws.join("taskman-2")).unwrap();
    std::fs::write(ws.join("taskman-3"), "a file").unwrap();

    let out = send(ws, EXAMPLE_1, &[]);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let packet: Value = serde_json::from_slice(&out.stdout).unwrap();
    let dir = PathBuf::from(packet["payload"]["project_dir"].as_str().unwrap());
    let expected = if cfg!(unix) { "taskman-4" } else { "taskman-2" };
    assert_eq!(dir.file_name().unwrap(), expected);

    assert_eq!(commits(&user), ["user work"]);
    assert_eq!(
        std::fs::read_to_string(user.join("design/architecture.md")).unwrap(),
        "mine, edited"
    );
    assert!(!user.join(".volk").exists());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&user).unwrap().permissions().mode(), mode);
    }
    assert!(
        std::fs::read_dir(elsewhere.path())
            .unwrap()
            .next()
            .is_none()
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("taskman-3")).unwrap(),
        "a file"
    );
    // Feedback finds the thread's own directory.
    let out = send(ws, EXAMPLE_2, &[]);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert_eq!(commits(&dir).len(), 2);
    eprintln!("existing directory, symlink, file at the project name: 3 tried / 0 went wrong");
}

#[test]
fn a_second_run_waits_for_the_holder_then_names_it() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    assert_eq!(code(&send(ws, EXAMPLE_1, &[])), 0);
    let dir = ws.join("taskman");
    let held = volk::volk::lock::try_acquire(&dir, "volk open")
        .unwrap()
        .unwrap();
    let started = Instant::now();
    let out = send(ws, EXAMPLE_2, &["--lock-wait", "1"]);
    let waited = started.elapsed();
    assert_eq!(code(&out), 2, "{}", text(&out.stderr));
    let line = text(&out.stderr);
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(
        line.contains(&format!("pid {}", std::process::id())),
        "{line}"
    );
    assert!(line.contains("volk open"), "{line}");
    assert!(waited >= Duration::from_secs(1), "{waited:?}");
    assert!(out.stdout.is_empty());
    assert_eq!(commits(&dir).len(), 1);
    drop(held);
    assert_eq!(code(&send(ws, EXAMPLE_2, &["--lock-wait", "1"])), 0);

    // A holder that died blocks nobody.
    let mut child = spawn(ws, EXAMPLE_3, &[]);
    std::thread::sleep(Duration::from_millis(20));
    let _ = child.kill();
    child.wait().unwrap();
    let started = Instant::now();
    let out = send(ws, EXAMPLE_3, &["--lock-wait", "5"]);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn kill_at_any_instant_then_resend_completes_each_step_exactly_once() {
    let budget = Duration::from_secs(25);
    let started = Instant::now();
    // A fixed seed by default, so a failure can be replayed; `VOLK_KILL_SEED` explores.
    let seed = std::env::var("VOLK_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(13);
    let mut rng = fastrand::Rng::with_seed(seed);
    let (mut killed, mut flows, mut wrong) = (0u32, 0u32, 0u32);
    let mut refused = 0u32;
    let mut silent = 0u32;
    while started.elapsed() < budget && flows < 60 {
        flows += 1;
        let ws = tempfile::tempdir().unwrap();
        let ws = ws.path();
        let mut outputs = Vec::new();
        for packet in [EXAMPLE_1, EXAMPLE_2, EXAMPLE_3] {
            // One to three kills at random instants, then a resend that runs to its end.
            for _ in 0..rng.u32(1..=3) {
                let mut child = spawn(ws, packet, &[]);
                std::thread::sleep(Duration::from_micros(rng.u64(0..90_000)));
                if child.try_wait().unwrap().is_none() {
                    child.kill().unwrap();
                    killed += 1;
                }
                child.wait().unwrap();
            }
            let out = send(ws, packet, &[]);
            if code(&out) != 0 {
                refused += 1;
                eprintln!("resend refused: {}", text(&out.stderr));
            } else if out.stdout.is_empty() {
                silent += 1;
            }
            outputs.push(out);
        }
        let mut problems = end_state_problems(ws);
        if let [_, _, last] = outputs.as_slice() {
            let packet: Value = serde_json::from_slice(&last.stdout).unwrap_or_default();
            if packet["header"]["subject"] != "implement" {
                problems.push("the last resend did not print the implement packet".into());
            }
        }
        if !problems.is_empty() {
            wrong += 1;
            eprintln!("flow {flows}: {problems:?}");
        }
    }
    eprintln!(
        "kill -9 then resend: {flows} flows, {killed} killed / {wrong} flows went wrong, {refused} refused, {silent} printed nothing ({:?})",
        started.elapsed()
    );
    assert!(killed >= 30, "too few kills landed: {killed}");
    assert_eq!((wrong, refused, silent), (0, 0, 0));
}

#[test]
fn an_oversized_packet_is_refused_before_anything_is_created() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    let big = EXAMPLE_1.replace(
        "\"task_summary\"",
        &format!(
            "\"padding\": \"{}\", \"task_summary\"",
            "x".repeat(9 * 1024 * 1024)
        ),
    );
    let out = send(ws, &big, &[]);
    assert_eq!(code(&out), 2);
    assert!(
        text(&out.stderr).contains("larger than 8388608 bytes"),
        "{}",
        text(&out.stderr)
    );
    let out = send(ws, EXAMPLE_1, &["--max-packet-bytes", "100"]);
    assert_eq!(code(&out), 2);
    let file = ws.join("big.json");
    std::fs::write(&file, &big).unwrap();
    let out = send(ws, "", &["--packet", file.to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    let left: Vec<String> = names(ws)
        .into_iter()
        .filter(|n| n != "volk.log" && n != "big.json")
        .collect();
    assert!(left.is_empty(), "{left:?}");
    eprintln!("oversized packet: 3 tried / 0 went wrong");
}

#[test]
fn senders_duplicate_keys_and_control_characters() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    let from_junior = EXAMPLE_1.replace("\"U:PM\"", "\"J:Junior\"");
    let out = send(ws, &from_junior, &[]);
    assert_eq!(code(&out), 2);
    assert!(
        text(&out.stderr).contains("header.from_agent"),
        "{}",
        text(&out.stderr)
    );
    assert!(!ws.join("taskman").exists());
    assert_eq!(code(&send(ws, EXAMPLE_1, &[])), 0);
    let from_pm = EXAMPLE_2.replace("\"J:Junior\"", "\"U:PM\"");
    let out = send(ws, &from_pm, &[]);
    assert_eq!(code(&out), 2);
    assert!(text(&out.stderr).contains("J:Junior"));

    let duplicate = EXAMPLE_2.replace(
        "\"verdict\": \"QUESTIONS\",",
        "\"verdict\": \"READY\", \"verdict\": \"QUESTIONS\",",
    );
    let out = send(ws, &duplicate, &[]);
    assert_eq!(code(&out), 2);
    assert!(
        text(&out.stderr).contains("duplicate key /payload/verdict"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(commits(&ws.join("taskman")).len(), 1);

    let hostile = EXAMPLE_2.replace("thread-042", "thread-\\u001b[2J\\u001b]0;pwned\\u0007");
    let out = send(ws, &hostile, &[]);
    assert_eq!(code(&out), 2);
    let err = text(&out.stderr);
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert!(err.contains("\\x1b[2J"), "{err}");
}

#[test]
fn corrupt_sessions_and_git_trouble_are_one_clear_line() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    assert_eq!(code(&send(ws, EXAMPLE_1, &[])), 0);
    let dir = ws.join("taskman");
    let session_path = dir.join(".volk/session.json");
    let good = std::fs::read_to_string(&session_path).unwrap();

    std::fs::write(
        &session_path,
        good.replacen("\"version\": 1", "\"version\": 7", 1),
    )
    .unwrap();
    let out = send(ws, EXAMPLE_2, &[]);
    assert_eq!(code(&out), 2);
    let line = text(&out.stderr);
    assert!(
        line.contains("session.json") && line.contains("version 7"),
        "{line}"
    );
    std::fs::write(&session_path, "{ torn").unwrap();
    let out = send(ws, EXAMPLE_2, &[]);
    assert_eq!(code(&out), 2);
    assert!(text(&out.stderr).contains("session.json"));
    std::fs::write(&session_path, &good).unwrap();

    // Another process's git lock: the commit fails, nothing claims it succeeded.
    std::fs::write(dir.join(".git/index.lock"), "").unwrap();
    let out = send(ws, EXAMPLE_2, &[]);
    assert_eq!(code(&out), 1);
    let err = text(&out.stderr);
    assert!(
        err.contains("index.lock") && !err.contains("written and committed"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    std::fs::remove_file(dir.join(".git/index.lock")).unwrap();
    let out = send(ws, EXAMPLE_2, &[]);
    assert_eq!(code(&out), 0, "resending retries: {}", text(&out.stderr));
    assert_eq!(commits(&dir).len(), 2);
    assert_eq!(names(&dir.join(".volk/outbox")).len(), 2);

    // A deleted .git is named, not silently skipped.
    std::fs::remove_dir_all(dir.join(".git")).unwrap();
    let out = send(ws, EXAMPLE_3, &[]);
    assert_eq!(code(&out), 1);
    let err = text(&out.stderr);
    assert!(err.contains(".git is gone"), "{err}");
}

#[test]
fn context_json_tells_the_pipeline_where_the_work_stands() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    assert_eq!(code(&send(ws, EXAMPLE_1, &[])), 0);
    let dir = ws.join("taskman");
    let path = dir.join("context.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    doc["pipeline_note"] = Value::from("kept");
    std::fs::write(&path, doc.to_string()).unwrap();
    assert_eq!(code(&send(ws, EXAMPLE_2, &[])), 0);
    let out = send(ws, EXAMPLE_3, &[]);
    assert_eq!(code(&out), 0);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc["pipeline_note"], "kept");
    let history = doc["session_history"].as_array().unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0]["cycle"], 1);
    assert_eq!(history[0]["verdict"], "QUESTIONS");
    assert_eq!(history[1]["verdict"], "READY");
    let commit1 = history[0]["commit"].as_str().unwrap();
    assert_eq!(commit1.len(), 7);
    let state = &doc["state"];
    assert_eq!(state["work_status"], "IN_PROGRESS");
    assert_eq!(state["thread_id"], "thread-042");
    assert_eq!(state["cycles"], 2);
    let implement = state["implement_packet"].as_str().unwrap();
    assert_eq!(implement, ".volk/outbox/003-implement.json");
    assert!(dir.join(implement).is_file());
}
