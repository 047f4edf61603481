//! SIGTERM, SIGHUP, SIGQUIT and SIGINT to the workbench, in tmux: the pane is back to
//! normal afterwards (main screen, cursor shown, mouse reporting off, typing echoes),
//! the draft is on disk and the exit status is 128 + the signal number.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::tmux::{Tmux, tmux_available};

const EXAMPLE_1: &str = include_str!("fixtures/packets/example1_scope.json");

fn read_pid(path: &Path) -> String {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.trim().is_empty()
        {
            return text.trim().to_string();
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no pid file");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One signal: the workbench reviewing cycle 1 with a question being typed.
fn signal_restores_the_terminal(signal: &str, number: i32) {
    let dir = tempfile::tempdir().unwrap();
    let scope = dir.path().join("scope.json");
    std::fs::write(&scope, EXAMPLE_1).unwrap();
    let workspace = dir.path().join("ws");
    let pid_file = dir.path().join("volk.pid");
    let tmux = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: format!("volk-{signal}"),
    };
    // A plain `sh` (no line editor of its own), so echo depends on the terminal's mode.
    tmux.start(140, 40, "env PS1='$ ' sh");
    let command = format!(
        "VOLK_CONFIG_DIR={config} VOLK_LOG={log} sh -c 'echo $$ > {pid}; exec {volk} design {scope} --workspace {ws} --reasoner offline'; echo VOLK-EXITED-$?",
        config = dir.path().join("config").display(),
        log = dir.path().join("volk.log").display(),
        pid = pid_file.display(),
        volk = env!("CARGO_BIN_EXE_volk"),
        scope = scope.display(),
        ws = workspace.display(),
    );
    tmux.literal(&command);
    tmux.keys(&["Enter"]);
    let pid = read_pid(&pid_file);
    tmux.wait_for("your review", Duration::from_secs(60));
    assert_eq!(
        tmux.flag("alternate_on"),
        "1",
        "the workbench is full screen"
    );
    assert_eq!(
        tmux.flag("mouse_any_flag"),
        "1",
        "the workbench reports the mouse"
    );

    // A question half typed: it must be on disk after the signal.
    tmux.keys(&["a"]);
    tmux.wait_for("New question", Duration::from_secs(15));
    let question = format!("What happens on {signal}?");
    tmux.literal(&question);
    tmux.wait_for(&question, Duration::from_secs(15));

    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let screen = tmux.wait_for(
        &format!("VOLK-EXITED-{}", 128 + number),
        Duration::from_secs(15),
    );
    assert!(
        screen.contains(&format!("stopped by SIG{signal}")),
        "{signal}: {screen}"
    );
    assert_eq!(
        tmux.flag("alternate_on"),
        "0",
        "{signal}: still on the alternate screen"
    );
    assert_eq!(
        tmux.flag("cursor_flag"),
        "1",
        "{signal}: the cursor is hidden"
    );
    for mouse in [
        "mouse_any_flag",
        "mouse_button_flag",
        "mouse_standard_flag",
        "mouse_sgr_flag",
    ] {
        assert_eq!(tmux.flag(mouse), "0", "{signal}: {mouse} is still on");
    }
    // Typing echoes (the terminal is not raw): the text shows before Enter.
    tmux.literal("echo-is-back");
    tmux.wait_for("$ echo-is-back", Duration::from_secs(10));

    let project = workspace.join("taskman");
    let draft = std::fs::read_to_string(project.join(".volk/draft.json")).unwrap();
    assert!(draft.contains(&question), "{signal}: draft {draft}");
}

#[test]
fn sigterm_sighup_sigquit_sigint_restore_the_terminal_and_save_the_draft() {
    if !tmux_available() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    for (signal, number) in [("TERM", 15), ("HUP", 1), ("QUIT", 3), ("INT", 2)] {
        signal_restores_the_terminal(signal, number);
    }
}
