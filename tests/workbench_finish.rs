//! The end of a design in the workbench: the plan tab (a seven-stage plan with a
//! review loop, readable at 100x30), the zoom key, the last-cycle banner and its
//! confirmation, the way back from the reflection, and a screen that offers only
//! what can still be done once the design is final. TestBackend snapshots and keys
//! driven into the app; `volk demo` through READY and back in tmux.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use std::time::Duration;
use support::screen::screen;
use support::tmux::{Tmux, demo_command, tmux_available};

use ratatui::crossterm::event::KeyCode;
use volk::brief::Question;
use volk::cxp::Feedback;
use volk::design::Artifacts;
use volk::tui::app::{App, Popup, SessionInfo, Zoom};
use volk::tui::components::hint_bar;
use volk::tui::event::{Action, AppEvent, Intent, LoopEvent, Phase};
use volk::tui::popup::confirm::Confirm;
use volk::tui::scene::Scene;
use volk::tui::tab::Tab;
use volk::tui::test_keys::{ch, ctrl, key, typed};
use volk::volk::protocol::Notice;

fn info(max_cycles: u32) -> SessionInfo {
    SessionInfo {
        max_cycles,
        ..support::screen::info()
    }
}

fn event(app: &mut App, e: LoopEvent) {
    app.on_app_event(AppEvent::Loop(e));
}

/// Cycle `cycle` of `max` waits for the review.
fn reviewing(cycle: u32, max: u32) -> App {
    let artifacts = Artifacts {
        architecture: "# Bookshelf\n\nOne SQLite file holds books and sessions.\n".into(),
        requirements: "1. Register a book\n2. Record a session\n".into(),
        ..Artifacts::default()
    };
    Scene::new(info(max))
        .first_cycle(cycle, artifacts)
        .awaiting_review(cycle)
        .app()
}

fn ask(app: &mut App, question: &str) {
    app.on_key(ch('a'));
    typed(app, question);
    app.on_key(key(KeyCode::Enter));
}

fn seven_stage_plan() -> volk::volk::plan_step::PlanCheck {
    let json = include_str!("fixtures/workbench/seven_stage_plan.json");
    volk::volk::plan_step::check(&format!("```json\n{json}\n```"))
}

/// After READY: the reflection was shown, finalized, and the plan waits for `y`.
fn approving() -> App {
    let mut app = reviewing(1, 99);
    event(&mut app, LoopEvent::Phase(Phase::Reflecting));
    event(
        &mut app,
        LoopEvent::Reflection {
            questions: vec!["Which requirement does the API cover least?".into()],
            answers: "Record a session: the API has no way to correct a wrong page count, \
                      so a typo stays in the progress for good."
                .into(),
        },
    );
    event(&mut app, LoopEvent::Phase(Phase::AwaitingFinalize));
    event(&mut app, LoopEvent::Phase(Phase::Planning { attempt: 1 }));
    event(&mut app, LoopEvent::Phase(Phase::AwaitingPlanApproval));
    event(&mut app, LoopEvent::Plan(seven_stage_plan()));
    app
}

#[test]
fn the_plan_tab_shows_all_seven_stages_and_the_review_loop_at_100x30() {
    let mut app = approving();
    assert_eq!(app.tab, Tab::Plan);
    let shot = screen(&mut app, 100, 30);
    for n in 1..=7 {
        assert!(shot.contains(&format!("{n} · ")), "stage {n}:\n{shot}");
    }
    assert!(shot.contains("↺ 1 · implement_storage"), "{shot}");
    assert!(shot.contains(" 7 Plan "), "{shot}");
    insta::assert_snapshot!("plan_tab_100x30", shot);

    // Scrolling reaches every box, the loop-back edge drawn under the review's.
    let mut seen = String::new();
    for _ in 0..12 {
        app.on_key(ctrl('d'));
        seen.push_str(&screen(&mut app, 100, 30));
    }
    for id in [
        "1 · implement_storage",
        "5 · review_implementation",
        "7 · write_docs",
    ] {
        assert!(seen.contains(&format!("┌─ {id}")), "box {id} never shown");
    }
    assert!(seen.contains("↺ back to 1 · implement_storage"), "{seen}");
    assert!(seen.contains("Which requirement does the API cover least?"));
}

#[test]
fn p_shows_the_prompts_in_full_and_plus_zooms_the_plan() {
    let mut app = approving();
    let prompt_end = "including the empty database and a book with no sessions.";
    app.on_key(ch('+'));
    assert_eq!(app.zoom, Zoom::Focused);
    let zoomed = screen(&mut app, 100, 30);
    assert!(!zoomed.contains("Review · J:Junior"), "{zoomed}");
    app.on_key(ch('p'));
    let mut seen = String::new();
    for _ in 0..4 {
        seen.push_str(&screen(&mut app, 100, 30));
        app.on_key(ctrl('d'));
    }
    assert!(
        seen.contains("with no sessions."),
        "the whole prompt is shown: {prompt_end}\n{seen}"
    );
    app.on_key(ch('+'));
    assert_eq!(app.zoom, Zoom::Split);
    assert!(screen(&mut app, 100, 30).contains("Review · J:Junior"));

    // Any pane: the review pane zoomed hides the viewer.
    app.on_key(ch('f'));
    app.on_key(ch('+'));
    let review = screen(&mut app, 100, 30);
    assert!(review.contains("Review · J:Junior"), "{review}");
    assert!(!review.contains("╭ Plan"), "{review}");
    assert!(review.contains("7 stages"), "{review}");
}

#[test]
fn the_reflection_reads_in_the_plan_tab_and_b_goes_back_to_the_review() {
    let mut app = reviewing(1, 99);
    ask(&mut app, "Kept for later?");
    event(&mut app, LoopEvent::Phase(Phase::Reflecting));
    event(
        &mut app,
        LoopEvent::Reflection {
            questions: vec!["Which decision is the riskiest?".into()],
            answers: "One SQLite file: a second writer would block.".into(),
        },
    );
    event(&mut app, LoopEvent::Phase(Phase::AwaitingFinalize));
    assert_eq!(app.tab, Tab::Plan);
    let shot = screen(&mut app, 100, 30);
    assert!(shot.contains("REFLECTION BEFORE FINALIZING"), "{shot}");
    assert!(shot.contains("b: back to the review"), "{shot}");
    let bar = hint_bar(&app, 100);
    assert!(bar.contains("b back to review"), "{bar}");
    assert!(!bar.contains("a ask"), "{bar}");
    app.on_key(ch('a'));
    assert!(app.popup.is_none(), "a opened a composer after READY");
    assert!(
        app.notice
            .as_deref()
            .unwrap()
            .contains("b (after the reflection)")
    );
    insta::assert_snapshot!("reflection_100x30", shot);
    app.take_intents();
    app.on_key(ch('b'));
    assert_eq!(app.take_intents(), vec![Intent::Act(Action::Reopen)]);
    // The loop puts the cycle under review again: the draft is still there.
    event(
        &mut app,
        LoopEvent::Phase(Phase::AwaitingReview { cycle: 1 }),
    );
    assert_eq!(app.draft.questions, [Question::new("Kept for later?")]);
    assert_ne!(app.tab, Tab::Plan);
    assert!(screen(&mut app, 100, 30).contains("Ctrl-S send questions"));
}

#[test]
fn the_last_cycle_has_a_banner_and_ctrl_s_asks_before_the_forced_finalize() {
    let mut app = reviewing(2, 2);
    let shot = screen(&mut app, 100, 30);
    assert!(shot.contains("cycle 2/2 last cycle"), "{shot}");
    assert!(shot.contains("LAST CYCLE"), "{shot}");
    let mut earlier = reviewing(1, 2);
    assert!(!screen(&mut earlier, 100, 30).contains("last cycle"));

    // Typed in the composer and sent from it: the question is kept on "no".
    app.on_key(ch('a'));
    typed(&mut app, "Where do sessions live?");
    app.on_key(ctrl('s'));
    assert!(matches!(
        app.popup,
        Some(Popup::Confirm(Confirm::LastCycle))
    ));
    insta::assert_snapshot!("last_cycle_confirm_100x30", screen(&mut app, 100, 30));
    app.on_key(ch('n'));
    assert!(app.popup.is_none());
    assert!(app.take_intents().is_empty(), "nothing sent on no");
    assert_eq!(
        app.draft.questions,
        [Question::new("Where do sessions live?")]
    );

    app.on_key(ctrl('s'));
    app.on_key(ch('y'));
    assert_eq!(
        app.take_intents(),
        vec![Intent::Act(Action::Review(Feedback::questions(
            2,
            vec!["Where do sessions live?".into()],
            vec![]
        )))]
    );
}

#[test]
fn after_a_forced_finalize_the_screen_offers_only_what_can_still_be_done() {
    let mut app = reviewing(2, 2);
    ask(&mut app, "Sent at the limit");
    app.on_key(ctrl('s'));
    app.on_key(ch('y'));
    app.take_intents();
    event(
        &mut app,
        LoopEvent::Noticed(Notice::CycleLimit {
            cycle: 2,
            max: 2,
            trace_id: "t".into(),
        }),
    );
    event(&mut app, LoopEvent::Phase(Phase::Reflecting));
    event(
        &mut app,
        LoopEvent::Reflection {
            questions: vec!["What would a junior still have to guess?".into()],
            answers: "The page-count rules.".into(),
        },
    );
    event(&mut app, LoopEvent::Phase(Phase::AwaitingFinalize));
    // No way back at the limit, and it says so.
    let shot = screen(&mut app, 120, 30);
    assert!(shot.contains("the cycle limit forced this"), "{shot}");
    app.on_key(ch('b'));
    assert!(app.take_intents().is_empty());
    let bar = hint_bar(&app, 120);
    assert!(bar.contains("Enter finalize"), "{bar}");
    for stale in ["b back", "a ask", "Ctrl-S", "Ctrl-R"] {
        assert!(!bar.contains(stale), "{stale} in {bar}");
    }

    // A question written now could never be sent: `a` says so, `q` does not warn.
    app.draft.composer = "an afterthought".into();
    app.on_key(ch('a'));
    assert!(app.popup.is_none(), "a opened a composer");
    assert!(app.notice.as_deref().unwrap().contains("final"));
    app.on_key(ch('q'));
    assert!(app.popup.is_none(), "q warned about a draft");
    assert_eq!(app.take_intents(), vec![Intent::Quit]);
}

#[test]
fn after_finalize_a_does_not_open_a_composer_and_q_quits() {
    let mut app = approving();
    app.on_key(ch('a'));
    assert!(app.popup.is_none(), "a opened a composer");
    let bar = hint_bar(&app, 120);
    assert!(bar.starts_with("y approve · s steer"), "{bar}");
    assert!(!bar.contains("a ask"), "{bar}");
    app.draft.composer = "half a thought".into();
    app.on_key(ch('q'));
    assert!(app.popup.is_none());
    assert_eq!(app.take_intents(), vec![Intent::Quit]);
}

#[test]
fn demo_ready_then_reflection_then_back_to_the_review_in_tmux() {
    if !tmux_available() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    let tmux = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-reopen".into(),
    };
    tmux.start(100, 30, &demo_command(dir.path(), &workspace));
    tmux.wait_for("your review", Duration::from_secs(60));

    tmux.keys(&["C-r"]);
    tmux.wait_for("READY?", Duration::from_secs(15));
    tmux.keys(&["y"]);
    // The reflection opens in the plan tab, with the way back offered.
    let shot = tmux.wait_for("REFLECTION BEFORE FINALIZING", Duration::from_secs(60));
    assert!(shot.contains("7 Plan"), "{shot}");
    tmux.wait_for("b: back to the review", Duration::from_secs(15));
    tmux.keys(&["b"]);
    tmux.wait_for("READY withdrawn", Duration::from_secs(30));
    let back = tmux.wait_for("your review", Duration::from_secs(30));
    assert!(!back.contains("REFLECTION BEFORE FINALIZING"), "{back}");
    assert!(back.contains("cycle 1/"), "{back}");
    let journal = std::fs::read_to_string(
        workspace
            .join("bookshelf")
            .join(".volk")
            .join("journal.jsonl"),
    )
    .unwrap();
    assert!(journal.contains("review_reopened"), "{journal}");

    // The cycle is reviewable again: a question goes out as cycle 2.
    tmux.keys(&["a"]);
    tmux.wait_for("New question", Duration::from_secs(15));
    tmux.literal("After all, how are sessions stored?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Your questions (1)", Duration::from_secs(15));
    tmux.keys(&["C-s"]);
    tmux.wait_for("cycle 2/", Duration::from_secs(30));
    tmux.wait_for("your review", Duration::from_secs(60));
    tmux.keys(&["q"]);
    let end = tmux.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    assert!(end.contains("VOLK-EXITED-0"), "{end}");
}
