//! Applies edit blocks to one section. Pure: text and blocks in, text and outcomes out.
//!
//! The section is held as lines pointing into one growing buffer (the original text,
//! then each replacement appended), each with a hash of its trimmed text. Finding a
//! block is then a scan of hashes with a byte check of the few candidates, and
//! applying it moves line records, not text, so a long design takes a hundred blocks
//! in well under a millisecond.

use std::hash::BuildHasher;
use std::ops::Range;

use foldhash::fast::FixedState;
use serde::{Deserialize, Serialize};

use crate::design::edit::{EditBlock, Failure};

/// How closely a block's SEARCH text matched the section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Match {
    /// Byte for byte.
    Exact,
    /// Equal once trailing white space is ignored.
    TrailingSpace,
    /// Equal once indentation is ignored; REPLACE is re-indented to the section's.
    Indentation,
    /// An empty SEARCH: REPLACE was appended.
    Append,
}

/// Where an applied block put its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applied {
    pub how: Match,
    /// Index of the first new line in the section after the block.
    pub at: usize,
    /// Lines the block removed and lines it wrote.
    pub removed: usize,
    pub added: usize,
}

/// One line of the section: bytes `start..end` of the buffer. Kept at 16 bytes,
/// because applying a block moves every record after it (offsets fit 32 bits: a
/// section is a model's answer, far below 4 GB).
#[derive(Debug, Clone, Copy)]
struct Line {
    start: u32,
    end: u32,
    /// Hash of the line without ASCII white space at either end (candidates are checked
    /// byte by byte, so a collision costs a comparison, never a wrong match).
    bare: u32,
    /// Inside settled text: no block may change it.
    settled: bool,
    /// Written by a block of this answer (the workbench marks it).
    fresh: bool,
}

impl Line {
    fn range(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A section being patched.
#[derive(Debug, Clone)]
pub struct PatchText {
    buffer: String,
    lines: Vec<Line>,
}

const HASHER: FixedState = FixedState::with_seed(0x766f_6c6b);

fn bare_hash(line: &str) -> u32 {
    let h = HASHER.hash_one(line.trim_ascii());
    (h ^ (h >> 32)) as u32
}

/// Leading spaces and tabs: what re-indenting moves.
fn indent(line: &str) -> &str {
    let n = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..n]
}

fn is_blank(line: &str) -> bool {
    line.trim_ascii().is_empty()
}

/// The lines of a block side: each ends with a newline (the last one may lack it),
/// so empty text has none and `"\n"` is one blank line.
fn split(text: &str) -> Vec<&str> {
    text.split_terminator('\n').collect()
}

impl PatchText {
    pub fn new(text: &str) -> PatchText {
        PatchText::with_settled(text, &[])
    }

    /// A section in which the bytes of `settled` may not change: a block whose SEARCH
    /// text touches a line overlapping one of these ranges fails as [`Failure::Settled`].
    pub fn with_settled(text: &str, settled: &[Range<usize>]) -> PatchText {
        let mut out = PatchText {
            buffer: String::with_capacity(text.len() + text.len() / 8),
            lines: Vec::with_capacity(text.len() / 32 + 1),
        };
        if !text.is_empty() {
            out.buffer.push_str(text);
            let mut start = 0;
            for end in memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]) {
                out.lines.push(Line {
                    start: start as u32,
                    end: end as u32,
                    bare: bare_hash(&text[start..end]),
                    settled: false,
                    fresh: false,
                });
                start = end + 1;
            }
        }
        if !settled.is_empty() {
            for line in &mut out.lines {
                let (start, end) = (line.start as usize, line.end as usize);
                line.settled = settled
                    .iter()
                    .any(|r| r.start < end.max(start + 1) && start < r.end);
            }
        }
        out
    }

    /// Appends `lines` to the buffer and returns the indices of their records.
    fn push_lines<'t>(
        &mut self,
        lines: impl Iterator<Item = &'t str>,
        fresh: bool,
    ) -> Range<usize> {
        let first = self.lines.len();
        for (i, piece) in lines.enumerate() {
            if i > 0 || !self.buffer.is_empty() {
                self.buffer.push('\n');
            }
            let start = self.buffer.len() as u32;
            self.buffer.push_str(piece);
            self.lines.push(Line {
                start,
                end: self.buffer.len() as u32,
                bare: bare_hash(piece),
                settled: false,
                fresh,
            });
        }
        first..self.lines.len()
    }

    fn line(&self, index: usize) -> &str {
        &self.buffer[self.lines[index].range()]
    }

    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// The lines of the section now, each with whether a block wrote it.
    pub fn lines(&self) -> impl Iterator<Item = (&str, bool)> + '_ {
        self.lines
            .iter()
            .map(|l| (&self.buffer[l.range()], l.fresh))
    }

    /// The section's text now.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.buffer.len());
        for (i, l) in self.lines.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&self.buffer[l.range()]);
        }
        out
    }

    /// How the run of lines at `at` matches `search`, if it does.
    fn match_at(&self, at: usize, search: &[&str], hashes: &[u32]) -> Option<Match> {
        let mut how = Match::Exact;
        for (k, want) in search.iter().enumerate() {
            let line = self.lines[at + k];
            if line.bare != hashes[k] {
                return None;
            }
            let have = &self.buffer[line.range()];
            if have == *want {
                continue;
            }
            if have.trim_ascii_end() == want.trim_ascii_end() {
                how = how.max(Match::TrailingSpace);
            } else if have.trim_ascii() == want.trim_ascii() {
                how = Match::Indentation;
            } else {
                return None;
            }
        }
        Some(how)
    }

    /// Applies one block to the section as it is now. A failed block changes nothing.
    pub fn apply(&mut self, block: &EditBlock) -> Result<Applied, Failure> {
        let search = split(&block.search);
        if search.is_empty() {
            let at = self.lines.len();
            let added = self
                .push_lines(split(&block.replace).into_iter(), true)
                .len();
            return Ok(Applied {
                how: Match::Append,
                at,
                removed: 0,
                added,
            });
        }
        let n = search.len();
        if n > self.lines.len() {
            return Err(Failure::NoMatch);
        }
        let hashes: Vec<u32> = search.iter().map(|l| bare_hash(l)).collect();
        let first = hashes[0];
        // The best level any candidate reached, and the candidates at that level.
        let mut best: Option<Match> = None;
        let mut found: Vec<usize> = Vec::new();
        let starts = &self.lines[..=self.lines.len() - n];
        for at in starts
            .iter()
            .enumerate()
            .filter_map(|(at, l)| (l.bare == first).then_some(at))
        {
            let Some(how) = self.match_at(at, &search, &hashes) else {
                continue;
            };
            match best {
                Some(b) if how > b => {}
                Some(b) if how == b => found.push(at),
                _ => {
                    best = Some(how);
                    found.clear();
                    found.push(at);
                }
            }
        }
        let (Some(how), [at]) = (best, found.as_slice()) else {
            return Err(if found.is_empty() {
                Failure::NoMatch
            } else {
                Failure::Ambiguous {
                    matches: found.len(),
                }
            });
        };
        let at = *at;
        if self.lines[at..at + n].iter().any(|l| l.settled) {
            return Err(Failure::Settled);
        }
        let replace = if how == Match::Indentation {
            self.reindent(at, &search, &block.replace)
        } else {
            block.replace.clone()
        };
        let fresh = self.push_lines(split(&replace).into_iter(), true);
        let added = fresh.len();
        let new_lines: Vec<Line> = self.lines.drain(fresh).collect();
        self.lines.splice(at..at + n, new_lines);
        Ok(Applied {
            how,
            at,
            removed: n,
            added,
        })
    }

    /// REPLACE moved by the indentation difference between the SEARCH text and the
    /// lines it matched, measured on the least indented SEARCH line.
    fn reindent(&self, at: usize, search: &[&str], replace: &str) -> String {
        let Some((k, written)) = search
            .iter()
            .enumerate()
            .filter(|(_, l)| !is_blank(l))
            .map(|(k, l)| (k, indent(l)))
            .min_by_key(|(_, ind)| ind.len())
        else {
            return replace.to_string();
        };
        let target = indent(self.line(at + k)).to_string();
        let mut out = String::with_capacity(replace.len() + 16);
        for line in split(replace) {
            if is_blank(line) {
                out.push_str(line);
                out.push('\n');
                continue;
            }
            let own = indent(line);
            let body = &line[own.len()..];
            if own.len() >= written.len() {
                // The part beyond the SEARCH's indentation is the line's own nesting.
                out.push_str(&target);
                out.push_str(&own[written.len()..]);
            } else {
                // Less indented than the SEARCH text: keep the same distance back.
                let back = written.len() - own.len();
                out.push_str(&target[..target.len().saturating_sub(back)]);
            }
            out.push_str(body);
            out.push('\n');
        }
        out
    }
}

/// Applies `blocks` in order, each to the result of the one before.
pub fn apply_blocks(
    text: &str,
    blocks: &[EditBlock],
    settled: &[Range<usize>],
) -> (String, Vec<Result<Applied, Failure>>) {
    let mut patch = PatchText::with_settled(text, settled);
    let outcomes = blocks.iter().map(|b| patch.apply(b)).collect();
    (patch.text(), outcomes)
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // one settled range is the case at hand
mod tests {
    use super::*;

    fn block(search: &str, replace: &str) -> EditBlock {
        EditBlock::new(search, replace)
    }

    #[test]
    fn an_exact_match_is_replaced() {
        let (text, out) = apply_blocks("a\nb\nc", &[block("b", "B1\nB2")], &[]);
        assert_eq!(text, "a\nB1\nB2\nc");
        assert_eq!(
            out[0],
            Ok(Applied {
                how: Match::Exact,
                at: 1,
                removed: 1,
                added: 2
            })
        );
    }

    #[test]
    fn missing_and_ambiguous_matches_fail_and_change_nothing() {
        let (text, out) = apply_blocks("x\ny\nx", &[block("z", "Z"), block("x", "X")], &[]);
        assert_eq!(text, "x\ny\nx");
        assert_eq!(out[0], Err(Failure::NoMatch));
        assert_eq!(out[1], Err(Failure::Ambiguous { matches: 2 }));
    }

    #[test]
    fn blocks_apply_in_order_each_to_the_result_before() {
        let (text, out) = apply_blocks(
            "one\ntwo",
            &[block("two", "three"), block("three", "four")],
            &[],
        );
        assert_eq!(text, "one\nfour");
        assert!(out.iter().all(Result::is_ok));
    }

    #[test]
    fn trailing_white_space_is_tolerated() {
        let (text, out) = apply_blocks("fn a()  \nfn b()", &[block("fn a()", "fn a(x)")], &[]);
        assert_eq!(text, "fn a(x)\nfn b()");
        assert_eq!(out[0].as_ref().map(|a| a.how), Ok(Match::TrailingSpace));
    }

    #[test]
    fn an_indentation_shift_is_applied_with_the_sections_indentation() {
        let section = "Module: m\n    class A:\n        run(self) -> str\n    class B:";
        let (text, out) = apply_blocks(
            section,
            &[block(
                "class A:\n    run(self) -> str",
                "class A:\n    run(self) -> int\n  helper() -> None\nfree() -> None",
            )],
            &[],
        );
        assert_eq!(
            text,
            "Module: m\n    class A:\n        run(self) -> int\n      helper() -> None\n    free() -> None\n    class B:"
        );
        assert_eq!(out[0].as_ref().map(|a| a.how), Ok(Match::Indentation));
    }

    #[test]
    fn an_exact_match_wins_over_looser_ones() {
        let (text, _) = apply_blocks("  x\nx", &[block("x", "y")], &[]);
        assert_eq!(text, "  x\ny");
    }

    #[test]
    fn an_empty_search_appends() {
        let (text, out) = apply_blocks("a", &[block("", "b\nc")], &[]);
        assert_eq!(text, "a\nb\nc");
        assert_eq!(out[0].as_ref().map(|a| a.how), Ok(Match::Append));
        let (text, _) = apply_blocks("", &[block("", "first")], &[]);
        assert_eq!(text, "first");
    }

    #[test]
    fn an_empty_replace_deletes() {
        let (text, _) = apply_blocks("a\nb\nc", &[block("b", "")], &[]);
        assert_eq!(text, "a\nc");
    }

    #[test]
    fn settled_text_refuses_a_block_inside_it() {
        let section = "intro\n## Decided\nstorage is SQLite\n## Open\nschema?";
        let start = section.find("## Decided").unwrap();
        let end = section.find("## Open").unwrap();
        let settled = [start..end];
        let (text, out) = apply_blocks(
            section,
            &[
                block("storage is SQLite", "storage is Postgres"),
                block("schema?", "schema: one table"),
                block("intro\n## Decided", "preface\n## Decided"),
            ],
            &settled,
        );
        assert_eq!(out[0], Err(Failure::Settled));
        assert_eq!(out[0].as_ref().unwrap_err().to_string(), "settled");
        assert!(out[1].is_ok());
        assert_eq!(out[2], Err(Failure::Settled));
        assert_eq!(
            text,
            "intro\n## Decided\nstorage is SQLite\n## Open\nschema: one table"
        );
    }

    #[test]
    fn settled_lines_keep_their_mark_when_blocks_move_them() {
        let section = "a\nkeep\nb";
        let settled = [2..6];
        let (text, out) = apply_blocks(
            section,
            &[
                block("a", "a0\na1\na2"),
                block("keep", "changed"),
                block("b", "B"),
            ],
            &settled,
        );
        assert!(out[0].is_ok());
        assert_eq!(out[1], Err(Failure::Settled));
        assert!(out[2].is_ok());
        assert_eq!(text, "a0\na1\na2\nkeep\nB");
    }

    #[test]
    fn fresh_lines_are_marked() {
        let mut p = PatchText::new("a\nb\nc");
        p.apply(&block("b", "B")).unwrap();
        let marks: Vec<bool> = p.lines().map(|(_, fresh)| fresh).collect();
        assert_eq!(marks, [false, true, false]);
    }
}
