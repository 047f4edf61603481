//! Multi-line questions end to end: a question pasted into `volk design` in tmux (tmux
//! sends the paste bracketed, its line breaks as CR as terminals do) keeps its line
//! breaks in the review pane and reaches the architect's prompt with them, read back
//! from the call recorded with `--record`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use support::tmux::Tmux;

use std::process::Command;
use std::time::Duration;

#[test]
fn a_pasted_three_line_question_reaches_the_prompt_with_its_line_breaks() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    let cassette = dir.path().join("calls.jsonl");
    let config = dir.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let tmux = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-paste".into(),
    };
    let scope = dir.path().join("bookshelf.md");
    std::fs::write(
        &scope,
        "# Bookshelf\n\nA command-line reading log.\n\n1. Register a book with title and author\n2. Record a reading session\n",
    )
    .unwrap();
    let command = format!(
        "VOLK_CONFIG_DIR={} VOLK_LOG={} {} design {} --reasoner offline --workspace {} --record {}; sleep 30",
        config.display(),
        dir.path().join("volk.log").display(),
        env!("CARGO_BIN_EXE_volk"),
        scope.display(),
        workspace.display(),
        cassette.display(),
    );
    tmux.start(140, 40, &command);
    tmux.wait_for("your review", Duration::from_secs(60));

    tmux.keys(&["a"]);
    tmux.wait_for("New question", Duration::from_secs(15));
    let question = "How long is a session's lifecycle?\nSecond line: who ends it?\nThird line.";
    tmux.run(&["set-buffer", "-b", "q", question]);
    // -p: bracketed, as the application asked; tmux turns each LF into CR.
    tmux.run(&["paste-buffer", "-p", "-b", "q", "-t", &tmux.session]);
    tmux.wait_for("Third line.", Duration::from_secs(15));
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Your questions (1)", Duration::from_secs(15));
    let rows: Vec<&str> = screen.lines().collect();
    let first = rows
        .iter()
        .position(|r| r.contains("1. How long is a session's lifecycle?"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(
        rows[first + 1].contains("   Second line: who ends it?"),
        "{screen}"
    );
    assert!(rows[first + 2].contains("   Third line."), "{screen}");

    tmux.keys(&["C-s"]);
    tmux.wait_for("cycle 2/", Duration::from_secs(30));
    tmux.wait_for("your review", Duration::from_secs(60));

    let recorded = std::fs::read_to_string(&cassette).unwrap();
    let prompts: Vec<String> = recorded
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["call"]["prompt"].as_str().map(str::to_string))
        .collect();
    let update = prompts
        .iter()
        .find(|p| p.contains("lifecycle?"))
        .unwrap_or_else(|| panic!("no recorded prompt holds the question: {prompts:?}"));
    assert!(
        update.contains(
            ": How long is a session's lifecycle?\n  Second line: who ends it?\n  Third line."
        ),
        "{update}"
    );
}
