//! A `volk.toml` from a cloned repository may not point the context gatherer at the
//! person's other code: its `context_root` is used only once the file is trusted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Stdio};

const SCOPE: &str = include_str!("fixtures/packets/example1_scope.json");

fn run(ws: &Path, home: &Path) -> String {
    use std::io::Write;
    let packet = SCOPE.replace(
        "Build a task management CLI with SQLite storage",
        "Build a task CLI on the SecretVault",
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(["run", "--packet", "-", "--workspace"])
        .arg(ws)
        .current_dir(ws)
        .env("VOLK_LOG", home.join("volk.log"))
        .env("VOLK_CONFIG_DIR", home.join("config"))
        .env_remove("VOLK_CONTEXT_ROOT")
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
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(
        std::fs::read_dir(ws)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.join(".volk/journal.jsonl").is_file())
            .unwrap()
            .join(".volk/journal.jsonl"),
    )
    .unwrap()
}

#[test]
fn an_untrusted_volk_toml_cannot_pick_the_context_root() {
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("secret");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(
        secret.join("vault.py"),
        "class SecretVault:\n    def reveal(self) -> str: ...\n",
    )
    .unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let toml = format!("context_root = {:?}\n", secret.to_str().unwrap());
    std::fs::write(ws.join("volk.toml"), &toml).unwrap();

    let journal = run(&ws, &home);
    assert!(
        !journal.contains("SecretVault ->"),
        "an untrusted file chose the code shown to the architect: {journal}"
    );

    // Once the person trusts the file, its context_root is used.
    let ws2 = tmp.path().join("ws2");
    std::fs::create_dir_all(&ws2).unwrap();
    std::fs::write(ws2.join("volk.toml"), &toml).unwrap();
    let trusted = Command::new(env!("CARGO_BIN_EXE_volk"))
        .arg("trust")
        .arg(ws2.join("volk.toml"))
        .env("VOLK_CONFIG_DIR", home.join("config"))
        .output()
        .unwrap();
    assert!(trusted.status.success());
    let journal = run(&ws2, &home);
    assert!(journal.contains("SecretVault ->"), "{journal}");
}
