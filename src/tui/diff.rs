//! A diff between two cycles of one artifact, made for reviewing: line changes with
//! a little context (the `similar` crate), the words that changed inside a changed
//! line (its inline diff), the changes as hunks to jump between, and the same lines
//! paired old-beside-new for a side-by-side view. Pure: text in, a [`Diff`] out.

use std::ops::Range;
use std::time::Duration;

use similar::{Algorithm, ChangeTag, TextDiff};

/// What a diff line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffKind {
    Same,
    Added,
    Removed,
    /// A marker for skipped unchanged lines.
    Gap,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    pub kind: DiffKind,
    pub text: String,
    /// Byte ranges of `text` that changed against the line it replaces (word level);
    /// empty when the whole line is new, gone or unchanged.
    pub changed: Vec<Range<usize>>,
    /// Where the line is (from 0) in the old text and in the new one: a removed line
    /// is only in the old, an added one only in the new, a gap in neither. Marks
    /// that belong to one line (the reviewer's) find it by this, not by its words.
    pub old_index: Option<usize>,
    pub new_index: Option<usize>,
}

impl DiffLine {
    fn plain(kind: DiffKind, text: impl Into<String>) -> DiffLine {
        DiffLine {
            kind,
            text: text.into(),
            changed: Vec::new(),
            old_index: None,
            new_index: None,
        }
    }

    pub fn is_change(&self) -> bool {
        matches!(self.kind, DiffKind::Added | DiffKind::Removed)
    }
}

/// One row of the side-by-side view: the old line on the left, the new on the right
/// (indexes into [`Diff::lines`]). An unchanged line or a gap is on both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    pub left: Option<usize>,
    pub right: Option<usize>,
}

/// How the diff is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Columns {
    /// One column, removed lines above the added ones.
    Unified,
    /// Old on the left, new on the right.
    SideBySide,
}

#[derive(Debug, Clone, Default)]
pub struct Diff {
    pub lines: Vec<DiffLine>,
    pub pairs: Vec<Pair>,
    /// The pair each line is drawn in.
    pair_of: Vec<usize>,
    /// The first line of each hunk (a run of removed and added lines).
    hunks: Vec<usize>,
    /// Each hunk's lines.
    spans: Vec<Range<usize>>,
    /// Whether each hunk's changed words are marked yet.
    refined: Vec<bool>,
    pub added: usize,
    pub removed: usize,
}

/// Unchanged lines kept around each change.
const CONTEXT: usize = 3;

/// The line diff gives up on a minimal answer after this long (a coarser diff is
/// still a correct one); so does the word diff of one hunk.
const LINE_DIFF_TIMEOUT: Duration = Duration::from_millis(500);
const WORD_DIFF_TIMEOUT: Duration = Duration::from_millis(10);

/// A hunk larger than this many lines on a side is shown as whole lines: a rewrite,
/// where marking words would only add noise.
const WORD_DIFF_MAX_LINES: usize = 64;

/// Below this share of unchanged words the lines are different lines, not edited
/// ones, and no word is marked.
const WORD_DIFF_MIN_RATIO: f32 = 0.5;

impl Diff {
    /// The changes from `old` to `new` with a little context; long unchanged runs are
    /// folded into one gap line, so the changes are what the eye finds. The changed
    /// words are found later, hunk by hunk, for the hunks on screen ([`Diff::refine`]).
    pub fn new(old: &str, new: &str) -> Diff {
        let diff = TextDiff::configure()
            .timeout(LINE_DIFF_TIMEOUT)
            .diff_lines(old, new);
        let mut lines = Vec::new();
        let mut last_old_end = None;
        for group in diff.grouped_ops(CONTEXT) {
            let first_old = group.first().map_or(0, |op| op.old_range().start);
            if let Some(end) = last_old_end {
                let skipped = first_old.saturating_sub(end);
                lines.push(DiffLine::plain(
                    DiffKind::Gap,
                    format!("⋯ {skipped} unchanged line{}", plural(skipped)),
                ));
            }
            last_old_end = group.last().map(|op| op.old_range().end);
            for op in &group {
                for change in diff.iter_changes(op) {
                    lines.push(DiffLine {
                        old_index: change.old_index(),
                        new_index: change.new_index(),
                        ..DiffLine::plain(
                            kind_of(change.tag()),
                            change.value().trim_end_matches('\n'),
                        )
                    });
                }
            }
        }
        Diff::from_lines(lines)
    }

    /// Marks the changed words of every hunk that touches `lines` and was not marked
    /// yet: one word diff per hunk, of its removed lines against its added ones.
    pub fn refine(&mut self, lines: Range<usize>) {
        for h in 0..self.spans.len() {
            let span = self.spans[h].clone();
            if self.refined[h] || span.end <= lines.start || span.start >= lines.end {
                continue;
            }
            self.refined[h] = true;
            let removed: Vec<usize> = span
                .clone()
                .filter(|&i| self.lines[i].kind == DiffKind::Removed)
                .collect();
            let added: Vec<usize> = span
                .filter(|&i| self.lines[i].kind == DiffKind::Added)
                .collect();
            let sizes = [removed.len(), added.len()];
            if sizes.contains(&0) || sizes.iter().any(|&n| n > WORD_DIFF_MAX_LINES) {
                continue;
            }
            let join = |side: &[usize]| {
                side.iter()
                    .map(|&i| self.lines[i].text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let (old, new) = (join(&removed), join(&added));
            let words = TextDiff::configure()
                .algorithm(Algorithm::Patience)
                .timeout(WORD_DIFF_TIMEOUT)
                .diff_unicode_words(old.as_str(), new.as_str());
            if words.ratio() < WORD_DIFF_MIN_RATIO {
                continue;
            }
            let (mut old_ranges, mut new_ranges) = (Vec::new(), Vec::new());
            let (mut old_at, mut new_at) = (0, 0);
            for change in words.iter_all_changes() {
                let len = change.value().len();
                match change.tag() {
                    ChangeTag::Equal => {
                        old_at += len;
                        new_at += len;
                    }
                    ChangeTag::Delete => {
                        old_ranges.push(old_at..old_at + len);
                        old_at += len;
                    }
                    ChangeTag::Insert => {
                        new_ranges.push(new_at..new_at + len);
                        new_at += len;
                    }
                }
            }
            self.mark(&removed, &old_ranges);
            self.mark(&added, &new_ranges);
        }
    }

    /// Hands the changed ranges of a hunk side's joined text to its lines.
    fn mark(&mut self, side: &[usize], ranges: &[Range<usize>]) {
        let mut start = 0;
        for &i in side {
            let line = &mut self.lines[i];
            let end = start + line.text.len();
            for r in ranges {
                let (a, b) = (r.start.max(start), r.end.min(end));
                if a >= b || line.text[a - start..b - start].trim().is_empty() {
                    continue;
                }
                let local = a - start..b - start;
                match line.changed.last_mut() {
                    Some(last) if last.end == local.start => last.end = local.end,
                    _ => line.changed.push(local),
                }
            }
            start = end + 1; // the joining newline
        }
    }

    /// Whether every hunk's words are marked (the tests' and benchmarks' view).
    pub fn refined(&self) -> bool {
        self.refined.iter().all(|r| *r)
    }

    fn from_lines(lines: Vec<DiffLine>) -> Diff {
        let mut hunks = Vec::new();
        let mut spans = Vec::new();
        let mut pairs = Vec::new();
        let mut pair_of = vec![0; lines.len()];
        let mut i = 0;
        while i < lines.len() {
            if !lines[i].is_change() {
                pair_of[i] = pairs.len();
                pairs.push(Pair {
                    left: Some(i),
                    right: Some(i),
                });
                i += 1;
                continue;
            }
            // A hunk: its removed lines beside its added ones, in order.
            hunks.push(i);
            let start = i;
            while i < lines.len() && lines[i].is_change() {
                i += 1;
            }
            spans.push(start..i);
            let removed: Vec<usize> = (start..i)
                .filter(|&j| lines[j].kind == DiffKind::Removed)
                .collect();
            let added: Vec<usize> = (start..i)
                .filter(|&j| lines[j].kind == DiffKind::Added)
                .collect();
            for row in 0..removed.len().max(added.len()) {
                let pair = Pair {
                    left: removed.get(row).copied(),
                    right: added.get(row).copied(),
                };
                for j in pair.left.iter().chain(pair.right.iter()) {
                    pair_of[*j] = pairs.len();
                }
                pairs.push(pair);
            }
        }
        let added = lines.iter().filter(|l| l.kind == DiffKind::Added).count();
        let removed = lines.iter().filter(|l| l.kind == DiffKind::Removed).count();
        Diff {
            lines,
            pairs,
            pair_of,
            refined: vec![false; hunks.len()],
            hunks,
            spans,
            added,
            removed,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The hunks' first lines, in order.
    pub fn hunks(&self) -> &[usize] {
        &self.hunks
    }

    /// The first hunk starting after line `after` (`None`: from the top).
    pub fn next_hunk(&self, after: Option<usize>) -> Option<usize> {
        self.hunks
            .iter()
            .copied()
            .find(|&h| after.is_none_or(|a| h > a))
    }

    /// The last hunk starting before line `before`.
    pub fn previous_hunk(&self, before: usize) -> Option<usize> {
        self.hunks.iter().rev().copied().find(|&h| h < before)
    }

    /// Which hunk (counted from 1) starts at line `line`.
    pub fn hunk_number(&self, line: usize) -> Option<usize> {
        self.hunks.iter().position(|&h| h == line).map(|i| i + 1)
    }

    /// The lines holding `query`, ignoring case (gap markers are not searched).
    pub fn find(&self, query: &str) -> Vec<usize> {
        if query.is_empty() {
            return Vec::new();
        }
        let needle = query.to_lowercase();
        self.lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.kind != DiffKind::Gap && l.text.to_lowercase().contains(&needle))
            .map(|(i, _)| i)
            .collect()
    }

    /// How many rows of the layout there are: lines, or pairs side by side.
    pub fn entries(&self, columns: Columns) -> usize {
        match columns {
            Columns::Unified => self.lines.len(),
            Columns::SideBySide => self.pairs.len(),
        }
    }

    /// The entry of the layout that shows line `line`.
    pub fn entry_of(&self, columns: Columns, line: usize) -> usize {
        match columns {
            Columns::Unified => line,
            Columns::SideBySide => self.pair_of.get(line).copied().unwrap_or(0),
        }
    }

    /// The first line an entry of the layout shows.
    pub fn line_of(&self, columns: Columns, entry: usize) -> usize {
        match columns {
            Columns::Unified => entry,
            Columns::SideBySide => self
                .pairs
                .get(entry)
                .and_then(|p| p.left.or(p.right))
                .unwrap_or(0),
        }
    }
}

fn kind_of(tag: ChangeTag) -> DiffKind {
    match tag {
        ChangeTag::Equal => DiffKind::Same,
        ChangeTag::Insert => DiffKind::Added,
        ChangeTag::Delete => DiffKind::Removed,
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Byte ranges of the case-insensitive occurrences of `query` in `text`, for painting
/// them. Empty when lowercasing changes the text's byte lengths (the line still counts
/// as a match; only its paint is skipped).
pub fn occurrences(text: &str, query: &str) -> Vec<Range<usize>> {
    if query.is_empty() {
        return Vec::new();
    }
    let (hay, needle) = (text.to_lowercase(), query.to_lowercase());
    if hay.len() != text.len() {
        return Vec::new();
    }
    hay.match_indices(&needle)
        .map(|(at, m)| at..at + m.len())
        .filter(|r| text.is_char_boundary(r.start) && text.is_char_boundary(r.end))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(diff: &Diff, kind: DiffKind) -> Vec<&str> {
        diff.lines
            .iter()
            .filter(|l| l.kind == kind)
            .map(|l| l.text.as_str())
            .collect()
    }

    #[test]
    fn changes_are_tagged_and_far_context_is_folded() {
        let old: String = (0..20).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 2\n", "line two\n")
            .replace("line 17\n", "");
        let diff = Diff::new(&old, &new);
        assert_eq!(texts(&diff, DiffKind::Removed), ["line 2", "line 17"]);
        assert_eq!(texts(&diff, DiffKind::Added), ["line two"]);
        assert_eq!(texts(&diff, DiffKind::Gap), ["⋯ 8 unchanged lines"]);
        assert_eq!((diff.added, diff.removed), (1, 2));
        let at = |text: &str| {
            let l = diff.lines.iter().find(|l| l.text == text).unwrap();
            (l.old_index, l.new_index)
        };
        assert_eq!(at("line 2"), (Some(2), None));
        assert_eq!(at("line two"), (None, Some(2)));
        assert_eq!(at("line 1"), (Some(1), Some(1)));
        assert_eq!(at("line 16"), (Some(16), Some(16)));
        assert!(Diff::new("same\n", "same\n").is_empty());
    }

    #[test]
    fn a_changed_word_is_marked_not_the_whole_line() {
        let mut diff = Diff::new("# plan (cycle 1)\nbody\n", "# plan (cycle 2)\nbody\n");
        assert!(
            diff.lines.iter().all(|l| l.changed.is_empty()),
            "not before refine"
        );
        diff.refine(0..diff.lines.len());
        assert!(diff.refined());
        let removed = &diff.lines[0];
        let added = &diff.lines[1];
        assert_eq!(removed.kind, DiffKind::Removed);
        assert_eq!(&removed.text[removed.changed[0].clone()], "1");
        assert_eq!(added.changed.len(), 1);
        assert_eq!(&added.text[added.changed[0].clone()], "2");
        // A line with nothing in common with the old is new as a whole.
        let mut diff = Diff::new("alpha beta\n", "gamma delta epsilon\n");
        diff.refine(0..diff.lines.len());
        assert!(diff.lines.iter().all(|l| l.changed.is_empty()));
    }

    #[test]
    fn the_words_of_a_hunk_of_several_lines_go_to_their_lines() {
        let mut diff = Diff::new("keep\na b c\nd e f\n", "keep\na b c2\nd X f\n");
        diff.refine(0..1);
        assert!(!diff.refined(), "a hunk off the range waits");
        diff.refine(1..2);
        let marked: Vec<Vec<&str>> = diff
            .lines
            .iter()
            .map(|l| l.changed.iter().map(|r| &l.text[r.clone()]).collect())
            .collect();
        assert_eq!(
            marked,
            [vec![], vec!["c"], vec!["e"], vec!["c2"], vec!["X"]],
            "{:?}",
            diff.lines
        );
    }

    #[test]
    fn hunks_are_runs_of_changes_and_pairs_put_old_beside_new() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
        let new = "a\nB\nc\nd\ne\nf\ng\nh\nI\nI2\nj\n";
        let diff = Diff::new(old, new);
        let hunks = diff.hunks().to_vec();
        assert_eq!(hunks.len(), 2);
        assert_eq!(diff.lines[hunks[0]].text, "b");
        assert_eq!(diff.next_hunk(None), Some(hunks[0]));
        assert_eq!(diff.next_hunk(Some(hunks[0])), Some(hunks[1]));
        assert_eq!(diff.next_hunk(Some(hunks[1])), None);
        assert_eq!(diff.previous_hunk(hunks[1]), Some(hunks[0]));
        assert_eq!(diff.hunk_number(hunks[1]), Some(2));
        // i → I, I2: one pair with both sides, one with the new side only.
        let second = diff.entry_of(Columns::SideBySide, hunks[1]);
        let pair = diff.pairs[second];
        assert_eq!(diff.lines[pair.left.unwrap()].text, "i");
        assert_eq!(diff.lines[pair.right.unwrap()].text, "I");
        let next = diff.pairs[second + 1];
        assert_eq!(next.left, None);
        assert_eq!(diff.lines[next.right.unwrap()].text, "I2");
        assert_eq!(diff.entries(Columns::SideBySide), diff.lines.len() - 2);
        assert_eq!(diff.line_of(Columns::SideBySide, second), hunks[1]);
    }

    #[test]
    fn search_finds_lines_ignoring_case() {
        let diff = Diff::new("Store one\nx\n", "store two\nx\n");
        assert_eq!(diff.find("STORE"), [0, 1]);
        assert_eq!(occurrences("a Store store", "store"), [2..7, 8..13]);
        assert!(occurrences("İstore", "store").is_empty());
    }
}
