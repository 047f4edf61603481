//! The installed Stop hook under the real Claude Code CLI (the npm package
//! `@anthropic-ai/claude-code`), talking to a fake Anthropic server on 127.0.0.1: the
//! first Stop of `claude -p` is blocked with the default questions, which reach the
//! model as the next turn, and the second Stop lets it finish. Runs where `claude` is
//! found (`VOLK_CLAUDE_BIN`, else on `PATH`); elsewhere it says it was skipped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use serde_json::{Value, json};

mod support;
use support::provider::{Provider, response};

fn claude_bin() -> Option<PathBuf> {
    let bin = std::env::var_os("VOLK_CLAUDE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("claude"));
    Command::new(&bin)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        .then_some(bin)
}

/// One streamed Anthropic Messages answer that ends the turn.
fn anthropic_stream(text: &str) -> Vec<u8> {
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-fake", "content": [], "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 10}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    let body: String = events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect();
    response("200 OK", "text/event-stream", &[], &body)
}

#[test]
fn claude_code_blocks_the_first_stop_with_the_default_questions() {
    let Some(claude) = claude_bin() else {
        eprintln!("skipped: the claude CLI is not installed (npm i @anthropic-ai/claude-code)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    assert!(
        Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .status()
            .unwrap()
            .success()
    );
    let install = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(["hook", "install", "--host", "claude"])
        .current_dir(&repo)
        .env("VOLK_LOG", dir.path().join("volk.log"))
        .output()
        .unwrap();
    assert!(install.status.success());

    let server = Provider::start(Arc::new(|_, _| {
        anthropic_stream("Done. 1. Read the file. 2. Nothing open. 3. Nothing breaks.")
    }));
    let out = Command::new(&claude)
        .args(["-p", "Say hi", "--output-format", "json"])
        .current_dir(&repo)
        .env("HOME", &home)
        .env("ANTHROPIC_BASE_URL", &server.url)
        .env("ANTHROPIC_API_KEY", "sk-ant-fake-for-the-test")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("VOLK_LOG", dir.path().join("hook.log"))
        .env_remove("PRD_REFLECTION")
        .env_remove("CLAUDE_PROJECT_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["is_error"], false, "{result}");

    // Claude Code probes the server with a HEAD first; the turns are the POSTs.
    let requests: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.raw.starts_with("POST /v1/messages"))
        .collect();
    assert_eq!(requests.len(), 2, "one turn, then the reflection turn");
    assert!(!requests[0].raw.contains("Before you stop"));
    for needle in ["Before you stop", "RFQ-001", "RFQ-003", "RFQ-005"] {
        assert!(requests[1].raw.contains(needle), "{needle} not sent back");
    }
    // The second Stop consumed the marker.
    let markers = repo.join(".prd_plugin/local/reflection");
    assert_eq!(std::fs::read_dir(markers).unwrap().count(), 0);
}
