//! Keys go only where the user points: an untrusted `volk.toml` cannot pick the host,
//! `volk trust` records a file with its content, and a server that echoes the key back
//! (in headers, bodies and the streamed design, in every encoding) leaves no copy of it
//! anywhere volk writes. The real binary, temp dirs, real git, a 127.0.0.1 server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};

use crate::support;
use support::provider::{Provider as Server, openai_stream, sse_chunk};

const EXAMPLE_1: &str = include_str!("fixtures/packets/example1_scope.json");
const EXAMPLE_2: &str = include_str!("fixtures/packets/example2_questions.json");
const KEY: &str = "sk-trusttest-Q7vX2mP9kL4nR8tZ3wY6";

// ---------------------------------------------------------------- the echo server

/// Every request is answered by one of the repliers below.
fn server(reply: fn() -> Vec<u8>) -> Server {
    Server::start(Arc::new(move |_, _| reply()))
}

/// Every form of the key a server might send back, with a name for messages.
fn key_forms() -> Vec<(&'static str, String)> {
    let bearer = format!("Bearer {KEY}");
    let every: String = KEY.bytes().map(|b| format!("%{b:02X}")).collect();
    vec![
        ("literal", KEY.to_string()),
        ("base64", STANDARD.encode(KEY)),
        ("base64 no pad", STANDARD_NO_PAD.encode(KEY)),
        ("base64url", URL_SAFE.encode(KEY)),
        ("base64url no pad", URL_SAFE_NO_PAD.encode(KEY)),
        ("base64 of Bearer KEY", STANDARD.encode(&bearer)),
        ("base64url of Bearer KEY", URL_SAFE_NO_PAD.encode(&bearer)),
        ("percent-encoded", KEY.replace('-', "%2D")),
        ("percent-encoded (lower)", KEY.replace('-', "%2d")),
        ("every byte percent-encoded", every.clone()),
        ("every byte percent-encoded (lower)", every.to_lowercase()),
    ]
}

/// The key in every form, as prose a model might write.
fn echo_text() -> String {
    key_forms()
        .iter()
        .map(|(name, form)| format!("- {name}: {form}\n"))
        .collect()
}

/// A design whose every section carries the key in every form, streamed so that each
/// form is split across two events; the headers echo the key as well.
fn echoing_design() -> Vec<u8> {
    let echo = echo_text();
    let design = format!(
        "ARCHITECTURE:\nThe key you sent:\n{echo}\nREQUIREMENTS:\nFR-01: store {KEY}\n{echo}\nFILE_TREE:\nsrc/{KEY}.rs\n\nAPI_SPEC:\nauth(key = \"{KEY}\") -> Token\n{echo}\nCLASS_DIAGRAM:\nclassDiagram\n  class Task\n  %% {}\n",
        STANDARD.encode(format!("Bearer {KEY}"))
    );
    let mut body = String::new();
    // Pieces of 5 characters: every form of the key is cut across events.
    let chars: Vec<char> = design.chars().collect();
    for piece in chars.chunks(5) {
        body.push_str(&sse_chunk(&piece.iter().collect::<String>()));
    }
    body.push_str(&format!(
        "data: {}\n\ndata: [DONE]\n\n",
        serde_json::json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}})
    ));
    let mut out = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nx-echo-authorization: Bearer {KEY}\r\nx-echo-b64: {}\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        STANDARD.encode(format!("Bearer {KEY}")),
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// A refusal whose body quotes the key in every form.
fn echoing_refusal() -> Vec<u8> {
    let body = serde_json::json!({"error":{"message":format!("bad key:\n{}", echo_text()),"type":"invalid_request_error","code":"invalid_api_key"}}).to_string();
    format!(
        "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\nwww-authenticate: Bearer realm=\"{KEY}\"\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

// ---------------------------------------------------------------- running volk

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// `volk ARGS` in `cwd`, the user's config in `home/config`, nothing inherited that
/// could steer it.
fn volk(cwd: &Path, home: &Path, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Ran {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_volk"));
    cmd.args(args);
    if args.first() == Some(&"run") {
        // These tests count the calls a design makes; the scripted designs are not
        // meant to compile clean, so the design compiler's repair pass stays off.
        cmd.args(["--lint-repairs", "0"]);
    }
    cmd.current_dir(cwd)
        .env("VOLK_LOG", home.join("volk.log"))
        .env("VOLK_LOG_LEVEL", "debug")
        .env("VOLK_CONFIG_DIR", home.join("config"))
        .env_remove("VOLK_REASONER")
        .env_remove("VOLK_MODEL")
        .env_remove("VOLK_BASE_URL")
        .env_remove("VOLK_WORKSPACE")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("DEEPSEEK_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
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
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn hostile_toml(url: &str) -> String {
    format!("reasoner = \"openai\"\nbase_url = \"{url}/v1\"\nmodel = \"m\"\n")
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

// ---------------------------------------------------------------- trust

#[test]
fn an_untrusted_volk_toml_in_the_workspace_or_cwd_never_gets_the_key() {
    let server = server(echoing_design);
    for place in ["workspace", "cwd", "project"] {
        let home = tempfile::tempdir().unwrap();
        let cwd = home.path().join("repo");
        let work = home.path().join("work");
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        let toml_dir = match place {
            "workspace" => work.clone(),
            "cwd" => cwd.clone(),
            _ => work.join("taskman"),
        };
        std::fs::create_dir_all(&toml_dir).unwrap();
        let toml = toml_dir.join("volk.toml");
        std::fs::write(&toml, hostile_toml(&server.url)).unwrap();
        if place == "project" {
            std::fs::create_dir_all(toml_dir.join(".volk")).unwrap();
            std::fs::write(toml_dir.join(".volk/session.json"), "{}").unwrap();
        }
        let before = files_under(home.path());
        let args = ["run", "--workspace", work.to_str().unwrap()];
        let ran = if place == "project" {
            // `volk open` reads the project's own volk.toml.
            volk(
                &cwd,
                home.path(),
                &["open", toml_dir.to_str().unwrap()],
                None,
                &[("OPENAI_API_KEY", KEY)],
            )
        } else {
            volk(
                &cwd,
                home.path(),
                &args,
                Some(EXAMPLE_1),
                &[("OPENAI_API_KEY", KEY)],
            )
        };
        assert_eq!(ran.code, 2, "{place}: {} / {}", ran.stdout, ran.stderr);
        assert_eq!(ran.stderr.trim().lines().count(), 1, "{}", ran.stderr);
        let absolute = std::fs::canonicalize(&toml).unwrap();
        assert!(
            ran.stderr
                .contains(&format!("volk trust {}`", absolute.display())),
            "{place}: {}",
            ran.stderr
        );
        assert!(ran.stderr.contains("reasoner 'openai'"), "{}", ran.stderr);
        assert!(ran.stderr.contains(&server.url), "{}", ran.stderr);
        assert!(ran.stdout.is_empty());
        assert_eq!(server.hits(), 0, "{place}: the hostile host was called");
        let mut after = files_under(home.path());
        after.retain(|p| !p.ends_with("volk.log"));
        assert_eq!(after.len(), before.len(), "{place}: {after:?}");
    }
}

#[test]
fn volk_trust_records_path_and_content_and_a_changed_file_needs_trusting_again() {
    let server = server(echoing_design);
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let toml = work.join("volk.toml");
    std::fs::write(&toml, hostile_toml(&server.url)).unwrap();

    let trusted = volk(&work, home.path(), &["trust"], None, &[]);
    assert_eq!(trusted.code, 0, "{}", trusted.stderr);
    assert!(trusted.stdout.contains("trusted"), "{}", trusted.stdout);
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(home.path().join("config/trusted.json")).unwrap(),
    )
    .unwrap();
    let absolute = std::fs::canonicalize(&toml).unwrap();
    let hash = &record["files"][absolute.to_str().unwrap()];
    assert_eq!(hash.as_str().unwrap().len(), 64, "{record}");

    let ran = volk(
        &work,
        home.path(),
        &["run", "--workspace", work.to_str().unwrap()],
        Some(EXAMPLE_1),
        &[("OPENAI_API_KEY", KEY)],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(server.hits(), 1, "the trusted host is used");

    // One more byte: the file is a different file now.
    std::fs::write(&toml, hostile_toml(&server.url) + "# changed\n").unwrap();
    let again = volk(
        &work,
        home.path(),
        &["run", "--workspace", work.to_str().unwrap()],
        Some(EXAMPLE_2),
        &[("OPENAI_API_KEY", KEY)],
    );
    assert_eq!(again.code, 2, "{}", again.stderr);
    assert!(again.stderr.contains("volk trust"), "{}", again.stderr);
    assert_eq!(server.hits(), 1);

    // Trusting a directory means its volk.toml; XDG_CONFIG_HOME is honoured.
    let xdg = home.path().join("xdg");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_volk"));
    let out = cmd
        .args(["trust", work.to_str().unwrap()])
        .env_remove("VOLK_CONFIG_DIR")
        .env("XDG_CONFIG_HOME", &xdg)
        .env("VOLK_LOG", home.path().join("volk.log"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(xdg.join("volk/trusted.json")).unwrap();
    assert!(text.contains(absolute.to_str().unwrap()), "{text}");

    // A file that does not parse is not trusted.
    std::fs::write(&toml, "reasoner = 3\n").unwrap();
    let bad = volk(&work, home.path(), &["trust", "volk.toml"], None, &[]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("volk.toml"), "{}", bad.stderr);
}

#[test]
fn an_untrusted_file_may_set_model_timeouts_and_theme_and_flags_override_its_host() {
    let server = server(echoing_design);
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(
        work.join("volk.toml"),
        "model = \"m\"\nidle_timeout_secs = 30\ntheme = \"light\"\nmax_cycles = 4\n",
    )
    .unwrap();
    let ran = volk(
        &work,
        home.path(),
        &["run", "--workspace", work.to_str().unwrap()],
        Some(EXAMPLE_1),
        &[("OPENAI_API_KEY", KEY)],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);

    // A hostile host, overridden by the user's own flags: the flags are used.
    let other = tempfile::tempdir().unwrap();
    let work = other.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("volk.toml"), hostile_toml("http://192.0.2.1:9")).unwrap();
    let url = format!("{}/v1", server.url);
    let ran = volk(
        &work,
        other.path(),
        &[
            "run",
            "--workspace",
            work.to_str().unwrap(),
            "--reasoner",
            "openai",
            "--base-url",
            &url,
        ],
        Some(EXAMPLE_1),
        &[("OPENAI_API_KEY", KEY)],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(server.hits(), 1);

    // The user's own config file is trusted as it is.
    let mine = tempfile::tempdir().unwrap();
    let work = mine.path().join("work");
    std::fs::create_dir_all(mine.path().join("config")).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(
        mine.path().join("config/volk.toml"),
        hostile_toml(&server.url),
    )
    .unwrap();
    let ran = volk(
        &work,
        mine.path(),
        &["run", "--workspace", work.to_str().unwrap()],
        Some(EXAMPLE_1),
        &[("OPENAI_API_KEY", KEY)],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(server.hits(), 2);
}

// ---------------------------------------------------------------- scrubbing

/// Every file under `dir` as bytes, plus every git object and `git log -p` of each
/// repository found (objects are compressed on disk).
fn everything_written(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for path in files_under(dir) {
        out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        if path.ends_with(".git/HEAD") {
            let repo = path.parent().unwrap().parent().unwrap();
            let git = |args: &[&str]| {
                let o = Command::new("git")
                    .arg("-C")
                    .arg(repo)
                    .args(args)
                    .output()
                    .unwrap();
                assert!(o.status.success(), "git {args:?}");
                o.stdout
            };
            out.push((
                format!("git log -p of {}", repo.display()),
                git(&["log", "-p", "--all"]),
            ));
            let objects = git(&[
                "cat-file",
                "--batch-all-objects",
                "--batch-check=%(objectname)",
            ]);
            for id in String::from_utf8_lossy(&objects).lines() {
                out.push((format!("git object {id}"), git(&["cat-file", "-p", id])));
            }
        }
    }
    out
}

fn assert_no_key(what: &str, bytes: &[u8]) {
    for (name, form) in key_forms() {
        assert!(
            !bytes.windows(form.len()).any(|w| w == form.as_bytes()),
            "the key ({name}) is in {what}"
        );
    }
}

#[test]
fn a_server_echoing_the_key_leaves_no_form_of_it_anywhere() {
    let server = server(echoing_design);
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let cassette = home.path().join("session.jsonl");
    let url = format!("{}/v1", server.url);
    let run = |packet: &str| {
        volk(
            home.path(),
            home.path(),
            &[
                "run",
                "--workspace",
                work.to_str().unwrap(),
                "--reasoner",
                "openai",
                "--base-url",
                &url,
                "--record",
                cassette.to_str().unwrap(),
            ],
            Some(packet),
            &[("OPENAI_API_KEY", KEY)],
        )
    };
    let first = run(EXAMPLE_1);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let second = run(EXAMPLE_2);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(server.hits(), 2);
    // The server did get the key, so the test can fail.
    assert!(
        server.requests()[0].raw.contains(&format!("Bearer {KEY}")),
        "the request carried no key"
    );

    let written = everything_written(home.path());
    let names: Vec<&str> = written.iter().map(|(p, _)| p.as_str()).collect();
    for needed in [
        "session.jsonl",
        "journal.jsonl",
        "session.json",
        "architecture.md",
        "volk.log",
        "git object",
        "outbox",
    ] {
        assert!(
            names.iter().any(|n| n.contains(needed)),
            "nothing like {needed} in {names:?}"
        );
    }
    for (path, bytes) in &written {
        assert_no_key(path, bytes);
    }
    for (what, text) in [
        ("stdout 1", &first.stdout),
        ("stderr 1", &first.stderr),
        ("stdout 2", &second.stdout),
        ("stderr 2", &second.stderr),
    ] {
        assert_no_key(what, text.as_bytes());
    }
    // What is left of the design around the redactions is still there.
    let architecture =
        std::fs::read_to_string(work.join("taskman/design/architecture.md")).unwrap();
    assert!(
        architecture.contains("- literal: [redacted]"),
        "{architecture}"
    );
}

#[test]
fn a_refusal_quoting_the_key_is_scrubbed_from_stderr_and_the_log() {
    let server = server(echoing_refusal);
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let url = format!("{}/v1", server.url);
    let ran = volk(
        home.path(),
        home.path(),
        &[
            "run",
            "--workspace",
            work.to_str().unwrap(),
            "--reasoner",
            "openai",
            "--base-url",
            &url,
        ],
        Some(EXAMPLE_1),
        &[("OPENAI_API_KEY", KEY)],
    );
    assert_ne!(ran.code, 0);
    assert!(ran.stderr.contains("OPENAI_API_KEY"), "{}", ran.stderr);
    assert_eq!(server.hits(), 1);
    assert_no_key("stderr", ran.stderr.as_bytes());
    for (path, bytes) in everything_written(home.path()) {
        assert_no_key(&path, &bytes);
    }
}

// ---------------------------------------------------------------- volk open resumes

/// A plain design from the echo-free server (so the design itself is ordinary).
fn plain_design() -> Vec<u8> {
    let design = "ARCHITECTURE:\nA CLI over a store.\n\nREQUIREMENTS:\nFR-01: add tasks\n\nFILE_TREE:\nsrc/main.rs\n\nAPI_SPEC:\nadd(name) -> Task\n\nCLASS_DIAGRAM:\nclassDiagram\n  class Task\n";
    openai_stream(design, design.len())
}

fn designed_by_a_model(home: &Path, server: &Server) -> PathBuf {
    let work = home.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let url = format!("{}/v1", server.url);
    let ran = volk(
        home,
        home,
        &[
            "run",
            "--workspace",
            work.to_str().unwrap(),
            "--reasoner",
            "openai",
            "--base-url",
            &url,
            "--model",
            "model-of-record",
        ],
        Some(EXAMPLE_1),
        &[("OPENAI_API_KEY", KEY)],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    work.join("taskman")
}

fn edit_session(project: &Path, edit: impl Fn(&mut serde_json::Value)) {
    let path = project.join(".volk/session.json");
    let mut session: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut session);
    std::fs::write(&path, serde_json::to_string_pretty(&session).unwrap()).unwrap();
}

#[test]
fn the_session_records_the_reasoner_and_open_never_falls_back_to_offline() {
    let server = server(plain_design);
    let home = tempfile::tempdir().unwrap();
    let project = designed_by_a_model(home.path(), &server);
    let session: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(project.join(".volk/session.json")).unwrap())
            .unwrap();
    assert_eq!(session["reasoner"]["reasoner"], "openai", "{session}");
    assert_eq!(session["reasoner"]["model"], "model-of-record");
    assert_eq!(
        session["reasoner"]["base_url"],
        format!("{}/v1", server.url)
    );
    assert!(!session.to_string().contains(KEY));

    // A URL this machine does not own, written into the session: not followed.
    edit_session(&project, |s| {
        s["reasoner"]["base_url"] = "https://example.invalid/v1".into();
    });
    let open = |args: &[&str]| {
        let mut all = vec!["open", project.to_str().unwrap()];
        all.extend_from_slice(args);
        volk(
            home.path(),
            home.path(),
            &all,
            None,
            &[("OPENAI_API_KEY", KEY)],
        )
    };
    let refused = open(&[]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert_eq!(
        refused.stderr.trim().lines().count(),
        1,
        "{}",
        refused.stderr
    );
    assert!(
        refused
            .stderr
            .contains("--base-url https://example.invalid/v1"),
        "{}",
        refused.stderr
    );
    // A replayed or otherwise unknown architect: a flag is needed, offline included.
    edit_session(&project, |s| {
        s["reasoner"] = serde_json::json!({"reasoner": "replay", "model": "m"});
    });
    let refused = open(&[]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("--reasoner offline"),
        "{}",
        refused.stderr
    );
    assert_eq!(server.hits(), 1);
}

#[test]
fn volk_open_continues_with_the_recorded_reasoner_and_model_in_tmux() {
    let available = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !available {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let server = server(plain_design);
    let home = tempfile::tempdir().unwrap();
    let project = designed_by_a_model(home.path(), &server);
    // No flags: the reasoner, model and (local) base URL come from the session.
    let socket = home.path().join("tmux.sock");
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(args)
            .output()
            .unwrap()
    };
    let command = format!(
        "OPENAI_API_KEY={KEY} VOLK_CONFIG_DIR={} VOLK_LOG={} {} open {}; sleep 30",
        home.path().join("config").display(),
        home.path().join("volk.log").display(),
        env!("CARGO_BIN_EXE_volk"),
        project.display()
    );
    let out = tmux(&[
        "new-session",
        "-d",
        "-s",
        "reopen",
        "-x",
        "140",
        "-y",
        "40",
        &command,
    ]);
    assert!(out.status.success());
    let start = std::time::Instant::now();
    let screen = loop {
        let screen = String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", "reopen"]).stdout)
            .into_owned();
        if screen.contains("openai/model-of-record") {
            break screen;
        }
        if start.elapsed() > Duration::from_secs(30) {
            tmux(&["kill-server"]);
            panic!("the header does not show the recorded reasoner:\n{screen}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    tmux(&["kill-server"]);
    assert!(!screen.contains("offline/"), "{screen}");
}
