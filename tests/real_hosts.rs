//! The installed Stop hook under the real CLIs: Claude Code (npm
//! `@anthropic-ai/claude-code`) against a fake Anthropic server and Codex (npm
//! `@openai/codex`) against a fake Responses server, both on 127.0.0.1. The first Stop
//! of a one-shot run is blocked with the default questions, which reach the model as the
//! next turn, and the second Stop lets it finish. Each runs where its CLI is found
//! (`VOLK_CLAUDE_BIN` / `VOLK_CODEX_BIN`, else on `PATH`); elsewhere it says it was
//! skipped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::support;
use support::provider::{Provider, response};

fn cli(var: &str, name: &str) -> Option<PathBuf> {
    let bin = std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(name));
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

/// A fresh git repository with the hook installed for `host`, and an empty home.
fn installed(host: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
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
        .args(["hook", "install", "--host", host])
        .current_dir(&repo)
        .env("VOLK_LOG", dir.path().join("volk.log"))
        .output()
        .unwrap();
    assert!(install.status.success());
    (dir, repo, home)
}

/// The turns a host sent: the model requests (`path`), not its probes.
fn turns(server: &Provider, path: &str) -> Vec<support::provider::Request> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.raw.starts_with(&format!("POST {path}")))
        .collect()
}

fn assert_reflection_turn(turns: &[support::provider::Request]) {
    assert_eq!(turns.len(), 2, "one turn, then the reflection turn");
    assert!(!turns[0].raw.contains("Before you stop"));
    for needle in ["Before you stop", "RFQ-001", "RFQ-003", "RFQ-005"] {
        assert!(turns[1].raw.contains(needle), "{needle} not sent back");
    }
}

#[test]
fn claude_code_blocks_the_first_stop_with_the_default_questions() {
    let Some(claude) = cli("VOLK_CLAUDE_BIN", "claude") else {
        eprintln!("skipped: the claude CLI is not installed (npm i @anthropic-ai/claude-code)");
        return;
    };
    let (dir, repo, home) = installed("claude");

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
    assert_reflection_turn(&turns(&server, "/v1/messages"));
    // The second Stop consumed the marker.
    let markers = repo.join(".prd_plugin/local/reflection");
    assert_eq!(std::fs::read_dir(markers).unwrap().count(), 0);
}

/// One streamed Responses API answer: a message, then completion.
fn responses_stream(text: &str) -> Vec<u8> {
    let events = [
        json!({"type": "response.created", "response": {"id": "resp_1"}}),
        json!({"type": "response.output_item.done", "item": {"type": "message", "role": "assistant", "id": "msg_1", "content": [{"type": "output_text", "text": text}]}}),
        json!({"type": "response.completed", "response": {"id": "resp_1", "usage": {"input_tokens": 10, "input_tokens_details": null, "output_tokens": 10, "output_tokens_details": null, "total_tokens": 20}}}),
    ];
    let body: String = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect();
    response("200 OK", "text/event-stream", &[], &body)
}

#[test]
fn codex_blocks_the_first_stop_with_the_default_questions() {
    let Some(codex) = cli("VOLK_CODEX_BIN", "codex") else {
        eprintln!("skipped: the codex CLI is not installed (npm i @openai/codex)");
        return;
    };
    let (dir, repo, home) = installed("codex");
    let server = Provider::start(Arc::new(|_, _| {
        responses_stream("Done. 1. Read the file. 2. Nothing open. 3. Nothing breaks.")
    }));
    let codex_home = dir.path().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model = \"gpt-fake\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"{}\"\nwire_api = \"responses\"\nenv_key = \"VOLK_FAKE_KEY\"\n\n[projects.{:?}]\ntrust_level = \"trusted\"\n",
            server.v1(),
            repo.display().to_string()
        ),
    )
    .unwrap();
    // Codex runs a project's hooks once they are trusted; a test has nobody to review
    // them, which is what this flag stands for.
    let out = Command::new(&codex)
        .args([
            "exec",
            "--dangerously-bypass-hook-trust",
            "--skip-git-repo-check",
            "Say hi",
        ])
        .current_dir(&repo)
        .env("HOME", &home)
        .env("CODEX_HOME", &codex_home)
        .env("VOLK_FAKE_KEY", "sk-fake-for-the-test")
        .env("VOLK_LOG", dir.path().join("hook.log"))
        .env_remove("PRD_REFLECTION")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("OPENAI_API_KEY")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("hook: Stop Blocked"), "{stderr}");
    assert_reflection_turn(&turns(&server, "/v1/responses"));
    let markers = repo.join(".prd_plugin/local/reflection");
    assert_eq!(std::fs::read_dir(markers).unwrap().count(), 0);
}
