//! `volk serve`, `volk submit` and `volk bus` against the real nats-server (Debian's
//! 2.9): exactly once per thread and cycle across workers, kills, restarts and
//! duplicates. Each test starts its own server on a free port with a temp store.
#![cfg(feature = "bus")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::nats::{Nats, Worker, raw_publish, volk};
use support::provider::{Piece, Provider, openai_stream, sse_chunk, sse_end, stream_head};

const SCOPE: &str = include_str!("fixtures/packets/example1_scope.json");
const QUESTIONS: &str = include_str!("fixtures/packets/example2_questions.json");
const READY: &str = include_str!("fixtures/packets/example3_ready.json");

const DESIGN: &str = "ARCHITECTURE:
# taskman

## Components
1. Cli: parses commands.
2. Store: SQLite persistence.

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

/// The example scope for thread `thread`, project `project`.
fn scope(thread: &str, project: &str) -> String {
    SCOPE
        .replace("thread-042", thread)
        .replace("\"taskman\"", &format!("\"{project}\""))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `volk submit` of `packet` (written to a file in `dir`), waiting `wait` seconds.
fn submit_command(url: &str, dir: &Path, packet: &str, wait: Option<u64>) -> Command {
    let path = dir.join(format!("packet-{}.json", fastrand::u64(..)));
    std::fs::write(&path, packet).unwrap();
    let mut cmd = volk(&["submit", "--bus", url, "--packet"]);
    cmd.arg(&path);
    if let Some(wait) = wait {
        cmd.args(["--wait", &wait.to_string()]);
    }
    cmd
}

fn submit(url: &str, dir: &Path, packet: &str, wait: Option<u64>) -> Output {
    submit_command(url, dir, packet, wait).output().unwrap()
}

/// The reply a `--wait` submit printed, checked to be a `design_review` of `thread`.
fn review_of(out: &Output, thread: &str) -> Value {
    assert!(
        out.status.success(),
        "submit for {thread}: {}",
        text(&out.stderr)
    );
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reply["header"]["subject"], "design_review", "{reply}");
    assert_eq!(reply["header"]["thread_id"], thread);
    reply
}

fn status(url: &str) -> String {
    let out = volk(&["bus", "status", "--bus", url]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

fn replies(url: &str) -> usize {
    let status = status(url);
    let line = status
        .lines()
        .find(|l| l.starts_with("CXP_OUT:"))
        .unwrap_or_default()
        .to_string();
    line.split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{status}"))
}

/// The project directories of a workspace.
fn projects(ws: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(ws)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join(".volk/session.json").exists())
        .collect();
    dirs.sort();
    dirs
}

fn outbox(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join(".volk/outbox"))
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn commits(dir: &Path) -> Vec<String> {
    let out = Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(dir)
        .output()
        .unwrap();
    text(&out.stdout).lines().map(str::to_string).collect()
}

fn fsck_ok(dir: &Path) -> bool {
    Command::new("git")
        .args(["fsck", "--no-dangling"])
        .current_dir(dir)
        .output()
        .unwrap()
        .status
        .success()
}

/// Journal events of `dir` that must happen once per cycle, with how often they did.
fn repeated_journal_steps(dir: &Path) -> Vec<String> {
    let journal = std::fs::read_to_string(dir.join(".volk/journal.jsonl")).unwrap_or_default();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    for line in journal.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let event = v["event"].as_str().unwrap_or_default();
        if ["design_started", "cycle_written", "committed"].contains(&event) {
            // A cycle has up to three commits (cycle, finalization, plan): name each.
            let commit = v["detail"]["commit"].as_str().unwrap_or_default();
            *seen
                .entry(format!("{event}@{}{commit}", v["cycle"]))
                .or_default() += 1;
        }
    }
    seen.into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(e, n)| format!("{e} x{n}"))
        .collect()
}

/// One design cycle, one commit, one outbox file, a sound repository.
fn assert_one_cycle(dir: &Path) {
    assert_eq!(outbox(dir), ["001-design_review.json"], "{}", dir.display());
    let log = commits(dir);
    assert_eq!(log.len(), 1, "{}: {log:?}", dir.display());
    assert!(log[0].starts_with("Design cycle 1"), "{log:?}");
    assert!(fsck_ok(dir), "{}", dir.display());
    assert_eq!(
        repeated_journal_steps(dir),
        Vec::<String>::new(),
        "{}",
        dir.display()
    );
}

fn wait_until(timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

fn openai_flags(provider: &Provider) -> Vec<String> {
    [
        "--reasoner",
        "openai",
        "--model",
        "scripted",
        "--base-url",
        &provider.v1(),
        "--lint-repairs",
        "0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn refs(flags: &[String]) -> Vec<&str> {
    flags.iter().map(String::as_str).collect()
}

/// The design streamed in ten pieces over about `total`: a model that takes its time.
fn slow_provider(total: Duration) -> Provider {
    Provider::paced(Arc::new(move |_, _| {
        let mut pieces = vec![Piece::Bytes(stream_head())];
        let chars: Vec<char> = DESIGN.chars().collect();
        for chunk in chars.chunks(chars.len() / 10 + 1) {
            pieces.push(Piece::Pause(total / 10));
            pieces.push(Piece::Bytes(
                sse_chunk(&chunk.iter().collect::<String>()).into_bytes(),
            ));
        }
        pieces.push(Piece::Bytes(sse_end().into_bytes()));
        pieces
    }))
}

#[test]
fn thirty_new_threads_on_two_workers_get_one_reply_commit_and_outbox_file_each() {
    let nats = Nats::start();
    let init = nats.init(10.0);
    let report = text(&init.stdout);
    assert!(report.contains("created stream CXP_IN"), "{report}");
    assert!(report.contains("created bucket volk_ledger"), "{report}");
    // Idempotent: a second init finds everything.
    let again = text(&nats.init(10.0).stdout);
    assert!(!again.contains("created"), "{again}");
    assert!(again.contains("found consumer CXP_IN/workers"), "{again}");

    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let flags = ["--reasoner", "offline", "--concurrency", "2"];
    let a = Worker::start(&nats.url, &ws, "A", &flags);
    let b = Worker::start(&nats.url, &ws, "B", &flags);

    let threads: Vec<String> = (0..30).map(|i| format!("t-{i:02}")).collect();
    let submits: Vec<_> = threads
        .iter()
        .enumerate()
        .map(|(i, t)| {
            submit_command(
                &nats.url,
                tmp.path(),
                &scope(t, &format!("proj{i}")),
                Some(120),
            )
            .spawn()
            .unwrap()
        })
        .collect();
    for (thread, child) in threads.iter().zip(submits) {
        review_of(&child.wait_with_output().unwrap(), thread);
    }
    assert_eq!(replies(&nats.url), 30);
    let dirs = projects(&ws);
    assert_eq!(dirs.len(), 30);
    for dir in &dirs {
        assert_one_cycle(dir);
    }
    let answered = a.log().matches(" answered ").count() + b.log().matches(" answered ").count();
    assert_eq!(answered, 30, "A:\n{}\nB:\n{}", a.log(), b.log());
    let report = status(&nats.url);
    assert!(report.contains("threads: 30"), "{report}");
    assert!(
        report.contains("t-07 (not leased): cycle 0 scope_validated: done, reply CXP_OUT#"),
        "{report}"
    );
}

#[test]
fn the_same_packet_two_hundred_times_is_one_reply_and_one_reasoner_call() {
    let nats = Nats::start();
    nats.init(10.0);
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let provider = Provider::scripted(vec![DESIGN.to_string()]);
    let flags = openai_flags(&provider);
    let mut args = refs(&flags);
    args.extend(["--concurrency", "3"]);
    let worker = Worker::start(&nats.url, &ws, "A", &args);

    let packet = scope("dup-1", "taskman");
    let mut duplicates = 0;
    for _ in 0..8 {
        let batch: Vec<_> = (0..25)
            .map(|_| {
                submit_command(&nats.url, tmp.path(), &packet, None)
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in batch {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", text(&out.stderr));
            duplicates += usize::from(text(&out.stderr).contains("a duplicate"));
        }
    }
    assert_eq!(
        duplicates, 199,
        "Nats-Msg-Id de-duplicates every resend but the first"
    );
    // Resends past the duplicate window (new message ids) reach the workers: the
    // ledger answers them without a model call.
    for i in 0..5 {
        raw_publish(
            nats.port,
            "cxp.in._new.resend",
            Some(&format!("late-{i}")),
            packet.as_bytes(),
        );
    }
    let first = review_of(&submit(&nats.url, tmp.path(), &packet, Some(60)), "dup-1");
    assert!(wait_until(Duration::from_secs(20), || status(&nats.url)
        .contains("CXP_IN: 0 queued")));
    let again = review_of(&submit(&nats.url, tmp.path(), &packet, Some(5)), "dup-1");
    assert_eq!(first, again, "a resend prints the same reply");
    assert_eq!(provider.hits(), 1, "{}", worker.log());
    assert_eq!(replies(&nats.url), 1);
    let dirs = projects(&ws);
    assert_eq!(dirs.len(), 1);
    assert_one_cycle(&dirs[0]);
}

#[test]
fn while_a_holds_the_lease_b_never_writes_and_takes_over_after_a_is_killed() {
    let nats = Nats::start();
    nats.init(2.0);
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    // The first call stalls (A is mid-stream when killed); later calls answer at once.
    let provider = Provider::paced(Arc::new(|n, _| {
        if n == 0 {
            vec![
                Piece::Bytes(stream_head()),
                Piece::Bytes(sse_chunk("ARCHITECTURE:\n# taskman\n").into_bytes()),
                Piece::Pause(Duration::from_secs(30)),
            ]
        } else {
            vec![Piece::Bytes(openai_stream(DESIGN, 50))]
        }
    }));
    let flags = openai_flags(&provider);
    let mut a = Worker::start(&nats.url, &ws, "A", &refs(&flags));
    let packet = scope("leased", "taskman");
    let out = submit(&nats.url, tmp.path(), &packet, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        wait_until(Duration::from_secs(20), || provider.hits() == 1),
        "{}",
        a.log()
    );

    // The pipeline resends (a new message id): B gets it while A holds the thread.
    let b = Worker::start(&nats.url, &ws, "B", &refs(&flags));
    raw_publish(
        nats.port,
        "cxp.in._new.resend",
        Some("resend-1"),
        packet.as_bytes(),
    );
    assert!(
        b.wait_for("thread leased is leased by A", Duration::from_secs(20)),
        "{}",
        b.log()
    );
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(
        provider.hits(),
        1,
        "B called the model while A held the thread"
    );
    assert!(!b.log().contains("B took"), "{}", b.log());
    let dir = &projects(&ws)[0];
    assert!(outbox(dir).is_empty());
    assert!(commits(dir).is_empty());

    let killed = Instant::now();
    a.kill();
    assert!(
        b.wait_for("B answered", Duration::from_secs(30)),
        "{}",
        b.log()
    );
    assert!(killed.elapsed() < Duration::from_secs(30));
    assert_eq!(provider.hits(), 2);
    let reply = review_of(&submit(&nats.url, tmp.path(), &packet, Some(10)), "leased");
    assert_eq!(reply["payload"]["design_cycle"], 1);
    assert!(wait_until(Duration::from_secs(20), || status(&nats.url)
        .contains("CXP_IN: 0 queued")));
    assert_eq!(replies(&nats.url), 1);
    assert_one_cycle(dir);
}

#[test]
fn a_server_restart_between_submit_and_processing_loses_nothing() {
    let mut nats = Nats::start();
    nats.init(10.0);
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let packet = scope("restart-1", "taskman");
    let out = submit(&nats.url, tmp.path(), &packet, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    nats.restart();
    let worker = Worker::start(&nats.url, &ws, "A", &["--reasoner", "offline"]);
    let reply = review_of(
        &submit(&nats.url, tmp.path(), &packet, Some(60)),
        "restart-1",
    );
    assert_eq!(reply["payload"]["design_cycle"], 1);
    assert!(worker.log().contains("delivery 1"), "{}", worker.log());
    assert_eq!(replies(&nats.url), 1);
    assert_one_cycle(&projects(&ws)[0]);
}

#[test]
fn refused_packets_are_dead_lettered_with_their_reason_and_can_be_replayed() {
    let nats = Nats::start();
    nats.init(10.0);
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let _worker = Worker::start(
        &nats.url,
        &ws,
        "A",
        &["--reasoner", "offline", "--max-packet-bytes", "20000"],
    );
    let big = SCOPE.replace(
        "\"A simple task manager for personal use\"",
        &format!("\"{}\"", "x".repeat(30_000)),
    );
    raw_publish(nats.port, "cxp.in._new.big", Some("big-1"), big.as_bytes());
    let twice = SCOPE.replace(
        "\"to_agent\": \"U:Ar\",",
        "\"to_agent\": \"U:Ar\", \"to_agent\": \"U:Cd\",",
    );
    raw_publish(
        nats.port,
        "cxp.in._new.twice",
        Some("twice-1"),
        twice.as_bytes(),
    );
    let stranger = SCOPE.replace("\"from_agent\": \"U:PM\"", "\"from_agent\": \"X:Evil\"");
    let refused = submit(&nats.url, tmp.path(), &stranger, None);
    assert_eq!(
        refused.status.code(),
        Some(2),
        "submit checks the sender too"
    );
    raw_publish(
        nats.port,
        "cxp.in._new.stranger",
        Some("stranger-1"),
        stranger.as_bytes(),
    );

    let list = || {
        let out = volk(&["bus", "dlq", "list", "--bus", &nats.url])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert!(
        wait_until(Duration::from_secs(20), || list().lines().count() == 3),
        "{}",
        list()
    );
    let letters = list();
    assert!(
        letters.contains("larger than 20000 bytes (--max-packet-bytes)"),
        "{letters}"
    );
    assert!(
        letters.contains("duplicate key /header/to_agent"),
        "{letters}"
    );
    assert!(letters.contains("header.from_agent"), "{letters}");
    assert!(projects(&ws).is_empty(), "a refused packet creates nothing");
    assert!(status(&nats.url).contains("dead letters: 3"));

    let first: u64 = letters
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("CXP_DLQ#"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    let replay = volk(&[
        "bus",
        "dlq",
        "replay",
        "--bus",
        &nats.url,
        "--seq",
        &first.to_string(),
    ])
    .output()
    .unwrap();
    assert!(replay.status.success(), "{}", text(&replay.stderr));
    assert!(text(&replay.stdout).contains(&format!("CXP_DLQ#{first} replayed on cxp.in._new.big")));
    // Still too big: it comes back to the dead letters, under a new number.
    assert!(wait_until(Duration::from_secs(20), || {
        let l = list();
        l.lines().count() == 3 && !l.contains(&format!("CXP_DLQ#{first} "))
    }));
    let missing = volk(&["bus", "dlq", "replay", "--bus", &nats.url, "--seq", "999"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("CXP_DLQ#999: no such dead letter"));
}

#[test]
fn credentials_in_the_bus_url_never_appear_in_logs_or_errors() {
    let secret = "hunter2-Secret-9f8e7d";
    let nats = Nats::with_config(&format!(
        "authorization {{ user: volk, password: \"{secret}\" }}"
    ));
    let url = format!("nats://volk:{secret}@127.0.0.1:{}", nats.port);
    let init = volk(&["bus", "init", "--bus", &url]).output().unwrap();
    assert!(init.status.success(), "{}", text(&init.stderr));
    let wrong = "wrong-Pass-4c3b2a";
    let denied = volk(&[
        "bus",
        "status",
        "--bus",
        &format!("nats://volk:{wrong}@127.0.0.1:{}", nats.port),
    ])
    .output()
    .unwrap();
    assert_eq!(denied.status.code(), Some(1));
    let error = text(&denied.stderr);
    assert!(
        error.contains("cannot reach the bus at nats://[redacted]@127.0.0.1"),
        "{error}"
    );
    assert!(!error.contains(wrong), "{error}");

    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let worker = Worker::start(&url, &ws, "A", &["--reasoner", "offline"]);
    review_of(
        &submit(&url, tmp.path(), &scope("secret-1", "taskman"), Some(60)),
        "secret-1",
    );
    let status = volk(&["bus", "status", "--bus", &url]).output().unwrap();
    let mut everything =
        worker.log() + &text(&status.stdout) + &text(&status.stderr) + &text(&init.stdout);
    everything += &std::fs::read_to_string(ws.join("A.volk.log")).unwrap_or_default();
    assert!(
        everything.contains("nats://[redacted]@127.0.0.1"),
        "{everything}"
    );
    assert!(!everything.contains(secret), "{everything}");
}

#[test]
fn workers_killed_mid_stream_twenty_times_leave_every_cycle_done_exactly_once() {
    let nats = Nats::start();
    nats.init(2.0);
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let provider = slow_provider(Duration::from_millis(800));
    let flags = openai_flags(&provider);
    let started = Instant::now();
    let kills = 20;
    for i in 0..kills {
        let thread = format!("kill-{i:02}");
        let out = submit(
            &nats.url,
            tmp.path(),
            &scope(&thread, &format!("kill{i}")),
            None,
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let mut worker = Worker::start(&nats.url, &ws, &format!("W{i}"), &refs(&flags));
        assert!(
            worker.wait_for(&format!("for thread {thread},"), Duration::from_secs(30)),
            "{}",
            worker.log()
        );
        // Anywhere in the step: before the request, mid-stream, or after it.
        std::thread::sleep(Duration::from_millis(fastrand::u64(50..900)));
        worker.kill();
    }
    let survivor = Worker::start(
        &nats.url,
        &ws,
        "S",
        &[&refs(&flags)[..], &["--concurrency", "4"]].concat(),
    );
    for i in 0..kills {
        let thread = format!("kill-{i:02}");
        review_of(
            &submit(
                &nats.url,
                tmp.path(),
                &scope(&thread, &format!("kill{i}")),
                Some(60),
            ),
            &thread,
        );
    }
    assert!(wait_until(Duration::from_secs(20), || status(&nats.url)
        .contains("CXP_IN: 0 queued")));
    assert_eq!(replies(&nats.url), kills);
    let dirs = projects(&ws);
    assert_eq!(dirs.len(), kills, "{}", survivor.log());
    for dir in &dirs {
        assert_one_cycle(dir);
    }
    assert!(status(&nats.url).contains("dead letters: 0"));
    // Some calls were cut off mid-stream and made again by the next worker.
    assert!(provider.hits() > kills, "{} calls", provider.hits());
    eprintln!("{kills} kills in {:?}", started.elapsed());
}

#[test]
fn two_workspaces_carry_one_thread_through_the_state_remote_and_sigterm_stops_cleanly() {
    let nats = Nats::start();
    nats.init(10.0);
    let tmp = tempfile::tempdir().unwrap();
    let remote = tmp.path().join("state.git");
    let init = Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(&remote)
        .status()
        .unwrap();
    assert!(init.success());
    let url = format!("file://{}", remote.display());
    let flags = ["--reasoner", "offline", "--state-remote", url.as_str()];
    let (ws_a, ws_b) = (tmp.path().join("machine-a"), tmp.path().join("machine-b"));

    let mut a = Worker::start(&nats.url, &ws_a, "A", &flags);
    let first = review_of(
        &submit(&nats.url, tmp.path(), SCOPE, Some(60)),
        "thread-042",
    );
    assert_eq!(first["payload"]["design_cycle"], 1);
    assert_eq!(a.terminate(Duration::from_secs(20)), Some(0), "{}", a.log());
    assert!(a.log().contains("A stopped"), "{}", a.log());

    let mut b = Worker::start(&nats.url, &ws_b, "B", &flags);
    let second = review_of(
        &submit(&nats.url, tmp.path(), QUESTIONS, Some(60)),
        "thread-042",
    );
    assert_eq!(second["payload"]["design_cycle"], 2);
    assert!(
        b.log().contains("took thread thread-042 from file://"),
        "{}",
        b.log()
    );
    assert_eq!(b.terminate(Duration::from_secs(20)), Some(0), "{}", b.log());

    let again = Worker::start(&nats.url, &ws_a, "A2", &flags);
    let out = submit(&nats.url, tmp.path(), READY, Some(90));
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stderr),
        again.log()
    );
    let last: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(last["header"]["subject"], "implement");
    assert_eq!(last["header"]["to_agent"], "U:Cd");
    assert!(
        again.log().contains("took thread thread-042 from file://"),
        "{}",
        again.log()
    );

    let dir = &projects(&ws_a)[0];
    let log = commits(dir);
    assert_eq!(log.len(), 4, "{log:?}");
    assert!(log[0].starts_with("Add the execution plan"), "{log:?}");
    assert!(
        log[1].starts_with("Finalize design after 2 cycle(s)"),
        "{log:?}"
    );
    assert!(log[2].starts_with("Design cycle 2"), "{log:?}");
    assert!(log[3].starts_with("Design cycle 1"), "{log:?}");
    assert_eq!(
        outbox(dir),
        [
            "001-design_review.json",
            "002-design_review.json",
            "003-implement.json"
        ]
    );
    let journal = std::fs::read_to_string(dir.join(".volk/journal.jsonl")).unwrap();
    for event in [
        "design_started",
        "cycle_written",
        "feedback_received",
        "finalized_docs",
    ] {
        assert!(
            journal.contains(&format!("\"{event}\"")),
            "{event} missing:\n{journal}"
        );
    }
    assert_eq!(repeated_journal_steps(dir), Vec::<String>::new());
    assert!(fsck_ok(dir));
    let tree = Command::new("git")
        .args(["ls-tree", "-r", "--name-only", "HEAD"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        !text(&tree.stdout).lines().any(|l| l.starts_with(".volk")),
        "the design branch holds no state"
    );
    let refs = Command::new("git")
        .arg("ls-remote")
        .arg(&url)
        .output()
        .unwrap();
    let refs = text(&refs.stdout);
    assert!(refs.contains("refs/volk/threads/thread-042/head"), "{refs}");
    assert!(
        refs.contains("refs/volk/threads/thread-042/state"),
        "{refs}"
    );
    let state = Command::new("git")
        .args(["ls-tree", "-r", "--name-only", "refs/volk/state"])
        .current_dir(dir)
        .output()
        .unwrap();
    let state = text(&state.stdout);
    assert!(
        state.contains("volk/session.json") && state.contains("volk/outbox/003-implement.json"),
        "{state}"
    );
}

#[test]
fn a_packet_whose_workers_all_die_is_a_dead_letter_after_five_deliveries_and_replays() {
    let nats = Nats::start();
    nats.init(1.0);
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    // Every call hangs: each worker is killed mid-stream.
    let stalled = Provider::paced(Arc::new(|_, _| {
        vec![
            Piece::Bytes(stream_head()),
            Piece::Pause(Duration::from_secs(60)),
        ]
    }));
    let flags = openai_flags(&stalled);
    let packet = scope("doomed", "taskman");
    let out = submit(&nats.url, tmp.path(), &packet, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for i in 1..=5 {
        let mut worker = Worker::start(&nats.url, &ws, &format!("K{i}"), &refs(&flags));
        assert!(
            worker.wait_for(&format!("delivery {i})"), Duration::from_secs(20)),
            "{}",
            worker.log()
        );
        assert!(wait_until(Duration::from_secs(10), || stalled.hits() == i));
        worker.kill();
    }
    // The server gives up on it when a worker next asks for a packet.
    let provider = Provider::scripted(vec![DESIGN.to_string()]);
    let flags = openai_flags(&provider);
    let _worker = Worker::start(&nats.url, &ws, "S", &refs(&flags));
    let list = || {
        text(
            &volk(&["bus", "dlq", "list", "--bus", &nats.url])
                .output()
                .unwrap()
                .stdout,
        )
    };
    assert!(
        wait_until(Duration::from_secs(20), || list().contains("5 deliveries")),
        "{}",
        list()
    );
    assert!(
        list().contains("delivered 5 times without an acknowledgement"),
        "{}",
        list()
    );

    let replay = volk(&["bus", "dlq", "replay", "--bus", &nats.url])
        .output()
        .unwrap();
    assert!(replay.status.success(), "{}", text(&replay.stderr));
    let reply = review_of(&submit(&nats.url, tmp.path(), &packet, Some(60)), "doomed");
    assert_eq!(reply["payload"]["design_cycle"], 1);
    assert_eq!(provider.hits(), 1);
    assert!(list().is_empty(), "{}", list());
    assert_one_cycle(&projects(&ws)[0]);
}

#[test]
fn init_says_how_to_raise_a_max_payload_below_the_packet_limit() {
    let nats = Nats::with_config_file("max_payload: 1MB\n");
    let out = volk(&["bus", "init", "--bus", &nats.url]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(
        report.contains("the server's max_payload is 1048576 bytes"),
        "{report}"
    );
    assert!(
        report.contains("`max_payload: 8MB` in nats-server.conf"),
        "{report}"
    );
    assert!(report.contains("created stream CXP_IN"), "{report}");
}
