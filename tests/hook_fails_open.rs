//! The Stop hook fails open in every case: a bad command line, a `cwd` with no config, a
//! symlinked marker directory and a stdin that never closes all let the agent stop
//! (exit 0, nothing on stdout, one line on stderr) and write nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

const VOLK: &str = env!("CARGO_BIN_EXE_volk");

fn stop_input(session: &str, cwd: &Path) -> String {
    json!({
        "session_id": session,
        "transcript_path": "/nowhere.jsonl",
        "cwd": cwd,
        "hook_event_name": "Stop",
        "stop_hook_active": false
    })
    .to_string()
}

fn hook(args: &[&str], run_in: &Path, input: &str) -> Output {
    let mut child = Command::new(VOLK)
        .args(args)
        .current_dir(run_in)
        .env("VOLK_LOG", run_in.join("volk.log"))
        .env_remove("PRD_REFLECTION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A hook that refused its command line may be gone before it reads.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

fn assert_fails_open(out: &Output, what: &str) -> String {
    assert_eq!(out.status.code(), Some(0), "{what}");
    assert!(
        out.stdout.is_empty(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
    assert!(stderr.starts_with("volk hook stop: "), "{what}: {stderr}");
    stderr
}

/// A project with a `.prd_plugin/` directory: the hook would block there.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".prd_plugin")).unwrap();
    dir
}

#[test]
fn a_bad_command_line_lets_the_agent_stop() {
    let p = project();
    let input = stop_input("s", p.path());
    // The same input with good flags blocks, so the cases below can fail.
    let good = hook(&["hook", "stop", "--host", "claude"], p.path(), &input);
    assert!(
        String::from_utf8_lossy(&good.stdout).contains("\"decision\":\"block\""),
        "{}",
        String::from_utf8_lossy(&good.stderr)
    );
    for args in [
        &["hook", "stop", "--bogus"][..],
        &["hook", "stop", "--host", "nosuchhost"],
        &["hook", "stop", "--host"],
        &["hook", "stop", "extra"],
        &["hook", "stp"],
        &["hook"],
    ] {
        let out = hook(args, p.path(), &stop_input("t", p.path()));
        let stderr = assert_fails_open(&out, &format!("{args:?}"));
        assert!(stderr.contains("letting the agent stop"), "{stderr}");
    }
    // Other commands keep exit 2 for a bad flag.
    let out = Command::new(VOLK)
        .args(["plan", "check", "--bogus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_cwd_without_a_config_is_allowed_and_left_untouched() {
    let foreign = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(foreign.path().join(".git")).unwrap();
    let run_in = tempfile::tempdir().unwrap();
    let out = hook(
        &["hook", "stop"],
        run_in.path(),
        &stop_input("s", foreign.path()),
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let left: Vec<_> = std::fs::read_dir(foreign.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from(".git")], "{left:?}");
}

#[cfg(unix)]
#[test]
fn a_symlinked_marker_directory_is_never_written_through() {
    for link in [".prd_plugin/local", ".prd_plugin/local/reflection"] {
        let p = project();
        let target = tempfile::tempdir().unwrap();
        let link_path = p.path().join(link);
        std::fs::create_dir_all(link_path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target.path(), &link_path).unwrap();
        // A marker the hook would remove, if it followed the link.
        let planted = target.path().join("s.pending");
        std::fs::write(&planted, "keep").unwrap();
        let out = hook(&["hook", "stop"], p.path(), &stop_input("s", p.path()));
        let stderr = assert_fails_open(&out, link);
        assert!(stderr.contains("symbolic link"), "{stderr}");
        let inside: Vec<_> = std::fs::read_dir(target.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            inside,
            vec![std::ffi::OsString::from("s.pending")],
            "{link}"
        );
        assert_eq!(std::fs::read_to_string(&planted).unwrap(), "keep");
    }
    // A marker that is a symbolic link is removed as a link; its target stays.
    let p = project();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "untouched").unwrap();
    let dir = p.path().join(".prd_plugin/local/reflection");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("v.pending")).unwrap();
    for _ in 0..2 {
        let out = hook(&["hook", "stop"], p.path(), &stop_input("v", p.path()));
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched");
    }
    assert!(!dir.join("v.pending").is_symlink());
}

#[test]
fn a_stdin_that_never_closes_is_given_up_on() {
    let p = project();
    let mut child = Command::new(VOLK)
        .args(["hook", "stop"])
        .current_dir(p.path())
        .env("VOLK_LOG", p.path().join("volk.log"))
        .env_remove("PRD_REFLECTION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Half an object, and the pipe stays open.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"{\"hook_event_name\": \"St").unwrap();
    stdin.flush().unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("the hook waited for stdin for over 20 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let waited = start.elapsed();
    assert!(waited < Duration::from_secs(10), "{waited:?}");
    assert_eq!(status.code(), Some(0));
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = assert_fails_open(&out, "open stdin");
    assert!(stderr.contains("not closed"), "{stderr}");

    // A whole object on a pipe that stays open is answered at once.
    let mut child = Command::new(VOLK)
        .args(["hook", "stop"])
        .current_dir(p.path())
        .env("VOLK_LOG", p.path().join("volk.log"))
        .env_remove("PRD_REFLECTION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(stop_input("w", p.path()).as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < Duration::from_secs(2), "it waited");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("block"));
}
