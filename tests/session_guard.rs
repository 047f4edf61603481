//! A `session.json` that is not UTF-8 text is bad input: `volk run` exits 2 with one
//! line naming the file and saying why once, and leaves the file as it was.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn run(workspace: &Path, packet: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(["run", "--packet", "-", "--workspace"])
        .arg(workspace)
        .args(["--reasoner", "offline"])
        .current_dir(workspace)
        .env("VOLK_LOG", workspace.join("volk.log"))
        .env("VOLK_CONFIG_DIR", workspace.join("no-user-config"))
        .env_remove("VOLK_REASONER")
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
    child.wait_with_output().unwrap()
}

#[test]
fn a_session_that_is_not_utf8_exits_2_naming_the_file() {
    let ws = tempfile::tempdir().unwrap();
    let scope = include_str!("fixtures/packets/example1_scope.json");
    assert_eq!(run(ws.path(), scope).status.code(), Some(0));
    let session = ws.path().join("taskman/.volk/session.json");
    let garbage = b"\xff\xfe{\"version\": 1, \"thread_id\": \"thread-042\"";
    std::fs::write(&session, garbage).unwrap();
    for packet in [scope, include_str!("fixtures/packets/example3_ready.json")] {
        let out = run(ws.path(), packet);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(out.stdout.is_empty());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("taskman/.volk/session.json"), "{stderr}");
        assert_eq!(stderr.matches("UTF-8").count(), 1, "{stderr}");
        assert_eq!(std::fs::read(&session).unwrap(), garbage);
    }
}
