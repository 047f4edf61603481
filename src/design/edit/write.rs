//! Writes the change from one section text to another as edit blocks: what a model
//! is asked to do, done by diff for the offline drafter (and checked by applying).

use similar::{Algorithm, capture_diff_slices, group_diff_ops};

use crate::design::edit::EditBlock;
use crate::design::edit::apply::apply_blocks;
use crate::design::{Artifacts, Section};

/// Blocks are worth writing while they are smaller than this share of the section.
const BLOCKS_SHARE: f64 = 0.6;

/// An update answer turning `current` into `target` for `sections`: edit blocks where
/// the change is local, the whole section where most of it changes (or `whole`), and
/// nothing for a section that stays.
pub fn update_answer(
    current: &Artifacts,
    target: &Artifacts,
    sections: &[Section],
    whole: bool,
) -> String {
    let mut out = String::new();
    for &section in sections {
        let (old, new) = (current.get(section), target.get(section));
        if old == new && !whole {
            continue;
        }
        out.push_str(section.marker());
        out.push_str(":\n");
        let blocks = blocks_between(old, new)
            .filter(|_| !whole)
            .map(|blocks| blocks.iter().map(EditBlock::render).collect::<String>());
        match blocks {
            Some(text) if (text.len() as f64) < BLOCKS_SHARE * new.len() as f64 => {
                out.push_str(&text)
            }
            _ => {
                out.push_str(new);
                out.push('\n');
            }
        }
        out.push('\n');
    }
    if out.is_empty() {
        // Nothing changes: one marker with nothing under it keeps the whole design.
        out.push_str(Section::Architecture.marker());
        out.push_str(":\n");
    }
    out
}

/// Context sizes tried, smallest first, until every block's SEARCH text is unique.
const CONTEXTS: [usize; 5] = [1, 2, 3, 5, 8];

fn lines_text(lines: &[&str]) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Blocks that turn `old` into `new`, or `None` when they cannot (an empty `old`, or
/// no context makes them unique). No blocks when the texts are equal.
pub fn blocks_between(old: &str, new: &str) -> Option<Vec<EditBlock>> {
    if old == new {
        return Some(Vec::new());
    }
    if old.is_empty() {
        return None;
    }
    let old_lines: Vec<&str> = old.split('\n').collect();
    let new_lines: Vec<&str> = if new.is_empty() {
        Vec::new()
    } else {
        new.split('\n').collect()
    };
    let ops = capture_diff_slices(Algorithm::Myers, &old_lines, &new_lines);
    for context in CONTEXTS {
        let blocks: Vec<EditBlock> = group_diff_ops(ops.clone(), context)
            .iter()
            .filter_map(|group| {
                let first = group.first()?;
                let last = group.last()?;
                let old_range = first.old_range().start..last.old_range().end;
                let new_range = first.new_range().start..last.new_range().end;
                Some(EditBlock::new(
                    lines_text(&old_lines[old_range]),
                    lines_text(&new_lines[new_range]),
                ))
            })
            .collect();
        let (patched, outcomes) = apply_blocks(old, &blocks, &[]);
        if patched == new && outcomes.iter().all(|o| o.is_ok()) {
            return Some(blocks);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_becomes_one_block_with_context() {
        let old = "# A\n\n1. keep\n2. old\n3. keep";
        let new = "# A\n\n1. keep\n2. new\n2b. added\n3. keep";
        let blocks = blocks_between(old, new).unwrap();
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].search, "1. keep\n2. old\n3. keep\n");
        assert_eq!(apply_blocks(old, &blocks, &[]).0, new);
    }

    #[test]
    fn repeated_lines_get_more_context_until_unique() {
        let old = "x\n  run\ny\n  run\nz";
        let new = "x\n  run\ny\n  walk\nz";
        let blocks = blocks_between(old, new).unwrap();
        assert_eq!(apply_blocks(old, &blocks, &[]).0, new);
        assert!(blocks_between("", "new").is_none());
        assert!(blocks_between("same", "same").unwrap().is_empty());
    }
}
