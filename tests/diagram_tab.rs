//! The Class diagram tab: the offline drafter's diagram drawn at 100x30, scrolled,
//! switched to its Mermaid source and back, and a diagram that does not parse shown
//! as source with the D001 fault marked. Screens on ratatui's TestBackend, compared
//! with insta snapshots; and `volk demo` in tmux, drawn at 100x30.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use std::path::Path;
use std::time::{Duration, Instant};
use support::provider::{Provider, openai_stream};
use support::screen::info;
use support::tmux::{Tmux, demo_command, tmux_available};

use ratatui::crossterm::event::KeyCode;
use volk::brief::{Brief, Purpose};
use volk::design::Artifacts;
use volk::design::parser::parse;
use volk::reasoner::offline::draft;
use volk::tui::app::App;
use volk::tui::event::{AppEvent, LoopEvent, Phase};
use volk::tui::scene::Scene;
use volk::tui::test_keys::{ch, key};
use volk::tui::theme::Theme;

/// The frame once the diagram's layout (on its own thread) has answered.
fn screen(app: &mut App) -> String {
    let start = std::time::Instant::now();
    let mut shot = support::screen::screen(app, 100, 30);
    // The layout runs on its own thread: draw until it is in.
    while app.diagram.is_pending() {
        assert!(start.elapsed() < Duration::from_secs(10), "no drawing");
        std::thread::sleep(Duration::from_millis(2));
        shot = support::screen::screen(app, 100, 30);
    }
    shot
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
    Scene::new(info())
        .designing(1)
        .first_cycle(1, artifacts)
        .awaiting_review(1)
        .app()
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

/// `n` classes, each related to `per` others by a labelled association.
fn dense(n: usize, per: usize) -> String {
    let mut t = String::from("classDiagram\n");
    for i in 0..n {
        for k in 1..=per {
            t.push_str(&format!("  C{i} --> C{} : link {i} {k}\n", (i + k) % n));
        }
    }
    t
}

#[test]
fn a_diagram_bomb_shows_its_source_with_why() {
    let mut app = reviewing(Some(&dense(100, 99)));
    app.on_key(ch('5'));
    let shot = screen(&mut app);
    assert!(
        shot.contains("not drawn: 100 classes × 9900 relationships is over the layout"),
        "{shot}"
    );
    assert!(
        shot.contains("classDiagram") && shot.contains("C0 --> C1"),
        "{shot}"
    );
    // `v` does not pretend: it says why again.
    app.on_key(ch('v'));
    let again = screen(&mut app);
    assert!(again.contains("classDiagram"), "{again}");
    assert!(again.contains("class diagram not drawn"), "{again}");
}

/// A design whose class diagram is `diagram`, as the architect would answer.
fn design_with(diagram: &str) -> String {
    format!(
        "ARCHITECTURE:\nA CLI over a SQLite store.\n\nREQUIREMENTS:\nFUNCTIONAL:\n1. FR-01: Add tasks.\n\nFILE_TREE:\nsrc/\n  cli.py\n\nAPI_SPEC:\nadd(name: str) -> int\n\nCLASS_DIAGRAM:\n{diagram}"
    )
}

/// `volk design` in tmux against a provider answering `answer`, its pid written to
/// `dir/volk.pid`.
fn design_in_tmux(dir: &Path, server: &Provider, session: &str) -> Tmux {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let scope = dir.join("tasks.md");
    std::fs::write(&scope, "# A task CLI\n1. Add tasks\n").unwrap();
    let tmux = Tmux {
        socket: dir.join("tmux.sock"),
        session: session.into(),
    };
    tmux.start(160, 40, "env PS1='$ ' sh");
    let command = format!(
        "env HOME={home} XDG_CONFIG_HOME={home}/.config GIT_CONFIG_NOSYSTEM=1 \
         OPENAI_API_KEY=sk-tmux-test VOLK_CONFIG_DIR={config} VOLK_LOG={log} \
         sh -c 'echo $$ > {pid}; exec {volk} design {scope} --workspace {ws} --lint-repairs 0 --reasoner openai --model scripted --base-url {url}'; \
         echo VOLK-EXITED-$?",
        home = home.display(),
        config = dir.join("config").display(),
        log = dir.join("volk.log").display(),
        pid = dir.join("volk.pid").display(),
        volk = env!("CARGO_BIN_EXE_volk"),
        scope = scope.display(),
        ws = dir.join("ws").display(),
        url = server.v1(),
    );
    tmux.literal(&command);
    tmux.keys(&["Enter"]);
    tmux
}

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

/// Waits for `what` on screen, and says how long it took.
fn timed(tmux: &Tmux, what: &str, timeout: Duration) -> (Duration, String) {
    let start = Instant::now();
    let screen = tmux.wait_for(what, timeout);
    (start.elapsed(), screen)
}

#[test]
fn two_edges_into_one_class_are_told_apart_in_tmux() {
    if !tmux_available() {
        eprintln!("SKIPPED two_edges_into_one_class_are_told_apart_in_tmux: tmux is not installed");
        return;
    }
    let diagram =
        "classDiagram\n  Api --> Store : writes\n  Cli ..> Store : reads\n  Api <|-- Cli\n";
    let server = Provider::start(std::sync::Arc::new(move |_, _| {
        openai_stream(&design_with(diagram), 64)
    }));
    let dir = tempfile::tempdir().unwrap();
    let tmux = design_in_tmux(dir.path(), &server, "volk-two-edges");
    tmux.wait_for("your review", Duration::from_secs(60));
    tmux.keys(&["5"]);
    let shot = tmux.wait_for(" classes · ", Duration::from_secs(15));
    let rows: Vec<Vec<char>> = shot.lines().map(|l| l.chars().collect()).collect();
    // Store's box: the row with its name, and its top border above.
    let name_row = rows
        .iter()
        .position(|r| {
            r.iter().collect::<String>().contains("│ Store │")
                || r.iter().collect::<String>().contains(" Store ")
        })
        .unwrap_or_else(|| panic!("no Store box:\n{shot}"));
    let top = name_row - 1;
    // Two heads on the row above Store's top border, each at its own column, each
    // on the end of its own line (solid for the association, dashed for the
    // dependency).
    let heads: Vec<usize> = rows[top - 1]
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == 'v')
        .map(|(x, _)| x)
        .collect();
    assert_eq!(heads.len(), 2, "{shot}");
    assert!(heads[1] - heads[0] >= 2, "{shot}");
    for &x in &heads {
        assert!(
            matches!(rows[top - 2][x], '│' | '┆' | '┐' | '┌' | '└' | '┘'),
            "a head at column {x} with no line of its own above:\n{shot}"
        );
        assert_eq!(
            rows[top][x], '┴',
            "each line ends on Store's border:\n{shot}"
        );
    }
    // The association is solid, the dependency dashed.
    assert!(shot.contains('┆') && shot.contains('│'), "{shot}");
    assert!(shot.contains("writes") && shot.contains("reads"), "{shot}");
    tmux.keys(&["q"]);
    std::thread::sleep(Duration::from_millis(300));
    if tmux.screen().contains("Quit?") {
        tmux.keys(&["y"]);
    }
    tmux.wait_for("VOLK-EXITED-0", Duration::from_secs(20));
}

/// A diagram bomb on the real binary: the tab answers at once with the source and
/// why, a key is answered within 1 s, and SIGTERM restores the terminal within 1 s.
fn bomb_in_tmux(n: usize, per: usize) {
    let answer = design_with(&dense(n, per));
    let server = Provider::start(std::sync::Arc::new(move |_, _| {
        openai_stream(&answer, 8192)
    }));
    let dir = tempfile::tempdir().unwrap();
    let tmux = design_in_tmux(dir.path(), &server, &format!("volk-bomb-{n}"));
    let pid = read_pid(&dir.path().join("volk.pid"));
    tmux.wait_for("your review", Duration::from_secs(120));
    tmux.keys(&["5"]);
    let (shown, shot) = timed(
        &tmux,
        &format!(
            "not drawn: {n} classes × {} relationships is over the layout limit",
            n * per
        ),
        Duration::from_secs(5),
    );
    assert!(shot.contains("classDiagram"), "{shot}");
    // A key answered: the cursor moves down the source.
    tmux.keys(&["G"]);
    let last = format!("C{} --> C{}", n - 1, (n - 1 + per) % n);
    let (answered, _) = timed(&tmux, &last, Duration::from_secs(5));
    let started = Instant::now();
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(kill.success());
    // (The typed command line shows `VOLK-EXITED-$?`: wait for the status itself.)
    tmux.wait_for("VOLK-EXITED-143", Duration::from_secs(10));
    let exited = started.elapsed();
    assert_eq!(tmux.flag("alternate_on"), "0", "back on the main screen");
    eprintln!(
        "diagram bomb {n} classes × {} relationships: source and notice {shown:?} after `5`, `G` answered in {answered:?}, SIGTERM to exit {exited:?}",
        n * per
    );
    assert!(shown < Duration::from_secs(1), "{shown:?}");
    assert!(answered < Duration::from_secs(1), "{answered:?}");
    assert!(exited < Duration::from_secs(1), "{exited:?}");
}

#[test]
fn a_100_class_bomb_is_answered_and_ends_on_sigterm_in_tmux() {
    if !tmux_available() {
        eprintln!(
            "SKIPPED a_100_class_bomb_is_answered_and_ends_on_sigterm_in_tmux: tmux is not installed"
        );
        return;
    }
    bomb_in_tmux(100, 99);
}

#[test]
fn a_200_class_bomb_is_answered_and_ends_on_sigterm_in_tmux() {
    if !tmux_available() {
        eprintln!(
            "SKIPPED a_200_class_bomb_is_answered_and_ends_on_sigterm_in_tmux: tmux is not installed"
        );
        return;
    }
    bomb_in_tmux(200, 40);
}
