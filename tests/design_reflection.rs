//! The architect reflects on a design, not on code: before finalizing, `volk run`
//! asks the default design questions, while the Stop hook of a coding agent keeps
//! asking its coding questions from the same (default) config.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn volk(workspace: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(args)
        .current_dir(workspace)
        .env("VOLK_LOG", workspace.join("volk.log"))
        .env("VOLK_CONFIG_DIR", workspace.join("no-user-config"))
        .env_remove("VOLK_REASONER")
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
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn the_architect_answers_design_questions_and_the_stop_hook_coding_ones() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    // The default set written into the project's config (a Stop hook asks only where
    // a config exists).
    let written = volk(ws, &["reflect", "policy", "--enable"], "");
    assert!(
        written.status.success(),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    assert!(ws.join(".prd_plugin/config.json").is_file());
    let run = ["run", "--packet", "-", "--workspace", ws.to_str().unwrap()];
    for packet in [
        include_str!("fixtures/packets/example1_scope.json"),
        include_str!("fixtures/packets/example2_questions.json"),
    ] {
        let out = volk(ws, &run, packet);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = volk(
        ws,
        &run,
        include_str!("fixtures/packets/example3_ready.json"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let reflection: Vec<&str> = stderr
        .lines()
        .skip_while(|l| !l.contains("reflection before finalizing"))
        .collect();
    let asked = reflection.join("\n");
    assert!(asked.contains("(3 question(s))"), "{stderr}");
    assert!(
        asked.contains("[RFQ-010] What would a junior developer still have to guess"),
        "{stderr}"
    );
    assert!(asked.contains("[RFQ-011] Which requirement does the API spec cover least"));
    assert!(asked.contains("[RFQ-012] Which decision is the riskiest"));
    assert!(!asked.contains("What did you run or inspect"), "{stderr}");

    // The same defaults, a coding agent's Stop: coding questions, never design ones.
    let hook_input = serde_json::json!({
        "session_id": "s1", "hook_event_name": "Stop", "stop_hook_active": false,
        "cwd": ws, "transcript_path": ws.join("t.jsonl"),
    });
    let out = volk(ws, &["hook", "stop"], &hook_input.to_string());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("What did you run or inspect"), "{said}");
    assert!(!said.contains("junior developer"), "{said}");

    let listed = volk(ws, &["reflect", "list"], "");
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains("architect asks: RFQ-010, RFQ-011, RFQ-012"),
        "{listed}"
    );
}
