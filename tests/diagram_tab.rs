//! The Class diagram tab: the offline drafter's diagram drawn at 100x30, scrolled,
//! switched to its Mermaid source and back, and a diagram that does not parse shown
//! as source with the D001 fault marked. Screens on ratatui's TestBackend, compared
//! with insta snapshots; and `volk demo` in tmux, drawn at 100x30.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use std::time::Duration;
use support::screen::info;
use support::tmux::{Tmux, demo_command, tmux_available};

use ratatui::crossterm::event::KeyCode;
use volk::design::parser::parse;
use volk::design::{Artifacts, Section};
use volk::reasoner::offline::draft;
use volk::tui::app::App;
use volk::tui::event::{AppEvent, LoopEvent, Phase};
use volk::tui::test_keys::{ch, key};
use volk::tui::theme::Theme;
use volk::volk::brief::{Brief, Purpose};

fn screen(app: &mut App) -> String {
    support::screen::screen(app, 100, 30)
}

/// Cycle 1 of the offline drafter's design under review, with `diagram` in place of
/// its class diagram when given.
fn reviewing(diagram: Option<&str>) -> App {
    let brief = Brief {
        task_summary: "A command-line reading log that tracks books in SQLite".into(),
        project_name: "bookshelf".into(),
        requirements: "1. Register a book with title and author\n2. Record a reading session\n3. Show progress per book".into(),
        cycle: 1,
        ..Brief::default()
    };
    let mut artifacts: Artifacts = parse(&draft(Purpose::Design, &brief));
    if let Some(d) = diagram {
        artifacts.class_diagram = d.to_string();
    }
    let mut app = App::new(info(), Theme::dark());
    for event in [
        LoopEvent::Phase(Phase::Designing { cycle: 1 }),
        LoopEvent::CycleReady {
            cycle: 1,
            artifacts,
            changed: Section::ALL.to_vec(),
        },
        LoopEvent::Phase(Phase::AwaitingReview { cycle: 1 }),
    ] {
        app.on_app_event(AppEvent::Loop(event));
    }
    app
}

#[test]
fn the_class_diagram_tab_draws_the_diagram() {
    let mut app = reviewing(None);
    app.on_key(ch('5'));
    let drawn = screen(&mut app);
    assert!(
        drawn.contains("Class diagram · drawn, v: source"),
        "{drawn}"
    );
    assert!(
        drawn.contains("│       Store       │") && drawn.contains('v'),
        "{drawn}"
    );
    insta::assert_snapshot!("drawn", drawn);

    // `v`: the Mermaid source in the viewer, and back.
    app.on_key(ch('v'));
    let source = screen(&mut app);
    assert!(source.contains("classDiagram"), "{source}");
    insta::assert_snapshot!("source", source);
    app.on_key(ch('v'));
    assert_eq!(screen(&mut app), drawn);
}

#[test]
fn a_drawing_larger_than_the_tab_scrolls_both_ways() {
    let mut text = String::from("```mermaid\nclassDiagram\n");
    for i in 1..30 {
        text.push_str(&format!("  C{} <|-- C{i}\n", (i - 1) / 3));
    }
    text.push_str("```\n");
    let mut app = reviewing(Some(&text));
    app.on_key(ch('5'));
    let top = screen(&mut app);
    assert!(
        top.contains("30 classes") && top.contains("col 1 row 1"),
        "{top}"
    );
    for k in [key(KeyCode::Right), key(KeyCode::Right), ch('j'), ch('j')] {
        app.on_key(k);
    }
    let scrolled = screen(&mut app);
    assert!(scrolled.contains("col 9 row 3"), "{scrolled}");
    assert_ne!(scrolled, top);
    // The bottom, then back to the top-left corner.
    app.on_key(ch('G'));
    assert!(!screen(&mut app).contains(" row 3 "));
    app.on_key(ch('g'));
    assert_eq!(screen(&mut app), top);
}

#[test]
fn a_diagram_that_does_not_parse_shows_its_source_with_d001() {
    let broken = "```mermaid\nclassDiagram\n  Store <|-- Cache\n  class Store {\n    +save(book) None\n    m: dict = {}\n  }\n```\n";
    let mut app = reviewing(Some(broken));
    app.on_key(ch('5'));
    let shot = screen(&mut app);
    assert!(shot.contains("D001 line 6:15"), "{shot}");
    insta::assert_snapshot!("d001", shot);
    // What could be read is still drawn on request, under the fault.
    app.on_key(ch('v'));
    let drawn = screen(&mut app);
    assert!(
        drawn.contains("D001 line 6:15") && drawn.contains("Cache"),
        "{drawn}"
    );
}

#[test]
fn while_the_architect_writes_the_diagram_the_tab_follows_its_source() {
    use volk::reasoner::StreamEvent;
    let brief = Brief {
        task_summary: "A command-line reading log".into(),
        project_name: "bookshelf".into(),
        requirements: "1. Register a book".into(),
        cycle: 1,
        ..Brief::default()
    };
    let text = draft(Purpose::Design, &brief);
    let cut = text.find("--> Store").unwrap();
    let mut app = App::new(info(), Theme::dark());
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 1,
    })));
    app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
        call: 1,
        purpose: Purpose::Design,
        event: StreamEvent::Text {
            text: text[..cut].into(),
        },
    }));
    app.on_key(ch('5'));
    let writing = screen(&mut app);
    assert!(writing.contains("classDiagram"), "{writing}");
    assert!(!writing.contains("drawn, v: source"), "{writing}");
    // The reader may still ask for the drawing of what is there so far.
    app.on_key(ch('v'));
    let drawn = screen(&mut app);
    assert!(drawn.contains("drawn, v: source"), "{drawn}");
    assert!(drawn.contains("│       Store       │"), "{drawn}");
}

#[test]
fn demo_draws_the_class_diagram_in_tmux() {
    if !tmux_available() {
        eprintln!("SKIPPED demo_draws_the_class_diagram_in_tmux: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-diagram".into(),
    };
    let command = demo_command(dir.path(), &dir.path().join("ws"));
    tmux.start(100, 30, &command);
    tmux.wait_for("your review", Duration::from_secs(60));
    tmux.keys(&["5"]);
    // The footer is painted last: once it is there the whole frame is.
    let drawn = tmux.wait_for(" classes · ", Duration::from_secs(15));
    assert!(
        drawn.contains("drawn, v: source") && drawn.contains('┌'),
        "{drawn}"
    );
    tmux.keys(&["v"]);
    tmux.wait_for("classDiagram", Duration::from_secs(15));
    tmux.keys(&["v"]);
    tmux.wait_for("drawn, v: source", Duration::from_secs(15));
    // Nothing unsent: q quits without asking.
    tmux.keys(&["q"]);
    let end = tmux.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    assert!(end.contains("VOLK-EXITED-0"), "{end}");
}
