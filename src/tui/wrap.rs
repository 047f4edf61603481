//! Soft wrapping of styled lines at a column width, by character, so that the number
//! of screen rows a line takes is known before drawing (the viewer anchors its scroll
//! position on it).

use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Screen rows `text` takes at `width` columns (at least one).
pub fn rows(text: &str, width: u16) -> usize {
    let width = width.max(1) as usize;
    UnicodeWidthStr::width(text).div_ceil(width).max(1)
}

/// Splits a styled line into rows of at most `width` columns.
pub fn wrap_line<'a>(line: Line<'a>, width: u16) -> Vec<Line<'a>> {
    let width = width.max(1) as usize;
    if line.width() <= width {
        return vec![line];
    }
    let mut out = Vec::new();
    let mut row: Vec<Span<'a>> = Vec::new();
    let mut used = 0usize;
    for span in line.spans {
        let mut piece = String::new();
        for c in span.content.chars() {
            let w = UnicodeWidthChar::width(c).unwrap_or(0);
            if used + w > width {
                if !piece.is_empty() {
                    row.push(Span::styled(std::mem::take(&mut piece), span.style));
                }
                out.push(Line::from(std::mem::take(&mut row)));
                used = 0;
            }
            piece.push(c);
            used += w;
        }
        if !piece.is_empty() {
            row.push(Span::styled(piece, span.style));
        }
    }
    if !row.is_empty() {
        out.push(Line::from(row));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Style;

    #[test]
    fn wraps_by_width_and_keeps_styles() {
        let line = Line::from(vec![
            Span::styled("abcd", Style::new().bold()),
            Span::raw("efghij"),
        ]);
        let rows_out = wrap_line(line, 4);
        let texts: Vec<String> = rows_out.iter().map(|l| l.to_string()).collect();
        assert_eq!(texts, ["abcd", "efgh", "ij"]);
        assert_eq!(rows("abcdefghij", 4), 3);
        assert_eq!(rows("", 4), 1);
        assert_eq!(rows("日本語", 4), 2);
    }
}
