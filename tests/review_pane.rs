//! The review pane scrolls to its selection (keys, clicks and the wheel over it), and
//! a new cycle keeps the last committed text on screen until new text replaces it:
//! screens drawn on ratatui's TestBackend and compared with insta snapshots.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use support::screen::{info, screen};

use ratatui::crossterm::event::{
    Event, KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use volk::brief::{Brief, Purpose};
use volk::design::parser::parse;
use volk::design::{Artifacts, Section};
use volk::reasoner::StreamEvent;
use volk::reasoner::offline::draft;
use volk::tui::app::{App, Focus};
use volk::tui::event::{AppEvent, LoopEvent, Phase};
use volk::tui::test_keys::{ch, key, typed};
use volk::tui::theme::Theme;

fn brief() -> Brief {
    Brief {
        task_summary: "A command-line reading log that tracks books in SQLite".into(),
        project_name: "bookshelf".into(),
        requirements: "1. Register a book with title and author\n2. Record a reading session\n3. Show progress per book".into(),
        nfrs: vec!["Every command answers in under 200 ms".into()],
        cycle: 1,
        ..Brief::default()
    }
}

fn delta(app: &mut App, call: u64, text: &str) {
    app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
        call,
        purpose: Purpose::Design,
        event: StreamEvent::Text { text: text.into() },
    }));
}

fn phase(app: &mut App, phase: Phase) {
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(phase)));
}

/// Streams and commits one design cycle.
fn commit_cycle(app: &mut App, cycle: u32, text: &str, changed: Vec<Section>) -> Artifacts {
    phase(app, Phase::Designing { cycle });
    for piece in text.split_inclusive('\n') {
        delta(app, u64::from(cycle), piece);
    }
    let artifacts = parse(text);
    app.on_app_event(AppEvent::Loop(LoopEvent::CycleReady {
        cycle,
        artifacts: artifacts.clone(),
        changed,
    }));
    app.on_app_event(AppEvent::Loop(LoopEvent::Committed {
        cycle,
        short_id: format!("c0ffee{cycle}"),
    }));
    phase(app, Phase::AwaitingReview { cycle });
    artifacts
}

/// Cycle 1 under review, with twelve long questions (they wrap in the pane, as real
/// ones do) and the architect's open questions below them.
fn twelve_questions() -> App {
    let mut app = App::new(info(), Theme::dark());
    commit_cycle(
        &mut app,
        1,
        &draft(Purpose::Design, &brief()),
        Section::ALL.to_vec(),
    );
    for i in 1..=12 {
        app.on_key(ch('a'));
        typed(
            &mut app,
            &format!(
                "Question number {i}: how does the store keep a reading session consistent \
                 when two commands write at once, and what does the user see then?"
            ),
        );
        app.on_key(key(KeyCode::Enter));
    }
    app.on_key(ch('f'));
    app
}

/// The text of the review pane's rows (TestBackend quotes each screen line).
fn review_rows(shot: &str, app: &App) -> Vec<String> {
    let r = app.areas.review;
    shot.lines()
        .skip(r.y as usize)
        .take(r.height as usize)
        .map(|l| {
            l.chars()
                .skip(r.x as usize + 1)
                .take(r.width as usize)
                .collect()
        })
        .collect()
}

#[test]
fn the_selection_is_visible_after_13_j() {
    let mut app = twelve_questions();
    assert!(
        app.model.open_questions().len() >= 2,
        "the drafter asks open questions"
    );
    screen(&mut app, 100, 30);
    for _ in 0..13 {
        app.on_key(ch('j'));
        screen(&mut app, 100, 30);
    }
    assert_eq!(app.review_pane.selected, 13);
    let second_open = format!("Q2. {}", app.model.open_questions()[1]);
    let shot = screen(&mut app, 100, 30);
    let rows = review_rows(&shot, &app);
    assert!(
        rows.iter()
            .any(|r| second_open.starts_with(r.trim_end()) && r.trim_end().starts_with("Q2.")),
        "the selected open question is on screen:\n{shot}"
    );
    insta::assert_snapshot!("selection_after_13_j", shot);

    // `e` acts on what is seen: the answer composer names that question.
    app.on_key(ch('e'));
    let shot = screen(&mut app, 100, 30);
    assert!(
        shot.contains(&app.model.open_questions()[1][..20]),
        "{shot}"
    );
    app.on_key(key(KeyCode::Esc));

    // Back up to a question: `x` deletes the one on screen.
    for _ in 0..4 {
        app.on_key(ch('k'));
        screen(&mut app, 100, 30);
    }
    let shot = screen(&mut app, 100, 30);
    assert!(
        review_rows(&shot, &app)
            .iter()
            .any(|r| r.starts_with("10. Question number 10:")),
        "{shot}"
    );
    app.on_key(ch('x'));
    assert_eq!(app.draft.questions.len(), 11);
    assert!(
        app.draft
            .questions
            .iter()
            .all(|q| !q.text.starts_with("Question number 10:"))
    );
}

#[test]
fn page_keys_and_top_bottom_move_the_selection_in_the_review_pane() {
    let mut app = twelve_questions();
    screen(&mut app, 100, 30);
    app.on_key(key(KeyCode::PageDown));
    let after_one_page = app.review_pane.selected;
    assert!(
        after_one_page >= 2,
        "a page is several items: {after_one_page}"
    );
    screen(&mut app, 100, 30);
    app.on_key(key(KeyCode::PageDown));
    assert!(app.review_pane.selected > after_one_page);
    app.on_key(ch('G'));
    assert_eq!(
        app.review_pane.selected,
        app.draft.questions.len() + app.model.open_questions().len() - 1
    );
    let shot = screen(&mut app, 100, 30);
    let last = format!("Q{}.", app.model.open_questions().len());
    assert!(
        review_rows(&shot, &app)
            .iter()
            .any(|r| r.starts_with(&last)),
        "{shot}"
    );
    app.on_key(key(KeyCode::PageUp));
    assert!(
        app.review_pane.selected < app.draft.questions.len() + app.model.open_questions().len() - 1
    );
    app.on_key(ch('g'));
    assert_eq!(app.review_pane.selected, 0);
    let shot = screen(&mut app, 100, 30);
    assert!(
        review_rows(&shot, &app)
            .iter()
            .any(|r| r.starts_with("1. Question number 1:"))
    );
}

fn mouse(app: &mut App, kind: MouseEventKind, column: u16, row: u16) {
    app.on_terminal_event(Event::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }));
}

#[test]
fn a_click_selects_the_item_under_the_pointer() {
    let mut app = twelve_questions();
    app.focus = Focus::Viewer;
    let shot = screen(&mut app, 100, 30);
    let r = app.areas.review;
    let rows = review_rows(&shot, &app);
    // The second row of question 2 (it wraps) belongs to question 2.
    let at = rows
        .iter()
        .position(|l| l.starts_with("2. Question number 2:"))
        .unwrap();
    mouse(
        &mut app,
        MouseEventKind::Down(MouseButton::Left),
        r.x + 5,
        r.y + at as u16 + 1,
    );
    assert_eq!(app.focus, Focus::Review);
    assert_eq!(app.review_pane.selected, 1);
    app.on_key(ch('e'));
    let shot = screen(&mut app, 100, 30);
    assert!(shot.contains("Question number 2:"), "{shot}");
}

#[test]
fn the_wheel_scrolls_the_pane_under_the_pointer() {
    let mut app = twelve_questions();
    screen(&mut app, 100, 30);
    let r = app.areas.review;
    let viewer_top = app.views[0].top;
    mouse(&mut app, MouseEventKind::ScrollDown, r.x + 3, r.y + 1);
    mouse(&mut app, MouseEventKind::ScrollDown, r.x + 3, r.y + 1);
    assert_eq!(app.views[0].top, viewer_top, "the viewer did not move");
    assert_eq!(app.review_pane.scroll.top, 6);
    let shot = screen(&mut app, 100, 30);
    assert_eq!(
        app.review_pane.scroll.top, 6,
        "the frame keeps the wheel's scroll"
    );
    let rows = review_rows(&shot, &app);
    assert!(
        !rows.iter().any(|l| l.starts_with("1. Question number 1:")),
        "{shot}"
    );
    // The selection moved with the text, so `e` edits a question on screen.
    let selected = app.review_pane.selected + 1;
    assert!(
        rows.iter()
            .any(|l| l.starts_with(&format!("{selected}. Question"))),
        "{shot}"
    );
    mouse(&mut app, MouseEventKind::ScrollUp, r.x + 3, r.y + 1);
    assert_eq!(app.review_pane.scroll.top, 3);
    // Over the viewer the wheel scrolls the viewer.
    let v = app.areas.viewer;
    mouse(&mut app, MouseEventKind::ScrollDown, v.x + 3, v.y + 1);
    assert_eq!(app.views[0].top, viewer_top + 3);
    assert_eq!(app.review_pane.scroll.top, 3);
}

/// The viewer's rows (inside its border) of a screen.
fn viewer_text(shot: &str, app: &App) -> String {
    let v = app.areas.viewer;
    shot.lines()
        .skip(v.y as usize - 1)
        .take(v.height as usize + 2)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Cycle 1 committed from the drafter, then cycle 2 from a changed scope, so the tabs
/// carry change marks.
fn two_cycles() -> (App, Artifacts) {
    let mut app = App::new(info(), Theme::dark());
    commit_cycle(
        &mut app,
        1,
        &draft(Purpose::Design, &brief()),
        Section::ALL.to_vec(),
    );
    let mut second = brief();
    second.task_summary = "A command-line reading log that tracks books and shelves".into();
    let text = draft(Purpose::Design, &second);
    let artifacts = commit_cycle(
        &mut app,
        2,
        &text,
        vec![Section::Architecture, Section::ApiSpec],
    );
    (app, artifacts)
}

#[test]
fn the_previous_cycles_text_is_visible_while_cycle_2_streams() {
    let mut app = App::new(info(), Theme::dark());
    let first = commit_cycle(
        &mut app,
        1,
        &draft(Purpose::Design, &brief()),
        Section::ALL.to_vec(),
    );
    phase(&mut app, Phase::Designing { cycle: 2 });
    // Sent, nothing back yet: the committed text stays, under a banner.
    let shot = screen(&mut app, 100, 30);
    assert!(
        shot.contains("cycle 2 on its way · showing cycle 1"),
        "{shot}"
    );
    assert!(
        shot.contains("bookshelf — architecture (cycle 1)"),
        "{shot}"
    );

    // The architect writes the architecture: that tab shows the new text, every other
    // tab the committed one until the stream reaches it.
    delta(
        &mut app,
        2,
        "ARCHITECTURE:\n# bookshelf, second thoughts\n\nA new first line.\nstill writ",
    );
    let shot = screen(&mut app, 100, 30);
    let viewer = viewer_text(&shot, &app);
    assert!(viewer.contains("bookshelf, second thoughts"), "{viewer}");
    assert!(!viewer.contains("showing cycle 1"), "{viewer}");
    assert!(!viewer.contains("(cycle 1)"), "{viewer}");

    app.on_key(ch('4'));
    let shot = screen(&mut app, 100, 30);
    let viewer = viewer_text(&shot, &app);
    assert!(
        viewer.contains("API spec · cycle 2 streaming · showing cycle 1"),
        "{viewer}"
    );
    let api_first = first.api_spec.lines().next().unwrap();
    assert!(viewer.contains(api_first.trim()), "{viewer}");
    assert!(!shot.contains("waiting for the architect"), "{shot}");
    insta::assert_snapshot!("previous_cycle_while_streaming", shot);

    // The stream reaches the API spec: the committed text is gone.
    delta(&mut app, 2, "ing\nAPI_SPEC:\nnew_call() -> None\n");
    let shot = screen(&mut app, 100, 30);
    let viewer = viewer_text(&shot, &app);
    assert!(viewer.contains("new_call() -> None"), "{viewer}");
    assert!(!viewer.contains("showing cycle 1"), "{viewer}");
    assert!(!viewer.contains(api_first.trim()), "{viewer}");
}

#[test]
fn an_update_leaves_the_sections_it_has_not_reached_under_the_banner() {
    let (mut app, current) = two_cycles();
    phase(&mut app, Phase::Designing { cycle: 3 });
    let mut b = brief();
    b.task_summary = "A reading log with shelves and loans".into();
    b.current = Some(current.clone());
    let update = draft(Purpose::Update, &b);
    let cut = update.find("\nREQUIREMENTS:").unwrap_or(update.len() / 3);
    for piece in update[..cut].split_inclusive('\n') {
        app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
            call: 3,
            purpose: Purpose::Update,
            event: StreamEvent::Text { text: piece.into() },
        }));
    }
    app.on_key(ch('5'));
    let shot = screen(&mut app, 100, 30);
    let viewer = viewer_text(&shot, &app);
    assert!(
        viewer.contains("Class diagram · cycle 3 streaming · showing cycle 2"),
        "{viewer}"
    );
    let class_first = current.class_diagram.lines().next().unwrap();
    assert!(viewer.contains(class_first.trim()), "{viewer}");
}

fn stream_half_of_cycle_3(app: &mut App) {
    phase(app, Phase::Designing { cycle: 3 });
    delta(
        app,
        3,
        "ARCHITECTURE:\n# half of cycle three\n\nREQUIREMENTS:\nFR-01 half a requirement\nFR-02 cut o",
    );
    screen(app, 100, 30);
}

fn committed_text_is_back(app: &mut App, committed: &Artifacts) {
    let shot = screen(app, 100, 30);
    assert!(!shot.contains("half of cycle three"), "{shot}");
    assert!(!shot.contains("showing cycle"), "{shot}");
    assert!(shot.contains("• Arch"), "the change marks are back: {shot}");
    assert!(shot.contains("• API"), "{shot}");
    app.on_key(ch('1'));
    let shot = screen(app, 100, 30);
    let arch_first = committed.architecture.lines().next().unwrap();
    assert!(
        shot.contains(arch_first.trim_start_matches('#').trim()),
        "{shot}"
    );
    assert_eq!(app.docs[0].text().trim_end(), committed.architecture);
    app.on_key(ch('4'));
    let shot = screen(app, 100, 30);
    assert!(
        !shot.contains("this cycle has no api spec section"),
        "{shot}"
    );
    let api_first = committed.api_spec.lines().next().unwrap();
    assert!(shot.contains(api_first.trim()), "{shot}");
    app.on_key(ch('2'));
    let shot = screen(app, 100, 30);
    assert!(!shot.contains("FR-01 half a requirement"), "{shot}");
    assert_eq!(app.docs[1].text().trim_end(), committed.requirements);
}

#[test]
fn after_a_cancel_the_committed_text_is_back_with_its_marks() {
    let (mut app, committed) = two_cycles();
    stream_half_of_cycle_3(&mut app);
    phase(
        &mut app,
        Phase::Cancelled {
            resume: Box::new(Phase::Designing { cycle: 3 }),
        },
    );
    committed_text_is_back(&mut app, &committed);
    insta::assert_snapshot!("committed_after_cancel", screen(&mut app, 100, 30));
}

#[test]
fn after_a_failed_cycle_the_committed_text_is_back_with_its_marks() {
    let (mut app, committed) = two_cycles();
    stream_half_of_cycle_3(&mut app);
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Failed {
        resume: Box::new(Phase::Designing { cycle: 2 }),
        message: "HTTP 503".into(),
        retryable: true,
    })));
    phase(
        &mut app,
        Phase::Failed {
            resume: Box::new(Phase::Designing { cycle: 3 }),
            message: "HTTP 503".into(),
            retryable: true,
        },
    );
    app.on_key(key(KeyCode::Esc));
    committed_text_is_back(&mut app, &committed);

    // `r` runs the cycle again: the committed text waits under the banner once more.
    app.on_key(ch('r'));
    phase(&mut app, Phase::Designing { cycle: 3 });
    let shot = screen(&mut app, 100, 30);
    assert!(
        shot.contains("cycle 3 on its way · showing cycle 2"),
        "{shot}"
    );
}
