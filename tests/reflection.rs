//! Reflection end to end: the built `volk` binary on real files, concurrent and killed
//! processes, the Stop hook's protocol, the installers, and the MCP server driven over
//! stdio by rmcp's client.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{Value, json};
use volk::reflection::{ConfigStore, ReflectionConfig};

const VOLK: &str = env!("CARGO_BIN_EXE_volk");

/// A project directory with a config that holds keys reflection must not touch.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".prd_plugin")).unwrap();
        Self { dir }
    }

    fn with_config(text: &str) -> Self {
        let p = Self::new();
        std::fs::write(p.config(), text).unwrap();
        p
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn config(&self) -> PathBuf {
        self.root().join(".prd_plugin").join("config.json")
    }

    fn document(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.config()).unwrap()).unwrap()
    }

    fn reflection(&self) -> ReflectionConfig {
        ConfigStore::new(self.config()).load().unwrap().config
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(VOLK);
        cmd.args(args)
            .current_dir(self.root())
            .env("VOLK_LOG", self.root().join("volk.log"))
            .env_remove("PRD_REFLECTION");
        cmd
    }

    fn volk(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.volk(args);
        assert!(
            out.status.success(),
            "volk {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn hook(&self, input: &str, env: &[(&str, &str)]) -> Output {
        let mut cmd = self.command(&["hook", "stop"]);
        cmd.envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }
}

const UNRELATED: &str = r#"{
  "zeta": {"keep": [3, 2, 1], "nested": {"b": true, "a": null}},
  "alpha": "first key after zeta",
  "workflow": {"gates": ["draft", "review"]}
}"#;

fn unrelated_keys(doc: &Value) -> Vec<(String, Value)> {
    doc.as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.as_str() != "reflection")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

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

fn stdout(out: &Output) -> &str {
    std::str::from_utf8(&out.stdout).unwrap()
}

fn stderr(out: &Output) -> &str {
    std::str::from_utf8(&out.stderr).unwrap()
}

/// Asserts a block: exactly `{"decision":"block","reason":…}` on one line.
fn assert_block(out: &Output) -> String {
    assert!(out.status.success(), "{}", stderr(out));
    let value: Value = serde_json::from_str(stdout(out).trim()).unwrap();
    let keys: Vec<_> = value.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["decision", "reason"]);
    assert_eq!(value["decision"], "block");
    value["reason"].as_str().unwrap().to_string()
}

fn assert_allow(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    assert_eq!(stdout(out), "", "stderr: {}", stderr(out));
}

#[test]
fn every_cli_operation_keeps_unrelated_keys_and_order() {
    let p = Project::with_config(UNRELATED);
    let before = unrelated_keys(&serde_json::from_str(UNRELATED).unwrap());
    let steps: &[&[&str]] = &[
        &[
            "reflect",
            "create",
            "category",
            "--name",
            "Code Review",
            "--id",
            "review",
        ],
        &[
            "reflect",
            "create",
            "question",
            "--category",
            "review",
            "--text",
            "Did a second pair of eyes look?",
        ],
        &[
            "reflect",
            "update",
            "category",
            "review",
            "--name",
            "Peer review",
            "--disable",
        ],
        &[
            "reflect",
            "update",
            "question",
            "RFQ-014",
            "--text",
            "Who reviewed it?",
            "--category",
            "risk",
            "--disable",
        ],
        &["reflect", "update", "question", "RFQ-014", "--enable"],
        &[
            "reflect",
            "policy",
            "--max-questions",
            "4",
            "--on-stop",
            "false",
        ],
        &["reflect", "delete", "question", "RFQ-014"],
        &["reflect", "delete", "category", "review"],
        &["reflect", "delete", "category", "handoff", "--force"],
        &["reflect", "policy", "--enable", "--on-stop", "true"],
    ];
    for step in steps {
        p.ok(step);
        let doc = p.document();
        assert_eq!(unrelated_keys(&doc), before, "after {step:?}");
        let keys: Vec<_> = doc.as_object().unwrap().keys().cloned().collect();
        assert_eq!(
            keys,
            ["zeta", "alpha", "workflow", "reflection"],
            "after {step:?}"
        );
        p.reflection();
    }
    let config = p.reflection();
    assert_eq!(config.max_questions_per_stop, 4);
    assert!(config.on_stop && config.enabled);
    assert!(config.category("handoff").is_none() && config.category("review").is_none());
    // The deleted RFQ-014 is never handed out again.
    let id = p.ok(&[
        "reflect",
        "create",
        "question",
        "--category",
        "scope",
        "--text",
        "Next?",
    ]);
    assert_eq!(id.trim(), "RFQ-015");

    let listed: Value = serde_json::from_str(&p.ok(&["reflect", "list", "--json"])).unwrap();
    assert_eq!(listed, p.document()["reflection"]);
    let human = p.ok(&["reflect", "list"]);
    assert!(human.contains("RFQ-015  Next?"), "{human}");
}

#[test]
fn cli_errors_exit_2_with_one_line_naming_the_problem() {
    let p = Project::new();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "reflect",
                "create",
                "question",
                "--category",
                "nope",
                "--text",
                "Q?",
            ],
            "no category \"nope\"",
        ),
        (
            &[
                "reflect",
                "create",
                "question",
                "--category",
                "scope",
                "--text",
                "  ",
            ],
            "text: must not be empty",
        ),
        (
            &["reflect", "update", "question", "RFQ-9", "--enable"],
            "not a question id",
        ),
        (
            &["reflect", "update", "question", "RFQ-999", "--enable"],
            "no question RFQ-999",
        ),
        (
            &["reflect", "update", "category", "scope"],
            "nothing to change",
        ),
        (
            &["reflect", "delete", "category", "scope"],
            "still has 2 question(s)",
        ),
        (
            &["reflect", "policy", "--max-questions", "0"],
            "max_questions_per_stop: must be between 1 and 10",
        ),
        (
            &[
                "reflect", "create", "category", "--name", "X", "--id", "Bad Id",
            ],
            "not a category id",
        ),
    ];
    for (args, expected) in cases {
        let out = p.volk(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("volk: ") && err.contains(expected),
            "{args:?}: {err}"
        );
    }
    // A refused change writes nothing.
    assert!(!p.config().exists());

    std::fs::write(
        p.config(),
        r#"{"reflection": {"categories": [{"id": "a", "name": "A", "questions": [
            {"id": "RFQ-001", "text": "One?"}, {"id": "RFQ-001", "text": "Two?"}]}]}}"#,
    )
    .unwrap();
    let out = p.volk(&["reflect", "list"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("config.json") && err.contains("reflection.categories[0].questions[1].id"),
        "{err}"
    );

    std::fs::write(
        p.config(),
        r#"{"reflection": {"categories": [], "colour": "red"}}"#,
    )
    .unwrap();
    let err = stderr(&p.volk(&["reflect", "list"])).to_string();
    assert!(err.contains("reflection.colour: unknown field"), "{err}");
}

#[test]
fn twenty_concurrent_creates_get_twenty_distinct_ids() {
    let p = Project::with_config(UNRELATED);
    let children: Vec<_> = (0..20)
        .map(|n| {
            p.command(&[
                "reflect",
                "create",
                "question",
                "--category",
                "risk",
                "--text",
                &format!("Concurrent question {n}?"),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    let mut ids: Vec<String> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", stderr(&out));
            stdout(&out).trim().to_string()
        })
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 20, "{ids:?}");
    let config = p.reflection();
    let texts: Vec<_> = config
        .category("risk")
        .unwrap()
        .questions
        .iter()
        .filter(|q| q.text.starts_with("Concurrent"))
        .map(|q| q.id.to_string())
        .collect();
    let mut stored = texts.clone();
    stored.sort();
    assert_eq!(stored, ids);
    assert_eq!(
        unrelated_keys(&p.document()),
        unrelated_keys(&serde_json::from_str(UNRELATED).unwrap())
    );
}

#[test]
fn a_writer_killed_at_any_moment_leaves_a_valid_file() {
    let p = Project::with_config(UNRELATED);
    p.ok(&["reflect", "policy", "--max-questions", "3"]);
    let mut rng = fastrand::Rng::with_seed(7);
    for n in 0..25 {
        let mut child = p
            .command(&[
                "reflect",
                "create",
                "question",
                "--category",
                "scope",
                "--text",
                &format!("Killed {n}?"),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(rng.u64(0..25_000)));
        let _ = child.kill();
        let _ = child.wait();
        let doc = p.document();
        ReflectionConfig::from_json(&doc["reflection"]).unwrap();
        assert_eq!(
            unrelated_keys(&doc),
            unrelated_keys(&serde_json::from_str(UNRELATED).unwrap())
        );
    }
    let survived = p
        .reflection()
        .questions()
        .filter(|(_, q)| q.text.starts_with("Killed"))
        .count();
    eprintln!("{survived} of 25 killed writers finished before the kill");
    // Whatever the kills left, the next write works and cleans temp files away.
    p.ok(&[
        "reflect",
        "create",
        "question",
        "--category",
        "scope",
        "--text",
        "After?",
    ]);
    let leftovers: Vec<_> = std::fs::read_dir(p.root().join(".prd_plugin"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".volk-tmp-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn hook_blocks_once_per_stop_cycle_per_session() {
    let p = Project::new();
    let first = p.hook(&stop_input("session-a", p.root()), &[]);
    let reason = assert_block(&first);
    assert!(reason.starts_with("Before you stop"));
    for n in 1..=3 {
        assert!(reason.contains(&format!("\n{n}. [")), "{reason}");
    }
    assert!(!reason.contains("\n4. ["));
    assert!(reason.contains("secrets") && reason.contains("evidence"));
    assert!(
        p.root()
            .join(".prd_plugin/local/reflection/session-a.pending")
            .is_file()
    );

    assert_allow(&p.hook(&stop_input("session-a", p.root()), &[]));
    assert!(
        !p.root()
            .join(".prd_plugin/local/reflection/session-a.pending")
            .exists()
    );
    assert_block(&p.hook(&stop_input("session-a", p.root()), &[]));
    // Another session is independent of the first one's marker.
    assert_block(&p.hook(&stop_input("session-b", p.root()), &[]));
    assert_allow(&p.hook(&stop_input("session-a", p.root()), &[]));
}

#[test]
fn hook_finds_the_project_from_the_input_cwd_and_detects_codex() {
    let p = Project::new();
    p.ok(&["reflect", "policy", "--max-questions", "1"]);
    let sub = p.root().join("src").join("deep");
    std::fs::create_dir_all(&sub).unwrap();
    let codex = json!({
        "session_id": "019a-codex-thread",
        "turn_id": "turn-1",
        "cwd": sub,
        "hook_event_name": "Stop",
        "model": "gpt-5",
        "permission_mode": "default",
        "stop_hook_active": false,
        "last_assistant_message": "done"
    })
    .to_string();
    // Run from elsewhere: only the input's cwd leads to the project.
    let elsewhere = tempfile::tempdir().unwrap();
    let mut child = Command::new(VOLK)
        .args(["hook", "stop"])
        .current_dir(elsewhere.path())
        .env("VOLK_LOG", p.root().join("volk.log"))
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
        .write_all(codex.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let reason = assert_block(&out);
    assert!(
        reason.contains("1. [") && !reason.contains("2. ["),
        "{reason}"
    );
    let marker = std::fs::read_to_string(
        p.root()
            .join(".prd_plugin/local/reflection/019a-codex-thread.pending"),
    )
    .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&marker).unwrap()["host"],
        "codex"
    );
}

#[test]
fn hook_never_blocks_subagents_or_when_opted_out() {
    let p = Project::new();
    let sub = json!({"session_id": "s", "cwd": p.root(), "hook_event_name": "SubagentStop", "stop_hook_active": false}).to_string();
    assert_allow(&p.hook(&sub, &[]));
    assert_allow(&p.hook(&stop_input("s", p.root()), &[("PRD_REFLECTION", "off")]));

    p.ok(&["reflect", "policy", "--on-stop", "false"]);
    assert_allow(&p.hook(&stop_input("s", p.root()), &[]));
    p.ok(&["reflect", "policy", "--on-stop", "true", "--disable"]);
    assert_allow(&p.hook(&stop_input("s", p.root()), &[]));
    p.ok(&["reflect", "policy", "--enable"]);
    assert_block(&p.hook(&stop_input("s", p.root()), &[]));
    // No marker was left by any of the allowed Stops above except the last block.
    let markers = std::fs::read_dir(p.root().join(".prd_plugin/local/reflection"))
        .unwrap()
        .count();
    assert_eq!(markers, 1);

    // Nothing enabled to ask: allow.
    for c in ["verification", "scope", "risk", "handoff"] {
        p.ok(&["reflect", "update", "category", c, "--disable"]);
    }
    assert_allow(&p.hook(&stop_input("other", p.root()), &[]));
}

#[test]
fn hook_fails_open_with_one_line_on_stderr() {
    let p = Project::new();
    for garbage in [
        "",
        "not json",
        "[1,2]",
        "{\"session_id\":\"x\"}",
        "{\"hook_event_name\":\"Stop\"}",
    ] {
        let out = p.hook(garbage, &[]);
        assert_allow(&out);
        assert_eq!(
            stderr(&out).lines().count(),
            1,
            "{garbage:?}: {}",
            stderr(&out)
        );
        assert!(stderr(&out).starts_with("volk hook stop: "));
    }
    std::fs::write(p.config(), "{\"reflection\": {\"categories\": 3}}").unwrap();
    let out = p.hook(&stop_input("s", p.root()), &[]);
    assert_allow(&out);
    assert!(
        stderr(&out).contains("reflection.categories: must be a list"),
        "{}",
        stderr(&out)
    );

    // The marker cannot be written (its directory is a file): no block, no loop.
    std::fs::remove_file(p.config()).unwrap();
    std::fs::create_dir_all(p.root().join(".prd_plugin/local")).unwrap();
    std::fs::write(p.root().join(".prd_plugin/local/reflection"), "in the way").unwrap();
    let out = p.hook(&stop_input("s", p.root()), &[]);
    assert_allow(&out);
    assert!(stderr(&out).contains("marker"), "{}", stderr(&out));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random stdin against random config files, through the real binary: the exit
    /// status is always 0, and a block only ever comes with a valid config.
    #[test]
    fn hook_binary_never_fails_and_never_blocks_on_a_bad_config(
        stdin in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..120).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
            "[a-zA-Z0-9_-]{1,20}".prop_map(|s| json!({"hook_event_name": "Stop", "session_id": s}).to_string()),
        ],
        config in prop_oneof![
            Just(None),
            "[\\PC]{0,40}".prop_map(Some),
            (1u32..14).prop_map(|n| Some(json!({"reflection": {"max_questions_per_stop": n, "categories": [
                {"id": "a", "name": "A", "questions": [{"id": "RFQ-001", "text": "Q?"}]}]}}).to_string())),
        ],
    ) {
        let p = Project::new();
        if let Some(text) = &config {
            std::fs::write(p.config(), text).unwrap();
        }
        let out = p.hook(&stdin, &[]);
        prop_assert_eq!(out.status.code(), Some(0));
        if !out.stdout.is_empty() {
            prop_assert!(ConfigStore::new(p.config()).load().is_ok(), "blocked with a bad config");
            assert_block(&out);
        }
    }
}

#[test]
fn install_is_idempotent_and_keeps_other_settings() {
    let p = Project::new();
    std::fs::create_dir_all(p.root().join(".claude")).unwrap();
    std::fs::write(
        p.root().join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo other"}]}]}}"#,
    )
    .unwrap();
    for (host, file) in [
        ("claude", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
        ("opencode", ".opencode/plugins/volk-reflection.js"),
    ] {
        let first = p.ok(&["hook", "install", "--host", host]);
        assert!(
            first.starts_with("installed: ") || host == "claude" && first.starts_with("installed"),
            "{first}"
        );
        let content = std::fs::read(p.root().join(file)).unwrap();
        let again = p.ok(&["hook", "install", "--host", host]);
        assert!(again.starts_with("already installed: "), "{again}");
        assert_eq!(
            std::fs::read(p.root().join(file)).unwrap(),
            content,
            "{host}"
        );
    }
    let claude: Value = serde_json::from_str(
        &std::fs::read_to_string(p.root().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(claude["permissions"]["allow"][0], "Bash(ls)");
    let stop = claude["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 2);
    assert_eq!(stop[0]["hooks"][0]["command"], "echo other");
    let command = stop[1]["hooks"][0]["command"].as_str().unwrap();
    assert!(command.ends_with("hook stop --host claude"), "{command}");

    // The registered command really is the hook: run it through a shell as a host would.
    let mut child = Command::new("sh")
        .args(["-c", command])
        .current_dir(p.root())
        .env("VOLK_LOG", p.root().join("volk.log"))
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
        .write_all(stop_input("via-settings", p.root()).as_bytes())
        .unwrap();
    assert_block(&child.wait_with_output().unwrap());

    let codex: Value =
        serde_json::from_str(&std::fs::read_to_string(p.root().join(".codex/hooks.json")).unwrap())
            .unwrap();
    assert!(
        codex["hooks"]["Stop"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .ends_with("--host codex")
    );

    // --user writes under HOME, not in the project.
    let home = tempfile::tempdir().unwrap();
    let out = p
        .command(&[
            "hook",
            "install",
            "--host",
            "codex",
            "--user",
            "--command",
            "volk",
        ])
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let user: Value = serde_json::from_str(
        &std::fs::read_to_string(home.path().join(".codex/hooks.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        user["hooks"]["Stop"][0]["hooks"][0]["command"],
        "volk hook stop --host codex"
    );

    // The opencode plugin is valid JavaScript (checked when node is installed).
    if let Ok(status) = Command::new("node")
        .arg("--check")
        .arg(p.root().join(".opencode/plugins/volk-reflection.js"))
        .status()
    {
        assert!(
            status.success(),
            "node --check failed on the opencode plugin"
        );
    }
}

mod mcp {
    use super::*;
    use rmcp::ServiceExt;
    use rmcp::model::{CallToolRequestParams, CallToolResult};
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};

    fn args(value: Value) -> serde_json::Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn text(result: &CallToolResult) -> String {
        result
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .map(|t| t.text.clone())
            .collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_server_lists_and_runs_its_four_tools() {
        let p = Project::with_config(UNRELATED);
        let config = p.config();
        let transport =
            TokioChildProcess::new(tokio::process::Command::new(VOLK).configure(|cmd| {
                cmd.arg("mcp")
                    .arg("--config")
                    .arg(&config)
                    .env("VOLK_LOG", p.root().join("volk.log"));
            }))
            .unwrap();
        let client = ().serve(transport).await.unwrap();

        let tools = client.list_all_tools().await.unwrap();
        let mut names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "prd_reflection_create",
                "prd_reflection_delete",
                "prd_reflection_list",
                "prd_reflection_update"
            ]
        );
        for tool in &tools {
            let schema = Value::Object((*tool.input_schema).clone());
            assert_eq!(schema["type"], "object", "{}", tool.name);
            assert!(
                schema["properties"]["entity"].is_object(),
                "{}: {schema}",
                tool.name
            );
        }

        let call = |name: &'static str, arguments: Value| {
            let client = &client;
            async move {
                client
                    .call_tool(CallToolRequestParams::new(name).with_arguments(args(arguments)))
                    .await
                    .unwrap()
            }
        };

        let created = call(
            "prd_reflection_create",
            json!({"entity": "category", "name": "Data safety"}),
        )
        .await;
        assert_ne!(created.is_error, Some(true), "{}", text(&created));
        let category: Value = serde_json::from_str(&text(&created)).unwrap();
        assert_eq!(category["id"], "data-safety");

        let created = call(
            "prd_reflection_create",
            json!({"entity": "question", "category": "data-safety", "text": "Could this lose data?"}),
        )
        .await;
        let question: Value = serde_json::from_str(&text(&created)).unwrap();
        assert_eq!(question["id"], "RFQ-014");
        assert_eq!(question["category"], "data-safety");

        let updated = call(
            "prd_reflection_update",
            json!({"entity": "question", "id": "RFQ-014", "enabled": false, "category": "risk"}),
        )
        .await;
        let moved: Value = serde_json::from_str(&text(&updated)).unwrap();
        assert_eq!(
            (moved["category"].as_str(), moved["enabled"].as_bool()),
            (Some("risk"), Some(false))
        );

        let listed = call(
            "prd_reflection_list",
            json!({"entity": "question", "category": "risk"}),
        )
        .await;
        let risk: Value = serde_json::from_str(&text(&listed)).unwrap();
        assert_eq!(risk.as_array().unwrap().last().unwrap()["id"], "RFQ-014");
        let whole = call("prd_reflection_list", json!({})).await;
        let whole: Value = serde_json::from_str(&text(&whole)).unwrap();
        assert_eq!(whole["source"], "file");

        // Failures are tool errors with the store's message, and change nothing.
        let before = std::fs::read_to_string(p.config()).unwrap();
        let refused = call(
            "prd_reflection_delete",
            json!({"entity": "category", "id": "risk"}),
        )
        .await;
        assert_eq!(refused.is_error, Some(true));
        assert!(text(&refused).contains("still has"), "{}", text(&refused));
        let refused = call(
            "prd_reflection_create",
            json!({"entity": "question", "category": "risk", "text": "x", "id": "RFQ-500"}),
        )
        .await;
        assert_eq!(refused.is_error, Some(true));
        assert!(text(&refused).contains("generated by the server"));
        let refused = call(
            "prd_reflection_update",
            json!({"entity": "question", "id": "RFQ-777", "text": "y"}),
        )
        .await;
        assert_eq!(refused.is_error, Some(true));
        assert!(text(&refused).contains("no question RFQ-777"));
        assert_eq!(std::fs::read_to_string(p.config()).unwrap(), before);

        let deleted = call(
            "prd_reflection_delete",
            json!({"entity": "question", "id": "RFQ-014"}),
        )
        .await;
        assert_ne!(deleted.is_error, Some(true), "{}", text(&deleted));
        let deleted = call(
            "prd_reflection_delete",
            json!({"entity": "category", "id": "data-safety"}),
        )
        .await;
        assert_ne!(deleted.is_error, Some(true), "{}", text(&deleted));

        client.cancel().await.unwrap();

        // The CLI sees what the server wrote, and the unrelated keys survived.
        let config = p.reflection();
        assert!(config.category("data-safety").is_none());
        assert_eq!(config.next_question_number, Some(15));
        assert_eq!(
            unrelated_keys(&p.document()),
            unrelated_keys(&serde_json::from_str(UNRELATED).unwrap())
        );
    }
}
