//! `volk hook install` in a fresh git repository, then the installed command run the way
//! the host runs it (its settings file read back, a recorded Stop payload on stdin,
//! `sh -c` with the host's environment): the first Stop blocks with the default
//! questions, the second lets the agent stop, and the marker stays out of git.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

const VOLK: &str = env!("CARGO_BIN_EXE_volk");

/// The hook questions of the shipped default set (see `volk reflect list`).
const DEFAULT_STOP_QUESTIONS: [&str; 3] = [
    "What did you run or inspect that shows the work does what was asked",
    "Is any part of the request still open or only partly done?",
    "What could this break for other code, stored data or users",
];

fn volk(dir: &Path, args: &[&str]) -> Output {
    Command::new(VOLK)
        .args(args)
        .current_dir(dir)
        .env("VOLK_LOG", dir.join("..").join("volk.log"))
        .env("HOME", dir.join("..").join("home"))
        .env_remove("PRD_REFLECTION")
        .env_remove("CLAUDE_PROJECT_DIR")
        .output()
        .unwrap()
}

fn git_repo() -> (tempfile::TempDir, std::path::PathBuf) {
    let outer = tempfile::tempdir().unwrap();
    let repo = outer.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let init = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert!(init.status.success());
    (outer, repo)
}

/// The command a host registered for the Stop event in its settings file.
fn registered_command(settings: &Path) -> String {
    let value: Value = serde_json::from_str(&std::fs::read_to_string(settings).unwrap()).unwrap();
    value["hooks"]["Stop"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["hooks"].as_array().unwrap().clone())
        .find_map(|h| {
            h["command"]
                .as_str()
                .filter(|c| c.contains("hook stop"))
                .map(String::from)
        })
        .expect("a registered Stop hook")
}

/// Runs `command` as Claude Code and Codex do: through the shell, in `cwd`, with the
/// payload on stdin and the host's variables.
fn run_hook(command: &str, cwd: &Path, env: &[(&str, &Path)], payload: &Value) -> Output {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", command])
        .current_dir(cwd)
        .env("VOLK_LOG", cwd.join("..").join("hook.log"))
        .env_remove("PRD_REFLECTION")
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        cmd.env(key, value);
    }
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn assert_blocks_with_defaults(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let decision: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {:?} {stderr}", String::from_utf8_lossy(&out.stdout)));
    let keys: Vec<&String> = decision.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["decision", "reason"], "{decision}");
    assert_eq!(decision["decision"], "block");
    let reason = decision["reason"].as_str().unwrap();
    for question in DEFAULT_STOP_QUESTIONS {
        assert!(reason.contains(question), "{reason}");
    }
}

fn assert_allows(out: &Output) {
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

fn is_ignored(repo: &Path, path: &str) -> bool {
    Command::new("git")
        .args(["check-ignore", "-q", path])
        .current_dir(repo)
        .status()
        .unwrap()
        .success()
}

#[test]
fn claude_code_reflects_on_the_first_stop_after_install() {
    let (_outer, repo) = git_repo();
    let out = volk(&repo, &["hook", "install", "--host", "claude"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 2, "{said}");
    assert!(lines[0].starts_with("installed: "), "{said}");
    assert!(
        lines[1].contains("the default questions")
            && lines[1].contains("RFQ-001")
            && lines[1].contains("volk reflect"),
        "{said}"
    );
    // Nothing but the host's settings and the ignore line was written.
    assert!(!repo.join(".prd_plugin").exists());
    let ignore = std::fs::read_to_string(repo.join(".gitignore")).unwrap();
    assert!(
        ignore.lines().any(|l| l == ".prd_plugin/local/"),
        "{ignore}"
    );

    let command = registered_command(&repo.join(".claude/settings.json"));
    let stop = |active: bool| {
        json!({
            "session_id": "0b1e6f3c-5a1d-4c55-9d0e-claude",
            "transcript_path": repo.join("transcript.jsonl"),
            "cwd": repo,
            "permission_mode": "default",
            "hook_event_name": "Stop",
            "stop_hook_active": active
        })
    };
    let env = [("CLAUDE_PROJECT_DIR", repo.as_path())];
    let first = run_hook(&command, &repo, &env, &stop(false));
    assert_blocks_with_defaults(&first);
    let marker_dir = repo.join(".prd_plugin/local/reflection");
    assert_eq!(std::fs::read_dir(&marker_dir).unwrap().count(), 1);
    assert!(is_ignored(&repo, ".prd_plugin/local/reflection/x.pending"));
    let second = run_hook(&command, &repo, &env, &stop(true));
    assert_allows(&second);
    assert_eq!(std::fs::read_dir(&marker_dir).unwrap().count(), 0);

    // The status names the install, the config to come and the questions.
    let status = volk(&repo, &["hook", "status"]);
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(status.status.success(), "{text}");
    assert!(
        text.contains("claude: project hook installed")
            && text.contains("codex: project hook not installed"),
        "{text}"
    );
    assert!(
        text.contains(".prd_plugin/config.json (not written yet: the default questions apply)"),
        "{text}"
    );
    assert!(text.contains(DEFAULT_STOP_QUESTIONS[0]), "{text}");
}

#[test]
fn codex_reflects_from_a_subdirectory_of_the_repository() {
    let (_outer, repo) = git_repo();
    let out = volk(&repo, &["hook", "install", "--host", "codex"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let command = registered_command(&repo.join(".codex/hooks.json"));
    let sub = repo.join("src").join("deep");
    std::fs::create_dir_all(&sub).unwrap();
    // Codex sends a turn id and no project variable: the root is the repository's.
    let stop = |turn: &str, active: bool| {
        json!({
            "session_id": "codex-session-7",
            "turn_id": turn,
            "transcript_path": null,
            "cwd": sub,
            "hook_event_name": "Stop",
            "model": "gpt-5-codex",
            "stop_hook_active": active,
            "last_assistant_message": "Done."
        })
    };
    let first = run_hook(&command, &sub, &[], &stop("t1", false));
    assert_blocks_with_defaults(&first);
    assert!(repo.join(".prd_plugin/local/reflection").is_dir());
    assert!(!sub.join(".prd_plugin").exists());
    assert_allows(&run_hook(&command, &sub, &[], &stop("t1", true)));
    // A new turn of the same session reflects again.
    assert_blocks_with_defaults(&run_hook(&command, &sub, &[], &stop("t2", false)));
}

#[test]
fn without_an_install_or_a_repository_nothing_is_asked_or_written() {
    let (_outer, repo) = git_repo();
    let loose = tempfile::tempdir().unwrap();
    for (cwd, env) in [
        (repo.as_path(), vec![("CLAUDE_PROJECT_DIR", repo.as_path())]),
        (loose.path(), vec![]),
        (loose.path(), vec![("CLAUDE_PROJECT_DIR", loose.path())]),
    ] {
        let payload = json!({
            "session_id": "s", "cwd": cwd, "hook_event_name": "Stop", "stop_hook_active": false
        });
        let out = run_hook(
            &format!("'{VOLK}' hook stop --host claude"),
            cwd,
            &env,
            &payload,
        );
        assert_allows(&out);
        assert!(!cwd.join(".prd_plugin").exists());
    }
    let status = volk(loose.path(), &["hook", "status"]);
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(text.contains("config: none"), "{text}");
    assert!(text.contains("asks nothing"), "{text}");
}
