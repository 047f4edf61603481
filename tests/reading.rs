//! The reading side of the workbench on ratatui's TestBackend: answers written with
//! heading markers, wrapping, Markdown, the journal timeline.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use support::screen::screen;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use volk::brief::Purpose;
use volk::reasoner::StreamEvent;
use volk::tui::app::{App, SessionInfo};
use volk::tui::event::{AppEvent, LoopEvent, Phase};
use volk::tui::scene::Scene;
use volk::tui::test_keys::{ctrl, key, typed};
use volk::tui::theme::Theme;
use volk::tui::view;

fn info() -> SessionInfo {
    SessionInfo {
        reasoner: "openai".into(),
        model: "local".into(),
        ..support::screen::info()
    }
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
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 1,
    })));
    stream(&mut app, 1, PREAMBLE);
    stream(&mut app, 1, "## ARCH");
    insta::assert_snapshot!("raw_answer_before_any_marker", screen(&mut app, 100, 20));
    stream(&mut app, 1, &HEADINGS[7..]);
    app.on_key(key(KeyCode::Char('1')));
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
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 1,
    })));
    stream(&mut app, 1, "## Overview\n\nOne store, three commands.\n");
    let message = "the reasoner's answer (40 bytes) has none of the five section markers; it is saved in .volk/unparsed/cycle-1-0badf00d.md".to_string();
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Failed {
        resume: Box::new(Phase::Designing { cycle: 1 }),
        message,
        retryable: true,
    })));
    app.popup = None; // Esc: the popup is closed, the answer is still there to read
    let drawn = screen(&mut app, 100, 20);
    assert!(drawn.contains("no section markers found"), "{drawn}");
    assert!(drawn.contains("One store, three commands."), "{drawn}");
}

const PROSE: &str = "The Store component owns persistence and every handler asks it for the page count of a book before it records a session.";

/// An app at review with `architecture` as cycle 1 and `previous` as cycle 0.
fn reviewing(architecture: &str, previous: Option<&str>) -> App {
    let artifacts = volk::design::Artifacts {
        architecture: architecture.into(),
        ..volk::design::Artifacts::default()
    };
    let previous = previous.map(|p| volk::design::Artifacts {
        architecture: p.into(),
        ..volk::design::Artifacts::default()
    });
    // As `volk open` finds a session on disk.
    Scene::new(info())
        .opened(1, artifacts, previous)
        .awaiting_review(1)
        .app()
}

/// The rows of the viewer's box on a drawn screen, without the borders and gutter.
fn viewer_rows(drawn: &str, gutter: usize) -> Vec<String> {
    drawn
        .lines()
        .skip(3)
        .take_while(|l| !l.contains('╰'))
        .map(|l| {
            let inner: String = l.trim_matches('"').chars().skip(1 + gutter).collect();
            inner.trim_end_matches(['│', ' ']).to_string()
        })
        .collect()
}

#[test]
fn wrap_never_splits_a_word() {
    let mut app = reviewing(PROSE, None);
    let drawn = screen(&mut app, 60, 16);
    insta::assert_snapshot!("wrap_at_words", drawn);
    let rows = viewer_rows(&drawn, 2);
    let words: Vec<&str> = rows.iter().flat_map(|r| r.split_whitespace()).collect();
    assert_eq!(
        words,
        PROSE.split_whitespace().collect::<Vec<_>>(),
        "{drawn}"
    );
}

#[test]
fn a_click_on_a_continuation_row_selects_its_line() {
    let text = format!("{PROSE}\n{PROSE}\nthird line\n{PROSE}");
    let mut app = reviewing(&text, None);
    let drawn = screen(&mut app, 60, 30);
    let rows = viewer_rows(&drawn, 2);
    // The last row of the second (wrapped) line, then the third line.
    let third = rows.iter().position(|r| r.contains("third line")).unwrap();
    for (row, line) in [(third - 1, 1), (third, 2), (third + 1, 3)] {
        let click = ratatui::crossterm::event::MouseEvent {
            kind: ratatui::crossterm::event::MouseEventKind::Down(
                ratatui::crossterm::event::MouseButton::Left,
            ),
            column: 10,
            row: app.areas.viewer.y + row as u16,
            modifiers: KeyModifiers::NONE,
        };
        app.on_terminal_event(ratatui::crossterm::event::Event::Mouse(click));
        assert_eq!(app.views[0].cursor, line, "row {row}:\n{drawn}");
    }
}

#[test]
fn with_wrap_off_the_view_scrolls_sideways() {
    let mut app = reviewing(PROSE, None);
    app.on_key(key(KeyCode::Char('w')));
    app.on_key(key(KeyCode::Right));
    app.on_key(key(KeyCode::Right));
    let drawn = screen(&mut app, 60, 16);
    let rows = viewer_rows(&drawn, 2);
    assert!(rows[0].starts_with(&PROSE[16..40]), "{drawn}");
    assert!(drawn.contains("col 17"), "{drawn}");
    app.on_key(key(KeyCode::Left));
    app.on_key(key(KeyCode::Left));
    let drawn = screen(&mut app, 60, 16);
    assert!(
        viewer_rows(&drawn, 2)[0].starts_with("The Store"),
        "{drawn}"
    );
}

#[test]
fn the_diff_view_wraps_at_words() {
    let old = PROSE.replace("page count", "length");
    let mut app = reviewing(PROSE, Some(&old));
    app.on_key(key(KeyCode::Char('d')));
    let drawn = screen(&mut app, 60, 16);
    insta::assert_snapshot!("diff_wraps", drawn);
    assert!(drawn.contains("records a session."), "{drawn}");
}

#[test]
fn the_gutter_keeps_its_width_while_a_stream_grows() {
    let mut app = App::new(info(), Theme::dark());
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 1,
    })));
    stream(&mut app, 1, "ARCHITECTURE:\n");
    let column_of_text = |app: &mut App| {
        let drawn = screen(app, 60, 40);
        let row = drawn
            .lines()
            .find(|l| l.contains("line 1 "))
            .unwrap()
            .to_string();
        row.find("line 1 ").unwrap()
    };
    let mut columns = Vec::new();
    for n in 1..=12 {
        stream(&mut app, 1, &format!("line {n} of the design\n"));
        columns.push(column_of_text(&mut app));
    }
    assert!(columns.windows(2).all(|w| w[0] == w[1]), "{columns:?}");
}

const DESIGN_MD: &str = "# Architecture\n\nThe **Store** owns persistence; see `store.py`.\n\n\
## Decisions\n\n1. ADR-001: one writer at a time.\n2. ADR-002: _WAL_ mode.\n\n\
| id | requirement |\n|---|---|\n| FR-01 | register a **book** |\n| NFR-01 | answer in 200 ms |\n\n\
```python\ndef add(self, name: str) -> int:\n    return 1\n```\n";

#[test]
fn markdown_is_drawn_as_a_document_and_m_shows_the_source() {
    volk::tui::highlight::warm_now();
    let mut app = reviewing(DESIGN_MD, None);
    let mut terminal = Terminal::new(TestBackend::new(100, 34)).unwrap();
    view::render(&mut terminal, &mut app).unwrap();
    let drawn = terminal.backend().to_string();
    insta::assert_snapshot!("markdown_rendered", drawn);
    for delimiter in [
        "**",
        "# Architecture",
        "## Decisions",
        "`store.py`",
        "_WAL_",
    ] {
        assert!(!drawn.contains(delimiter), "{delimiter:?} drawn:\n{drawn}");
    }
    // Tables are grids: no `| --- |` row.
    assert!(drawn.contains("│ FR-01  │ register a book  │"), "{drawn}");
    assert!(drawn.contains("│ NFR-01 │ answer in 200 ms │"), "{drawn}");
    assert!(drawn.contains("├────────┼"), "{drawn}");
    assert!(
        !drawn.contains("| --- |") && !drawn.contains("|---"),
        "{drawn}"
    );
    assert!(
        drawn.contains("def add(self, name: str) -> int:"),
        "{drawn}"
    );

    // Styles: headings are bold, each level its own look; list text is body text.
    let buffer = terminal.backend().buffer().clone();
    let find = |needle: &str| {
        let rows: Vec<String> = drawn
            .lines()
            .map(|l| l.trim_matches('"').to_string())
            .collect();
        // Inside the viewer, below the header and the tab bar.
        let y = 3 + rows[3..].iter().position(|r| r.contains(needle)).unwrap();
        let x = rows[y][..rows[y].find(needle).unwrap()].chars().count();
        buffer[(x as u16, y as u16)].clone()
    };
    let heading = find("Architecture");
    let second = find("Decisions");
    let body = find("owns persistence");
    let list_text = find("one writer");
    assert!(heading.modifier.contains(ratatui::style::Modifier::BOLD));
    assert!(
        heading
            .modifier
            .contains(ratatui::style::Modifier::UNDERLINED)
    );
    assert!(second.modifier.contains(ratatui::style::Modifier::BOLD));
    assert_ne!(
        (heading.fg, heading.modifier),
        (second.fg, second.modifier),
        "heading levels look alike"
    );
    assert_eq!(list_text.fg, body.fg, "list text is body text, not red");

    app.on_key(key(KeyCode::Char('m')));
    let source = screen(&mut app, 100, 34);
    assert!(source.contains("The **Store** owns"), "{source}");
    assert!(source.contains("## Decisions"), "{source}");
}

#[test]
fn ctrl_j_and_pasted_line_breaks_stay_in_the_review_pane_and_the_question_sent() {
    let mut app = reviewing(PROSE, None);
    app.on_key(key(KeyCode::Char('a')));
    for c in "First line".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(ctrl('j'));
    app.on_terminal_event(ratatui::crossterm::event::Event::Paste(
        "second line\rthird line\r\nfourth".into(),
    ));
    app.on_key(key(KeyCode::Enter));
    let drawn = screen(&mut app, 100, 30);
    let rows: Vec<&str> = drawn.lines().collect();
    let first = rows
        .iter()
        .position(|r| r.contains("1. First line"))
        .unwrap();
    for (offset, text) in [
        (1, "   second line"),
        (2, "   third line"),
        (3, "   fourth"),
    ] {
        assert!(rows[first + offset].contains(text), "{drawn}");
    }
    app.on_key(ctrl('s'));
    let sent = app.take_intents().into_iter().find_map(|i| match i {
        volk::tui::event::Intent::Act(volk::tui::event::Action::Review(feedback)) => {
            Some(feedback.questions)
        }
        _ => None,
    });
    assert_eq!(
        sent.unwrap(),
        [volk::brief::Question::new(
            "First line\nsecond line\nthird line\nfourth"
        )]
    );
}

#[test]
fn the_journal_tab_is_a_timeline() {
    let mut app = reviewing(PROSE, None);
    for entry in [
        serde_json::json!({"time": "2026-12-01T09:12:01.100Z", "trace_id": "t", "thread_id": "x", "cycle": 1,
            "event": "reasoner_call", "detail": {"call": 1, "purpose": "design", "prompt_bytes": 12_700}}),
        serde_json::json!({"time": "2026-12-01T09:12:44.900Z", "trace_id": "t", "thread_id": "x", "cycle": 1,
            "event": "reasoner_metrics", "detail": {"reasoner": "openai", "model": "local", "metrics": {
                "elapsed_ms": 43_800, "ttft_ms": 800, "completion_tokens": 2_400, "estimated": false,
                "usage": {"prompt_tokens": 3_100, "completion_tokens": 2_400}}}}),
        serde_json::json!({"time": "2026-12-01T09:12:45.000Z", "trace_id": "t", "thread_id": "x", "cycle": 1,
            "event": "cycle_written", "detail": {"changed": ["architecture", "api_spec"], "missing": []}}),
    ] {
        app.on_app_event(AppEvent::Loop(LoopEvent::Journal(Box::new(
            serde_json::from_value(entry).unwrap(),
        ))));
    }
    app.on_key(key(KeyCode::Char('6')));
    let drawn = screen(&mut app, 160, 20);
    insta::assert_snapshot!("journal_timeline", drawn);
    assert!(!drawn.contains("{\""), "no raw JSON:\n{drawn}");
    for text in [
        "time",
        "09:12:01",
        "design call 1, prompt 12.4 KB",
        "43s",
        "3.1k→2.4k",
        "changed: architecture, api_spec",
    ] {
        assert!(drawn.contains(text), "{text:?} in\n{drawn}");
    }
}

#[test]
fn w_and_l_say_what_they_toggled() {
    let mut app = reviewing(PROSE, None);
    app.on_key(key(KeyCode::Char('w')));
    assert!(screen(&mut app, 100, 20).contains("w: wrap off"));
    app.on_key(key(KeyCode::Char('w')));
    assert!(screen(&mut app, 100, 20).contains("w: wrap on"));
    app.on_key(key(KeyCode::Char('l')));
    assert!(screen(&mut app, 100, 20).contains("l: line numbers hidden"));
}

#[test]
fn search_is_incremental_counts_matches_and_says_when_it_wraps() {
    let text = "alpha\nbeta one\ngamma\nbeta two\ndelta\nbeta three";
    let mut app = reviewing(text, None);
    app.on_key(key(KeyCode::Char('/')));
    typed(&mut app, "be");
    assert_eq!(app.views[0].cursor, 1, "moves as it is typed");
    typed(&mut app, "ta t");
    assert_eq!(app.views[0].cursor, 3);
    let drawn = screen(&mut app, 100, 20);
    assert!(drawn.contains("1/2 · Enter keeps"), "{drawn}");
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.views[0].cursor, 0, "Esc goes back");

    app.on_key(key(KeyCode::Char('/')));
    typed(&mut app, "beta");
    app.on_key(key(KeyCode::Enter));
    assert_eq!(app.views[0].cursor, 1);
    app.on_key(key(KeyCode::Char('n')));
    app.on_key(key(KeyCode::Char('n')));
    assert_eq!(app.views[0].cursor, 5);
    assert!(screen(&mut app, 100, 20).contains("/beta 3/3"));
    app.on_key(key(KeyCode::Char('n')));
    assert_eq!(app.views[0].cursor, 1);
    let drawn = screen(&mut app, 100, 20);
    assert!(drawn.contains("/beta 1/3 · wrapped to the top"), "{drawn}");
}

#[test]
fn a_deleted_question_comes_back_with_u() {
    let mut app = reviewing(PROSE, None);
    for q in ["First?", "Second?"] {
        app.on_key(key(KeyCode::Char('a')));
        typed(&mut app, q);
        app.on_key(key(KeyCode::Enter));
    }
    app.on_key(key(KeyCode::Char('f')));
    app.on_key(key(KeyCode::Char('x')));
    assert_eq!(app.draft.questions.len(), 1);
    assert!(screen(&mut app, 100, 24).contains("u undoes"));
    app.on_key(key(KeyCode::Char('u')));
    let texts: Vec<&str> = app
        .draft
        .questions
        .iter()
        .map(|q| q.text.as_str())
        .collect();
    assert_eq!(texts, ["First?", "Second?"]);
}

#[test]
fn the_composer_says_what_enter_does_and_ctrl_l_clears_it() {
    let mut app = reviewing(PROSE, None);
    app.on_key(key(KeyCode::Char('a')));
    typed(&mut app, "half a thought");
    let drawn = screen(&mut app, 120, 30);
    assert!(drawn.contains("Enter save · Ctrl-S send all"), "{drawn}");
    assert!(!drawn.contains("Enter add"), "{drawn}");
    app.on_key(ctrl('l'));
    assert_eq!(app.draft.composer, "");
    app.on_key(ctrl('y'));
    assert_eq!(
        app.draft.composer, "half a thought",
        "Ctrl-Y brings it back"
    );
}

#[test]
fn ctrl_c_twice_quits() {
    let mut app = reviewing(PROSE, None);
    app.on_key(key(KeyCode::Char('a')));
    typed(&mut app, "unsent");
    app.on_key(key(KeyCode::Enter));
    app.on_key(ctrl('c'));
    assert!(app.take_intents().is_empty(), "the first asks");
    assert!(screen(&mut app, 100, 24).contains("Quit?"));
    app.on_key(ctrl('c'));
    assert!(
        app.take_intents()
            .iter()
            .any(|i| matches!(i, volk::tui::event::Intent::Quit))
    );
}

#[test]
fn space_and_ctrl_d_stop_at_the_end_of_the_document() {
    let text: Vec<String> = (1..=60).map(|i| format!("line {i}")).collect();
    let mut app = reviewing(&text.join("\n"), None);
    for step in [key(KeyCode::Char(' ')), ctrl('d')] {
        screen(&mut app, 100, 24);
        for _ in 0..10 {
            app.on_key(step);
            screen(&mut app, 100, 24);
        }
        let drawn = screen(&mut app, 100, 24);
        let rows: Vec<&str> = drawn.lines().collect();
        let bottom = rows.iter().position(|r| r.contains('╰')).unwrap();
        assert!(rows[bottom - 1].contains("line 60"), "{drawn}");
        assert!(rows[3].contains("line "), "no empty screen:\n{drawn}");
        app.on_key(key(KeyCode::Char('g')));
    }
}

#[test]
fn the_header_puts_state_and_cycle_first_and_shortens_the_thread() {
    let mut app = reviewing(PROSE, None);
    app.info.thread_id = "thread-5f0c2a9e-8d1b-4c7a-9e3f-2b6d8a1c4e70".into();
    app.on_app_event(AppEvent::Loop(LoopEvent::Notice {
        level: volk::volk::protocol::Level::Info,
        text: "cycle 1 written".into(),
    }));
    for width in [60u16, 100] {
        let drawn = screen(&mut app, width, 20);
        let header = drawn.lines().next().unwrap();
        assert!(
            header.contains("your review · cycle 1/99"),
            "{width}: {header}"
        );
        assert!(!drawn.contains("9e3f-2b6d8a1c4e70"), "{drawn}");
        assert!(!drawn.contains("trace 9a8b"), "{drawn}");
    }
    let wide = screen(&mut app, 140, 20);
    assert!(wide.contains("thread-5f0c2a9e…"), "{wide}");
    assert!(wide.contains("cycle 1 written"), "{wide}");
}

#[test]
fn the_hint_bar_lists_the_keys_of_the_focus_and_fits_80_columns() {
    let mut app = reviewing(PROSE, None);
    let bottom = |app: &mut App| {
        let drawn = screen(app, 80, 24);
        drawn.lines().last().unwrap().trim_matches('"').to_string()
    };
    let reading = bottom(&mut app);
    assert!(
        reading.contains("c ask about line · a ask · Ctrl-S send"),
        "{reading}"
    );
    assert!(reading.ends_with("? help · q quit "), "{reading}");
    assert_eq!(reading.chars().count(), 80);
    // The review pane hints only what acts there: edit and delete need a question.
    app.on_key(key(KeyCode::Char('f')));
    let empty = bottom(&mut app);
    assert!(!empty.contains("e edit"), "{empty}");
    app.on_key(key(KeyCode::Char('a')));
    typed(&mut app, "Why?");
    app.on_key(key(KeyCode::Enter));
    app.notice.clear();
    let review = bottom(&mut app);
    assert!(review.contains("e edit · x delete"), "{review}");
    app.on_key(key(KeyCode::Char('a')));
    let composer = bottom(&mut app);
    assert!(
        composer.contains("Enter save · Ctrl-J newline"),
        "{composer}"
    );
}

/// Issue 26 item 10: each tab keeps its own view while a design streams. A tab the
/// person scrolled in keeps its place when the stream moves on (the tab bar stops
/// following it), and when they pick another tab and come back.
#[test]
fn a_tab_scrolled_or_picked_during_a_stream_keeps_its_own_position() {
    let mut app = App::new(info(), Theme::dark());
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 1,
    })));
    let parts: String = (1..=80).map(|i| format!("- part {i}\n")).collect();
    stream(&mut app, 1, &format!("ARCHITECTURE:\n{parts}"));
    screen(&mut app, 100, 30);
    assert_eq!(app.tab.index(), 0, "the tab bar follows the stream");
    // Scrolled up in the architecture while it streams.
    for _ in 0..20 {
        app.on_key(key(KeyCode::Char('k')));
    }
    let place = app.views[0].cursor;
    assert!(place + 20 <= 80, "{place}");
    screen(&mut app, 100, 30);
    // The stream moves on to the requirements: the view stays where it was put.
    stream(
        &mut app,
        1,
        "- part 81\nREQUIREMENTS:\n1. FR-01: Add tasks.\n2. FR-02: List",
    );
    let drawn = screen(&mut app, 100, 30);
    assert_eq!(app.tab.index(), 0, "yanked to the growing tab:\n{drawn}");
    assert_eq!(app.views[0].cursor, place, "{drawn}");
    assert!(drawn.contains(&format!("- part {}", place + 1)), "{drawn}");
    // Another tab picked, then this one again: its own place, not the stream's end.
    app.on_key(key(KeyCode::Char('2')));
    screen(&mut app, 100, 30);
    stream(
        &mut app,
        1,
        " tasks.\n3. FR-03: Done.\n\nFILE_TREE:\nsrc/\n",
    );
    screen(&mut app, 100, 30);
    assert_eq!(app.tab.index(), 1, "a picked tab stays picked");
    app.on_key(key(KeyCode::Char('1')));
    let back = screen(&mut app, 100, 30);
    assert_eq!(app.views[0].cursor, place, "{back}");
    assert!(back.contains(&format!("- part {}", place + 1)), "{back}");
    // G follows the end again.
    app.on_key(key(KeyCode::Char('G')));
    let end = screen(&mut app, 100, 30);
    assert!(end.contains("- part 81"), "{end}");
}

/// A design whose architecture holds a table with a long cell and one with an
/// identifier too long for 80 columns, served by a scripted provider.
const TABLES: &str = "ARCHITECTURE:\n# A task CLI\n\n## Components\n\n\
| id | component | what it does |\n| --- | --- | --- |\n\
| FR-01 | `Store` | keeps every task of the list in one SQLite file and writes each change |\n\
| FR-02 | **Cli** | parses the arguments and prints one line per task |\n\n\
| name | note |\n| --- | --- |\n\
| store | Store_keeps_every_task_of_the_list_in_one_SQLite_file_and_writes_each_change_now |\n\n\
The store is the only writer.\n\n\
REQUIREMENTS:\nFUNCTIONAL:\n1. FR-01: Add tasks.\n2. FR-02: List tasks.\n\n\
FILE_TREE:\nsrc/\n  cli.py\n  store.py\n\n\
API_SPEC:\nadd(name: str) -> int\n\n\
CLASS_DIAGRAM:\nclassDiagram\n  Cli --> Store\n";

/// Issue 26 item 2, on the real runtime: at 80 columns the long cell wraps inside its
/// column and the table that cannot fit is its source; at 160 every row is one line.
#[test]
fn tables_wrap_their_cells_inside_their_columns_at_80_and_160_columns() {
    let server = support::provider::Provider::repeating(TABLES);
    let mut live = support::live::Live::design(&server);
    live.until("cycle 1 under review, committed", |app| {
        *app.model.phase() == Phase::AwaitingReview { cycle: 1 }
            && app.model.last_commit().is_some()
            && !app.model.committing()
    });
    live.app.notice.clear();
    let narrow = live.screen(80, 24);
    assert!(
        narrow.contains("│ FR-01 │ Store     │ keeps every task of the list in one"),
        "{narrow}"
    );
    assert!(
        narrow.contains("│       │           │ and writes each change"),
        "{narrow}"
    );
    assert!(!narrow.contains("| --- | --- | --- |"), "{narrow}");
    insta::assert_snapshot!("tables_80x24", narrow);
    // Further down, the table whose identifier cannot fit is its source.
    live.key(key(KeyCode::Char('G')));
    let end = live.screen(80, 24);
    assert!(
        end.contains("| store |")
            && end.contains("Store_keeps_every")
            && !end.contains("│ store │"),
        "{end}"
    );
    live.key(key(KeyCode::Char('g')));
    let wide = live.screen(160, 48);
    assert!(
        wide.contains(
            "│ FR-01 │ Store     │ keeps every task of the list in one SQLite file and writes each change │"
        ),
        "{wide}"
    );
    assert!(wide.contains("│ store │ Store_keeps"), "{wide}");
    insta::assert_snapshot!("tables_160x48", wide);
}
