//! Soft wrapping of styled lines at a column width, at word boundaries, so that the
//! number of screen rows a line takes is known before drawing (the viewer anchors its
//! scroll position and its mouse hits on it). A word longer than a row is split.
//!
//! [`rows`] and [`wrap_line`] share one break rule ([`Breaker`]), so the rows counted
//! are always the rows drawn.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// What becomes of one character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Break {
    /// It continues the current row.
    None,
    /// A new row starts at it.
    Before,
    /// A new row starts after the row's last blank (which is not drawn), taking the
    /// characters after that blank and this one.
    AfterBlank { blank: usize },
    /// It is a blank that ends the row and is not drawn.
    Swallow,
    /// It is a blank at the start of a continuation row, not drawn.
    Skip,
}

/// Greedy word wrap, one character at a time.
struct Breaker {
    width: usize,
    used: usize,
    /// The last blank after a word in the current row, and the width used after it.
    blank: Option<(usize, usize)>,
    row_has_text: bool,
    row_has_word: bool,
    continuation: bool,
}

impl Breaker {
    fn new(width: u16) -> Breaker {
        Breaker {
            width: width.max(1) as usize,
            used: 0,
            blank: None,
            row_has_text: false,
            row_has_word: false,
            continuation: false,
        }
    }

    /// Decides the fate of character `index`, `c`, `w` columns wide.
    fn next(&mut self, index: usize, c: char, w: usize) -> Break {
        let blank = c == ' ' || c == '\t';
        if blank && self.continuation && !self.row_has_text {
            return Break::Skip;
        }
        if self.used + w <= self.width || !self.row_has_text {
            self.used += w;
            self.row_has_text = true;
            if !blank {
                self.row_has_word = true;
                if let Some((_, after)) = &mut self.blank {
                    *after += w;
                }
            } else if self.row_has_word {
                self.blank = Some((index, 0));
            }
            return Break::None;
        }
        if blank {
            self.start_row(0);
            return Break::Swallow;
        }
        match self.blank.take() {
            Some((at, after)) if after > 0 => {
                self.start_row(after + w);
                Break::AfterBlank { blank: at }
            }
            _ => {
                self.start_row(w);
                Break::Before
            }
        }
    }

    fn start_row(&mut self, used: usize) {
        self.used = used;
        self.blank = None;
        self.row_has_text = used > 0;
        self.row_has_word = used > 0;
        self.continuation = true;
    }
}

/// Screen rows `text` takes at `width` columns (at least one).
pub fn rows(text: &str, width: u16) -> usize {
    if UnicodeWidthStr::width(text) <= width.max(1) as usize {
        return 1;
    }
    let mut breaker = Breaker::new(width);
    let mut rows = 1;
    for (i, c) in text.chars().enumerate() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        match breaker.next(i, c, w) {
            Break::None | Break::Skip => {}
            Break::Before | Break::AfterBlank { .. } | Break::Swallow => rows += 1,
        }
    }
    // A row opened by a swallowed blank at the very end holds nothing.
    if !breaker.row_has_text && rows > 1 {
        rows -= 1;
    }
    rows
}

/// Splits a styled line into rows of at most `width` columns, breaking after blanks
/// where it can.
pub fn wrap_line<'a>(line: Line<'a>, width: u16) -> Vec<Line<'a>> {
    if line.width() <= width.max(1) as usize {
        return vec![line];
    }
    let chars: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
        .collect();
    row_ranges(chars.iter().map(|(c, _)| *c), width)
        .into_iter()
        .map(|(a, b)| styled_row(&chars[a..b]))
        .collect()
}

/// The rows of a line of `chars` wrapped at `width`, as ranges of character
/// indices (the blanks at breaks fall between them). A table cell wraps inside its
/// column by this same rule.
pub(crate) fn row_ranges(chars: impl Iterator<Item = char>, width: u16) -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    let mut count = 0;
    let mut breaker = Breaker::new(width);
    for (i, c) in chars.enumerate() {
        count = i + 1;
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        match breaker.next(i, c, w) {
            Break::None => {}
            Break::Before => {
                ranges.push((start, i));
                start = i;
            }
            Break::AfterBlank { blank } => {
                ranges.push((start, blank));
                start = blank + 1;
            }
            Break::Swallow => {
                ranges.push((start, i));
                start = i + 1;
            }
            Break::Skip => start = i + 1,
        }
    }
    if start < count || ranges.is_empty() {
        ranges.push((start.min(count), count));
    }
    ranges
}

/// The last `height` rows of `text` wrapped at `width`, each styled `style`: what a
/// pane that follows the end of a growing text (the thinking stream) shows. Only the
/// lines that reach the screen are wrapped, and of a line longer than the pane could
/// show only its end (from a word), so a long text costs what its end costs, even when
/// a model streams its reasoning as one endless line.
pub fn tail_rows(text: &str, width: u16, height: usize, style: Style) -> Vec<Line<'_>> {
    // Bytes enough for every row shown, even of four-byte characters.
    let budget = (height + 1) * (width.max(1) as usize) * 4;
    let mut rows: Vec<Line<'_>> = Vec::new();
    for line in text.lines().rev() {
        if rows.len() >= height {
            break;
        }
        let line = line_end(line, budget);
        let wrapped = wrap_line(Line::styled(line, style), width);
        rows.splice(0..0, wrapped);
    }
    let extra = rows.len().saturating_sub(height);
    rows.drain(..extra);
    rows
}

/// The last `budget` bytes of `line` or a little less, starting at a word.
fn line_end(line: &str, budget: usize) -> &str {
    if line.len() <= budget {
        return line;
    }
    let mut start = line.len() - budget;
    while !line.is_char_boundary(start) {
        start += 1;
    }
    let tail = &line[start..];
    match tail.find(' ') {
        Some(blank) => &tail[blank + 1..],
        None => tail,
    }
}

/// One row's characters as spans, one per run of the same style.
fn styled_row<'a>(chars: &[(char, Style)]) -> Line<'a> {
    let mut spans: Vec<Span<'a>> = Vec::new();
    let mut piece = String::new();
    let mut style = None;
    for &(c, s) in chars {
        if style.is_some_and(|prev| prev != s) {
            spans.push(Span::styled(std::mem::take(&mut piece), style.unwrap_or(s)));
        }
        style = Some(s);
        piece.push(c);
    }
    if let Some(s) = style {
        spans.push(Span::styled(piece, s));
    }
    Line::from(spans)
}

/// The line with its first `columns` screen columns cut off (horizontal scrolling
/// with wrap off). A wide character cut in half becomes a space.
pub fn skip_columns(line: Line<'_>, columns: usize) -> Line<'_> {
    if columns == 0 {
        return line;
    }
    let mut left = columns;
    let mut spans = Vec::new();
    for span in line.spans {
        if left == 0 {
            spans.push(span);
            continue;
        }
        let mut kept = String::new();
        for c in span.content.chars() {
            let w = UnicodeWidthChar::width(c).unwrap_or(0);
            if left == 0 {
                kept.push(c);
            } else if w > left {
                kept.extend(std::iter::repeat_n(' ', w - left));
                left = 0;
            } else {
                left -= w;
            }
        }
        if !kept.is_empty() {
            spans.push(Span::styled(kept, span.style));
        }
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: Line<'_>, width: u16) -> Vec<String> {
        wrap_line(line, width)
            .iter()
            .map(|l| l.to_string())
            .collect()
    }

    #[test]
    fn the_tail_of_a_text_is_its_last_rows_wrapped() {
        let text = "first line\nThe store keeps every task in one SQLite file so that a backup is a copy\nend";
        let rows: Vec<String> = tail_rows(text, 20, 5, Style::default())
            .iter()
            .map(|l| l.to_string().trim_end().to_string())
            .collect();
        // The first line is above the pane; the long one is whole, at word breaks.
        assert_eq!(
            rows,
            [
                "The store keeps",
                "every task in one",
                "SQLite file so that",
                "a backup is a copy",
                "end"
            ]
        );
        let three = tail_rows(text, 20, 3, Style::default());
        assert_eq!(three.len(), 3);
        assert_eq!(three[0].to_string().trim_end(), "SQLite file so that");
        // Shorter than the pane: every row, from the top.
        let all = tail_rows("a\nb", 20, 5, Style::default());
        assert_eq!(all.len(), 2);
        assert!(tail_rows("", 20, 5, Style::default()).is_empty());
        // One endless line: only its end is wrapped, from a word, and it ends the pane.
        let endless = format!("{}the very end", "ünïcode words ".repeat(100_000));
        let rows: Vec<String> = tail_rows(&endless, 30, 4, Style::default())
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert_eq!(rows.len(), 4);
        assert!(rows[3].ends_with("the very end"), "{rows:?}");
        assert!(
            rows.iter().all(|r| r.split_whitespace().all(|w| [
                "ünïcode",
                "words",
                "the",
                "very",
                "end"
            ]
            .contains(&w))),
            "{rows:?}"
        );
        assert!(tail_rows("a\nb", 20, 0, Style::default()).is_empty());
    }

    #[test]
    fn wraps_at_word_boundaries_and_keeps_styles() {
        let line = Line::from(vec![
            Span::styled("the page ", Style::new().bold()),
            Span::raw("count grows"),
        ]);
        let rows_out = wrap_line(line.clone(), 12);
        let got: Vec<String> = rows_out.iter().map(|l| l.to_string()).collect();
        assert_eq!(got, ["the page", "count grows"]);
        assert_eq!(rows_out[0].spans[0].style, Style::new().bold());
        assert_eq!(rows("the page count grows", 12), 2);
    }

    #[test]
    fn splits_words_longer_than_a_row() {
        assert_eq!(texts(Line::raw("abcdefghij"), 4), ["abcd", "efgh", "ij"]);
        assert_eq!(rows("abcdefghij", 4), 3);
        assert_eq!(
            texts(Line::raw("ab abcdefghij"), 4),
            ["ab", "abcd", "efgh", "ij"]
        );
        assert_eq!(rows("", 4), 1);
        assert_eq!(rows("日本語", 4), 2);
    }

    #[test]
    fn blanks_at_a_break_are_not_drawn() {
        assert_eq!(texts(Line::raw("abcd efgh"), 4), ["abcd", "efgh"]);
        assert_eq!(rows("abcd efgh", 4), 2);
        assert_eq!(texts(Line::raw("abcd "), 4), ["abcd"]);
        assert_eq!(rows("abcd ", 4), 1);
    }

    #[test]
    fn skipping_columns_scrolls_sideways() {
        let line = Line::from(vec![Span::raw("ab"), Span::raw("cdef")]);
        assert_eq!(skip_columns(line, 3).to_string(), "def");
        assert_eq!(skip_columns(Line::raw("日本"), 1).to_string(), " 本");
    }

    proptest::proptest! {
        /// The rows counted are the rows drawn; no row is wider than the width; no
        /// word that fits in a row is split; nothing but the blanks at breaks is lost.
        #[test]
        fn counted_rows_are_drawn_rows(
            words in proptest::collection::vec("[a-z]{1,9}|日本|  ", 0..20),
            width in 1u16..14,
        ) {
            // Indentation wider than a row is no place to break: not checked here.
            let text = words.join(" ").trim_start().to_string();
            let drawn = texts(Line::raw(text.clone()), width);
            proptest::prop_assert_eq!(rows(&text, width), drawn.len().max(1));
            for row in &drawn {
                proptest::prop_assert!(
                    UnicodeWidthStr::width(row.as_str()) <= (width as usize).max(2),
                    "{:?} at {}", row, width
                );
            }
            let kept: String = drawn.concat().split_whitespace().collect();
            let all: String = text.split_whitespace().collect();
            proptest::prop_assert_eq!(kept, all);
            for word in text.split_whitespace() {
                if UnicodeWidthStr::width(word) <= width as usize {
                    proptest::prop_assert!(
                        drawn.iter().any(|r| r.split_whitespace().any(|w| w == word)),
                        "{:?} split in {:?} at {}", word, drawn, width
                    );
                }
            }
        }
    }
}
