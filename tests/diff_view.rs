//! The diff view made for reviewing (issue 14, item 12): changed words marked as
//! styled cells, hunk jumps, search, side by side on a wide terminal, wrapping at
//! words, and a diff against cycle 1 picked from the history of a real three-cycle
//! demo in tmux.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use std::time::Duration;
use support::screen::info;
use support::tmux::{Tmux, demo_command, tmux_available};

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyCode;
use volk::design::{Artifacts, Section};
use volk::tui::app::App;
use volk::tui::event::{AppEvent, LoopEvent};
use volk::tui::scene::Scene;
use volk::tui::test_keys::{ch, key, typed};
use volk::tui::theme::Theme;

/// An app whose architecture went through `cycles`, the last one under review.
fn reviewing(cycles: &[String]) -> App {
    let mut scene = Scene::new(info());
    for (i, text) in cycles.iter().enumerate() {
        let cycle = i as u32 + 1;
        let artifacts = Artifacts {
            architecture: text.clone(),
            api_spec: "run() -> None\n".into(),
            ..Artifacts::default()
        };
        scene = scene
            .cycle(cycle, artifacts, &[Section::Architecture])
            .committed(cycle, &format!("c{cycle}"));
    }
    scene.awaiting_review(cycles.len() as u32).app()
}

use support::screen::frame as draw;

fn text_of(buffer: &Buffer) -> String {
    let area = buffer.area;
    let mut out = String::new();
    for y in 0..area.height {
        for x in 0..area.width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// The screen column and row where `needle` starts (on one row).
fn find(buffer: &Buffer, needle: &str) -> Option<(u16, u16)> {
    let area = buffer.area;
    for y in 0..area.height {
        let row: Vec<String> = (0..area.width)
            .map(|x| buffer[(x, y)].symbol().to_string())
            .collect();
        let line: String = row.concat();
        if let Some(byte) = line.find(needle) {
            // Columns, not bytes: count the cells before the match.
            let mut seen = 0;
            for (x, cell) in row.iter().enumerate() {
                if seen == byte {
                    return Some((x as u16, y));
                }
                seen += cell.len();
            }
        }
    }
    None
}

/// A long artifact with three far-apart changes between its two cycles.
fn three_hunks() -> (String, String) {
    let old: String = (1..=120)
        .map(|i| format!("line {i}: the store keeps record {i}\n"))
        .collect();
    let new = old
        .replace(
            "line 10: the store keeps record 10\n",
            "line 10: the cache keeps record 10\n",
        )
        .replace(
            "line 60: the store keeps record 60\n",
            "line 60: the store keeps record 60\nline 60b: an added line\n",
        )
        .replace("line 110: the store keeps record 110\n", "");
    (old, new)
}

#[test]
fn a_changed_word_is_painted_not_the_whole_line() {
    let mut app = reviewing(&[
        "# bookshelf (cycle 1)\n\nThe store keeps books.\n".into(),
        "# bookshelf (cycle 2)\n\nThe store keeps books.\n".into(),
    ]);
    app.on_key(ch('d'));
    let buffer = draw(&mut app, 100, 30);
    let screen = text_of(&buffer);
    assert!(
        screen.contains("changes since the previous cycle (+1 −1)"),
        "{screen}"
    );
    let p = Theme::dark().palette;
    // The new line: "2" on the added colour, "cycle" and "bookshelf" not.
    let (x, y) = find(&buffer, "# bookshelf (cycle 2)").unwrap();
    let cell = |dx: u16| buffer[(x + dx, y)].clone();
    assert_eq!(cell(19).symbol(), "2");
    assert_eq!(
        cell(19).bg,
        p.added,
        "the changed word has the added background"
    );
    assert_eq!(cell(19).fg, p.background);
    for dx in [0, 2, 13, 18, 20] {
        assert_ne!(cell(dx).bg, p.added, "column {dx} is not a changed word");
        assert_eq!(
            cell(dx).fg,
            p.added,
            "the rest of the line is in the added colour"
        );
    }
    // The old line: "1" on the removed colour.
    let (x, y) = find(&buffer, "# bookshelf (cycle 1)").unwrap();
    assert_eq!(buffer[(x + 19, y)].bg, p.removed);
    assert_ne!(buffer[(x + 13, y)].bg, p.removed);
    insta::assert_snapshot!("diff_word_level", screen);
}

#[test]
fn bracket_keys_jump_between_hunks() {
    let (old, new) = three_hunks();
    let mut app = reviewing(&[old, new]);
    app.on_key(ch('d'));
    let screen = text_of(&draw(&mut app, 100, 24));
    assert!(screen.contains("hunk 1/3"), "{screen}");
    assert!(screen.contains("the cache keeps record 10"), "{screen}");
    assert!(screen.contains("⋯ 43 unchanged lines"), "{screen}");

    app.on_key(ch(']'));
    let screen = text_of(&draw(&mut app, 100, 24));
    assert!(screen.contains("hunk 2/3"), "{screen}");
    assert!(screen.contains("▸+ line 60b: an added line"), "{screen}");

    app.on_key(ch(']'));
    let screen = text_of(&draw(&mut app, 100, 24));
    assert!(screen.contains("hunk 3/3"), "{screen}");
    assert!(
        screen.contains("▸- line 110: the store keeps record 110"),
        "{screen}"
    );
    insta::assert_snapshot!("diff_third_hunk", screen);

    app.on_key(ch(']'));
    assert_eq!(app.notice.as_deref(), Some("]: no hunk below"));
    app.on_key(ch('['));
    let screen = text_of(&draw(&mut app, 100, 24));
    assert!(screen.contains("hunk 2/3"), "{screen}");

    // g and G: the top and the last line.
    app.on_key(ch('G'));
    let screen = text_of(&draw(&mut app, 100, 24));
    // The diff ends with the last change's context.
    assert!(
        screen.contains("▸  line 113: the store keeps record 113"),
        "{screen}"
    );
    assert!(!screen.contains("line 9:"), "{screen}");
    app.on_key(ch('g'));
    let screen = text_of(&draw(&mut app, 100, 24));
    assert!(
        screen.contains("line 7: the store keeps record 7"),
        "{screen}"
    );
}

#[test]
fn search_in_the_diff_moves_as_typed_and_counts() {
    let (old, new) = three_hunks();
    let mut app = reviewing(&[old, new]);
    app.on_key(ch('d'));
    draw(&mut app, 100, 24);
    app.on_key(ch('/'));
    typed(&mut app, "record 6");
    let screen = text_of(&draw(&mut app, 100, 24));
    // record 6, 60 (twice: it is context of the second hunk) and 61..63 are shown.
    assert!(screen.contains("/record 6▍  1/"), "{screen}");
    app.on_key(key(KeyCode::Enter));
    app.on_key(ch('n'));
    let screen = text_of(&draw(&mut app, 100, 24));
    assert!(screen.contains("/record 6 2/"), "{screen}");
    app.on_key(ch('N'));
    app.on_key(ch('N'));
    let screen = text_of(&draw(&mut app, 100, 24));
    assert!(screen.contains("wrapped to the bottom"), "{screen}");
    // Esc while typing goes back to where / was pressed.
    app.on_key(ch('g'));
    app.on_key(ch('/'));
    typed(&mut app, "record 112");
    let screen = text_of(&draw(&mut app, 100, 24));
    assert!(screen.contains("▸  line 112"), "{screen}");
    app.on_key(key(KeyCode::Esc));
    let screen = text_of(&draw(&mut app, 100, 24));
    assert!(!screen.contains("line 112"), "{screen}");
    assert!(screen.contains("▸  line 7:"), "{screen}");
}

#[test]
fn side_by_side_at_160_columns_and_wrapping_at_words() {
    let long = "The catalogue service answers every lookup from the cache and falls back to the store when the entry is missing";
    let old = format!("# title\n\nintro\n{long}\nold only line\nend\n");
    let new = format!(
        "# title\n\nintro\n{}\nend\nnew tail line\n",
        long.replace("the cache", "the memory cache")
    );
    let mut app = reviewing(&[old, new]);
    app.on_key(ch('d'));
    let buffer = draw(&mut app, 160, 30);
    let screen = text_of(&buffer);
    // Old on the left, new on the right, in the same rows.
    let (lx, ly) = find(&buffer, "The catalogue service").unwrap();
    let row: String = (0..160).map(|x| buffer[(x, ly)].symbol()).collect();
    assert_eq!(row.matches("The catalogue service").count(), 2, "{screen}");
    assert!(lx < 80, "{screen}");
    let (ox, oy) = find(&buffer, "old only line").unwrap();
    assert!(ox < 80 && !text_of(&buffer).lines().nth(oy as usize).unwrap()[80..].contains("new"));
    let (nx, _) = find(&buffer, "new tail line").unwrap();
    assert!(nx > 80, "{screen}");
    // The changed word is painted on the right.
    let (mx, my) = find(&buffer, "memory").unwrap();
    assert!(mx > 80);
    assert_eq!(buffer[(mx, my)].bg, Theme::dark().palette.added);
    // Each half wraps at words: no row ends inside a word of the long line.
    for word in long.split(' ') {
        assert!(screen.contains(word), "{word} split: {screen}");
    }
    insta::assert_snapshot!("diff_side_by_side_160", screen);

    // Narrower, it is unified; `s` puts it side by side anyway.
    let screen = text_of(&draw(&mut app, 100, 30));
    assert!(screen.contains("- old only line"), "{screen}");
    app.on_key(ch('s'));
    let buffer = draw(&mut app, 100, 30);
    let (x, y) = find(&buffer, "The catalogue").unwrap();
    let row: String = (0..100).map(|x| buffer[(x, y)].symbol()).collect();
    assert_eq!(
        row.matches("The catalogue").count(),
        2,
        "{}",
        text_of(&buffer)
    );
    assert!(x < 50);
}

/// The screen once it shows `what` and no longer `gone` (tmux may capture a frame
/// half drawn).
fn settled(tmux: &Tmux, what: &str, gone: &str) -> String {
    let start = std::time::Instant::now();
    loop {
        let screen = tmux.wait_for(what, Duration::from_secs(15));
        if !screen.contains(gone) {
            return screen;
        }
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "{gone:?} stays on the screen:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The row of `screen` holding `text`, if any.
fn row_with<'a>(screen: &'a str, text: &str) -> Option<&'a str> {
    screen.lines().find(|l| l.contains(text))
}

#[test]
fn compare_with_cycle_1_from_cycle_3_in_the_demo() {
    if !tmux_available() {
        eprintln!("SKIPPED compare_with_cycle_1_from_cycle_3_in_the_demo: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    let tmux = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-diff".into(),
    };
    let command = demo_command(dir.path(), &workspace);
    tmux.start(140, 40, &command);
    tmux.wait_for("your review", Duration::from_secs(60));
    for (i, question) in [
        "Which table holds the reading sessions?",
        "Where are the progress figures computed?",
    ]
    .iter()
    .enumerate()
    {
        tmux.keys(&["a"]);
        tmux.wait_for("New question", Duration::from_secs(15));
        tmux.literal(question);
        tmux.keys(&["Enter"]);
        tmux.wait_for("Your questions (1)", Duration::from_secs(15));
        tmux.keys(&["C-s"]);
        tmux.wait_for(&format!("cycle {}/", i + 2), Duration::from_secs(30));
        tmux.wait_for("your review", Duration::from_secs(60));
    }
    // Against the previous cycle, the old title is cycle 2's.
    tmux.keys(&["1", "d"]);
    let previous = settled(&tmux, "changes since the previous cycle", "Compare ");
    let old = row_with(&previous, "architecture (cycle 2)").unwrap_or_else(|| panic!("{previous}"));
    assert!(old.contains("- #"), "{previous}");
    assert!(
        row_with(&previous, "architecture (cycle 1)").is_none(),
        "{previous}"
    );

    // `c` lists the cycles; the one of cycle 1 is picked.
    tmux.keys(&["c"]);
    let list = settled(&tmux, "Design cycle 1", "changes since the previous");
    assert!(
        list.contains("Compare Architecture with the cycle"),
        "{list}"
    );
    let cycles: Vec<&str> = list
        .lines()
        .filter(|l| l.contains("Design cycle "))
        .collect();
    assert_eq!(cycles.len(), 3, "{list}");
    let at = cycles
        .iter()
        .position(|l| l.contains("Design cycle 1"))
        .unwrap();
    for _ in 0..at {
        tmux.keys(&["j"]);
    }
    tmux.keys(&["Enter"]);
    let against_first = settled(&tmux, "(Design cycle 1) (+", "Compare ");
    let old = row_with(&against_first, "architecture (cycle 1)")
        .unwrap_or_else(|| panic!("{against_first}"));
    assert!(old.contains("- #"), "{against_first}");
    let new = row_with(&against_first, "architecture (cycle 3)")
        .unwrap_or_else(|| panic!("{against_first}"));
    assert!(new.contains("+ #"), "{against_first}");
    // Esc in the list went nowhere: the diff is still the one against cycle 1.
    tmux.keys(&["c"]);
    settled(&tmux, "Compare Architecture", "(Design cycle 1) (+");
    tmux.keys(&["Escape"]);
    settled(&tmux, "(Design cycle 1) (+", "Compare ");
    // Esc closes it; q quits.
    tmux.keys(&["Escape"]);
    tmux.keys(&["q"]);
    let end = tmux.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    assert!(end.contains("VOLK-EXITED-0"), "{end}");
}

/// A line the reviewer wrote by hand is marked `reviewer` in the diff, apart from
/// the architect's changes (issue 22, item 6), in a live session too, where the
/// workbench's previous text already holds the hand edit: the mark and the base come
/// from the edit the cycle took, not from the workbench's last text.
#[test]
fn the_reviewers_own_lines_are_marked_in_the_diff() {
    let read = "# bookshelf\n\nThe store keeps books.\nShelves hold books.\n";
    let edited = "# bookshelf\n\nThe store keeps books by title.\nShelves hold books.\n";
    // The architect changes the shelves and repeats the reviewer's words elsewhere.
    let after = "# bookshelf\n\nThe store keeps books by title.\nShelves hold up to 40 books.\n\nThe store keeps books by title.\n";
    // Live: cycle 1, then the edit shown at once, then cycle 2.
    let mut app = reviewing(&[read.into(), edited.into(), after.into()]);
    let mut review = volk::volk::review::ReviewState::default();
    review
        .last
        .reviewer
        .push(volk::volk::review::reviewer_lines(
            Section::Architecture,
            read,
            edited,
            after,
        ));
    app.on_app_event(AppEvent::Loop(LoopEvent::Review(Box::new(review))));
    app.on_key(ch('d'));
    let screen = text_of(&draw(&mut app, 100, 30));
    let rows = |text: &str| -> Vec<String> {
        screen
            .lines()
            .filter(|l| l.contains(text))
            .map(str::to_string)
            .collect()
    };
    let title = rows("+ The store keeps books by title.");
    assert_eq!(title.len(), 2, "{screen}");
    assert!(title[0].contains("reviewer"), "{screen}");
    assert!(
        !title[1].contains("reviewer"),
        "the architect's line in the same words: {screen}"
    );
    assert!(
        rows("- The store keeps books.")[0].contains("reviewer"),
        "{screen}"
    );
    assert!(
        !rows("+ Shelves hold up to 40 books.")[0].contains("reviewer"),
        "{screen}"
    );
    assert!(
        !rows("- Shelves hold books.")[0].contains("reviewer"),
        "{screen}"
    );
}
