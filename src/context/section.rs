//! The block injected into the design prompt: a project tree, then the source of each
//! matched definition, within a fixed byte budget.

use super::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::index::{FileEntry, Index};
use super::language::Language;
use super::symbols::{Symbol, SymbolKind};
use super::words::{Candidate, WordSource};

/// The whole block never exceeds this many bytes.
pub const MAX_SECTION_BYTES: usize = 100 * 1024;
/// One definition never shows more than this many lines.
pub const MAX_DEFINITION_LINES: usize = 200;
/// The project tree gets at most this share of the budget; the sources matter more.
const TREE_BUDGET: usize = 16 * 1024;
/// A name defined in many places (`Error`, `Config`) shows this many definitions.
const DEFINITIONS_PER_WORD: usize = 5;
/// Comments and attributes directly above a definition are shown with it, up to this.
const LEADING_LINES: usize = 30;

/// Closes a block that reached [`MAX_SECTION_BYTES`].
const CAP_MARKER: &str =
    "\n[… context cut here: the 100 KB limit for existing sources was reached]\n";
/// Lines of an excerpt before its code: a blank line, the heading, the opening fence.
const EXCERPT_HEADER_LINES: usize = 3;

/// Whether more excerpts may go into the block, and how many bytes it may reach.
#[derive(Debug, Clone, Copy)]
enum Budget {
    Open(usize),
    Spent,
}

/// One definition, ready to append.
struct Excerpt {
    text: String,
    shown: Shown,
}

/// The label the design prompt and the reviewer see.
pub const LABEL: &str = "EXISTING API SOURCES";

/// How much of a matched definition went into the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Shown {
    /// The whole definition.
    Whole,
    /// Its first lines, followed by the truncation marker.
    Truncated { lines: u32 },
    /// Left out: too many definitions of the name, or the block was full.
    Omitted,
}

/// Which word of the requirements matched which definition, and what of it was shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SymbolMatch {
    /// The candidate name looked up.
    pub word: String,
    /// How the word was written in the requirements.
    pub written: String,
    pub word_source: WordSource,
    pub symbol: String,
    pub kind: SymbolKind,
    pub language: Language,
    /// Relative to the root.
    pub file: String,
    pub start_line: u32,
    pub end_line: u32,
    pub shown: Shown,
}

/// Every definition named by a candidate, grouped by candidate in order of appearance;
/// types before functions within a group.
pub fn find<'i>(
    index: &'i Index,
    candidates: &[Candidate],
) -> Vec<(usize, &'i FileEntry, &'i Symbol)> {
    let wanted: HashMap<&str, usize> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    let mut found = Vec::new();
    for file in &index.files {
        for symbol in file.symbols() {
            if let Some(&which) = wanted.get(symbol.name.as_str()) {
                found.push((which, file, symbol));
            }
        }
    }
    found.sort_by_key(|(which, file, symbol)| {
        (
            *which,
            !symbol.kind.is_type(),
            file.path.as_str(),
            symbol.start_line,
        )
    });
    found
}

/// Renders the block for `found` (from [`find`]); returns it with one match per entry.
pub fn render(
    root: &Path,
    index: &Index,
    candidates: &[Candidate],
    found: &[(usize, &FileEntry, &Symbol)],
) -> (String, Vec<SymbolMatch>) {
    let mut block = String::new();
    let _ = writeln!(
        block,
        "{LABEL}\n\nThe code base `{}` already defines the types and functions below \
         (paths are relative to its root). Reuse them, with their real names, signatures \
         and import paths, instead of inventing new ones.\n",
        root.file_name().map_or_else(
            || root.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        )
    );
    let matched_files: Vec<&str> = found.iter().map(|(_, f, _)| f.path.as_str()).collect();
    let tree = super::tree::summarise(index, &matched_files, TREE_BUDGET);
    if !tree.is_empty() {
        let _ = writeln!(
            block,
            "Project tree (packages, modules, top definitions):\n{tree}"
        );
    }
    block.push_str("Sources:\n");

    let mut budget = Budget::Open(MAX_SECTION_BYTES - CAP_MARKER.len());
    let mut sources = SourceFiles::new(root);
    let mut matches = Vec::with_capacity(found.len());
    let mut per_word: HashMap<usize, usize> = HashMap::default();
    for &(which, file, symbol) in found {
        let candidate = &candidates[which];
        let seen = per_word.entry(which).or_default();
        let mut shown = Shown::Omitted;
        if let Budget::Open(limit) = budget
            && *seen < DEFINITIONS_PER_WORD
            && let Some(excerpt) = sources.excerpt(file, symbol, candidate)
        {
            *seen += 1;
            if block.len() + excerpt.text.len() <= limit {
                block.push_str(&excerpt.text);
                shown = excerpt.shown;
            } else {
                // The first excerpt that does not fit is cut at a line and closes the block.
                budget = Budget::Spent;
                let cut = floor_line_boundary(&excerpt.text, limit.saturating_sub(block.len()));
                let code_lines = excerpt.text[..cut]
                    .lines()
                    .count()
                    .saturating_sub(EXCERPT_HEADER_LINES);
                if code_lines > 0 {
                    block.push_str(&excerpt.text[..cut]);
                    shown = Shown::Truncated {
                        lines: u32::try_from(code_lines).unwrap_or(u32::MAX),
                    };
                }
                block.push_str(CAP_MARKER);
            }
        }
        matches.push(SymbolMatch {
            word: candidate.name.clone(),
            written: candidate.written.clone(),
            word_source: candidate.source,
            symbol: symbol.name.clone(),
            kind: symbol.kind,
            language: file.language,
            file: file.path.clone(),
            start_line: symbol.start_line,
            end_line: symbol.end_line,
            shown,
        });
    }
    (block, matches)
}

/// The largest prefix of `text` no longer than `max` bytes that ends after a newline.
fn floor_line_boundary(text: &str, max: usize) -> usize {
    if text.len() <= max {
        return text.len();
    }
    text.as_bytes()[..max]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// Source files read once each, however many of their definitions are shown.
struct SourceFiles<'r> {
    root: &'r Path,
    texts: HashMap<String, Option<String>>,
}

impl<'r> SourceFiles<'r> {
    fn new(root: &'r Path) -> Self {
        Self {
            root,
            texts: HashMap::default(),
        }
    }

    /// The heading and fenced source of one definition, cut at
    /// [`MAX_DEFINITION_LINES`] with a visible marker.
    fn excerpt(
        &mut self,
        file: &FileEntry,
        symbol: &Symbol,
        candidate: &Candidate,
    ) -> Option<Excerpt> {
        let text = self
            .texts
            .entry(file.path.clone())
            .or_insert_with(|| match std::fs::read_to_string(self.root.join(&file.path)) {
                Ok(text) => Some(text),
                Err(error) => {
                    tracing::warn!(file = %file.path, %error, "context: cannot read a matched file");
                    None
                }
            })
            .as_deref()?;
        let lines: Vec<&str> = text.lines().collect();
        let start = usize::try_from(symbol.start_line).ok()?.checked_sub(1)?;
        let end = usize::try_from(symbol.end_line).ok()?.min(lines.len());
        if start >= end {
            tracing::warn!(file = %file.path, symbol = %symbol.name, "context: definition no longer where indexed");
            return None;
        }
        let first = leading_comments(&lines, start);
        let total = end - first;
        let shown_count = total.min(MAX_DEFINITION_LINES);
        let body = &lines[first..first + shown_count];
        let fence = fence_for(body);
        let mut piece = String::new();
        let _ = writeln!(
            piece,
            "\n### {} {} — {}:{}-{} (matched {})",
            symbol.kind.label(),
            symbol.name,
            file.path,
            symbol.start_line,
            symbol.end_line,
            match candidate.source {
                WordSource::CapWord => candidate.name.clone(),
                WordSource::Backticked | WordSource::DottedPath =>
                    format!("`{}`", candidate.written),
            }
        );
        let _ = writeln!(piece, "{fence}{}", file.language.fence());
        for line in body {
            piece.push_str(line);
            piece.push('\n');
        }
        let shown = if total > MAX_DEFINITION_LINES {
            let _ = writeln!(
                piece,
                "… [truncated: {} more lines of {} not shown, up to line {}]",
                total - MAX_DEFINITION_LINES,
                symbol.name,
                symbol.end_line
            );
            Shown::Truncated {
                lines: u32::try_from(MAX_DEFINITION_LINES).unwrap_or(u32::MAX),
            }
        } else {
            Shown::Whole
        };
        let _ = writeln!(piece, "{fence}");
        Some(Excerpt { text: piece, shown })
    }
}

/// The first line of the doc comments and attributes directly above `start`.
fn leading_comments(lines: &[&str], start: usize) -> usize {
    let mut first = start;
    while first > 0 && start - first < LEADING_LINES {
        let above = lines[first - 1].trim_start();
        let is_comment_or_attribute = ["//", "#", "/*", "*", "@"]
            .iter()
            .any(|prefix| above.starts_with(prefix));
        if !is_comment_or_attribute || above.starts_with("#!") {
            break;
        }
        first -= 1;
    }
    first
}

/// A code fence longer than any backtick run in the excerpt, so the excerpt cannot
/// close it early.
fn fence_for(lines: &[&str]) -> String {
    let longest = lines
        .iter()
        .flat_map(|line| line.split(|c| c != '`'))
        .map(str::len)
        .max()
        .unwrap_or(0);
    "`".repeat((longest + 1).max(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_attributes_above_a_definition_are_included() {
        let lines = [
            "use x;",
            "",
            "/// A queue.",
            "#[derive(Debug)]",
            "struct Q;",
        ];
        assert_eq!(leading_comments(&lines, 4), 2);
        assert_eq!(
            leading_comments(&["#!/usr/bin/env python", "def f(): pass"], 1),
            1
        );
    }

    #[test]
    fn fence_outgrows_backticks_in_the_source() {
        assert_eq!(fence_for(&["let a = 1;"]), "```");
        assert_eq!(fence_for(&["/// ```rust", "/// ```"]), "````");
    }

    #[test]
    fn cut_points_fall_after_a_newline() {
        assert_eq!(floor_line_boundary("ab\ncd\nef", 7), 6);
        assert_eq!(floor_line_boundary("abcdef", 3), 0);
        assert_eq!(floor_line_boundary("ab\n", 10), 3);
    }
}
