//! The review threads in the workbench: the review pane with threads by cycle and
//! their badges (insta snapshot), the keys that close, follow up, settle and edit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use ratatui::crossterm::event::KeyCode;
use volk::cxp::ReviewMarks;
use volk::design::changes::parse_changes;
use volk::design::{Artifacts, Section};
use volk::tui::app::{App, SessionInfo};
use volk::tui::event::{Action, AppEvent, Intent, LoopEvent, Phase};
use volk::tui::scene::Scene;
use volk::tui::test_keys::key;
use volk::volk::review::ReviewState;
use volk::volk::threads::{Change, open, reconcile};

fn info() -> SessionInfo {
    SessionInfo {
        project_name: "tasks".into(),
        project_dir: PathBuf::from("/work/space/tasks"),
        thread_id: "thread-16".into(),
        max_cycles: 99,
        reasoner: "openai".into(),
        model: "scripted".into(),
    }
}

fn design() -> Artifacts {
    Artifacts {
        architecture:
            "A CLI over a SQLite store.\n\n## Open questions\n1. Time zones? Assumed local time."
                .into(),
        requirements: "FUNCTIONAL:\n1. FR-01: Add tasks.\n2. FR-02: List tasks.".into(),
        file_tree: "src/\n  cli.py".into(),
        api_spec: "add(name: str) -> int\ncreate_table() -> None".into(),
        class_diagram: "classDiagram\n  Cli --> Store".into(),
    }
}

/// Cycle 2 under review: four threads asked after cycle 1, one after cycle 2 is not
/// there yet; requirements settled.
fn review_state() -> ReviewState {
    let mut state = ReviewState::default();
    let questions: Vec<volk::brief::Question> = [
        "What is the schema?",
        "[api_spec:1] Async?",
        "Delete or flag?",
        "Time zones?",
    ]
    .iter()
    .map(|q| volk::brief::Question::new(*q))
    .collect();
    open(&mut state.threads, 1, &questions);
    let list = parse_changes(
        "- Q1.1 api_spec: added create_table\n- Q1.3 none: completed tasks keep a flag\n",
    );
    reconcile(&mut state.threads, Some(&list), &[Section::ApiSpec]);
    state.threads[3].status = volk::volk::threads::ThreadStatus::Closed;
    state.settled = vec!["requirements".into()];
    state.last.unrequested = vec![Change {
        artifact: "api_spec".into(),
        summary: "renamed the store".into(),
    }];
    state
}

fn reviewing() -> App {
    let mut first = design();
    first.api_spec = "add(name: str) -> int".into();
    Scene::new(info())
        .first_cycle(1, first)
        .cycle(2, design(), &[Section::ApiSpec])
        .committed(2, "c0ffee2")
        .awaiting_review(2)
        .review(review_state())
        .app()
}

use crate::support::screen::screen;

#[test]
fn review_pane_shows_threads_by_cycle_with_badges() {
    let mut app = reviewing();
    app.on_key(key(KeyCode::Char('f')));
    let shot = screen(&mut app, 140, 44);
    for expected in [
        "after cycle 1",
        "[addressed] Q1.1 What is the schema?",
        "api_spec: added create_table",
        "[unaddressed] Q1.2 Async?",
        "carried over to the next update",
        "[answered] Q1.3 Delete or flag?",
        "[closed] Q1.4 Time zones?",
        "[settled]",
    ] {
        assert!(shot.contains(expected), "{expected:?} missing:\n{shot}");
    }
    insta::assert_snapshot!("review_threads", shot);
}

/// Moves the review cursor onto thread `n` (0-based, in the pane's order).
fn select_thread(app: &mut App, n: usize) {
    app.on_key(key(KeyCode::Char('f')));
    // One open question of the architect comes before the threads.
    for _ in 0..(1 + n) {
        app.on_key(key(KeyCode::Down));
    }
}

#[test]
fn x_closes_the_selected_thread() {
    let mut app = reviewing();
    select_thread(&mut app, 1);
    app.take_intents();
    app.on_key(key(KeyCode::Char('x')));
    assert_eq!(
        app.take_intents(),
        vec![Intent::Act(Action::Mark(ReviewMarks {
            close: vec!["Q1.2".into()],
            ..ReviewMarks::default()
        }))]
    );
}

#[test]
fn enter_on_an_addressed_thread_opens_the_diff_at_its_change_marked_if_unrequested() {
    let mut app = reviewing();
    select_thread(&mut app, 0);
    app.on_key(key(KeyCode::Enter));
    let shot = screen(&mut app, 140, 30);
    assert!(shot.contains("API spec · changes since"), "{shot}");
    assert!(shot.contains("+ create_table() -> None"), "{shot}");
    assert!(
        shot.contains("⚠ unrequested change: renamed the store"),
        "{shot}"
    );
}

#[test]
fn o_on_a_thread_writes_a_linked_follow_up() {
    let mut app = reviewing();
    select_thread(&mut app, 0);
    app.on_key(key(KeyCode::Char('o')));
    let shot = screen(&mut app, 140, 44);
    assert!(shot.contains("Follow-up to Q1.1"), "{shot}");
    for c in "And indexes?".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(key(KeyCode::Enter));
    let asked = app.draft.questions.last().unwrap();
    assert_eq!(
        (asked.text.as_str(), asked.follows.as_deref()),
        ("And indexes?", Some("Q1.1"))
    );
    // The loop opens it as a new thread linked to Q1.1, which closes.
    let mut state = review_state();
    open(&mut state.threads, 2, &app.draft.questions);
    let new = state.threads.last().unwrap();
    assert_eq!(
        (new.id.as_str(), new.follows.as_deref()),
        ("Q2.1", Some("Q1.1"))
    );
    assert_eq!(new.question, "And indexes?");
    assert_eq!(
        state.threads[0].status,
        volk::volk::threads::ThreadStatus::Closed
    );
}

#[test]
fn s_settles_the_line_item_or_the_tab_and_e_opens_the_editor_at_the_cursor() {
    let mut app = reviewing();
    app.on_key(key(KeyCode::Char('2')));
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Down));
    app.take_intents();
    app.on_key(key(KeyCode::Char('S')));
    assert_eq!(
        app.take_intents(),
        vec![Intent::Act(Action::Mark(ReviewMarks {
            settled: vec!["FR-02".into()],
            ..ReviewMarks::default()
        }))]
    );
    app.on_key(key(KeyCode::Char('3')));
    app.on_key(key(KeyCode::Char('S')));
    assert_eq!(
        app.take_intents(),
        vec![Intent::Act(Action::Mark(ReviewMarks {
            settled: vec!["file_tree".into()],
            ..ReviewMarks::default()
        }))]
    );
    // Settled already: S unsettles.
    app.on_key(key(KeyCode::Char('2')));
    app.on_key(key(KeyCode::Char('g')));
    app.on_key(key(KeyCode::Char('S')));
    assert_eq!(
        app.take_intents(),
        vec![Intent::Act(Action::Mark(ReviewMarks {
            unsettled: vec!["requirements".into()],
            ..ReviewMarks::default()
        }))]
    );
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Char('E')));
    assert_eq!(
        app.take_intents(),
        vec![Intent::EditArtifact {
            section: Section::Requirements,
            line: 2
        }]
    );
    app.on_app_event(AppEvent::Loop(LoopEvent::Artifact {
        section: Section::Requirements,
        read: Ok("FUNCTIONAL:\n1. FR-01: Add tasks now.".into()),
    }));
    assert!(
        screen(&mut app, 140, 44).contains("FR-01: Add tasks now."),
        "the edit is shown at once"
    );
}

#[test]
fn settled_items_are_marked_in_the_gutter_and_e_waits_for_the_review() {
    let mut app = reviewing();
    let mut state = review_state();
    state.settled = vec!["FR-02".into()];
    app.on_app_event(AppEvent::Loop(LoopEvent::Review(Box::new(state))));
    app.on_key(key(KeyCode::Char('2')));
    let shot = screen(&mut app, 140, 44);
    assert!(shot.contains("│3▐2. FR-02: List tasks."), "{shot}");
    assert!(shot.contains("│2 1. FR-01: Add tasks."), "{shot}");
    assert!(!shot.contains("[settled]"), "only the item is settled");
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 3,
    })));
    app.take_intents();
    app.on_key(key(KeyCode::Char('E')));
    assert!(
        app.take_intents().is_empty(),
        "no edit while the architect writes"
    );
}
