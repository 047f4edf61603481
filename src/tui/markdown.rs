//! Markdown drawn as a document rather than as source: headings bright and bold
//! without their `#`s, list markers coloured but list text plain, `**bold**`,
//! `_emphasis_` and `` `code` `` without their delimiters, table columns aligned,
//! fenced code highlighted by its language.
//!
//! Each source line is drawn on its own screen rows, so line numbers, the cursor and
//! quoted anchors keep meaning the source. Lines are rendered one at a time into
//! [`Runs`] over the source bytes (a delimiter is a byte no run covers; table padding
//! is a run's `pad`), so the viewer's per-line cache serves rendered lines as it
//! serves highlighted ones. Block structure that spans lines (fences) is carried in
//! the renderer's state. A table is laid out once, at its first row, for the width
//! the renderer was made for: column widths shared out by content, each cell wrapped
//! inside its column (a row then takes several screen rows, split by
//! [`ROW_BREAK`] runs), or the source when even its narrowest layout is too wide.
//! Inline markup is read by `pulldown-cmark`.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use syntect::highlighting::{Highlighter, Theme as SyntectTheme};
use syntect::parsing::Scope;

use crate::tui::highlight::{LineHighlighter, ROW_BREAK, Runs, StyleRun, convert, syntect_theme};

/// The styles of rendered Markdown, taken from the syntax colour scheme.
#[derive(Debug, Clone, Copy)]
struct Styles {
    body: Style,
    marker: Style,
    code: Style,
    link: Style,
    muted: Style,
    /// Headings by level: `#` underlined in the keyword colour, `##` in it, `###`
    /// bold, deeper ones bold italic, so the outline reads at a glance.
    levels: [Style; 4],
}

impl Styles {
    fn of(theme: &SyntectTheme) -> Styles {
        let highlighter = Highlighter::new(theme);
        let scope = |name: &str| {
            let stack = Scope::new(name).map(|s| vec![s]).unwrap_or_default();
            convert(highlighter.style_for_stack(&stack))
        };
        let body = scope("text");
        Styles {
            body,
            marker: scope("keyword"),
            code: scope("string"),
            link: scope("markup.underline.link").add_modifier(Modifier::UNDERLINED),
            muted: scope("comment"),
            levels: [
                scope("keyword")
                    .add_modifier(Modifier::BOLD)
                    .add_modifier(Modifier::UNDERLINED),
                scope("keyword").add_modifier(Modifier::BOLD),
                body.add_modifier(Modifier::BOLD),
                body.add_modifier(Modifier::BOLD)
                    .add_modifier(Modifier::ITALIC),
            ],
        }
    }
}

/// An open fence: its byte and length, and the highlighter for its language.
struct Fence {
    byte: u8,
    len: usize,
    code: Option<LineHighlighter>,
}

/// The layout of the table being rendered, worked out at its first row so that each
/// further row costs only itself.
struct Table {
    /// The table is lines `first..last`.
    first: usize,
    last: usize,
    /// Each column's width, or `None` when the table cannot fit the width even at its
    /// narrowest (a column's longest word wider than its share): drawn as source.
    widths: Option<Vec<usize>>,
}

/// Renders the lines of one document in order.
pub struct MarkdownRenderer {
    styles: Styles,
    syntax_theme: String,
    fence: Option<Fence>,
    /// Inside an edit conflict: never Markdown, each side in its colour.
    conflict: Option<crate::tui::conflict::Side>,
    /// The columns a table may take (`usize::MAX`: as many as its cells want).
    width: usize,
    table: Option<Table>,
    /// The first line rendered as a table row: where a new width must render again.
    first_table: Option<usize>,
}

impl MarkdownRenderer {
    /// `None` while the syntax assets are still warming up. Tables are laid out to
    /// fit `width` columns (`usize::MAX`: unbounded, cells never wrap).
    pub fn new(syntax_theme: &str, width: usize) -> Option<MarkdownRenderer> {
        Some(MarkdownRenderer {
            styles: Styles::of(syntect_theme(syntax_theme)?),
            syntax_theme: syntax_theme.to_string(),
            fence: None,
            conflict: None,
            width: width.max(1),
            table: None,
            first_table: None,
        })
    }

    /// Whether the lines rendered so far end inside a fenced block.
    pub fn in_fence(&self) -> bool {
        self.fence.is_some()
    }

    /// The width for the tables still to come; only for a renderer that has drawn
    /// none yet (see [`MarkdownRenderer::first_table`]), as those drawn keep theirs.
    pub fn set_width(&mut self, width: usize) {
        self.width = width.max(1);
        self.table = None;
    }

    /// The first line drawn as a table row so far: the lines before it do not depend
    /// on the width.
    pub fn first_table(&self) -> Option<usize> {
        self.first_table
    }

    /// Renders `lines[index]`, the line after the one rendered last.
    pub fn next_line(&mut self, lines: &[String], index: usize) -> Runs {
        let Some(line) = lines.get(index) else {
            return Box::new([]);
        };
        let s = self.styles;
        if let Some(marker) = crate::tui::conflict::marker(line) {
            use crate::tui::conflict::Marker;
            self.conflict = marker.side_after();
            let style = match marker {
                Marker::Open => crate::tui::conflict::REVIEWER,
                Marker::Close => crate::tui::conflict::ARCHITECT,
                Marker::Base | Marker::Split => s.muted,
            };
            return whole(line, style.add_modifier(Modifier::BOLD));
        }
        if let Some(side) = self.conflict {
            return whole(line, side.style(s.muted));
        }
        let (indent, body) = split_indent(line);
        if let Some(fence) = &mut self.fence {
            if closes(body, fence.byte, fence.len) && indent <= 3 {
                self.fence = None;
                return whole(line, s.muted);
            }
            return match &mut fence.code {
                Some(code) => code.next_line(line),
                None => whole(line, s.code),
            };
        }
        if indent <= 3
            && let Some((byte, len, info)) = opens(body)
        {
            let token = info.split_whitespace().next().unwrap_or("");
            let code = (!token.is_empty())
                .then(|| LineHighlighter::for_language(token, &self.syntax_theme))
                .flatten();
            self.fence = Some(Fence { byte, len, code });
            return whole(line, s.muted);
        }
        if indent <= 3 && is_table_row(body) {
            return self.table_row(lines, index);
        }
        let mut out = Vec::new();
        let start = line.len() - body.len();
        if indent > 3 {
            return whole(line, s.code);
        }
        if let Some(title) = heading(body) {
            let at = title.as_ptr() as usize - line.as_ptr() as usize;
            let level = body.bytes().take_while(|b| *b == b'#').count();
            let style = s.levels[level.clamp(1, 4) - 1];
            inline(line, at, at + title.len(), style, &s, &mut out);
            return out.into_boxed_slice();
        }
        if is_rule(body) {
            return whole(line, s.muted);
        }
        let (marker_end, text_start) = list_or_quote(body)
            .map(|(m, t)| (start + m, start + t))
            .unwrap_or((start, start));
        if marker_end > start {
            push(&mut out, 0, marker_end, s.marker);
        } else if start > 0 {
            push(&mut out, 0, start, s.body);
        }
        if text_start > marker_end {
            push(&mut out, marker_end, text_start, s.body);
        }
        inline(line, text_start, line.len(), s.body, &s, &mut out);
        out.into_boxed_slice()
    }

    /// A table row: its cells wrapped inside their columns and padded to their width,
    /// the `|`s drawn as a grid; a row taller than one line is split by
    /// [`ROW_BREAK`]s. A table too wide for the renderer's width is drawn as source.
    fn table_row(&mut self, lines: &[String], index: usize) -> Runs {
        let s = self.styles;
        self.first_table.get_or_insert(index);
        if !self
            .table
            .as_ref()
            .is_some_and(|t| (t.first..t.last).contains(&index))
        {
            self.table = Some(lay_out(lines, index, self.width));
        }
        let line = &lines[index];
        let Some(widths) = self.table.as_ref().and_then(|t| t.widths.as_deref()) else {
            return whole(line, s.body);
        };
        let mut out: Vec<StyleRun> = Vec::new();
        if is_delimiter_row(line) {
            // The `| --- |` row becomes the grid's rule under the head.
            fill(&mut out, 0, 1, '├', s.muted);
            for (i, width) in widths.iter().enumerate() {
                if i > 0 {
                    fill(&mut out, 0, 1, '┼', s.muted);
                }
                fill(&mut out, 0, width + 2, '─', s.muted);
            }
            fill(&mut out, 0, 1, '┤', s.muted);
            return out.into_boxed_slice();
        }
        // Each cell's rows: runs over the source with the columns each row uses.
        let cells: Vec<Vec<(Vec<StyleRun>, usize)>> = cells(line)
            .into_iter()
            .zip(widths)
            .map(|((a, b), width)| cell_rows(line, a, b, *width, &s))
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1).max(1);
        for row in 0..height {
            if row > 0 {
                fill(&mut out, line.len(), 0, ROW_BREAK, s.muted);
            }
            for (i, width) in widths.iter().enumerate() {
                fill(&mut out, 0, 1, '│', s.muted);
                pad_last(&mut out, 1);
                let used = match cells.get(i).and_then(|c| c.get(row)) {
                    Some((runs, used)) => {
                        out.extend_from_slice(runs);
                        *used
                    }
                    None => 0,
                };
                pad_last(&mut out, width.saturating_sub(used) + 1);
            }
            fill(&mut out, 0, 1, '│', s.muted);
        }
        out.into_boxed_slice()
    }
}

/// The layout of the table around line `index` for `width` columns: each column's
/// natural width (its widest cell) when they all fit; else each column gets at least
/// its longest word and the rest is shared out by how much more its cells want;
/// `None` when even the longest words do not fit.
fn lay_out(lines: &[String], index: usize, width: usize) -> Table {
    let in_table = |l: &String| {
        let (indent, body) = split_indent(l);
        indent <= 3 && is_table_row(body)
    };
    let first = lines[..index]
        .iter()
        .rposition(|l| !in_table(l))
        .map_or(0, |i| i + 1);
    let last = lines[index..]
        .iter()
        .position(|l| !in_table(l))
        .map_or(lines.len(), |i| index + i);
    let mut natural: Vec<usize> = Vec::new();
    let mut narrowest: Vec<usize> = Vec::new();
    for row in &lines[first..last] {
        if is_delimiter_row(row) {
            continue;
        }
        for (i, (a, b)) in cells(row).into_iter().enumerate() {
            let (all, word) = measure(&row[a..b]);
            if natural.len() <= i {
                natural.push(0);
                narrowest.push(0);
            }
            natural[i] = natural[i].max(all);
            narrowest[i] = narrowest[i].max(word);
        }
    }
    // `│ ` before each cell, ` ` after it, and the closing `│`; and a blank column
    // kept before the pane's border, which would otherwise double the closing `│`.
    let frame = 3 * natural.len() + 1;
    let width = width.saturating_sub(1);
    let wanted: usize = natural.iter().sum();
    let widths = if wanted + frame <= width {
        Some(natural)
    } else if narrowest.iter().sum::<usize>() + frame > width {
        None
    } else {
        Some(share_out(&natural, &narrowest, width - frame))
    };
    Table {
        first,
        last,
        widths,
    }
}

/// Column widths summing to `room`: each at least `narrowest`, never more than
/// `natural`, the columns that want more getting more.
fn share_out(natural: &[usize], narrowest: &[usize], room: usize) -> Vec<usize> {
    let mut widths = narrowest.to_vec();
    let spare = room.saturating_sub(widths.iter().sum());
    let wants: Vec<usize> = natural
        .iter()
        .zip(narrowest)
        .map(|(n, m)| n.saturating_sub(*m))
        .collect();
    let total: usize = wants.iter().sum();
    if total == 0 {
        return widths;
    }
    let mut given = 0;
    for (w, want) in widths.iter_mut().zip(&wants) {
        let share = (spare * want / total).min(*want);
        *w += share;
        given += share;
    }
    // What rounding left over, one column at a time to those still short.
    let mut left = spare.saturating_sub(given);
    while left > 0 {
        let mut moved = false;
        for (i, w) in widths.iter_mut().enumerate() {
            if left > 0 && *w < natural[i] {
                *w += 1;
                left -= 1;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    widths
}

/// A cell as drawn (its inline delimiters left out): its width and its longest word's.
fn measure(cell: &str) -> (usize, usize) {
    let mut all = 0;
    let mut word = 0;
    let mut longest = 0;
    for c in visible_chars(cell).map(|(_, c, _)| c) {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        all += w;
        if c == ' ' || c == '\t' {
            word = 0;
        } else {
            word += w;
            longest = longest.max(word);
        }
    }
    (all, longest)
}

/// The characters of `cell` that are drawn, with their byte offsets and styles.
fn visible_chars(cell: &str) -> impl Iterator<Item = (usize, char, Style)> + '_ {
    let mut runs = Vec::new();
    inline(cell, 0, cell.len(), Style::default(), &PLAIN, &mut runs);
    runs.into_iter().flat_map(move |r| {
        let (a, b) = (r.start as usize, r.end as usize);
        cell.get(a..b)
            .unwrap_or("")
            .char_indices()
            .map(move |(i, c)| (a + i, c, r.style))
    })
}

/// The rows of cell `line[a..b]` wrapped at `width`: each as runs over the source
/// and the columns it takes.
fn cell_rows(
    line: &str,
    a: usize,
    b: usize,
    width: usize,
    s: &Styles,
) -> Vec<(Vec<StyleRun>, usize)> {
    let mut runs = Vec::new();
    inline(line, a, b, s.body, s, &mut runs);
    let chars: Vec<(usize, char, Style)> = runs
        .iter()
        .flat_map(|r| {
            let (start, end) = (r.start as usize, r.end as usize);
            line.get(start..end)
                .unwrap_or("")
                .char_indices()
                .map(move |(i, c)| (start + i, c, r.style))
        })
        .collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let width = u16::try_from(width).unwrap_or(u16::MAX).max(1);
    crate::tui::wrap::row_ranges(chars.iter().map(|(_, c, _)| *c), width)
        .into_iter()
        .map(|(from, to)| {
            let mut row: Vec<StyleRun> = Vec::new();
            let mut used = 0;
            for &(at, c, style) in &chars[from..to] {
                used += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
                let end = (at + c.len_utf8()) as u32;
                match row.last_mut() {
                    Some(last) if last.end == at as u32 && last.style == style => last.end = end,
                    _ => row.push(StyleRun {
                        start: at as u32,
                        end,
                        style,
                        pad: 0,
                        fill: ' ',
                    }),
                }
            }
            (row, used)
        })
        .collect()
}

/// Unstyled looks, for measuring a cell.
const PLAIN: Styles = Styles {
    body: Style::new(),
    marker: Style::new(),
    code: Style::new(),
    link: Style::new(),
    muted: Style::new(),
    levels: [Style::new(); 4],
};

fn whole(line: &str, style: Style) -> Runs {
    Box::new([StyleRun {
        start: 0,
        end: line.len() as u32,
        style,
        pad: 0,
        fill: ' ',
    }])
}

fn push(out: &mut Vec<StyleRun>, start: usize, end: usize, style: Style) {
    if end > start {
        out.push(StyleRun {
            start: start as u32,
            end: end as u32,
            style,
            pad: 0,
            fill: ' ',
        });
    }
}

/// `n` copies of `with` drawn at byte `at` in place of no source byte (a grid line).
fn fill(out: &mut Vec<StyleRun>, at: usize, n: usize, with: char, style: Style) {
    out.push(StyleRun {
        start: at as u32,
        end: at as u32,
        style,
        pad: n as u16,
        fill: with,
    });
}

/// Adds `n` spaces after the last run (a zero-width run carries them if needed).
fn pad_last(out: &mut Vec<StyleRun>, n: usize) {
    match out.last_mut() {
        Some(last) if last.fill == ' ' => last.pad = last.pad.saturating_add(n as u16),
        _ => out.push(StyleRun {
            start: 0,
            end: 0,
            style: Style::default(),
            pad: n as u16,
            fill: ' ',
        }),
    }
}

/// Renders the inline Markdown of `line[from..to]` into runs: text in `base` (bold,
/// italic, code and links over it), delimiters left out.
fn inline(line: &str, from: usize, to: usize, base: Style, s: &Styles, out: &mut Vec<StyleRun>) {
    let text = &line[from..to];
    if text.is_empty() {
        return;
    }
    let mut style = vec![base];
    let mut covered = false;
    let options = Options::ENABLE_STRIKETHROUGH;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        let current = style.last().copied().unwrap_or(base);
        match event {
            Event::Start(Tag::Strong) => style.push(current.add_modifier(Modifier::BOLD)),
            Event::Start(Tag::Emphasis) => style.push(current.add_modifier(Modifier::ITALIC)),
            Event::Start(Tag::Strikethrough) => {
                style.push(current.add_modifier(Modifier::CROSSED_OUT))
            }
            Event::Start(Tag::Link { .. }) => style.push(s.link),
            Event::End(TagEnd::Strong | TagEnd::Emphasis | TagEnd::Strikethrough)
            | Event::End(TagEnd::Link) => {
                style.pop();
            }
            Event::Text(_) | Event::Html(_) | Event::InlineHtml(_) => {
                push(out, from + range.start, from + range.end, current);
                covered = true;
            }
            Event::Code(_) => {
                let piece = &text[range.clone()];
                let ticks = piece.bytes().take_while(|b| *b == b'`').count();
                let (mut a, mut b) = (range.start + ticks, range.end.saturating_sub(ticks));
                if b > a + 1 && text.as_bytes()[a] == b' ' && text.as_bytes()[b - 1] == b' ' {
                    a += 1;
                    b -= 1;
                }
                push(out, from + a, from + b.max(a), s.code);
                covered = true;
            }
            _ => {}
        }
    }
    if !covered {
        // Nothing inline came out (a setext underline, a lone marker): show the text.
        push(out, from, to, base);
    }
}

fn split_indent(line: &str) -> (usize, &str) {
    let body = line.trim_start_matches(' ');
    (line.len() - body.len(), body)
}

/// A fence opener: its byte, length and info string.
fn opens(body: &str) -> Option<(u8, usize, &str)> {
    let byte = *body.as_bytes().first()?;
    if byte != b'`' && byte != b'~' {
        return None;
    }
    let len = body.bytes().take_while(|b| *b == byte).count();
    let info = &body[len..];
    (len >= 3 && !(byte == b'`' && info.contains('`'))).then_some((byte, len, info.trim()))
}

fn closes(body: &str, byte: u8, len: usize) -> bool {
    let n = body.bytes().take_while(|b| *b == byte).count();
    n >= len && body[n..].trim().is_empty()
}

/// The text of an ATX heading (`## Title` → `Title`).
fn heading(body: &str) -> Option<&str> {
    let hashes = body.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &body[hashes..];
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    let text = rest.trim_start();
    // A closing sequence of `#`s is not part of the title.
    let trimmed = text.trim_end();
    let closing = trimmed.trim_end_matches('#');
    Some(if closing.ends_with(' ') || closing.is_empty() {
        &text[..closing.trim_end().len()]
    } else {
        text
    })
}

fn is_rule(body: &str) -> bool {
    let t = body.trim_end();
    let Some(c) = t.chars().next() else {
        return false;
    };
    matches!(c, '-' | '*' | '_')
        && t.chars().filter(|x| *x == c).count() >= 3
        && t.chars().all(|x| x == c || x == ' ')
}

/// A list item's or quote's marker: `(end of the marker, start of the text)`.
fn list_or_quote(body: &str) -> Option<(usize, usize)> {
    let bytes = body.as_bytes();
    let marker = match bytes.first()? {
        b'-' | b'*' | b'+' => 1,
        b'>' => 1,
        b'0'..=b'9' => {
            let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            match bytes.get(digits) {
                Some(b'.' | b')') if digits <= 9 => digits + 1,
                _ => return None,
            }
        }
        _ => return None,
    };
    match bytes.get(marker) {
        Some(b' ') => {
            let spaces = bytes[marker..].iter().take_while(|b| **b == b' ').count();
            Some((marker, marker + spaces))
        }
        None if bytes[0] == b'>' => Some((1, 1)),
        _ => None,
    }
}

fn is_table_row(body: &str) -> bool {
    body.starts_with('|') && body.trim_end().len() > 1
}

fn is_delimiter_row(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|')
        && t.contains('-')
        && t.bytes().all(|b| matches!(b, b'|' | b'-' | b':' | b' '))
}

/// The cells of a table row as trimmed byte ranges (an escaped `\|` and a `|` in
/// code are content).
fn cells(line: &str) -> Vec<(usize, usize)> {
    let bytes = line.as_bytes();
    let mut pipes = Vec::new();
    let mut in_code = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'`' => in_code = !in_code,
            b'|' if !in_code => pipes.push(i),
            _ => {}
        }
        i += 1;
    }
    let mut out = Vec::new();
    for pair in pipes.windows(2) {
        let (a, b) = (pair[0] + 1, pair[1]);
        let cell = &line[a..b];
        let lead = cell.len() - cell.trim_start().len();
        let kept = cell.trim().len();
        out.push((a + lead, a + lead + kept));
    }
    if let Some(&last) = pipes.last() {
        let tail = &line[last + 1..];
        if !tail.trim().is_empty() {
            let lead = tail.len() - tail.trim_start().len();
            out.push((last + 1 + lead, last + 1 + lead + tail.trim().len()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::highlight::{styled_line, warm_now};

    fn rendered(text: &str) -> Vec<String> {
        warm_now();
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut r = MarkdownRenderer::new("base16-ocean.dark", usize::MAX).unwrap();
        (0..lines.len())
            .map(|i| {
                let runs = r.next_line(&lines, i);
                styled_line(&lines[i], &runs).to_string()
            })
            .collect()
    }

    #[test]
    fn delimiters_are_left_out_and_text_kept() {
        assert_eq!(
            rendered(
                "## Components ##\n1. **Store** keeps `rows` and _only_ rows\n- see [docs](http://x)"
            ),
            [
                "Components",
                "1. Store keeps rows and only rows",
                "- see docs"
            ]
        );
    }

    #[test]
    fn tables_are_drawn_as_grids_without_their_rule_row() {
        let out = rendered("| id | name |\n|---|---|\n| FR-01 | **add** a book |\n");
        assert_eq!(out[0], "│ id    │ name       │");
        assert_eq!(out[1], "├───────┼────────────┤");
        assert_eq!(out[2], "│ FR-01 │ add a book │");
    }

    /// Each line's screen rows at `width` (a table row may take several).
    fn rows_at(text: &str, width: usize) -> Vec<Vec<String>> {
        warm_now();
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut r = MarkdownRenderer::new("base16-ocean.dark", width).unwrap();
        (0..lines.len())
            .map(|i| {
                let runs = r.next_line(&lines, i);
                match crate::tui::highlight::split_rows(&runs) {
                    Some(rows) => rows
                        .iter()
                        .map(|row| styled_line(&lines[i], row).to_string())
                        .collect(),
                    None => vec![styled_line(&lines[i], &runs).to_string()],
                }
            })
            .collect()
    }

    #[test]
    fn cells_wrap_inside_their_columns_when_the_table_is_too_wide() {
        let text = "| id | what it does |\n|---|---|\n| FR-01 | keeps **every** task in one SQLite file |\n| FR-2 | lists |";
        // Natural: 5 and 35 columns, 47 with the grid. In 31 columns (30 and a blank
        // before the border) the second column gets its longest word (6) and all the
        // spare room: 18.
        let out = rows_at(text, 31);
        assert_eq!(out[0], ["│ id    │ what it does       │"]);
        assert_eq!(out[1], ["├───────┼────────────────────┤"]);
        assert_eq!(
            out[2],
            [
                "│ FR-01 │ keeps every task   │",
                "│       │ in one SQLite file │"
            ]
        );
        assert_eq!(out[3], ["│ FR-2  │ lists              │"]);
        for rows in &out {
            for row in rows {
                assert_eq!(
                    unicode_width::UnicodeWidthStr::width(row.as_str()),
                    30,
                    "{row:?}"
                );
            }
        }
        // Wide enough: one row each, at the cells' own widths.
        let wide = rows_at(text, 200);
        assert!(wide.iter().all(|rows| rows.len() == 1), "{wide:?}");
        assert_eq!(
            wide[2][0],
            "│ FR-01 │ keeps every task in one SQLite file │"
        );
    }

    #[test]
    fn a_table_that_cannot_fit_even_at_its_narrowest_is_drawn_as_source() {
        let text = "| id | name |\n|---|---|\n| FR-01 | a_very_long_identifier_name |";
        let out = rows_at(text, 20);
        assert_eq!(out[0], ["| id | name |"]);
        assert_eq!(out[1], ["|---|---|"]);
        assert_eq!(out[2], ["| FR-01 | a_very_long_identifier_name |"]);
        // Its longest word fits: a grid again.
        let out = rows_at(text, 40);
        assert!(
            rows_at(text, 39)[1][0].starts_with('|'),
            "no room for the blank"
        );
        assert_eq!(out[1], ["├───────┼─────────────────────────────┤"]);
        assert_eq!(out[2], ["│ FR-01 │ a_very_long_identifier_name │"]);
    }

    #[test]
    fn column_widths_are_shared_out_by_what_the_cells_want() {
        // Room for 30: each keeps its longest word, the spare 16 goes by how much more
        // each wants (10 and 30 more: a quarter and three quarters).
        assert_eq!(share_out(&[14, 40], &[4, 10], 30), [8, 22]);
        // Never more than a column wants; the rest is left.
        assert_eq!(share_out(&[5, 9], &[5, 3], 30), [5, 9]);
        assert_eq!(share_out(&[3, 3], &[3, 3], 4), [3, 3]);
    }

    #[test]
    fn a_conflict_is_drawn_as_one_not_as_markdown() {
        let text = "intro\n<<<<<<< reviewer\n| mine |\n||||||| base\n> old\n=======\n# theirs\n>>>>>>> architect\n**after**";
        let out = rendered(text);
        assert_eq!(out[2], "| mine |", "not a table row");
        assert_eq!(out[3], "||||||| base");
        assert_eq!(out[4], "> old", "not a quote");
        assert_eq!(out[6], "# theirs", "not a heading");
        assert_eq!(out[7], ">>>>>>> architect");
        assert_eq!(out[8], "after", "Markdown again after the conflict");
    }

    #[test]
    fn fenced_code_is_highlighted_by_its_language_and_kept_verbatim() {
        warm_now();
        let text = "```rust\nfn main() { let x = **1**; }\n```\nafter **bold**";
        assert_eq!(
            rendered(text),
            [
                "```rust",
                "fn main() { let x = **1**; }",
                "```",
                "after bold"
            ]
        );
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut r = MarkdownRenderer::new("base16-ocean.dark", usize::MAX).unwrap();
        r.next_line(&lines, 0);
        let code = r.next_line(&lines, 1);
        let colours: std::collections::HashSet<_> = code
            .iter()
            .map(|run| format!("{:?}", run.style.fg))
            .collect();
        assert!(colours.len() >= 2, "{code:?}");
    }

    #[test]
    fn heading_levels_are_distinct_and_list_text_is_body_coloured() {
        warm_now();
        let lines: Vec<String> = ["## Title", "1. item text", "# Top", "### Third"]
            .map(String::from)
            .to_vec();
        let mut r = MarkdownRenderer::new("base16-ocean.dark", usize::MAX).unwrap();
        let styles = r.styles;
        let h = r.next_line(&lines, 0);
        assert!(
            h.iter()
                .all(|run| run.style.add_modifier.contains(Modifier::BOLD))
        );
        let item = r.next_line(&lines, 1);
        let top = r.next_line(&lines, 2);
        let third = r.next_line(&lines, 3);
        let looks = |runs: &Runs| (runs[0].style.fg, runs[0].style.add_modifier);
        assert_ne!(looks(&top), looks(&h));
        assert_ne!(looks(&h), looks(&third));
        assert_ne!(looks(&top), looks(&third));
        assert_eq!(third[0].style.fg, styles.body.fg);
        let text_run = item.iter().find(|run| run.start as usize >= 3).unwrap();
        assert_eq!(text_run.style.fg, styles.body.fg);
        assert_ne!(item[0].style.fg, text_run.style.fg, "the marker stands out");
    }
}
