//! Properties of edit blocks: random sections with random edits, written as blocks
//! (with indentation shifts and trailing white space), give exactly the edited text;
//! missing and repeated SEARCH texts fail with their reason; an answer fed in chunks
//! split anywhere gives what one pass gives.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use volk::design::edit::apply::apply_blocks;
use volk::design::edit::stream::{PatchStream, Settled};
use volk::design::edit::{EditBlock, Failure};
use volk::design::{Artifacts, Section};

/// A line: its indentation and its words. Every line of a section is tagged with its
/// number so that a run of lines occurs once.
#[derive(Debug, Clone)]
struct Line {
    indent: usize,
    words: String,
}

fn words() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("class Store:".to_string()),
        Just("save(self, record: dict) -> int".to_string()),
        Just("├── cli.py".to_string()),
        Just("- ADR-001: ünïcode — 日本".to_string()),
        "[a-z(): ->]{1,24}",
    ]
}

fn section() -> impl Strategy<Value = Vec<Line>> {
    prop::collection::vec((0usize..4, words()), 1..30).prop_map(|lines| {
        lines
            .into_iter()
            .enumerate()
            .map(|(i, (depth, w))| Line {
                indent: depth * 2,
                words: format!("{w} #{i}"),
            })
            .collect()
    })
}

/// An edit: replace `len` lines from `start` (taken modulo the section) by new lines
/// (depth, words; an empty string is a blank line).
#[derive(Debug, Clone)]
struct Edit {
    start: usize,
    len: usize,
    new: Vec<(usize, String)>,
    /// Indentation added to both sides of the block (negative: removed).
    shift: i32,
    trailing: bool,
}

fn edit() -> impl Strategy<Value = Edit> {
    (
        0usize..1000,
        1usize..4,
        prop::collection::vec((0usize..4, prop_oneof![Just(String::new()), words()]), 0..4),
        -4i32..5,
        any::<bool>(),
    )
        .prop_map(|(start, len, new, shift, trailing)| Edit {
            start,
            len,
            new,
            shift,
            trailing,
        })
}

fn render(indent: usize, words: &str) -> String {
    if words.is_empty() {
        String::new()
    } else {
        format!("{}{words}", " ".repeat(indent))
    }
}

/// The edits made disjoint, in order, and each block as the architect writes it.
fn plan(lines: &[Line], edits: Vec<Edit>) -> (String, Vec<EditBlock>) {
    let mut taken = vec![false; lines.len()];
    let mut chosen: Vec<(usize, usize, Edit)> = Vec::new();
    for (k, e) in edits.into_iter().enumerate() {
        let start = e.start % lines.len();
        let end = (start + e.len).min(lines.len());
        if taken[start..end].iter().any(|t| *t) {
            continue;
        }
        taken[start..end].iter_mut().for_each(|t| *t = true);
        let mut e = e;
        for (j, (_, w)) in e.new.iter_mut().enumerate() {
            if !w.is_empty() {
                *w = format!("{w} new{k}.{j}");
            }
        }
        chosen.push((start, end, e));
    }
    // Expected text: the edits applied by position, from the last so indices hold.
    let mut expected: Vec<String> = lines.iter().map(|l| render(l.indent, &l.words)).collect();
    let mut by_position = chosen.clone();
    by_position.sort_by_key(|(s, _, _)| std::cmp::Reverse(*s));
    for (start, end, e) in &by_position {
        let new: Vec<String> = e.new.iter().map(|(d, w)| render(d * 2, w)).collect();
        expected.splice(*start..*end, new);
    }
    let blocks = chosen
        .iter()
        .map(|(start, end, e)| {
            let region = &lines[*start..*end];
            let least = region
                .iter()
                .map(|l| l.indent)
                .chain(
                    e.new
                        .iter()
                        .filter(|(_, w)| !w.is_empty())
                        .map(|(d, _)| d * 2),
                )
                .min()
                .unwrap_or(0) as i32;
            let shift = e.shift.max(-least);
            let moved = |indent: usize| (indent as i32 + shift) as usize;
            let search: Vec<String> = region
                .iter()
                .map(|l| {
                    let mut s = render(moved(l.indent), &l.words);
                    if e.trailing {
                        s.push_str("  \t");
                    }
                    s
                })
                .collect();
            let replace: String = e
                .new
                .iter()
                .map(|(d, w)| render(moved(d * 2), w) + "\n")
                .collect();
            EditBlock::new(search.join("\n"), replace)
        })
        .collect();
    (expected.join("\n"), blocks)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn blocks_give_exactly_the_edited_text(lines in section(), edits in prop::collection::vec(edit(), 1..6)) {
        let original: Vec<String> = lines.iter().map(|l| render(l.indent, &l.words)).collect();
        let (expected, blocks) = plan(&lines, edits);
        let (text, outcomes) = apply_blocks(&original.join("\n"), &blocks, &[]);
        for o in &outcomes {
            prop_assert!(o.is_ok(), "{o:?}");
        }
        prop_assert_eq!(text, expected);
    }

    #[test]
    fn missing_and_repeated_search_text_fail_with_their_reason(lines in section(), pick in 0usize..1000) {
        let original: Vec<String> = lines.iter().map(|l| render(l.indent, &l.words)).collect();
        let line = original[pick % original.len()].clone();
        let mut doubled = original.clone();
        doubled.push(line.clone());
        let (text, outcomes) = apply_blocks(
            &doubled.join("\n"),
            &[EditBlock::new(line.trim(), "x"), EditBlock::new("not in the section #-1", "y")],
            &[],
        );
        prop_assert_eq!(&outcomes[0], &Err(Failure::Ambiguous { matches: 2 }));
        prop_assert_eq!(&outcomes[1], &Err(Failure::NoMatch));
        prop_assert_eq!(text, doubled.join("\n"));
    }

    #[test]
    fn an_answer_split_anywhere_reads_as_one_pass(
        lines in section(),
        edits in prop::collection::vec(edit(), 1..6),
        whole in any::<bool>(),
        cuts in prop::collection::vec(0usize..10_000, 0..40),
    ) {
        let original: Vec<String> = lines.iter().map(|l| render(l.indent, &l.words)).collect();
        let (_, blocks) = plan(&lines, edits);
        let base = Artifacts {
            api_spec: original.join("\n"),
            file_tree: original.join("\n"),
            architecture: "# Arch\nkept".into(),
            ..Artifacts::default()
        };
        let mut answer = String::from("API_SPEC:\n");
        for b in &blocks {
            answer.push_str(&b.render());
            answer.push('\n');
        }
        answer.push_str(if whole { "REQUIREMENTS:\nFR-01: whole\n" } else { "FILE_TREE:\n" });
        for b in blocks.iter().rev() {
            answer.push_str(&b.render());
        }
        let one = PatchStream::read(base.clone(), Settled::default(), &answer);
        let mut points: Vec<usize> = cuts
            .into_iter()
            .map(|c| {
                let mut p = c % (answer.len() + 1);
                while !answer.is_char_boundary(p) {
                    p -= 1;
                }
                p
            })
            .collect();
        points.sort_unstable();
        let mut stream = PatchStream::new(base.clone());
        let mut from = 0;
        for p in points.into_iter().chain([answer.len()]) {
            stream.feed(&answer[from..p]);
            from = p;
        }
        let split = stream.finish();
        prop_assert_eq!(&split, &one);
        prop_assert!(one.get(Section::ApiSpec).failures().next().is_none());
        prop_assert_eq!(one.artifacts(&base).architecture, "# Arch\nkept");
    }
}
