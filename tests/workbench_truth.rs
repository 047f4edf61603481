//! The workbench tells the truth (issue 26): the real binary in tmux, against a
//! scripted provider on 127.0.0.1, at the widths where it matters. What the screen
//! shows must be what the session holds: hints at every focus, notices that go,
//! a cut first cycle that keeps its text, read-only said first, every tab reachable.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use support::provider::{Piece, Provider, sse_chunk, status, stream_head};
use support::tmux::{Tmux, design_command, status_row, tmux_available};

const DESIGN: &str = "ARCHITECTURE:\n# A task CLI\n\nA CLI over a SQLite store; it serves FR-01.\n\n## Layers\n\n| layer | job |\n| --- | --- |\n| cli | parses the arguments |\n| store | keeps the tasks |\n\nREQUIREMENTS:\nFUNCTIONAL:\n1. FR-01: Add tasks.\n\nFILE_TREE:\nsrc/\n  cli.py\n\nAPI_SPEC:\nadd(name: str) -> int\n\nCLASS_DIAGRAM:\nclassDiagram\n  Cli --> Store\n";

const WAIT: Duration = Duration::from_secs(60);

fn start(dir: &Path, server: &Provider, width: u16, height: u16, extra: &str) -> Tmux {
    let tmux = Tmux {
        socket: dir.join("tmux.sock"),
        session: "volk-truth".into(),
    };
    tmux.start(width, height, &design_command(dir, &server.v1(), extra));
    tmux
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

/// How many keys the hint bar names (`k what · k what · ? help · q quit`).
fn hinted_keys(status: &str) -> usize {
    let Some(at) = status.find("? help") else {
        return 0;
    };
    // The hints start after the run of blanks that pads the left side.
    let head = &status[..at];
    let start = head.rfind("   ").map_or(0, |i| i + 3);
    status[start..].matches(" · ").count() + 1
}

macro_rules! need_tmux {
    () => {
        if !tmux_available() {
            eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
            return;
        }
    };
}

#[test]
fn the_hints_show_at_every_focus_and_a_notice_goes_after_six_seconds_and_a_key() {
    need_tmux!();
    for (width, height) in [(80, 24), (160, 48)] {
        let server = Provider::repeating(DESIGN);
        let dir = tempfile::tempdir().unwrap();
        let tmux = start(dir.path(), &server, width, height, "");
        let reading = tmux.wait_for("your review", WAIT);
        let status = status_row(&reading);
        assert!(hinted_keys(&status) >= 4, "{width}: reading: {status}");
        // A notice: drawn above the status bar, the hints stay whole.
        tmux.keys(&["w"]);
        let noticed = tmux.wait_for("w: wrap off", Duration::from_secs(5));
        let status = status_row(&noticed);
        assert!(!status.contains("w: wrap off"), "{noticed}");
        assert!(
            hinted_keys(&status) >= 4,
            "{width}: with a notice: {status}"
        );
        // The review pane and the composer have their own keys.
        tmux.keys(&["f"]);
        std::thread::sleep(Duration::from_millis(300));
        let pane = status_row(&tmux.screen());
        assert!(hinted_keys(&pane) >= 4, "{width}: review pane: {pane}");
        tmux.keys(&["a"]);
        let composer = tmux.wait_for("Enter save", Duration::from_secs(5));
        let status = status_row(&composer);
        assert!(hinted_keys(&status) >= 4, "{width}: composer: {status}");
        tmux.keys(&["Escape"]);
        tmux.keys(&["f"]);
        // Six seconds and a key later the notice has gone; M still lists it.
        std::thread::sleep(Duration::from_millis(6200));
        tmux.keys(&["j"]);
        std::thread::sleep(Duration::from_millis(400));
        let later = tmux.screen();
        assert!(!later.contains("w: wrap off"), "{later}");
        tmux.keys(&["M"]);
        let log = tmux.wait_for("Messages (", Duration::from_secs(5));
        assert!(log.contains("w: wrap off"), "{log}");
        tmux.keys(&["Escape"]);
        quit(&tmux);
    }
}

/// About 6 KB of a first cycle's architecture, then the connection drops.
fn cut_at_six_kilobytes() -> Provider {
    Provider::paced(Arc::new(|_, _| {
        let mut body = String::from("ARCHITECTURE:\n# A task CLI\n\n");
        let mut n = 0;
        while body.len() < 6 * 1024 {
            n += 1;
            body.push_str(&format!(
                "- Component {n} keeps its part of the task list apart from the others.\n"
            ));
        }
        let events: String = body.split_inclusive('\n').map(sse_chunk).collect();
        vec![
            Piece::Bytes(stream_head()),
            Piece::Bytes(events.into_bytes()),
            Piece::Pause(Duration::from_millis(200)),
        ]
    }))
}

#[test]
fn a_first_cycle_cut_at_six_kilobytes_keeps_its_text_dimmed_under_a_banner() {
    need_tmux!();
    let server = cut_at_six_kilobytes();
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(dir.path(), &server, 160, 48, "");
    let shot = tmux.wait_for("partial answer", WAIT);
    assert!(
        shot.contains("cycle 1 failed · partial answer (6 KB)"),
        "{shot}"
    );
    tmux.keys(&["Escape"]);
    let shot = tmux.wait_for("Component 88 keeps", Duration::from_secs(5));
    assert!(
        !shot.contains("this cycle has no architecture section"),
        "{shot}"
    );
    // Another tab says the answer stopped before it.
    tmux.keys(&["2"]);
    let other = tmux.wait_for("stopped before this section", Duration::from_secs(5));
    assert!(other.contains("cycle 1 failed"), "{other}");
    quit(&tmux);
    drop(tmux);
    // Reopened, the failed project is at cycle 1, not 0.
    let reopened = Tmux {
        socket: dir.path().join("tmux-reopen.sock"),
        session: "volk-reopen".into(),
    };
    reopened.start(100, 30, &open_command(dir.path(), &server, ""));
    let shot = reopened.wait_for("failed", WAIT);
    assert!(
        shot.lines().next().unwrap().contains("cycle 1/99"),
        "{shot}"
    );
    reopened.keys(&["Escape"]);
    quit(&reopened);
}

#[test]
fn a_refused_key_offers_the_fix_not_a_retry() {
    need_tmux!();
    let server = Provider::start(Arc::new(|_, _| {
        status(
            401,
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#,
        )
    }));
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(dir.path(), &server, 80, 24, "");
    let shot = tmux.wait_for("The reasoner failed", WAIT);
    assert!(!shot.contains("r: retry"), "{shot}");
    assert!(
        shot.contains("To fix: the provider refused the key: set a valid OPENAI_API_KEY"),
        "{shot}"
    );
    tmux.keys(&["r"]);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(server.hits(), 1, "r sent the refused call again");
    tmux.keys(&["Escape"]);
    quit(&tmux);
}

/// `volk open` of the one project under `dir/ws`, with the same environment as
/// [`design_command`] (a second workbench, or a resume).
fn open_command(dir: &Path, server: &Provider, extra: &str) -> String {
    let ws = dir.join("ws");
    let project = std::fs::read_dir(&ws)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.join(".volk").is_dir())
        .expect("a project in the workspace");
    let home = dir.join("home");
    format!(
        "env HOME={home} XDG_CONFIG_HOME={home}/.config GIT_CONFIG_NOSYSTEM=1 \
         OPENAI_API_KEY=sk-tmux-test VOLK_CONFIG_DIR={config} VOLK_LOG={log} \
         {volk} open {project} --reasoner openai --model scripted --base-url {url} {extra}; \
         echo VOLK-EXITED-$?; sleep 30",
        home = home.display(),
        config = dir.join("config").display(),
        log = dir.join("volk-open.log").display(),
        volk = env!("CARGO_BIN_EXE_volk"),
        project = project.display(),
        url = server.v1(),
    )
}

#[test]
fn a_second_workbench_says_read_only_first_and_refuses_the_composer() {
    need_tmux!();
    let server = Provider::repeating(DESIGN);
    let dir = tempfile::tempdir().unwrap();
    let first = start(dir.path(), &server, 160, 48, "");
    let live = first.wait_for("your review", WAIT);
    for (width, height) in [(80, 24), (60, 16)] {
        let second = Tmux {
            socket: dir.path().join(format!("tmux-{width}.sock")),
            session: "volk-second".into(),
        };
        second.start(width, height, &open_command(dir.path(), &server, ""));
        let shot = second.wait_for("READ-ONLY", WAIT);
        let header = shot.lines().next().unwrap();
        assert!(
            header.starts_with(" volk  READ-ONLY · held by"),
            "{width}: {shot}"
        );
        second.keys(&["a"]);
        let refused = second.wait_for("you cannot write here", Duration::from_secs(5));
        assert!(
            !refused.contains("Enter save"),
            "the composer opened: {refused}"
        );
        second.keys(&["q"]);
        second.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    }
    assert!(live.contains("your review"));
    quit(&first);
}

#[test]
fn all_seven_tabs_stay_on_screen_at_80_and_60_columns_with_their_counts() {
    need_tmux!();
    for (width, height) in [(80, 24), (60, 16)] {
        let server = Provider::repeating(DESIGN);
        let dir = tempfile::tempdir().unwrap();
        let tmux = start(dir.path(), &server, width, height, "");
        let shot = tmux.wait_for("your review", WAIT);
        let tabs = shot.lines().nth(1).unwrap();
        for n in 1..=7 {
            assert!(tabs.contains(&format!("{n} ")), "{width}: tab {n}: {tabs}");
        }
        assert!(tabs.contains("7 Plan"), "{width}: {tabs}");
        assert!(
            tabs.contains('✗') || tabs.contains('⚠'),
            "{width}: counts: {tabs}"
        );
        // The last tab is picked by its digit and shown.
        tmux.keys(&["6"]);
        let journal = tmux.wait_for("design_started", Duration::from_secs(5));
        assert!(journal.lines().nth(1).unwrap().contains("6 J"), "{journal}");
        assert!(
            !journal.contains("{\""),
            "raw JSON in the journal: {journal}"
        );
        quit(&tmux);
    }
}

#[test]
fn the_journal_reads_costs_and_compiler_runs_in_words() {
    need_tmux!();
    let server = Provider::repeating(DESIGN);
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(dir.path(), &server, 160, 48, "");
    tmux.wait_for("your review", WAIT);
    tmux.keys(&["6"]);
    let journal = tmux.wait_for("design_linted", Duration::from_secs(5));
    assert!(!journal.contains("{\""), "{journal}");
    assert!(
        journal.contains("cycle 1 · ") && journal.contains(" tok streamed · full rewrite ≈ "),
        "{journal}"
    );
    let linted = journal
        .lines()
        .find(|l| l.contains("design_linted"))
        .unwrap();
    assert!(
        linted.contains("cycle 1 · ") && linted.contains(" errors · ")
            || linted.contains(" error · "),
        "{linted}"
    );
    quit(&tmux);
}

#[test]
fn a_multi_line_question_keeps_its_lines_in_the_threads_and_a_crlf_paste_is_not_doubled() {
    need_tmux!();
    let server = Provider::repeating(DESIGN);
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(dir.path(), &server, 160, 48, "");
    tmux.wait_for("your review", WAIT);
    tmux.keys(&["a"]);
    tmux.wait_for("Enter save", Duration::from_secs(5));
    // A paste with CRLF line ends, as a Windows clipboard gives it (no replacement).
    tmux.run(&[
        "set-buffer",
        "-b",
        "q",
        "is the flag fixed\r\nper flag or global?",
    ]);
    tmux.run(&["paste-buffer", "-p", "-r", "-b", "q", "-t", &tmux.session]);
    std::thread::sleep(Duration::from_millis(300));
    tmux.keys(&["C-j"]);
    tmux.literal("and what does cancel keep?");
    std::thread::sleep(Duration::from_millis(200));
    let composer = tmux.screen();
    let rows: Vec<&str> = composer.lines().collect();
    let first = rows
        .iter()
        .position(|l| l.contains("is the flag fixed"))
        .unwrap();
    assert!(
        rows[first + 1].contains("per flag or global?"),
        "a doubled line break:\n{composer}"
    );
    tmux.keys(&["Enter"]);
    tmux.keys(&["C-s"]);
    let threads = tmux.wait_for("Threads", WAIT);
    let rows: Vec<&str> = threads.lines().collect();
    let at = rows
        .iter()
        .rposition(|l| l.contains("is the flag fixed"))
        .unwrap_or_else(|| panic!("{threads}"));
    let column = |row: &str, text: &str| row.find(text);
    assert!(rows[at + 1].contains("per flag or global?"), "{threads}");
    assert!(
        rows[at + 2].contains("and what does cancel keep?"),
        "{threads}"
    );
    assert_eq!(
        column(rows[at], "is the flag"),
        column(rows[at + 1], "per flag"),
        "indented under the question:\n{threads}"
    );
    quit(&tmux);
}

/// A long architecture (120 lines) that arrives at once, a silence of `pause`, then
/// the rest of the design.
fn long_design_with_a_pause(pause: Duration) -> Provider {
    Provider::paced(Arc::new(move |_, _| {
        let mut head = String::from("ARCHITECTURE:\n# A task CLI\n\n");
        for n in 1..=120 {
            head.push_str(&format!("- Part {n} of the design, on its own line.\n"));
        }
        let rest = DESIGN.split_once("\nREQUIREMENTS:").unwrap().1;
        let tail = format!("\nREQUIREMENTS:{rest}");
        let events = |text: &str| -> Vec<u8> {
            text.split_inclusive('\n')
                .map(sse_chunk)
                .collect::<String>()
                .into_bytes()
        };
        vec![
            Piece::Bytes(stream_head()),
            Piece::Bytes(events(&head)),
            Piece::Pause(pause),
            Piece::Bytes(events(&tail)),
            Piece::Bytes(support::provider::sse_end().into_bytes()),
        ]
    }))
}

#[test]
fn a_stall_says_no_data_then_space_stops_at_the_end_and_colon_goes_to_a_line() {
    need_tmux!();
    let server = long_design_with_a_pause(Duration::from_secs(8));
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(dir.path(), &server, 80, 24, "");
    let stalled = tmux.wait_for("no data for", Duration::from_secs(30));
    assert!(status_row(&stalled).contains("no data for"), "{stalled}");
    assert!(!status_row(&stalled).contains("tok/s"), "{stalled}");
    tmux.wait_for("your review", WAIT);
    tmux.keys(&["1"]);
    for _ in 0..12 {
        tmux.keys(&["Space"]);
    }
    std::thread::sleep(Duration::from_millis(400));
    let end = tmux.screen();
    let rows: Vec<&str> = end.lines().collect();
    // The viewer's last text row holds the document's last line; nothing blank below.
    let border = rows.iter().position(|l| l.starts_with('╰')).unwrap();
    assert!(rows[border - 1].contains("Part 120 of the design"), "{end}");
    // :5 puts the cursor on line 5.
    tmux.keys(&[":"]);
    tmux.wait_for("go to line", Duration::from_secs(5));
    tmux.keys(&["5", "Enter"]);
    let moved = tmux.wait_for(" 5/122 ", Duration::from_secs(5));
    assert!(moved.contains("│  5 - Part 3 of the design"), "{moved}");
    quit(&tmux);
}

#[test]
fn citations_are_not_counted_against_requirements_that_have_not_streamed_yet() {
    need_tmux!();
    let server = Provider::paced(Arc::new(|_, _| {
        let events = |text: &str| -> Vec<u8> {
            text.split_inclusive('\n')
                .map(sse_chunk)
                .collect::<String>()
                .into_bytes()
        };
        let first = "ARCHITECTURE:\n# A task CLI\n\n- The CLI serves FR-01 and FR-09.\n\nFILE_TREE:\nsrc/\n  cli.py\n";
        let rest = "\nREQUIREMENTS:\nFUNCTIONAL:\n1. FR-01: Add tasks.\n\nAPI_SPEC:\nadd(name: str) -> int\n\nCLASS_DIAGRAM:\nclassDiagram\n  Cli --> Store\n";
        vec![
            Piece::Bytes(stream_head()),
            Piece::Bytes(events(first)),
            Piece::Pause(Duration::from_secs(7)),
            Piece::Bytes(events(rest)),
            Piece::Bytes(support::provider::sse_end().into_bytes()),
        ]
    }));
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(dir.path(), &server, 160, 48, "");
    // The stream stalls after the file tree: the requirements have not come.
    let early = tmux.wait_for("no data for", Duration::from_secs(30));
    assert!(
        !early.contains("your review"),
        "the pause was too short: {early}"
    );
    let tabs = early.lines().nth(1).unwrap();
    let architecture = tabs.split("2 Req").next().unwrap();
    assert!(
        !architecture.contains('✗'),
        "counted before Requirements streamed: {tabs}"
    );
    // Once the requirements are in, FR-09 is unknown and counted.
    let done = tmux.wait_for("your review", WAIT);
    let tabs = done.lines().nth(1).unwrap();
    assert!(tabs.split("2 Req").next().unwrap().contains("✗1"), "{tabs}");
    quit(&tmux);
}

/// The cycle's figures from a status bar: `cycle 1.3k out · 2.1k in` (with the
/// provider's input count) or `this cycle 1.3k tok` (without), up to the rewrite estimate.
fn cycle_cost(screen: &str) -> String {
    let status = status_row(screen);
    let at = status
        .match_indices("cycle ")
        .map(|(i, _)| i)
        .find(|&i| {
            status[i + 6..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .unwrap_or_else(|| panic!("no cost: {screen}"));
    let figures = &status[at..];
    let end = figures
        .find(" · rewrite")
        .or_else(|| figures.find(" · full rewrite"))
        .unwrap_or(figures.len());
    figures[..end].trim_end().to_string()
}

/// The cycle's figures once the status bar itself shows them (a notice above it may
/// say them first, while the last of the stream is still drawn).
fn status_cost(tmux: &Tmux) -> String {
    let start = std::time::Instant::now();
    loop {
        let shot = tmux.screen();
        if status_row(&shot).contains(" out · ") {
            return cycle_cost(&shot);
        }
        assert!(start.elapsed() < WAIT, "no cost in the status bar: {shot}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_cycle_costs_the_same_live_after_volk_open_and_in_a_second_instance() {
    need_tmux!();
    let server = Provider::repeating(DESIGN);
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(dir.path(), &server, 160, 48, "");
    // The figure of the cycle under review, as the status bar itself shows it.
    tmux.wait_for("your review", WAIT);
    let live = status_cost(&tmux);
    // A second workbench (read-only) on the same thread.
    let second = Tmux {
        socket: dir.path().join("tmux-second.sock"),
        session: "volk-second".into(),
    };
    second.start(160, 48, &open_command(dir.path(), &server, ""));
    let shot = second.wait_for("READ-ONLY", WAIT);
    assert_eq!(status_cost(&second), live, "{shot}");
    second.keys(&["q"]);
    second.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    quit(&tmux);
    drop(tmux);
    // Reopened after quitting.
    let reopened = Tmux {
        socket: dir.path().join("tmux-reopen.sock"),
        session: "volk-reopen".into(),
    };
    reopened.start(160, 48, &open_command(dir.path(), &server, ""));
    let shot = reopened.wait_for("your review", WAIT);
    assert!(shot.contains("cycle 1/99"), "{shot}");
    assert_eq!(status_cost(&reopened), live);
    quit(&reopened);
}

#[test]
fn a_table_is_a_grid_and_a_conflict_is_drawn_as_one_and_resolved_by_a_key() {
    need_tmux!();
    let design = DESIGN.replace(
        "## Layers\n",
        "<<<<<<< reviewer\nThe store is SQLite, one writer.\n=======\n> The store is a JSON file.\n>>>>>>> architect\n\n## Layers\n",
    );
    let server = Provider::repeating(&design);
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(dir.path(), &server, 100, 30, "");
    tmux.wait_for("your review", WAIT);
    // The table: a grid, no rule row of dashes (once the highlighter is warm).
    let shot = tmux.wait_for("├───────┼", Duration::from_secs(20));
    assert!(shot.contains("│ cli   │ parses the arguments │"), "{shot}");
    assert!(shot.contains("├───────┼"), "{shot}");
    assert!(!shot.contains("| --- |"), "{shot}");
    // The conflict: markers and both sides drawn as they are, not as a quote.
    assert!(shot.contains("<<<<<<< reviewer"), "{shot}");
    assert!(shot.contains("> The store is a JSON file."), "{shot}");
    let row = shot
        .lines()
        .find(|l| l.contains("<<<<<<< reviewer"))
        .unwrap();
    let line: String = row
        .chars()
        .skip(1)
        .take_while(|c| c.is_ascii_digit() || *c == ' ')
        .collect();
    let line = line.trim().to_string();
    tmux.keys(&[":"]);
    tmux.literal(&(line.parse::<usize>().unwrap() + 1).to_string());
    tmux.keys(&["Enter"]);
    let hinted = tmux.wait_for("keep mine/theirs/both", Duration::from_secs(5));
    assert!(status_row(&hinted).contains("< > ="), "{hinted}");
    tmux.keys(&["<"]);
    let done = tmux.wait_for("committed as your edit", Duration::from_secs(5));
    assert!(!done.contains("<<<<<<< reviewer"), "{done}");
    let ws = dir.path().join("ws");
    let project = std::fs::read_dir(&ws)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.join(".volk").is_dir())
        .unwrap();
    let file = std::fs::read_to_string(project.join("design/architecture.md")).unwrap();
    assert!(file.contains("The store is SQLite, one writer."), "{file}");
    assert!(
        !file.contains("JSON file") && !file.contains("<<<<<<<"),
        "{file}"
    );
    quit(&tmux);
}

/// An architecture that opens with a table whose cells wrap at 80 columns and one
/// whose identifier cannot fit there (drawn as source at 80, as a grid at 160), then
/// 100 lines and a last table row that ends the document (`zebra-end`).
fn tables_design() -> String {
    let mut arch = String::from(
        "ARCHITECTURE:\n# A task CLI\n\n\
         | id | what it keeps |\n| --- | --- |\n\
         | FR-01 | keeps every task of the list in one SQLite file and writes each change in one transaction |\n\n\
         | name | note |\n| --- | --- |\n\
         | store | Store_keeps_every_task_of_the_list_in_one_SQLite_file_and_writes_each_change_now |\n\n",
    );
    for n in 1..=100 {
        arch.push_str(&format!("- Part {n} of the design, on its own line.\n"));
    }
    arch.push_str(
        "\n| last | row |\n| --- | --- |\n\
         | end | the final row of the document, long enough to wrap inside its column at eighty columns zebra-end |\n",
    );
    let rest = DESIGN.split_once("\nREQUIREMENTS:").unwrap().1;
    format!("{arch}\nREQUIREMENTS:{rest}")
}

/// The row of the screen holding `text`, and whether the viewer draws nothing below
/// it (the next row is the pane's bottom border, or the notice drawn over it).
fn ends_the_viewer(screen: &str, text: &str) -> bool {
    let rows: Vec<&str> = screen.lines().collect();
    let Some(at) = rows.iter().position(|r| r.contains(text)) else {
        return false;
    };
    rows.get(at + 1).is_some_and(|next| !next.starts_with('│'))
}

#[test]
fn a_table_wraps_its_cells_inside_their_columns_and_falls_back_to_source_when_it_cannot_fit() {
    need_tmux!();
    for (width, height) in [(80, 24), (160, 48)] {
        let server = Provider::repeating(&tables_design());
        let dir = tempfile::tempdir().unwrap();
        let tmux = start(dir.path(), &server, width, height, "");
        tmux.wait_for("your review", WAIT);
        tmux.keys(&["1"]);
        let shot = tmux.wait_for("├───────┼", Duration::from_secs(20));
        // The first table is a grid: neither its head nor its rule row as source.
        assert!(!shot.contains("| id | what it keeps |"), "{width}: {shot}");
        let rows: Vec<&str> = shot.lines().collect();
        let first = rows
            .iter()
            .position(|r| r.contains("│ FR-01 │ keeps every task"))
            .unwrap_or_else(|| panic!("{width}: {shot}"));
        if width == 80 {
            // The long cell goes on under itself, inside its column.
            assert!(
                rows[first + 1].contains("│       │ ") && rows[first + 1].contains("transaction"),
                "{shot}"
            );
            assert!(!rows[first].contains("transaction"), "{shot}");
            // Its identifier is wider than any share of 80 columns: the source.
            tmux.keys(&["j", "j", "j", "j", "j", "j", "j", "j"]);
            let lower = tmux.wait_for("| store |", Duration::from_secs(5));
            assert!(!lower.contains("│ store │"), "{lower}");
        } else {
            assert!(
                rows[first].contains("one transaction │"),
                "one row at 160: {shot}"
            );
            assert!(
                shot.contains("│ store │ Store_keeps_every_task_of"),
                "{shot}"
            );
        }
        // The head, the rule and the row line up: their column lines at one place.
        let bar = |r: &str| {
            r.char_indices()
                .filter(|(_, c)| *c == '│' || *c == '┼')
                .nth(2)
                .map(|(i, _)| r[..i].chars().count())
        };
        let head = rows.iter().find(|r| r.contains("│ id ")).unwrap();
        let rule = rows.iter().find(|r| r.contains("├───────┼")).unwrap();
        assert_eq!(bar(head), bar(rows[first]), "{width}: {shot}");
        assert_eq!(
            rule.find('┼').map(|i| rule[..i].chars().count()),
            head.char_indices()
                .filter(|(_, c)| *c == '│')
                .nth(2)
                .map(|(i, _)| head[..i].chars().count()),
            "{width}: {shot}"
        );
        quit(&tmux);
    }
}

#[test]
fn space_pgdn_and_g_stop_with_the_last_line_at_the_bottom_of_the_viewer() {
    need_tmux!();
    for (width, height) in [(80, 24), (160, 48)] {
        let server = Provider::repeating(&tables_design());
        let dir = tempfile::tempdir().unwrap();
        let tmux = start(dir.path(), &server, width, height, "");
        tmux.wait_for("your review", WAIT);
        tmux.keys(&["1"]);
        tmux.wait_for("├───────┼", Duration::from_secs(20));
        for (name, key, times) in [("Space", "Space", 20), ("PgDn", "NPage", 20), ("G", "G", 1)] {
            tmux.keys(&["g"]);
            std::thread::sleep(Duration::from_millis(200));
            for _ in 0..times {
                tmux.keys(&[key]);
            }
            std::thread::sleep(Duration::from_millis(500));
            let shot = tmux.wait_for("zebra-end", Duration::from_secs(5));
            assert!(
                ends_the_viewer(&shot, "zebra-end"),
                "{width}x{height} {name}: the last line is not at the bottom:\n{shot}"
            );
            assert!(
                shot.contains("- Part 100 of the design"),
                "{width}x{height} {name}: scrolled past the end:\n{shot}"
            );
        }
        quit(&tmux);
    }
}

/// Sends the saved question with Ctrl-S once the review pane lists it, again if the
/// key was lost under load, and waits for `then`.
fn send(tmux: &Tmux, then: &str) -> String {
    tmux.wait_for("Your questions (1)", Duration::from_secs(10));
    for _ in 0..3 {
        tmux.keys(&["C-s"]);
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_secs(3) {
            let shot = tmux.screen();
            if shot.contains(then) || !shot.contains("Your questions (1)") {
                return tmux.wait_for(then, WAIT);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    tmux.wait_for(then, WAIT)
}

/// An edit block for an update answer.
fn block(search: &str, replace: &str) -> String {
    format!("<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n")
}

/// Issue 26 item 7 on an update cycle: cycle 2 answers a question with an edit block
/// that applies and one that fails, then a repair; its figures read the same live,
/// in a second instance and after `volk open`.
#[test]
fn an_update_cycle_costs_the_same_live_after_volk_open_and_in_a_second_instance() {
    need_tmux!();
    let update = format!(
        "REQUIREMENTS:\n{}{}CHANGES:\n- requirements: OQ1 a due date\n",
        block(
            "1. FR-01: Add tasks.",
            "1. FR-01: Add tasks with a due date."
        ),
        block("2. FR-02: Missing.", "2. FR-02: List tasks.")
    );
    let repair = format!(
        "REQUIREMENTS:\n{}",
        block(
            "1. FR-01: Add tasks with a due date.",
            "1. FR-01: Add tasks with a due date.\n2. FR-02: List tasks."
        )
    );
    let server = Provider::scripted(vec![DESIGN.to_string(), update, repair]);
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(dir.path(), &server, 160, 48, "");
    let first = status_cost(&tmux);
    tmux.keys(&["a"]);
    tmux.wait_for("Enter save", Duration::from_secs(5));
    tmux.literal("do tasks have a due date?");
    tmux.keys(&["Enter"]);
    let reviewed = send(&tmux, "cycle 2/99");
    let start = std::time::Instant::now();
    let live = loop {
        let shot = tmux.screen();
        let status = status_row(&shot);
        if shot.contains("your review") && status.contains(" out · ") && status.contains("commit ")
        {
            let cost = cycle_cost(&shot);
            if cost != first {
                break cost;
            }
        }
        assert!(start.elapsed() < WAIT, "{reviewed}\n{}", tmux.screen());
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(server.hits(), 3, "design, update, repair");
    // A second workbench (read-only) on the same thread.
    let second = Tmux {
        socket: dir.path().join("tmux-second.sock"),
        session: "volk-second".into(),
    };
    second.start(160, 48, &open_command(dir.path(), &server, ""));
    let shot = second.wait_for("READ-ONLY", WAIT);
    assert_eq!(status_cost(&second), live, "second instance: {shot}");
    second.keys(&["q"]);
    second.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    quit(&tmux);
    drop(tmux);
    let reopened = Tmux {
        socket: dir.path().join("tmux-reopen.sock"),
        session: "volk-reopen".into(),
    };
    reopened.start(160, 48, &open_command(dir.path(), &server, ""));
    let shot = reopened.wait_for("your review", WAIT);
    assert!(shot.contains("cycle 2/99"), "{shot}");
    assert_eq!(status_cost(&reopened), live, "after volk open: {shot}");
    // Cycle 3's call fails (the script is used up: HTTP 400). The figure shown is
    // still cycle 2's, here and after another `volk open`.
    reopened.keys(&["a"]);
    reopened.wait_for("Enter save", Duration::from_secs(5));
    reopened.literal("and a priority?");
    reopened.keys(&["Enter"]);
    send(&reopened, "The reasoner failed");
    reopened.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(300));
    let failed = reopened.screen();
    assert_eq!(cycle_cost(&failed), live, "after the failure: {failed}");
    reopened.keys(&["q"]);
    std::thread::sleep(Duration::from_millis(300));
    if reopened.screen().contains("Quit?") {
        reopened.keys(&["y"]);
    }
    reopened.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    drop(reopened);
    let again = Tmux {
        socket: dir.path().join("tmux-again.sock"),
        session: "volk-again".into(),
    };
    again.start(160, 48, &open_command(dir.path(), &server, ""));
    let shot = again.wait_for("failed", WAIT);
    again.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(300));
    let shot2 = again.screen();
    assert_eq!(
        cycle_cost(&shot2),
        live,
        "after the failed cycle and volk open: {shot}\n{shot2}"
    );
    again.keys(&["q"]);
    std::thread::sleep(Duration::from_millis(300));
    if again.screen().contains("Quit?") {
        again.keys(&["y"]);
    }
    again.wait_for("VOLK-EXITED-", Duration::from_secs(20));
}
