//! The activity line end to end: the real workbench in tmux against a scripted
//! provider on 127.0.0.1 that rate-limits its first answer, or thinks for seconds
//! before it writes. The line must say so while it happens.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use support::provider::{
    Piece, Provider, openai_stream, response, sse_chunk, sse_end, sse_thinking, stream_head,
};
use support::tmux::{Tmux, tmux_available};
use volk::brief::Purpose;
use volk::reasoner::StreamEvent;
use volk::tui::app::{App, SessionInfo};
use volk::tui::event::{Action, AppEvent, Intent, LoopEvent, Phase};
use volk::tui::test_keys::{ch, key};
use volk::tui::theme::Theme;
use volk::tui::view;

const DESIGN: &str = "ARCHITECTURE:\nA CLI over a SQLite store.\n\nREQUIREMENTS:\nFUNCTIONAL:\n1. FR-01: Add tasks.\n\nFILE_TREE:\nsrc/\n  cli.py\n\nAPI_SPEC:\nadd(name: str) -> int\n\nCLASS_DIAGRAM:\nclassDiagram\n  Cli --> Store\n";

/// `volk design` on a small scope against `server`, in a tmux of `width` x `height`.
fn workbench(dir: &Path, server: &Provider, width: u16, height: u16) -> Tmux {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let scope = dir.join("tasks.md");
    std::fs::write(&scope, "# A task CLI\n1. Add tasks\n").unwrap();
    let tmux = Tmux {
        socket: dir.join("tmux.sock"),
        session: "volk-activity".into(),
    };
    let command = format!(
        "env HOME={home} XDG_CONFIG_HOME={home}/.config GIT_CONFIG_NOSYSTEM=1 \
         OPENAI_API_KEY=sk-tmux-test VOLK_CONFIG_DIR={config} VOLK_LOG={log} \
         {volk} design {scope} --workspace {ws} --lint-repairs 0 --reasoner openai --model scripted --base-url {url}; \
         echo VOLK-EXITED-$?; sleep 30",
        home = home.display(),
        config = dir.join("config").display(),
        log = dir.join("volk.log").display(),
        volk = env!("CARGO_BIN_EXE_volk"),
        scope = scope.display(),
        ws = dir.join("ws").display(),
        url = server.v1(),
    );
    tmux.start(width, height, &command);
    tmux
}

/// The screen's bottom row: the status bar.
fn status_row(screen: &str) -> String {
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .to_string()
}

fn quit(tmux: &Tmux) {
    tmux.keys(&["q"]);
    std::thread::sleep(Duration::from_millis(300));
    if tmux.screen().contains("Quit?") {
        tmux.keys(&["y"]);
    }
    let end = tmux.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    assert!(end.contains("VOLK-EXITED-0"), "{end}");
}

#[test]
fn a_rate_limited_call_says_it_retries_with_the_attempt_and_the_cause() {
    if !tmux_available() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    let server = Provider::start(Arc::new(|n, _| match n {
        0 => response(
            "429 Too Many Requests",
            "application/json",
            &[("retry-after", "2")],
            r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
        ),
        _ => openai_stream(DESIGN, 37),
    }));
    let dir = tempfile::tempdir().unwrap();
    let tmux = workbench(dir.path(), &server, 80, 24);
    let shot = tmux.wait_for("retrying in", Duration::from_secs(60));
    let status = status_row(&shot);
    assert!(status.contains("attempt 2/5"), "{shot}");
    assert!(status.contains("HTTP 429"), "{shot}");
    assert!(status.contains("x cancel"), "{shot}");
    // The wait is counted down, then the second attempt's answer arrives.
    tmux.wait_for("your review", Duration::from_secs(60));
    assert_eq!(server.prompts().len(), 2);
    quit(&tmux);
}

#[test]
fn a_thinking_model_shows_how_long_it_has_thought() {
    if !tmux_available() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    // Six thoughts 0.8 s apart, then the answer: about five seconds of thinking only.
    let server = Provider::paced(Arc::new(|_, _| {
        let mut pieces = vec![Piece::Bytes(stream_head())];
        for i in 0..6 {
            pieces.push(Piece::Pause(Duration::from_millis(800)));
            let thought = format!("Weighing the store, step {i}. ");
            pieces.push(Piece::Bytes(sse_thinking(&thought).into_bytes()));
        }
        let answer: String = DESIGN.split_inclusive('\n').map(sse_chunk).collect();
        pieces.push(Piece::Bytes(format!("{answer}{}", sse_end()).into_bytes()));
        pieces
    }));
    let dir = tempfile::tempdir().unwrap();
    // The smallest terminal volk draws in: the line keeps what matters.
    let tmux = workbench(dir.path(), &server, 60, 16);
    let first = tmux.wait_for("thinking… ", Duration::from_secs(60));
    assert!(status_row(&first).contains("thinking… "), "{first}");
    // Only thinking has arrived, and the seconds go up while it lasts.
    let later = tmux.wait_for("thinking… 2s", Duration::from_secs(20));
    let status = status_row(&later);
    assert!(status.contains("elapsed"), "{later}");
    assert!(status.contains("x cancel"), "{later}");
    tmux.wait_for("your review", Duration::from_secs(60));
    quit(&tmux);
}

/// A workbench whose first design call has just been sent.
fn calling() -> App {
    let mut app = App::new(
        SessionInfo {
            project_name: "tasks".into(),
            project_dir: PathBuf::from("/work/space/tasks"),
            thread_id: "demo-tasks".into(),
            max_cycles: 99,
            reasoner: "openai".into(),
            model: "scripted".into(),
        },
        Theme::dark(),
    );
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 1,
    })));
    app.on_app_event(AppEvent::Loop(LoopEvent::CallStarted {
        call: 1,
        purpose: Purpose::Design,
    }));
    app
}

fn draw(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| view::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

fn cancels(intents: &[Intent]) -> usize {
    intents
        .iter()
        .filter(|i| **i == Intent::Act(Action::Cancel))
        .count()
}

#[test]
fn a_call_still_waiting_is_cancelled_at_once() {
    let mut app = calling();
    app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
        call: 1,
        purpose: Purpose::Design,
        event: StreamEvent::Retrying(volk::reasoner::retry::Backoff {
            attempt: 2,
            max_attempts: 5,
            wait_ms: 2_000,
            reason: "HTTP 429".into(),
        }),
    }));
    // Backing off, nothing received: `x` stops it without a question.
    app.on_key(ch('x'));
    assert_eq!(cancels(&app.take_intents()), 1);
    assert!(app.popup.is_none());
}

#[test]
fn once_text_has_come_esc_or_x_asks_before_cancelling() {
    let mut app = calling();
    app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
        call: 1,
        purpose: Purpose::Design,
        event: StreamEvent::Text {
            text: "ARCHITECTURE:\nA CLI over one store.\n".into(),
        },
    }));
    app.on_key(ch('x'));
    assert_eq!(cancels(&app.take_intents()), 0);
    let shot = draw(&app, 100, 30);
    assert!(shot.contains("Cancel the call?"), "{shot}");
    assert!(shot.contains("y / Enter: cancel the call"), "{shot}");
    app.on_key(ch('n'));
    assert!(app.popup.is_none());
    assert_eq!(cancels(&app.take_intents()), 0);
    // Esc in the viewer asks the same; y cancels.
    app.on_key(key(KeyCode::Esc));
    assert!(draw(&app, 100, 30).contains("Cancel the call?"));
    app.on_key(ch('y'));
    assert_eq!(cancels(&app.take_intents()), 1);
    // In the review pane, x is not a cancel.
    let mut app = calling();
    app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
        call: 1,
        purpose: Purpose::Design,
        event: StreamEvent::Text {
            text: "ARCH".into(),
        },
    }));
    app.on_key(ch('f'));
    app.on_key(ch('x'));
    assert_eq!(cancels(&app.take_intents()), 0);
    assert!(app.popup.is_none());
}

#[test]
fn the_thinking_pane_wraps_long_reasoning_lines() {
    let mut app = calling();
    let thinking = "The reviewer asked for a CLI, so a web front end is out of scope.\n\
        Storage: one SQLite file keeps every task, which makes a backup a plain file copy and keeps the tool free of a server process that would need its own supervision.\n\
        Next: the API spec.";
    for piece in thinking.split_inclusive(' ') {
        app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
            call: 1,
            purpose: Purpose::Design,
            event: StreamEvent::Thinking { text: piece.into() },
        }));
    }
    app.on_key(ch('t'));
    let shot = draw(&app, 80, 24);
    // The long line is read to its last word, not cut at the pane's edge.
    assert!(shot.contains("supervision."), "{shot}");
    assert!(shot.contains("Next: the API spec."), "{shot}");
    // The status row tells the time (checked end to end in tmux above); the
    // snapshot is of the rows above it.
    let rows: Vec<&str> = shot.lines().collect();
    let (status, panes) = rows.split_last().unwrap();
    assert!(status.contains("thinking… "), "{shot}");
    insta::assert_snapshot!("thinking_pane_wraps", panes.join("\n"));
}

#[test]
fn after_a_cancelled_first_design_ctrl_s_says_r_runs_it_again() {
    let mut app = calling();
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Cancelled {
        resume: Box::new(Phase::Designing { cycle: 1 }),
    })));
    app.on_key(volk::tui::test_keys::ctrl('s'));
    assert_eq!(
        app.notice.as_deref(),
        Some("Ctrl-S: no cycle is under review; r runs the stopped call again")
    );
    assert!(app.take_intents().is_empty());
    let shot = draw(&app, 100, 30);
    assert!(shot.contains("cancelled"), "{shot}");
    assert!(!shot.contains("failed"), "{shot}");
}
