//! One tab's text: complete lines, the unfinished tail of a stream, and a cache of
//! highlighted lines that grows only as far as someone has looked.

use ratatui::text::{Line, Span};

use crate::tui::highlight::{Grammar, LineHighlighter, Runs, StyleRun, split_rows, styled_line};
use crate::tui::markdown::MarkdownRenderer;

/// How a Markdown document is drawn (other grammars are always highlighted source).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rendering {
    /// As a document: no delimiters, aligned tables.
    Rendered,
    /// The source, highlighted.
    Source,
}

/// What turns lines into styled runs.
enum Painter {
    Syntax(LineHighlighter),
    /// Boxed: it carries the table being laid out, several times a highlighter's size.
    Markdown(Box<MarkdownRenderer>),
}

/// A borrowed line: highlighted spans, or plain text not highlighted yet.
pub enum LineRef<'a> {
    Styled(&'a str, &'a [StyleRun]),
    Plain(&'a str),
}

impl<'a> LineRef<'a> {
    /// The drawable line, borrowing the document's text.
    pub fn to_line(&self) -> Line<'a> {
        match *self {
            LineRef::Styled(text, runs) => styled_line(text, runs),
            LineRef::Plain(text) => Line::raw(text),
        }
    }

    /// The line's own rows when it has several (a table row whose cells wrap inside
    /// their columns), `None` for a line that is one row before soft wrapping.
    pub fn own_rows(&self) -> Option<Vec<Line<'a>>> {
        match *self {
            LineRef::Styled(text, runs) => {
                split_rows(runs).map(|rows| rows.iter().map(|r| styled_line(text, r)).collect())
            }
            LineRef::Plain(_) => None,
        }
    }

    /// The screen rows this line takes at `width` columns, soft wrapped when `wrap`:
    /// the count of the rows the viewer draws (a line not rendered yet is counted
    /// from its source).
    pub fn row_count(&self, width: u16, wrap: bool) -> usize {
        let fit = |line: &Line<'_>| {
            if wrap && line.width() > width.max(1) as usize {
                crate::tui::wrap::wrap_line(line.clone(), width).len()
            } else {
                1
            }
        };
        match *self {
            LineRef::Plain(text) if wrap => crate::tui::wrap::rows(text, width),
            LineRef::Plain(_) => 1,
            // Most lines fit: counted from their runs, with no line built.
            LineRef::Styled(text, runs)
                if !wrap || runs_width(text, runs) <= width.max(1) as usize =>
            {
                split_rows(runs).map_or(1, |rows| rows.len())
            }
            LineRef::Styled(..) => match self.own_rows() {
                Some(rows) => rows.iter().map(fit).sum(),
                None => fit(&self.to_line()),
            },
        }
    }
}

/// The widest screen row of a line drawn from `runs`: the whole line, or its widest
/// own row when a table row is split into several.
fn runs_width(text: &str, runs: &[StyleRun]) -> usize {
    let mut widest = 0;
    let mut row = 0;
    for r in runs {
        if r.fill == crate::tui::highlight::ROW_BREAK {
            widest = widest.max(row);
            row = 0;
            continue;
        }
        row += text
            .get(r.start as usize..r.end as usize)
            .map_or(0, unicode_width::UnicodeWidthStr::width)
            + r.pad as usize;
    }
    widest.max(row)
}

/// Whether highlighting reached the lines asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    Done,
    /// Not yet: draw again soon.
    Waiting,
}

/// A document shown in the viewer.
pub struct Document {
    grammar: Grammar,
    lines: Vec<String>,
    /// Highlighted prefix of `lines`; `styled.len() <= lines.len()`.
    styled: Vec<Runs>,
    highlighter: Option<Painter>,
    rendering: Rendering,
    syntax_theme: String,
    /// The line being streamed, not yet complete.
    tail: String,
    /// Bumped whenever the complete lines change, so the design compiler runs again
    /// only when there is new text to check.
    revision: u64,
    /// The columns rendered tables are laid out for (`usize::MAX`: unbounded).
    width: usize,
    /// The first line rendered as a table row: a new width renders again from there.
    table_from: Option<usize>,
}

impl Document {
    pub fn new(grammar: Grammar, syntax_theme: &str) -> Document {
        Document {
            grammar,
            lines: Vec::new(),
            styled: Vec::new(),
            highlighter: None,
            rendering: Rendering::Rendered,
            syntax_theme: syntax_theme.to_string(),
            tail: String::new(),
            revision: 0,
            width: usize::MAX,
            table_from: None,
        }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.tail.is_empty()
    }

    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// Screen width of the widest line (for scrolling sideways).
    pub fn widest(&self) -> usize {
        self.lines
            .iter()
            .map(|l| unicode_width::UnicodeWidthStr::width(l.as_str()))
            .max()
            .unwrap_or(0)
    }

    pub fn tail(&self) -> &str {
        &self.tail
    }

    /// Changes whenever the complete lines do (the tail does not count).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// Replaces the whole text (a finished cycle, a restored session, an old commit).
    pub fn set_text(&mut self, text: &str) {
        if self.tail.is_empty() && self.lines.len() == text.lines().count() && self.text() == text {
            return;
        }
        self.lines = text.lines().map(str::to_string).collect();
        self.tail.clear();
        self.revision += 1;
        self.reset_highlight();
    }

    /// Appends complete lines (text ending in a newline; anything after the last
    /// newline is ignored: it belongs to the tail).
    pub fn append_lines(&mut self, text: &str) {
        let complete = match text.rfind('\n') {
            Some(end) => &text[..end],
            None => return,
        };
        // A table row drawn already is aligned with the rows seen then: redraw the
        // table when it grows (the renderer is in no fence at a table's first row).
        if matches!(&self.highlighter, Some(Painter::Markdown(m)) if !m.in_fence())
            && let Some(last) = self.styled.len().checked_sub(1)
            && is_table_line(&self.lines[last])
        {
            let first = self.lines[..last]
                .iter()
                .rposition(|l| !is_table_line(l))
                .map_or(0, |i| i + 1);
            self.styled.truncate(first);
            self.highlighter = None;
        }
        self.lines.extend(complete.split('\n').map(str::to_string));
        self.revision += 1;
    }

    /// The columns the viewer shows this document in (`usize::MAX` with wrap off):
    /// rendered tables are laid out to fit them, so a new width renders again from
    /// the first table (the lines before it stay cached).
    pub fn set_width(&mut self, width: usize) {
        if self.width == width {
            return;
        }
        self.width = width;
        match self.table_from.take() {
            Some(first) => {
                self.styled.truncate(first);
                self.highlighter = None;
            }
            // No table drawn yet: the ones still to come take the new width.
            None => {
                if let Some(Painter::Markdown(m)) = &mut self.highlighter {
                    m.set_width(width);
                }
            }
        }
    }

    /// Draws Markdown rendered or as source; a change redraws lazily.
    pub fn set_rendering(&mut self, rendering: Rendering) {
        if self.rendering != rendering {
            self.rendering = rendering;
            self.reset_highlight();
        }
    }

    pub fn set_tail(&mut self, tail: &str) {
        if self.tail != tail {
            self.tail.clear();
            self.tail.push_str(tail);
        }
    }

    pub fn clear(&mut self) {
        self.lines.clear();
        self.tail.clear();
        self.revision += 1;
        self.reset_highlight();
    }

    /// Switches the colour scheme; highlighted lines are redone lazily.
    pub fn set_syntax_theme(&mut self, name: &str) {
        if self.syntax_theme != name {
            self.syntax_theme = name.to_string();
            self.reset_highlight();
        }
    }

    fn reset_highlight(&mut self) {
        self.styled.clear();
        self.highlighter = None;
        self.table_from = None;
    }

    /// Highlights the lines before `end` that are not highlighted yet, stopping at
    /// `deadline` so that a long document never stalls a frame. Returns whether it got
    /// to `end`; lines not reached yet are drawn plain. Does nothing while the syntax
    /// assets are still warming up.
    pub fn highlight_until(
        &mut self,
        end: usize,
        deadline: Option<std::time::Instant>,
    ) -> Progress {
        let end = end.min(self.lines.len());
        if self.styled.len() >= end {
            return Progress::Done;
        }
        if self.highlighter.is_none() {
            self.highlighter = match (self.grammar, self.rendering) {
                (Grammar::Markdown, Rendering::Rendered) => {
                    MarkdownRenderer::new(&self.syntax_theme, self.width)
                        .map(|m| Painter::Markdown(Box::new(m)))
                }
                _ => LineHighlighter::new(self.grammar, &self.syntax_theme).map(Painter::Syntax),
            };
        }
        let Some(highlighter) = self.highlighter.as_mut() else {
            return Progress::Waiting;
        };
        let start = self.styled.len();
        let mut progress = Progress::Done;
        for i in 0..end - start {
            let index = start + i;
            self.styled.push(match highlighter {
                Painter::Syntax(h) => h.next_line(&self.lines[index]),
                Painter::Markdown(m) => m.next_line(&self.lines, index),
            });
            if i % 16 == 15 && deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                if self.styled.len() < end {
                    progress = Progress::Waiting;
                }
                break;
            }
        }
        if let Painter::Markdown(m) = highlighter {
            self.table_from = self.table_from.or(m.first_table());
        }
        progress
    }

    /// Line `index`, highlighted when the cache reaches it, plain otherwise.
    pub fn line(&self, index: usize) -> Option<Line<'static>> {
        self.line_ref(index).map(|l| {
            let line = l.to_line();
            Line::from(
                line.spans
                    .into_iter()
                    .map(|s| Span::styled(s.content.into_owned(), s.style))
                    .collect::<Vec<_>>(),
            )
        })
    }

    /// Line `index` without copying it (the viewer draws from this every frame).
    pub fn line_ref(&self, index: usize) -> Option<LineRef<'_>> {
        if let (Some(runs), Some(text)) = (self.styled.get(index), self.lines.get(index)) {
            return Some(LineRef::Styled(text, runs));
        }
        self.lines.get(index).map(|l| LineRef::Plain(l))
    }

    /// Number of lines that are highlighted (for tests and benchmarks).
    pub fn highlighted(&self) -> usize {
        self.styled.len()
    }

    /// First line at or after `from` (wrapping around) that contains `needle`,
    /// ignoring case; `backwards` searches the other way.
    pub fn find(&self, needle: &str, from: usize, backwards: bool) -> Option<usize> {
        if needle.is_empty() || self.lines.is_empty() {
            return None;
        }
        let needle = needle.to_lowercase();
        let n = self.lines.len();
        (1..=n)
            .map(|step| {
                if backwards {
                    (from + n - step % n) % n
                } else {
                    (from + step) % n
                }
            })
            .find(|i| self.lines[*i].to_lowercase().contains(&needle))
    }
}

fn is_table_line(line: &str) -> bool {
    line.trim_start_matches(' ').starts_with('|')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_lines_equal_the_whole_text() {
        let text = "# Title\n\nSome prose.\n```rust\nfn main() {}\n```\nend";
        let mut whole = Document::new(Grammar::Plain, "base16-ocean.dark");
        whole.set_text(text);
        let mut streamed = Document::new(Grammar::Plain, "base16-ocean.dark");
        let mut buffer = String::new();
        for piece in text.as_bytes().chunks(3) {
            buffer.push_str(std::str::from_utf8(piece).unwrap());
            if let Some(end) = buffer.rfind('\n') {
                streamed.append_lines(&buffer[..=end]);
                buffer.drain(..=end);
            }
            streamed.set_tail(&buffer);
        }
        streamed.append_lines(&format!("{buffer}\n"));
        streamed.set_tail("");
        assert_eq!(streamed.lines(), whole.lines());
    }

    /// The screen rows of line `index` as text.
    fn rows_of(doc: &Document, index: usize) -> Vec<String> {
        let line = doc.line_ref(index).unwrap();
        match line.own_rows() {
            Some(rows) => rows.iter().map(|r| r.to_string()).collect(),
            None => vec![line.to_line().to_string()],
        }
    }

    #[test]
    fn a_new_width_lays_the_tables_out_again_whether_drawn_yet_or_not() {
        crate::tui::highlight::warm_now();
        let text = "intro\n\n| id | what |\n|---|---|\n| FR-01 | keeps every task in one file |";
        let mut doc = Document::new(Grammar::Markdown, "base16-ocean.dark");
        doc.set_text(text);
        // Only the prose is drawn at 80; the table comes after the width changed.
        doc.set_width(80);
        doc.highlight_until(1, None);
        doc.set_width(25);
        doc.highlight_until(5, None);
        assert_eq!(rows_of(&doc, 4).len(), 3, "{:?}", rows_of(&doc, 4));
        assert_eq!(doc.line_ref(4).unwrap().row_count(25, true), 3);
        // Drawn at 25, then wider: one row again.
        doc.set_width(80);
        doc.highlight_until(5, None);
        assert_eq!(
            rows_of(&doc, 4),
            ["│ FR-01 │ keeps every task in one file │"]
        );
        assert_eq!(doc.line_ref(4).unwrap().row_count(80, true), 1);
    }

    #[test]
    fn find_wraps_and_goes_both_ways() {
        let mut d = Document::new(Grammar::Plain, "x");
        d.set_text("alpha\nBeta\ngamma\nbeta two");
        assert_eq!(d.find("beta", 0, false), Some(1));
        assert_eq!(d.find("beta", 1, false), Some(3));
        assert_eq!(d.find("beta", 3, false), Some(1));
        assert_eq!(d.find("beta", 1, true), Some(3));
        assert_eq!(d.find("zzz", 0, false), None);
    }
}
