//! The reading side of the workbench on ratatui's TestBackend: answers written with
//! heading markers, wrapping, Markdown, the journal timeline.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use volk::reasoner::{Purpose, StreamEvent};
use volk::tui::app::{App, SessionInfo};
use volk::tui::event::{AppEvent, LoopEvent, Phase};
use volk::tui::theme::Theme;
use volk::tui::view;

fn info() -> SessionInfo {
    SessionInfo {
        project_name: "bookshelf".into(),
        project_dir: PathBuf::from("/work/space/bookshelf"),
        thread_id: "demo-bookshelf".into(),
        max_cycles: 99,
        reasoner: "openai".into(),
        model: "local".into(),
    }
}

fn screen(app: &mut App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| view::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

fn stream(app: &mut App, call: u64, text: &str) {
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(5) {
        app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
            call,
            purpose: Purpose::Design,
            event: StreamEvent::Text {
                text: piece.iter().collect(),
            },
        }));
    }
}

const PREAMBLE: &str = "Sure. I read the scope and the NFRs first.\n\
Below is the full design, section by section.\n\n";

const HEADINGS: &str = "## ARCHITECTURE\n\nA CLI over one SQLite store.\n\n\
## Requirements\n\n1. FR-01: The system must register a book.\n\n\
### 3. File tree:\n\nsrc/\n└── main.py\n\n\
**API spec**\n\nModule: src/main.py\n  main() -> int\n\n\
# Class Diagram #\n\nclassDiagram\n  Cli --> Store\n";

#[test]
fn the_raw_answer_streams_until_a_heading_marker_fills_the_tabs() {
    let mut app = App::new(info(), Theme::dark());
    app.on_app_event(AppEvent::Phase(Phase::Designing { cycle: 1 }));
    stream(&mut app, 1, PREAMBLE);
    stream(&mut app, 1, "## ARCH");
    insta::assert_snapshot!("raw_answer_before_any_marker", screen(&mut app, 100, 20));
    stream(&mut app, 1, &HEADINGS[7..]);
    app.on_key(KeyEvent::new(KeyCode::Char('1'), KeyModifiers::NONE));
    let drawn = screen(&mut app, 100, 20);
    assert!(drawn.contains("A CLI over one SQLite store."), "{drawn}");
    assert!(!drawn.contains("no section marker"), "{drawn}");
    for section in volk::design::Section::ALL {
        assert!(
            !app.docs[section.index()].is_empty(),
            "{section:?} stayed empty"
        );
    }
    assert_eq!(app.docs[4].lines(), ["classDiagram", "  Cli --> Store"]);
}

#[test]
fn an_answer_without_sections_stays_on_screen_after_the_failure() {
    let mut app = App::new(info(), Theme::dark());
    app.on_app_event(AppEvent::Phase(Phase::Designing { cycle: 1 }));
    stream(&mut app, 1, "## Overview\n\nOne store, three commands.\n");
    let message = "the reasoner's answer (40 bytes) has none of the five section markers; it is saved in .volk/unparsed/cycle-1-0badf00d.md".to_string();
    app.on_app_event(AppEvent::Loop(LoopEvent::Error {
        message,
        retryable: true,
    }));
    app.popup = None; // Esc: the popup is closed, the answer is still there to read
    let drawn = screen(&mut app, 100, 20);
    assert!(drawn.contains("no section markers found"), "{drawn}");
    assert!(drawn.contains("One store, three commands."), "{drawn}");
}
