//! A project you cloned cannot hurt you (issue 25): links, FIFOs, devices and forged
//! files planted in a project directory, directly or through a cloned git repository
//! that commits them, make every command refuse with one line naming the path and exit
//! 2, while a canary tree outside the project stays byte-identical (hashed before and
//! after). A refused packet leaves the thread as it was, and the right packet is then
//! taken. Real `volk` processes, real git repositories, real FIFOs and `/dev/zero`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write as _;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::support;
use support::provider::Provider;

const VOLK: &str = env!("CARGO_BIN_EXE_volk");
const EXAMPLE_1: &str = include_str!("fixtures/packets/example1_scope.json");
const EXAMPLE_2: &str = include_str!("fixtures/packets/example2_questions.json");
const EXAMPLE_3: &str = include_str!("fixtures/packets/example3_ready.json");
const SECRET: &str = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA canary\n";

/// A workspace with one thread at cycle 1, and a canary tree beside it (outside the
/// project and the workspace) that must never be read into, written or deleted.
struct World {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
    project: PathBuf,
    canary: PathBuf,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let canary = tmp.path().join("canary");
        std::fs::create_dir_all(canary.join("nested")).unwrap();
        std::fs::write(canary.join("id_ed25519"), SECRET).unwrap();
        std::fs::write(canary.join("notes.md"), "the user's own notes\n").unwrap();
        std::fs::write(canary.join("nested/deep.txt"), "deep\n").unwrap();
        let out = run(&ws, EXAMPLE_1, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let project = ws.join("taskman");
        assert!(project.join(".volk/session.json").is_file());
        World {
            _tmp: tmp,
            ws,
            project,
            canary,
        }
    }

    fn canary_hash(&self) -> String {
        tree_hash(&self.canary)
    }

    /// Hashes of the thread's state: ledger, session, journal and the tracked tree.
    fn thread_state(&self) -> String {
        let mut h = Sha256::new();
        for f in [
            ".volk/processed.json",
            ".volk/session.json",
            ".volk/journal.jsonl",
        ] {
            h.update(std::fs::read(self.project.join(f)).unwrap_or_default());
        }
        h.update(tree_hash(&self.project.join("design")));
        h.update(tree_hash(&self.project.join(".volk/outbox")));
        h.update(git_head(&self.project));
        format!("{:x}", h.finalize())
    }
}

/// Every path, kind and content under `root`, without following links.
fn tree_hash(root: &Path) -> String {
    fn walk(dir: &Path, root: &Path, h: &mut Sha256) {
        let mut entries: Vec<_> = match std::fs::read_dir(dir) {
            Ok(e) => e.flatten().map(|e| e.path()).collect(),
            Err(_) => return,
        };
        entries.sort();
        for path in entries {
            let meta = std::fs::symlink_metadata(&path).unwrap();
            h.update(
                path.strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .as_bytes(),
            );
            if meta.file_type().is_symlink() {
                h.update(b"link");
                h.update(
                    std::fs::read_link(&path)
                        .unwrap()
                        .to_string_lossy()
                        .as_bytes(),
                );
            } else if meta.is_dir() {
                h.update(b"dir");
                walk(&path, root, h);
            } else {
                h.update(b"file");
                h.update(std::fs::read(&path).unwrap());
            }
        }
    }
    let mut h = Sha256::new();
    walk(root, root, &mut h);
    format!("{:x}", h.finalize())
}

fn git_head(dir: &Path) -> String {
    git2::Repository::open(dir)
        .ok()
        .and_then(|r| r.head().ok()?.target())
        .map(|o| o.to_string())
        .unwrap_or_default()
}

fn commit_messages(dir: &Path) -> Vec<String> {
    let repo = git2::Repository::open(dir).unwrap();
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    walk.map(|id| {
        repo.find_commit(id.unwrap())
            .unwrap()
            .summary()
            .ok()
            .flatten()
            .unwrap_or("")
            .to_string()
    })
    .collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn volk(cwd: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(VOLK)
        .args(args)
        .current_dir(cwd)
        .env("VOLK_LOG", cwd.join("volk.log"))
        .env("VOLK_CONFIG_DIR", cwd.join("no-user-config"))
        .env_remove("VOLK_REASONER")
        .env_remove("PRD_REFLECTION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn run(ws: &Path, packet: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "--workspace",
        ws.to_str().unwrap(),
        "--lock-wait",
        "2",
    ];
    args.extend_from_slice(extra);
    volk(ws, &args, packet)
}

/// Exit 2 and exactly one stderr line that contains every one of `names`.
fn assert_refused(out: &Output, names: &[&str], what: &str) -> String {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{what}: {stderr}");
    for name in names {
        assert!(stderr.contains(name), "{what}: {name} not in {stderr}");
    }
    assert!(out.stdout.is_empty(), "{what}: {}", text(&out.stdout));
    stderr
}

/// `/usr/bin/time -v`'s peak resident set of one command, in KiB, and its wall time.
fn measured(cwd: &Path, args: &[&str], stdin: &str) -> (Output, u64, Duration) {
    let report = cwd.join("time.txt");
    let started = Instant::now();
    let mut child = Command::new("/usr/bin/time")
        .arg("-v")
        .arg("-o")
        .arg(&report)
        .arg(VOLK)
        .args(args)
        .current_dir(cwd)
        .env("VOLK_LOG", cwd.join("volk.log"))
        .env("VOLK_CONFIG_DIR", cwd.join("no-user-config"))
        .env_remove("PRD_REFLECTION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    let took = started.elapsed();
    let report = std::fs::read_to_string(&report).unwrap();
    let kib = report
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    (out, kib, took)
}

#[test]
fn a_planted_tmp_link_deletes_nothing_under_its_target() {
    for target in ["absolute", "relative"] {
        let w = World::new();
        let before = w.canary_hash();
        let tmp = w.project.join(".volk/tmp");
        std::fs::remove_dir_all(&tmp).unwrap();
        match target {
            "absolute" => symlink(&w.canary, &tmp).unwrap(),
            // `.volk/tmp -> ../../../canary`: what survives git and tar.
            _ => symlink("../../../canary", &tmp).unwrap(),
        }
        let out = run(&w.ws, EXAMPLE_2, &[]);
        assert_refused(&out, &[".volk/tmp", "symbolic link"], target);
        assert_eq!(w.canary_hash(), before, "{target}: the canary changed");
        assert!(w.canary.join("id_ed25519").is_file());
    }
}

#[test]
fn the_tmp_sweep_removes_only_volks_own_temp_files() {
    let w = World::new();
    let tmp = w.project.join(".volk/tmp");
    std::fs::write(tmp.join(".volk-tmp-abc"), "left by a killed write").unwrap();
    std::fs::write(tmp.join("someone-elses.txt"), "kept").unwrap();
    std::fs::create_dir(tmp.join("git-init-x")).unwrap();
    // A link inside tmp to the canary, named like volk's own staging directory.
    symlink(&w.canary, tmp.join("git-init-link")).unwrap();
    symlink(w.canary.join("notes.md"), tmp.join(".volk-tmp-link")).unwrap();
    let before = w.canary_hash();
    let out = run(&w.ws, EXAMPLE_2, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!tmp.join(".volk-tmp-abc").exists());
    assert!(!tmp.join("git-init-x").exists());
    assert_eq!(
        std::fs::read_to_string(tmp.join("someone-elses.txt")).unwrap(),
        "kept"
    );
    assert!(
        std::fs::symlink_metadata(tmp.join("git-init-link"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(w.canary_hash(), before);
}

#[test]
fn planted_links_in_volk_and_design_are_refused_by_volk_run() {
    // (what is planted, the path the refusal names)
    let cases: [(&str, &str); 6] = [
        (".volk/lock", ".volk/lock"),
        (".volk/journal.jsonl", ".volk/journal.jsonl"),
        (".volk/processed.json", ".volk/processed.json"),
        (".volk/session.json", ".volk/session.json"),
        ("design/api_spec.md", "design/api_spec.md"),
        ("design", "design"),
    ];
    let mut tried = 0;
    for (planted, named) in cases {
        let w = World::new();
        let before = w.canary_hash();
        let path = w.project.join(planted);
        if path.is_dir() {
            std::fs::remove_dir_all(&path).unwrap();
            symlink(&w.canary, &path).unwrap();
        } else {
            std::fs::remove_file(&path).ok();
            symlink(w.canary.join("id_ed25519"), &path).unwrap();
        }
        let out = run(&w.ws, EXAMPLE_2, &[]);
        assert_refused(&out, &[named, "symbolic link"], planted);
        assert_eq!(w.canary_hash(), before, "{planted}: the canary changed");
        // The key went nowhere: not into the outbox, the journal, or git.
        for entry in std::fs::read_dir(w.project.join(".volk/outbox")).unwrap() {
            let body = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            assert!(
                !body.contains("canary"),
                "{planted}: the key is in the outbox"
            );
        }
        assert!(
            !commit_messages(&w.project)
                .iter()
                .any(|m| m.contains("Reviewer edit")),
            "{planted}"
        );
        tried += 1;
    }
    eprintln!("links planted in .volk/ and design/: {tried} tried / 0 went wrong");
}

#[test]
fn fifos_devices_and_directories_where_files_belong_are_refused_quickly() {
    let mut tried = 0;
    for (planted, kind) in [
        (".volk/session.json", "fifo"),
        ("design/api_spec.md", "fifo"),
        (".volk/journal.jsonl", "dir"),
        ("design/architecture.md", "dir"),
    ] {
        let w = World::new();
        let path = w.project.join(planted);
        std::fs::remove_file(&path).ok();
        match kind {
            "fifo" => {
                let made = Command::new("mkfifo").arg(&path).status().unwrap();
                assert!(made.success());
            }
            _ => std::fs::create_dir(&path).unwrap(),
        }
        let started = Instant::now();
        let out = run(&w.ws, EXAMPLE_2, &[]);
        assert!(started.elapsed() < Duration::from_secs(5), "{planted}");
        let found = if kind == "fifo" { "FIFO" } else { "directory" };
        assert_refused(&out, &[planted, found], planted);
        tried += 1;
    }
    eprintln!("FIFOs and directories planted: {tried} tried / 0 went wrong");
}

#[test]
fn dev_zero_behind_a_design_file_is_refused_by_run_lint_and_trace_within_bounds() {
    let w = World::new();
    let spec = w.project.join("design/api_spec.md");
    std::fs::remove_file(&spec).unwrap();
    symlink("/dev/zero", &spec).unwrap();
    let project = w.project.to_str().unwrap();
    let ws = w.ws.to_str().unwrap();
    let cases: [(&str, Vec<&str>, &str); 3] = [
        ("run", vec!["run", "--workspace", ws], EXAMPLE_2),
        ("lint", vec!["lint", project], ""),
        ("trace", vec!["trace", "FR-01", project], ""),
    ];
    for (name, args, stdin) in cases {
        let (out, kib, took) = measured(&w.ws, &args, stdin);
        assert_refused(&out, &["design/api_spec.md", "symbolic link"], name);
        eprintln!("{name} with design/api_spec.md -> /dev/zero: {took:?}, {kib} KiB peak");
        assert!(took < Duration::from_secs(3), "{name}: {took:?}");
        assert!(kib < 100 * 1024, "{name}: {kib} KiB");
    }
}

#[test]
fn dev_zero_behind_the_reflection_config_fails_the_hook_open_and_refuses_reflect() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(project.join(".prd_plugin")).unwrap();
    symlink("/dev/zero", project.join(".prd_plugin/config.json")).unwrap();
    let input = serde_json::json!({
        "session_id": "s-1",
        "cwd": project,
        "hook_event_name": "Stop",
        "stop_hook_active": false
    })
    .to_string();
    let (out, kib, took) = measured(project, &["hook", "stop"], &input);
    eprintln!("hook stop with config.json -> /dev/zero: {took:?}, {kib} KiB peak");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        out.stdout.is_empty(),
        "the hook allows: {}",
        text(&out.stdout)
    );
    assert!(text(&out.stderr).contains("config.json"));
    assert!(took < Duration::from_secs(3));
    assert!(kib < 100 * 1024);
    assert!(!project.join(".prd_plugin/local").exists());

    let (out, kib, took) = measured(project, &["reflect", "list"], "");
    assert_refused(
        &out,
        &[".prd_plugin/config.json", "symbolic link"],
        "reflect",
    );
    assert!(took < Duration::from_secs(3) && kib < 100 * 1024);

    // The same with a real character device where the file is (no link at all).
    std::fs::remove_file(project.join(".prd_plugin/config.json")).unwrap();
    std::fs::remove_dir(project.join(".prd_plugin")).unwrap();
    symlink("/dev", project.join(".prd_plugin")).unwrap();
    let (out, _, took) = measured(project, &["hook", "stop"], &input);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    assert!(took < Duration::from_secs(3));
}

#[test]
fn a_cloned_repository_with_committed_links_cannot_reach_outside() {
    let tmp = tempfile::tempdir().unwrap();
    let canary = tmp.path().join("canary");
    std::fs::create_dir_all(&canary).unwrap();
    std::fs::write(canary.join("id_ed25519"), SECRET).unwrap();
    // The attacker's repository: relative links that git stores and clones as links.
    let origin = tmp.path().join("origin");
    std::fs::create_dir_all(origin.join("design")).unwrap();
    std::fs::create_dir_all(origin.join(".volk")).unwrap();
    std::fs::create_dir_all(origin.join(".prd_plugin")).unwrap();
    for s in ["architecture", "requirements", "file_tree", "class_diagram"] {
        std::fs::write(origin.join(format!("design/{s}.md")), format!("# {s}\n")).unwrap();
    }
    symlink("../../canary/id_ed25519", origin.join("design/api_spec.md")).unwrap();
    symlink("../..", origin.join(".volk/tmp")).unwrap();
    symlink("../../canary/id_ed25519", origin.join(".volk/lock")).unwrap();
    symlink("/dev/zero", origin.join(".prd_plugin/config.json")).unwrap();
    let git = |args: &[&str], dir: &Path| {
        let out = Command::new("git")
            .args(["-c", "user.name=a", "-c", "user.email=a@x"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    git(&["init", "-q"], &origin);
    git(&["add", "-f", "."], &origin);
    git(&["commit", "-qm", "innocent"], &origin);
    let clone = tmp.path().join("clone");
    git(
        &[
            "clone",
            "-q",
            origin.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert!(
        std::fs::symlink_metadata(clone.join("design/api_spec.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let before = tree_hash(&canary);
    let c = clone.to_str().unwrap();
    let out = volk(&clone, &["lint", c], "");
    assert_refused(&out, &["design/api_spec.md", "symbolic link"], "lint");
    let out = volk(&clone, &["trace", "FR-01", c], "");
    assert_refused(&out, &["design/api_spec.md", "symbolic link"], "trace");
    let out = volk(&clone, &["reflect", "list"], "");
    assert_refused(&out, &[".prd_plugin/config.json"], "reflect list");
    let input = serde_json::json!({"session_id": "s", "cwd": clone, "hook_event_name": "Stop"});
    let out = volk(&clone, &["hook", "stop"], &input.to_string());
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    assert_eq!(tree_hash(&canary), before);
    assert_eq!(
        std::fs::read_to_string(canary.join("id_ed25519")).unwrap(),
        SECRET
    );
}

#[test]
fn a_refused_early_packet_changes_nothing_and_the_right_one_completes() {
    let w = World::new();
    let before = w.thread_state();
    // Cycle 2 feedback while the thread is at cycle 1.
    let early = EXAMPLE_2.replace("\"design_cycle\": 1", "\"design_cycle\": 2");
    assert_ne!(early, EXAMPLE_2);
    let out = run(&w.ws, &early, &[]);
    assert_refused(&out, &["design_cycle", "cycle 2"], "early");
    assert_eq!(w.thread_state(), before, "the refused packet left a trace");
    let ledger = std::fs::read_to_string(w.project.join(".volk/processed.json")).unwrap();
    assert!(!ledger.contains("\"design_cycle\": 2"), "{ledger}");
    // The right packet for cycle 1 is taken.
    let out = run(&w.ws, EXAMPLE_2, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The early packet, now on time for cycle 2, is taken too: it was never recorded.
    let out = run(&w.ws, &early, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let packet: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(packet["header"]["subject"], "design_review");
    assert_eq!(packet["payload"]["design_cycle"], 3);
    // READY, then READY again while it is finalized: the second is replayed, not refused.
    let ready = EXAMPLE_3.replace("\"design_cycle\": 2", "\"design_cycle\": 3");
    let out = run(&w.ws, &ready, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn a_forged_ledger_outbound_is_not_replayed() {
    let w = World::new();
    let out = run(&w.ws, EXAMPLE_2, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let path = w.project.join(".volk/processed.json");
    let ledger = std::fs::read_to_string(&path).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&ledger).unwrap();
    let entries = value["entries"].as_array_mut().unwrap();
    let last = entries.last_mut().unwrap();
    assert_eq!(last["state"], "done");
    last["outbound"] = serde_json::json!("../../canary/id_ed25519");
    std::fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let out = run(&w.ws, EXAMPLE_2, &[]);
    let stderr = assert_refused(&out, &["processed.json", "outbound"], "forged outbound");
    assert!(!stderr.contains("PRIVATE KEY"));
}

#[test]
fn a_latin1_hand_edit_is_refused_naming_the_byte_and_left_as_written() {
    let w = World::new();
    let file = w.project.join("design/architecture.md");
    let mut edited = std::fs::read(&file).unwrap();
    let offset = edited.len() + "\nCaf".len();
    edited.extend_from_slice(b"\nCaf\xe9 au lait\n");
    std::fs::write(&file, &edited).unwrap();
    let commits = commit_messages(&w.project);
    let before = w.thread_state();
    let out = run(&w.ws, EXAMPLE_2, &[]);
    assert_refused(
        &out,
        &[
            "design/architecture.md",
            &format!("byte offset {offset}"),
            "UTF-8",
        ],
        "latin-1",
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        edited,
        "the file was changed"
    );
    assert_eq!(
        commit_messages(&w.project),
        commits,
        "something was committed"
    );
    assert_eq!(w.thread_state(), before);
    // Saved as UTF-8, the same packet is taken with the edit.
    let fixed = String::from_utf8_lossy(&edited).replace('\u{fffd}', "é");
    std::fs::write(&file, &fixed).unwrap();
    let out = run(&w.ws, EXAMPLE_2, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        commit_messages(&w.project)
            .iter()
            .any(|m| m.contains("Reviewer edit"))
    );
}

/// An answer that fills the five sections, returned for every call (design, reflection,
/// plan: the plan call gets no plan out of it, so each plan repair is a request).
const ANSWER: &str = "## Architecture\n\nA CLI over one SQLite store.\n\n\
## Requirements\n\n1. FR-01: The system must add a task.\n\n\
## File tree\n\nsrc/\n└── main.py\n\n\
## API spec\n\nModule: src/main.py\n  main() -> int\n\n\
## Class diagram\n\nclassDiagram\n  class Cli\n";

/// Requests one thread makes from its scope to READY against a provider, with `toml`
/// as the workspace's `volk.toml` (trusted with `volk trust` when `trusted`).
fn requests_to_ready(toml: Option<&str>, trusted: bool) -> Vec<support::provider::Request> {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    if let Some(toml) = toml {
        std::fs::write(ws.join("volk.toml"), toml).unwrap();
    }
    if trusted {
        let out = volk(ws, &["trust", ws.to_str().unwrap()], "");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let provider = Provider::repeating(ANSWER);
    let base = provider.v1();
    let flags = ["--reasoner", "openai", "--base-url", base.as_str()];
    let out = run(ws, EXAMPLE_1, &flags);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ready = EXAMPLE_3.replace("\"design_cycle\": 2", "\"design_cycle\": 1");
    let _ = run(ws, &ready, &flags);
    provider.requests()
}

#[test]
fn an_untrusted_volk_toml_cannot_raise_the_bill() {
    let costly = "model = \"o1-pro\"\nplan_repairs = 5\nmax_tokens = 120000\nmax_cycles = 150\n";
    let baseline = requests_to_ready(None, false);
    let untrusted = requests_to_ready(Some(costly), false);
    let trusted = requests_to_ready(Some(costly), true);
    eprintln!(
        "requests from scope to READY: {} without volk.toml, {} with an untrusted costly one, {} once trusted",
        baseline.len(),
        untrusted.len(),
        trusted.len()
    );
    assert_eq!(untrusted.len(), baseline.len());
    for r in &untrusted {
        assert_ne!(r.body["model"], "o1-pro");
        assert_ne!(r.body["max_tokens"], 120000);
    }
    // The same keys do count once the person trusts the file: the test can fail.
    assert!(trusted.len() > baseline.len());
    assert!(trusted.iter().all(|r| r.body["model"] == "o1-pro"));
    // Over a ceiling is refused whoever sets it.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("volk.toml"), "plan_repairs = 40\n").unwrap();
    let out = volk(tmp.path(), &["trust", tmp.path().to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("plan_repairs: 40 is over the ceiling of 5"));
    std::fs::remove_file(tmp.path().join("volk.toml")).unwrap();
    let out = run(tmp.path(), EXAMPLE_1, &["--lint-repairs", "1000"]);
    assert_refused(&out, &["--lint-repairs", "ceiling"], "lint repairs");
}

#[test]
fn a_trust_store_others_can_write_is_refused_with_the_chmod_to_run() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    let config = ws.join("no-user-config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::write(ws.join("volk.toml"), "theme = \"light\"\n").unwrap();
    let out = volk(ws, &["trust", ws.to_str().unwrap()], "");
    let shown = config.display().to_string();
    let stderr = assert_refused(&out, &[&shown, "writable by others"], "trust");
    assert!(stderr.contains(&format!("chmod go-w {shown}")), "{stderr}");
    assert!(!config.join("trusted.json").exists());
    // After the chmod it works.
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = volk(ws, &["trust", ws.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // A trust store file others can write is refused too.
    let store = config.join("trusted.json");
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = volk(ws, &["trust", ws.to_str().unwrap()], "");
    assert_refused(&out, &["trusted.json", "chmod go-w"], "store");
}

#[test]
fn a_forged_claim_naming_the_thread_is_not_adopted() {
    let w = World::new();
    // A cloned directory that carries volk's claim and session for this thread, and
    // a secret volk must never commit. Its short name sorts before the real one.
    let forged = w.ws.join("aaa");
    std::fs::create_dir_all(forged.join(".volk")).unwrap();
    std::fs::copy(
        w.project.join(".volk/claim.json"),
        forged.join(".volk/claim.json"),
    )
    .unwrap();
    std::fs::write(
        forged.join(".volk/claim.json"),
        "{\"thread_id\":\"thread-042\"}",
    )
    .unwrap();
    std::fs::copy(
        w.project.join(".volk/session.json"),
        forged.join(".volk/session.json"),
    )
    .unwrap();
    std::fs::write(forged.join(".env"), "OPENAI_API_KEY=sk-live-1234\n").unwrap();
    let before = tree_hash(&forged);
    let out = run(&w.ws, EXAMPLE_2, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let packet: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dir = packet["payload"]["project_dir"].as_str().unwrap();
    assert!(dir.ends_with("/taskman"), "{dir}");
    assert_eq!(
        tree_hash(&forged),
        before,
        "the forged directory was touched"
    );
    assert!(!forged.join(".git").exists());
}

#[test]
fn mcp_answers_garbage_with_a_parse_error_and_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(VOLK)
        .arg("mcp")
        .current_dir(dir.path())
        .env("VOLK_LOG", dir.path().join("volk.log"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}
    });
    let input = format!("this is not json\n{{\"unclosed\": \n{initialize}\n");
    stdin.write_all(input.as_bytes()).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stdout = text(&out.stdout);
    let replies: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let parse_errors = replies
        .iter()
        .filter(|r| r["error"]["code"] == -32700 && r["id"].is_null())
        .count();
    assert_eq!(parse_errors, 2, "{stdout}");
    assert!(
        replies
            .iter()
            .any(|r| r["id"] == 1 && r["result"].is_object()),
        "the server still answered initialize: {stdout}"
    );
}

#[test]
fn a_resend_while_the_first_run_talks_to_the_model_is_in_progress_not_bad_input() {
    use support::provider::{Piece, openai_stream};
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    // The model thinks for 5 s before it answers the first call (the resend waits 2 s).
    let provider = Provider::paced(std::sync::Arc::new(|n, _| {
        let pause = if n == 0 { 5000 } else { 0 };
        vec![
            Piece::Pause(Duration::from_millis(pause)),
            Piece::Bytes(openai_stream(ANSWER, 40)),
        ]
    }));
    let base = provider.v1();
    let flags = ["--reasoner", "openai", "--base-url", base.as_str()];
    let ws_arg = ws.to_str().unwrap().to_string();
    let first = {
        let mut child = Command::new(VOLK)
            .args(["run", "--workspace", &ws_arg])
            .args(flags)
            .current_dir(ws)
            .env("VOLK_LOG", ws.join("volk.log"))
            .env("VOLK_CONFIG_DIR", ws.join("no-user-config"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(EXAMPLE_1.as_bytes())
            .unwrap();
        child
    };
    let started = Instant::now();
    while provider.hits() == 0 {
        assert!(started.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = run(ws, EXAMPLE_1, &flags);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(75), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("being processed"), "{stderr}");
    assert!(
        stderr.contains("volk run (pid"),
        "held by names the holder: {stderr}"
    );
    let first = first.wait_with_output().unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    // Sent again once it finished, it prints the same packet.
    let again = run(ws, EXAMPLE_1, &flags);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(again.stdout, first.stdout);
}

#[test]
fn a_commit_whose_records_were_lost_to_a_kill_is_repaired_from_git() {
    let w = World::new();
    let out = run(&w.ws, EXAMPLE_2, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // What a kill right after the cycle-1 commit leaves: no commit in the session, no
    // `committed` line in the journal, `"commit": null` in context.json.
    let session_path = w.project.join(".volk/session.json");
    let journal_path = w.project.join(".volk/journal.jsonl");
    let context_path = w.project.join("context.json");
    let journal = std::fs::read_to_string(&journal_path).unwrap();
    let kept: String = journal
        .lines()
        .filter(|l| !(l.contains("\"event\":\"committed\"") && l.contains("\"cycle\":1,")))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        kept.len() < journal.len(),
        "no committed line for cycle 1: {journal}"
    );
    std::fs::write(&journal_path, &kept).unwrap();
    let mut session: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&session_path).unwrap()).unwrap();
    let commit = session["history"][0]["commit"]
        .as_str()
        .unwrap()
        .to_string();
    session["history"][0]["commit"] = serde_json::Value::Null;
    session["journal_bytes"] = serde_json::json!(kept.len());
    std::fs::write(&session_path, session.to_string()).unwrap();
    let mut context: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&context_path).unwrap()).unwrap();
    assert_eq!(context["session_history"][0]["cycle"], 1);
    context["session_history"][0]["commit"] = serde_json::Value::Null;
    std::fs::write(&context_path, context.to_string()).unwrap();

    // The next run (here a resend, replayed) repairs all three from git.
    let out = run(&w.ws, EXAMPLE_2, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let session: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&session_path).unwrap()).unwrap();
    assert_eq!(session["history"][0]["commit"], commit.as_str());
    let journal = std::fs::read_to_string(&journal_path).unwrap();
    let committed = journal
        .lines()
        .filter(|l| l.contains("\"event\":\"committed\"") && l.contains("\"cycle\":1,"))
        .count();
    assert_eq!(committed, 1, "{journal}");
    let context: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&context_path).unwrap()).unwrap();
    assert_eq!(context["session_history"][0]["commit"], commit.as_str());
}

#[test]
fn an_edit_made_while_an_update_streams_is_kept_for_the_next_cycle() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use support::provider::{Piece, openai_stream};
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().to_path_buf();
    let slow = Arc::new(AtomicBool::new(false));
    let flag = slow.clone();
    let provider = Provider::paced(Arc::new(move |_, _| {
        let pause = if flag.load(Ordering::SeqCst) { 2500 } else { 0 };
        vec![
            Piece::Pause(Duration::from_millis(pause)),
            Piece::Bytes(openai_stream(ANSWER, 40)),
        ]
    }));
    let base = provider.v1();
    let flags = ["--reasoner", "openai", "--base-url", base.as_str()];
    let out = run(&ws, EXAMPLE_1, &flags);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let project = ws.join("taskman");
    let file = project.join("design/architecture.md");
    slow.store(true, Ordering::SeqCst);
    let hits = provider.hits();
    let feedback = {
        let ws = ws.clone();
        let base = base.clone();
        std::thread::spawn(move || {
            run(
                &ws,
                EXAMPLE_2,
                &["--reasoner", "openai", "--base-url", base.as_str()],
            )
        })
    };
    let started = Instant::now();
    while provider.hits() == hits {
        assert!(started.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(20));
    }
    // The person edits while the architect's update streams.
    let mut edited = std::fs::read_to_string(&file).unwrap();
    edited.push_str("\nWritten by hand while the update streamed.\n");
    std::fs::write(&file, &edited).unwrap();
    let out = feedback.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        edited,
        "the edit was lost"
    );
    // The cycle's commit is the architect's text; the edit is left uncommitted ...
    let repo = git2::Repository::open(&project).unwrap();
    let head = repo.head().unwrap().peel_to_tree().unwrap();
    let blob = head
        .get_path(Path::new("design/architecture.md"))
        .unwrap()
        .to_object(&repo)
        .unwrap()
        .peel_to_blob()
        .unwrap();
    assert!(!text(blob.content()).contains("Written by hand"));
    // ... and taken as a hand edit with the next feedback.
    slow.store(false, Ordering::SeqCst);
    let next = EXAMPLE_2.replace("\"design_cycle\": 1", "\"design_cycle\": 2");
    let out = run(&ws, &next, &flags);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        commit_messages(&project)
            .iter()
            .any(|m| m.contains("Reviewer edit")),
        "{:?}",
        commit_messages(&project)
    );
}

/// Terminal sequences a model might write: OSC 52 (clipboard), OSC 0 (title), CSI 2J
/// (clear screen) and a bidi override.
const SEQUENCES: &str = "\u{1b}]52;c;aGVsbG8=\u{7}\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}";

fn assert_escaped(printed: &str, what: &str) {
    assert!(
        !printed.contains('\u{1b}'),
        "{what}: raw ESC in {printed:?}"
    );
    assert!(
        !printed.contains('\u{202e}'),
        "{what}: raw bidi in {printed:?}"
    );
    assert!(!printed.contains('\u{7}'), "{what}: raw BEL in {printed:?}");
}

#[test]
fn model_text_with_terminal_sequences_is_escaped_on_every_printer() {
    // A plan whose goal, prompt and an unknown field quote the sequences.
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plans/valid/chain.json"),
    )
    .unwrap();
    let mut plan: serde_json::Value = serde_json::from_str(&source).unwrap();
    plan["goal"] = serde_json::json!(format!("goal {SEQUENCES}"));
    plan["stages"][0]["prompt"] = serde_json::json!(format!("prompt {SEQUENCES}"));
    plan["stages"][1]["kind"] = serde_json::json!(format!("bogus{SEQUENCES}"));
    let file = dir.path().join("plan.json");
    std::fs::write(&file, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let f = file.to_str().unwrap();
    for args in [vec!["plan", "show", f], vec!["plan", "check", f]] {
        let out = volk(dir.path(), &args, "");
        let what = args.join(" ");
        assert_escaped(&text(&out.stdout), &what);
        assert_escaped(&text(&out.stderr), &what);
        assert!(
            text(&out.stdout).contains("\\x1b")
                || text(&out.stderr).contains("\\x1b")
                || text(&out.stdout).contains('?')
                || text(&out.stderr).contains('?'),
            "{what}: the text is shown, masked"
        );
    }
    // A reflection answer on `volk run` stderr.
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    let answer = format!("{ANSWER}\nNotes {SEQUENCES}\n");
    let provider = Provider::repeating(&answer);
    let base = provider.v1();
    let flags = ["--reasoner", "openai", "--base-url", base.as_str()];
    let out = run(ws, EXAMPLE_1, &flags);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ready = EXAMPLE_3.replace("\"design_cycle\": 2", "\"design_cycle\": 1");
    let out = run(ws, &ready, &flags);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("reflection before finalizing"), "{stderr}");
    assert_escaped(&stderr, "volk run stderr");
    assert!(stderr.contains("\\x1b]52"), "{stderr}");
}

#[test]
fn held_by_names_the_live_holder_not_a_forged_record() {
    let w = World::new();
    let held = volk::volk::lock::try_acquire(&w.project, "volk open")
        .unwrap()
        .unwrap();
    // Someone rewrites the record in the lock file while it is held.
    std::fs::write(
        w.project.join(".volk/lock"),
        "pid=1\nhost=elsewhere\ncommand=evil\n",
    )
    .unwrap();
    let out = run(&w.ws, EXAMPLE_2, &[]);
    let stderr = assert_refused(&out, &[".volk/lock", "locked by"], "held");
    assert!(
        stderr.contains(&format!("pid {}", std::process::id())),
        "{stderr}"
    );
    assert!(!stderr.contains("pid 1 "), "{stderr}");
    drop(held);
}
