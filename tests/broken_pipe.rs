//! A reader that goes away (`volk trace FR-01 . | head -1`, a pipeline that stops reading
//! stderr) ends the output, never the command: no "Broken pipe" line, no panic, the exit
//! status the work earned, and the work itself (commit, outbox packet) complete.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SCOPE: &str = include_str!("fixtures/packets/example1_scope.json");

/// A pipe whose reading end is already closed: the first write to it fails with EPIPE.
fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer
}

struct Ran {
    code: i32,
    stderr: String,
}

/// Runs volk in `cwd` with stdout closed (and stderr too when `close_stderr`).
fn volk(cwd: &Path, args: &[&str], stdin: Option<&str>, close_stderr: bool) -> Ran {
    use std::io::Write;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_volk"));
    cmd.args(args)
        .current_dir(cwd)
        .env("VOLK_LOG", cwd.join("volk.log"))
        .env("VOLK_CONFIG_DIR", cwd.join("config"))
        .env_remove("VOLK_REASONER")
        .env_remove("VOLK_MODEL")
        .env_remove("VOLK_BASE_URL")
        .env_remove("VOLK_WORKSPACE")
        .stdin(Stdio::piped())
        .stdout(closed_pipe());
    if close_stderr {
        cmd.stderr(closed_pipe());
    } else {
        cmd.stderr(Stdio::piped());
    }
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
    let out = child.wait_with_output().unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn assert_quiet(what: &str, ran: &Ran, code: i32) {
    assert!(
        !ran.stderr.contains("Broken pipe") && !ran.stderr.contains("panicked"),
        "{what}: stderr: {}",
        ran.stderr
    );
    assert_eq!(ran.code, code, "{what}: stderr: {}", ran.stderr);
}

#[test]
fn every_printing_command_ends_quietly_when_stdout_is_closed() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let clean = fixtures().join("designs/clean");
    let clean = clean.to_str().unwrap();
    let d011 = fixtures().join("designs/d011");
    let d011 = d011.to_str().unwrap();
    let plan = fixtures().join("plans/valid/chain.json");
    let plan = plan.to_str().unwrap();
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["trace", "FR-01", clean], 0),
        (vec!["trace", "FR-01", clean, "--format", "json"], 0),
        (vec!["lint", clean], 0),
        (vec!["lint", clean, "--format", "json"], 0),
        // The findings still decide the status when nobody reads them.
        (vec!["lint", d011], 1),
        (vec!["plan", "check", plan], 0),
        (vec!["plan", "check", plan, "--format", "json"], 0),
        (vec!["plan", "show", plan], 0),
        (vec!["reflect", "list"], 0),
        (vec!["reflect", "list", "--json"], 0),
    ];
    for (args, code) in cases {
        let ran = volk(cwd, &args, None, false);
        assert_quiet(&args.join(" "), &ran, code);
    }
    std::fs::write(cwd.join("volk.toml"), "max_cycles = 3\n").unwrap();
    let ran = volk(cwd, &["trust"], None, false);
    assert_quiet("trust", &ran, 0);
}

#[test]
fn volk_run_finishes_its_step_when_nobody_reads_stdout_or_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    let ws_arg = ws.to_str().unwrap();
    let ran = volk(
        ws,
        &["run", "--workspace", ws_arg, "--packet", "-"],
        Some(SCOPE),
        true,
    );
    assert_eq!(ran.code, 0, "volk run with closed stdout and stderr");
    let project = ws.join("taskman");
    let outbox = project.join(".volk/outbox/001-design_review.json");
    assert!(outbox.is_file(), "the outbound packet is in the outbox");
    let repo = git2::Repository::open(&project).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert!(
        head.summary()
            .unwrap()
            .unwrap()
            .starts_with("Design cycle 1"),
        "cycle 1 is committed"
    );
}
