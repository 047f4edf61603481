//! The workbench: screens drawn on ratatui's TestBackend and compared with insta
//! snapshots, the draft surviving a restart, and `volk demo` driven end to end in tmux.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use support::live::Live;
use support::provider::Provider;
use support::screen::info;
use support::tmux::{Tmux, demo_command, tmux_available};
use volk::tui::event::LoopEvent;
use volk::tui::scene::Scene;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use volk::brief::{Brief, Purpose};
use volk::design::parser::parse;
use volk::design::{Artifacts, Section};
use volk::reasoner::StreamEvent;
use volk::reasoner::offline::draft;
use volk::tui::app::App;
use volk::tui::event::{AppEvent, Phase};
use volk::tui::tab::Tab;
use volk::tui::test_keys::{ctrl, key, typed};
use volk::tui::theme::Theme;
use volk::tui::view;

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

use support::screen::screen;

/// Splits `text` into pieces of about `size` bytes on character boundaries (a
/// stream's text events are whole characters).
fn pieces(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

fn stream(app: &mut App, call: u64, purpose: Purpose, text: &str) {
    for chunk in pieces(text, 37) {
        app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
            call,
            purpose,
            event: StreamEvent::Text { text: chunk.into() },
        }));
    }
}

/// An app that has finished cycle 1 and waits for the review.
fn reviewing() -> (App, Artifacts) {
    let mut app = App::new(info(), Theme::dark());
    let text = draft(Purpose::Design, &brief());
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 1,
    })));
    stream(&mut app, 1, Purpose::Design, &text);
    let artifacts = parse(&text);
    let app = Scene::from(app)
        .first_cycle(1, artifacts.clone())
        .committed(1, "c0ffee1")
        .awaiting_review(1)
        .app();
    (app, artifacts)
}

/// Cycle 1 under review on the real runtime (`support::live`): the offline drafter's
/// design, served by a scripted provider, so the tabs hold what [`reviewing`] shows
/// and the header and status bar are those the binary draws.
fn live_reviewing() -> Live {
    let server = Provider::repeating(&draft(Purpose::Design, &brief()));
    let mut live = Live::design(&server);
    live.until("cycle 1 under review, committed", |app| {
        *app.model.phase() == Phase::AwaitingReview { cycle: 1 }
            && app.model.last_commit().is_some()
            && !app.model.committing()
    });
    live
}

#[test]
fn streaming_in_progress() {
    let mut app = App::new(info(), Theme::dark());
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 1,
    })));
    app.on_app_event(AppEvent::Loop(LoopEvent::Metrics {
        ttft_ms: Some(420),
        tokens_per_sec: Some(85.0),
    }));
    let text = draft(Purpose::Design, &brief());
    let cut = text.find("## Data flow").unwrap() + 31;
    stream(&mut app, 1, Purpose::Design, &text[..cut]);
    let shot = screen(&mut app, 100, 28);
    assert!(shot.contains("streaming Architecture"), "{shot}");
    insta::assert_snapshot!("streaming", shot);

    // Only complete lines are committed; the unfinished one is the tail.
    let doc = &app.docs[0];
    assert!(doc.lines().iter().any(|l| l.contains("Store")));
    assert_eq!(doc.tail(), "Cli -> handler ->");
}

#[test]
fn streamed_tabs_equal_the_finished_cycle() {
    let text = draft(Purpose::Design, &brief());
    let whole = parse(&text);
    for chunk in [1usize, 7, 64, 333] {
        let mut app = App::new(info(), Theme::dark());
        for (i, piece) in pieces(&text, chunk).into_iter().enumerate() {
            app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
                call: 1,
                purpose: Purpose::Design,
                event: StreamEvent::Text { text: piece.into() },
            }));
            if i % 5 == 0 {
                app.sync_stream();
            }
        }
        app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
            call: 1,
            purpose: Purpose::Design,
            event: StreamEvent::Finished { stop_reason: None },
        }));
        for section in Section::ALL {
            let streamed = app.docs[section.index()].text();
            let tail = app.docs[section.index()].tail().to_string();
            let joined = if tail.is_empty() {
                streamed
            } else {
                format!("{streamed}\n{tail}")
            };
            assert_eq!(
                joined.trim_end(),
                whole.get(section),
                "{section:?} with chunks of {chunk}"
            );
        }
    }
}

#[test]
fn review_with_questions() {
    let mut live = live_reviewing();
    let app = &mut live.app;
    app.on_key(key(KeyCode::Char('a')));
    typed(app, "Which table holds the reading sessions?");
    app.on_key(key(KeyCode::Enter));
    app.on_key(key(KeyCode::Char('4')));
    app.on_key(key(KeyCode::Char('j')));
    app.on_key(key(KeyCode::Char('c')));
    typed(app, "Should this return a value?");
    app.on_key(key(KeyCode::Enter));
    app.on_key(key(KeyCode::Char('f')));
    for _ in 0..2 {
        app.on_key(key(KeyCode::Down));
    }
    app.on_key(key(KeyCode::Enter));
    typed(app, "Print it on stderr");
    app.on_key(key(KeyCode::Enter));
    let shot = live.screen(130, 32);
    assert!(
        shot.lines().next().unwrap().contains("openai/scripted"),
        "the binary's header: {shot}"
    );
    assert!(shot.contains("Your questions (2)"), "{shot}");
    assert!(shot.contains("Print it on stderr"), "{shot}");
    insta::assert_snapshot!("review", shot);
}

/// The key-hint bar at 80x24 lists the keys of the focus at hand, written from the
/// bindings: reading the viewer, then the review pane.
#[test]
fn hint_bar_at_80x24_follows_the_focus() {
    let mut live = live_reviewing();
    live.app.on_key(key(KeyCode::Char('a')));
    typed(&mut live.app, "Which table holds the reading sessions?");
    live.app.on_key(key(KeyCode::Enter));
    live.app.notice.clear();
    let reading = live.screen(80, 24);
    let bar = reading.lines().last().unwrap_or_default().to_string();
    assert!(bar.contains("c ask about line"), "{reading}");
    insta::assert_snapshot!("hints_reading_80x24", reading);
    live.app.on_key(key(KeyCode::Char('f')));
    let review = live.screen(80, 24);
    let bar = review.lines().last().unwrap_or_default().to_string();
    // Beside the cost of the cycle the binary shows, at least four keys fit.
    assert!(
        bar.contains("e edit") && bar.matches(" · ").count() >= 3,
        "{review}"
    );
    insta::assert_snapshot!("hints_review_pane_80x24", review);
}

#[test]
fn diff_view() {
    let (mut app, first) = reviewing();
    let mut b = brief();
    b.cycle = 2;
    b.questions = vec!["Which table holds the reading sessions?".into()];
    let text = draft(Purpose::Update, &b);
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 2,
    })));
    stream(&mut app, 2, Purpose::Update, &text);
    let second = parse(&text);
    let changed = second.changed_since(&first);
    app.on_app_event(AppEvent::Loop(LoopEvent::CycleReady {
        cycle: 2,
        artifacts: second,
        changed,
    }));
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::AwaitingReview {
        cycle: 2,
    })));
    app.on_key(key(KeyCode::Char('d')));
    let shot = screen(&mut app, 100, 30);
    assert!(shot.contains("changes since the previous cycle"), "{shot}");
    insta::assert_snapshot!("diff", shot);
}

#[test]
fn help() {
    let mut live = live_reviewing();
    live.app.on_key(key(KeyCode::Char('?')));
    insta::assert_snapshot!("help", live.screen(100, 48));
}

#[test]
fn error_popup() {
    let (mut app, _) = reviewing();
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 2,
    })));
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Failed {
        resume: Box::new(Phase::Designing { cycle: 2 }),
        message: "HTTP 503 from http://127.0.0.1:8080/v1/chat/completions: overloaded".into(),
        retryable: true,
    })));
    let shot = screen(&mut app, 100, 28);
    assert!(shot.contains("r: retry"), "{shot}");
    insta::assert_snapshot!("error", shot);
}

#[test]
fn summary() {
    let (mut app, _) = reviewing();
    app.on_key(ctrl('r'));
    app.on_key(key(KeyCode::Char('y')));
    app.on_app_event(AppEvent::Loop(LoopEvent::Finalized {
        packet: PathBuf::from("/work/space/bookshelf/.volk/outbox/implement-0001.json"),
    }));
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Finalized)));
    let shot = screen(&mut app, 100, 24);
    assert!(shot.contains("implement-0001.json"), "{shot}");
    insta::assert_snapshot!("summary", shot);
}

#[test]
fn too_small_terminal() {
    let (mut app, _) = reviewing();
    let shot = screen(&mut app, 40, 10);
    assert!(shot.contains("needs a larger terminal"), "{shot}");
    insta::assert_snapshot!("too_small", shot);
    // Growing again draws the workbench.
    assert!(screen(&mut app, 100, 30).contains("Review"));
}

#[test]
fn every_theme_draws_the_review_screen() {
    for name in volk::tui::theme::built_in_names() {
        let (mut app, _) = reviewing();
        app.theme = Theme::load(name).unwrap();
        assert!(screen(&mut app, 120, 30).contains("Architecture"));
    }
}

// ----- the binary -----

fn volk() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_volk"));
    let config = tempfile::tempdir().unwrap().keep();
    cmd.env("VOLK_CONFIG_DIR", config)
        .env_remove("VOLK_REASONER")
        .env_remove("VOLK_WORKSPACE");
    cmd
}

#[test]
fn unknown_theme_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = volk()
        .args(["demo", "--theme", "neon", "--workspace"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("volk: "), "{stderr}");
    assert!(stderr.contains("neon"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn missing_design_input_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = volk()
        .args(["design", "no-such-scope.json", "--workspace"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no-such-scope.json"), "{stderr}");
}

#[test]
fn open_refuses_a_directory_volk_did_not_create() {
    let dir = tempfile::tempdir().unwrap();
    let out = volk().arg("open").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(".volk"), "{stderr}");
}

// ----- end to end in tmux -----

fn outbox_packets(project: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(project.join(".volk").join("outbox"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default()
}

#[test]
fn demo_end_to_end_in_tmux() {
    if !tmux_available() {
        eprintln!(
            "SKIPPED demo_end_to_end_in_tmux: tmux is not installed (apt-get install -y tmux)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    let tmux = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-e2e".into(),
    };
    let command = demo_command(dir.path(), &workspace);
    tmux.start(140, 40, &command);

    // The tabs fill live, then cycle 1 waits for the review.
    tmux.wait_for("streaming", Duration::from_secs(60));
    tmux.wait_for("your review", Duration::from_secs(60));
    let project = workspace.join("bookshelf");
    assert!(project.join("design").join("architecture.md").is_file());

    // Add a question; the draft is on disk before anything is sent.
    tmux.keys(&["a"]);
    tmux.wait_for("New question", Duration::from_secs(15));
    tmux.literal("How are reading sessions stored?");
    let draft_path = project.join(".volk").join("draft.json");
    let start = Instant::now();
    loop {
        let saved = std::fs::read_to_string(&draft_path).unwrap_or_default();
        if saved.contains("How are reading sessions stored?") {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "draft not saved: {saved}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    tmux.keys(&["Enter"]);
    tmux.wait_for("Your questions (1)", Duration::from_secs(15));

    // Send: cycle 2 streams and waits for the review.
    tmux.keys(&["C-s"]);
    tmux.wait_for("cycle 2/", Duration::from_secs(30));
    tmux.wait_for("your review", Duration::from_secs(60));
    let arch = std::fs::read_to_string(project.join("design").join("architecture.md")).unwrap();
    assert!(arch.contains("How are reading sessions stored?"), "{arch}");

    // An unsent question, then quit: volk asks first, and the draft stays on disk.
    tmux.keys(&["a"]);
    tmux.wait_for("New question", Duration::from_secs(15));
    tmux.literal("An unsent thought");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Your questions (1)", Duration::from_secs(15));
    tmux.keys(&["q"]);
    tmux.wait_for("Quit?", Duration::from_secs(15));
    tmux.keys(&["y"]);
    let end = tmux.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    assert!(end.contains("VOLK-EXITED-0"), "{end}");
    assert!(end.contains(&workspace.display().to_string()), "{end}");
    let saved = std::fs::read_to_string(&draft_path).unwrap();
    assert!(saved.contains("An unsent thought"), "{saved}");

    // `volk open` restores the session and the draft.
    let open = format!(
        "VOLK_CONFIG_DIR={} VOLK_LOG={} {} open {}; echo VOLK-OPEN-EXITED-$?; sleep 30",
        dir.path().join("config").display(),
        dir.path().join("volk.log").display(),
        env!("CARGO_BIN_EXE_volk"),
        project.display()
    );
    tmux.run(&["respawn-pane", "-k", "-t", &tmux.session, &open]);
    tmux.wait_for("An unsent thought", Duration::from_secs(30));
    tmux.wait_for("cycle 2/", Duration::from_secs(15));

    // READY, confirmed; the loop finalizes and shows the summary.
    tmux.keys(&["C-r"]);
    tmux.wait_for("READY?", Duration::from_secs(15));
    tmux.keys(&["y"]);
    let mut summary = String::new();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        let screen = tmux.screen();
        if screen.contains("Design finalized") {
            summary = screen;
            break;
        }
        if screen.contains("Enter: finalize") {
            tmux.keys(&["Enter"]);
        } else if screen.contains("y: approve") {
            tmux.keys(&["y"]);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(summary.contains("Design finalized"), "{}", tmux.screen());
    assert!(summary.contains("outbox"), "{summary}");

    let packets = outbox_packets(&project);
    let implement = packets
        .iter()
        .find(|p| {
            std::fs::read_to_string(p)
                .map(|t| t.contains("\"implement\""))
                .unwrap_or(false)
        })
        .unwrap_or_else(|| panic!("no implement packet in {packets:?}"));
    let packet: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(implement).unwrap()).unwrap();
    assert_eq!(packet["header"]["to_agent"], "U:Cd");
    let commits = volk::project::git::log(&project).unwrap();
    assert!(commits.len() >= 2, "{commits:?}");

    tmux.keys(&["q"]);
    let end = tmux.wait_for("VOLK-OPEN-EXITED-", Duration::from_secs(20));
    assert!(end.contains("VOLK-OPEN-EXITED-0"), "{end}");
    assert!(end.contains("implement packet"), "{end}");
}

#[test]
fn composer_open() {
    let mut live = live_reviewing();
    live.app.on_key(key(KeyCode::Char('a')));
    typed(&mut live.app, "How are reading sessions stored?");
    let shot = live.screen(100, 30);
    assert!(shot.contains("New question"), "{shot}");
    insta::assert_snapshot!("composer", shot);
}

#[test]
fn history_opens_an_older_cycle_read_only() {
    use volk::tui::event::{Intent, LoopEvent};
    use volk::volk::runtime::CommitInfo;
    let (mut app, first) = reviewing();
    app.on_key(key(KeyCode::Char('h')));
    assert_eq!(
        app.take_intents(),
        vec![Intent::Ask(volk::volk::protocol::Query::History)]
    );
    app.on_app_event(AppEvent::Loop(LoopEvent::History(vec![
        CommitInfo {
            id: "b".repeat(40),
            short_id: "bbbbbbb".into(),
            summary: "design cycle 2".into(),
            time: 0,
        },
        CommitInfo {
            id: "a".repeat(40),
            short_id: "aaaaaaa".into(),
            summary: "design cycle 1".into(),
            time: 0,
        },
    ])));
    assert!(screen(&mut app, 100, 30).contains("design cycle 1"));
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Enter));
    let intents = app.take_intents();
    assert!(
        matches!(&intents[..], [Intent::Ask(volk::volk::protocol::Query::Commit { short_id, .. })] if short_id == "aaaaaaa"),
        "{intents:?}"
    );
    let mut old = first.clone();
    old.architecture = "the first draft".into();
    app.on_app_event(AppEvent::Loop(LoopEvent::OldCycle {
        short_id: "aaaaaaa".into(),
        summary: "design cycle 1".into(),
        artifacts: old,
    }));
    let shot = screen(&mut app, 100, 30);
    assert!(shot.contains("read-only"), "{shot}");
    assert!(shot.contains("the first draft"), "{shot}");
    app.on_key(key(KeyCode::Esc));
    let shot = screen(&mut app, 100, 30);
    assert!(!shot.contains("the first draft"), "{shot}");
}

#[test]
fn mouse_clicks_a_tab_and_the_wheel_scrolls() {
    use ratatui::crossterm::event::{Event, MouseButton, MouseEvent, MouseEventKind};
    let (mut app, _) = reviewing();
    screen(&mut app, 100, 30);
    let tab = app.areas.tabs[2];
    app.on_terminal_event(Event::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: tab.x + 1,
        row: tab.y,
        modifiers: KeyModifiers::NONE,
    }));
    assert_eq!(app.tab, Tab::Artifact(Section::FileTree));
    app.select_tab(Tab::Artifact(Section::Architecture));
    app.on_terminal_event(Event::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 5,
        row: 5,
        modifiers: KeyModifiers::NONE,
    }));
    assert_eq!(app.views[0].top, 3);
}

#[test]
fn search_moves_to_the_match_and_paints_it() {
    let (mut app, _) = reviewing();
    app.on_key(key(KeyCode::Char('/')));
    typed(&mut app, "data flow");
    app.on_key(key(KeyCode::Enter));
    let line = app.docs[0]
        .lines()
        .iter()
        .position(|l| l.contains("Data flow"))
        .unwrap();
    assert_eq!(app.views[0].cursor, line);
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    view::render(&mut terminal, &mut app).unwrap();
    let buffer = terminal.backend().buffer();
    let warning = app.theme.palette.warning;
    let painted = buffer.content().iter().filter(|c| c.bg == warning).count();
    assert_eq!(painted, "data flow".len());
}

/// An update answered with edit blocks: the tab shows the current section with the
/// applied block's line marked, names the half-written block in its title, and keeps
/// the place being edited in view.
#[test]
fn an_update_streams_as_blocks_on_the_current_design() {
    let (mut app, artifacts) = reviewing();
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 2,
    })));
    let spec = &artifacts.api_spec;
    let line = spec
        .lines()
        .find(|l| l.contains("class RegisterBook"))
        .unwrap()
        .to_string();
    let last = spec.lines().last().unwrap().to_string();
    let answer = format!(
        "API_SPEC:\n<<<<<<< SEARCH\n{line}\n=======\n{}\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n{last}\n=====",
        line.replace(':', "(Handler):")
    );
    stream(&mut app, 2, Purpose::Update, &answer);
    app.sync_stream();
    app.select_tab(Tab::Artifact(Section::ApiSpec));
    let doc = &app.docs[Section::ApiSpec.index()];
    assert_eq!(
        doc.text(),
        spec.replacen("class RegisterBook:", "class RegisterBook(Handler):", 1),
        "the applied block is in place, the pending one is not"
    );
    let marked: Vec<usize> = app.marks[Section::ApiSpec]
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.then_some(i))
        .collect();
    let at = spec.lines().position(|l| l == line).unwrap();
    assert_eq!(marked, [at]);
    // Other tabs keep the current design while the answer leaves them out.
    assert_eq!(
        app.docs[Section::Architecture.index()].text(),
        artifacts.architecture
    );
    let shot = screen(&mut app, 110, 30);
    assert!(
        shot.contains("1 block applied · block 2 pending (SEARCH 1 line, REPLACE …)"),
        "{shot}"
    );
    assert!(shot.contains("RegisterBook(Handler):"), "{shot}");
    let mark_row = shot
        .lines()
        .find(|l| l.contains("RegisterBook(Handler):"))
        .unwrap()
        .to_string();
    assert!(mark_row.contains("+"), "{mark_row}");
}

/// Whatever the chunking, the live update view ends on the design the loop writes.
#[test]
fn a_streamed_update_ends_on_the_patched_design() {
    use volk::design::edit::stream::{PatchStream, Settled};
    let (_, artifacts) = reviewing();
    let mut update = brief();
    update.cycle = 2;
    update.questions = vec!["Where do notes live?".into()];
    update.current = Some(artifacts.clone());
    let answer = draft(Purpose::Update, &update);
    assert!(answer.contains("<<<<<<< SEARCH"), "{answer}");
    let expected =
        PatchStream::read(artifacts.clone(), Settled::default(), &answer).artifacts(&artifacts);
    for size in [1usize, 9, 64] {
        let (mut app, _) = reviewing();
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
            cycle: 2,
        })));
        for (i, piece) in pieces(&answer, size).into_iter().enumerate() {
            app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
                call: 2,
                purpose: Purpose::Update,
                event: StreamEvent::Text { text: piece.into() },
            }));
            if i % 3 == 0 {
                app.sync_stream();
            }
        }
        app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
            call: 2,
            purpose: Purpose::Update,
            event: StreamEvent::Finished { stop_reason: None },
        }));
        for section in Section::ALL {
            assert_eq!(
                app.docs[section.index()].text(),
                expected.get(section),
                "{section:?} in pieces of {size}"
            );
        }
    }
}

#[test]
fn a_second_workbench_on_one_project_opens_read_only() {
    if !tmux_available() {
        eprintln!("SKIPPED a_second_workbench_on_one_project_opens_read_only: no tmux");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    let config = dir.path().join("config");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::create_dir_all(&config).unwrap();
    let scope = include_str!("fixtures/packets/example1_scope.json");
    let mut child = volk()
        .args(["run", "--workspace"])
        .arg(&workspace)
        .env("VOLK_LOG", dir.path().join("run.log"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), scope.as_bytes()).unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
    let project = workspace.join("taskman");
    let commits = || {
        let repo = git2::Repository::open(&project).unwrap();
        let mut walk = repo.revwalk().unwrap();
        walk.push_head().unwrap();
        walk.count()
    };
    assert_eq!(commits(), 1);

    let tmux = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-first".into(),
    };
    let open = |name: &str| {
        format!(
            "VOLK_CONFIG_DIR={} VOLK_LOG={} {} open {}; echo VOLK-{name}-EXITED-$?; sleep 30",
            config.display(),
            dir.path().join(format!("{name}.log")).display(),
            env!("CARGO_BIN_EXE_volk"),
            project.display()
        )
    };
    tmux.start(140, 40, &open("first"));
    tmux.wait_for("cycle 1/", Duration::from_secs(30));
    let second = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-second".into(),
    };
    second.start(140, 40, &open("second"));
    let screen = second.wait_for(
        "READ-ONLY · held by volk open (pid",
        Duration::from_secs(30),
    );
    assert!(screen.contains("cycle 1/"), "{screen}");
    assert!(!tmux.screen().contains("READ-ONLY"), "the first one writes");

    // READY from the read-only one is refused on the spot; nothing changes on disk.
    second.keys(&["C-r"]);
    second.wait_for("you cannot answer READY here", Duration::from_secs(15));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(commits(), 1);
    assert_eq!(outbox_packets(&project).len(), 1);
    // Reading the history still works.
    second.keys(&["Escape"]);
    second.keys(&["h"]);
    second.wait_for("Design cycle 1: all artifacts", Duration::from_secs(15));
    second.keys(&["Escape"]);
    second.keys(&["q"]);
    second.wait_for("VOLK-second-EXITED-0", Duration::from_secs(15));
    eprintln!("two `volk open` of one project: 1 tried / 0 went wrong");
}

/// The failure popup of a refused key (HTTP 401) on the real runtime: the fix, no
/// retry, under the header the binary draws.
#[test]
fn error_popup_for_a_refused_key() {
    let server = Provider::start(std::sync::Arc::new(|_, _| {
        support::provider::status(
            401,
            r#"{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}"#,
        )
    }));
    let mut live = Live::design(&server);
    live.until("the failed first call", |app| {
        matches!(app.model.phase(), Phase::Failed { .. })
            && matches!(app.popup, Some(volk::tui::popup::Popup::Error(_)))
    });
    let shot = live.screen(100, 28);
    assert!(!shot.contains("r: retry"), "{shot}");
    assert!(
        !shot.contains("r sends"),
        "no word of r where r cannot help: {shot}"
    );
    assert!(shot.contains("OPENAI_API_KEY"), "{shot}");
    insta::assert_snapshot!("error_refused_key", shot);
}
