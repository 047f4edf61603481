//! Markdown drawn as a document rather than as source: headings bright and bold
//! without their `#`s, list markers coloured but list text plain, `**bold**`,
//! `_emphasis_` and `` `code` `` without their delimiters, table columns aligned,
//! fenced code highlighted by its language.
//!
//! One screen line per source line, so line numbers, the cursor and quoted anchors
//! keep meaning the source. Lines are rendered one at a time into [`Runs`] over the
//! source bytes (a delimiter is a byte no run covers; table padding is a run's
//! `pad`), so the viewer's per-line cache serves rendered lines as it serves
//! highlighted ones. Block structure that spans lines (fences) is carried in the
//! renderer's state; a table row looks at its neighbours for the column widths.
//! Inline markup is read by `pulldown-cmark`.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use syntect::highlighting::{Highlighter, Theme as SyntectTheme};
use syntect::parsing::Scope;
use unicode_width::UnicodeWidthStr;

use crate::tui::highlight::{LineHighlighter, Runs, StyleRun, convert, syntect_theme};

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

/// Renders the lines of one document in order.
pub struct MarkdownRenderer {
    styles: Styles,
    syntax_theme: String,
    fence: Option<Fence>,
    /// Inside an edit conflict: never Markdown, each side in its colour.
    conflict: Option<crate::tui::conflict::Side>,
}

impl MarkdownRenderer {
    /// `None` while the syntax assets are still warming up.
    pub fn new(syntax_theme: &str) -> Option<MarkdownRenderer> {
        Some(MarkdownRenderer {
            styles: Styles::of(syntect_theme(syntax_theme)?),
            syntax_theme: syntax_theme.to_string(),
            fence: None,
            conflict: None,
        })
    }

    /// Whether the lines rendered so far end inside a fenced block.
    pub fn in_fence(&self) -> bool {
        self.fence.is_some()
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

    /// A table row, its cells padded to the widest cell of their column in the table
    /// around it; the `|`s are drawn muted.
    fn table_row(&self, lines: &[String], index: usize) -> Runs {
        let s = self.styles;
        let line = &lines[index];
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
        let mut widths: Vec<usize> = Vec::new();
        for row in &lines[first..last] {
            if is_delimiter_row(row) {
                continue;
            }
            for (i, (a, b)) in cells(row).into_iter().enumerate() {
                let w = visible_width(&row[a..b]);
                match widths.get_mut(i) {
                    Some(slot) => *slot = (*slot).max(w),
                    None => widths.push(w),
                }
            }
        }
        let mut out: Vec<StyleRun> = Vec::new();
        let spans = cells(line);
        let framed = line.trim_start().starts_with('|');
        if is_delimiter_row(line) {
            // The `| --- |` row becomes the grid's rule under the head.
            let columns = spans.len().max(widths.len());
            if framed {
                fill(&mut out, 0, 1, '├', s.muted);
            } else {
                pad_last(&mut out, 1);
            }
            for i in 0..columns {
                if i > 0 {
                    fill(&mut out, 0, 1, '┼', s.muted);
                }
                let width = widths.get(i).copied().unwrap_or(0);
                fill(&mut out, 0, width + 2, '─', s.muted);
            }
            if framed {
                fill(&mut out, 0, 1, '┤', s.muted);
            }
            return out.into_boxed_slice();
        }
        let mut at = 0;
        for (i, (a, b)) in spans.iter().copied().enumerate() {
            // The pipe (and blanks) before the cell: a grid line.
            if let Some(p) = line[at..a].find('|') {
                fill(&mut out, at + p, 1, '│', s.muted);
            }
            pad_last(&mut out, 1);
            let width = widths.get(i).copied().unwrap_or(0);
            inline(line, a, b, s.body, &s, &mut out);
            pad_last(
                &mut out,
                width.saturating_sub(visible_width(&line[a..b])) + 1,
            );
            at = b;
        }
        if let Some(p) = line[at..].find('|') {
            fill(&mut out, at + p, 1, '│', s.muted);
        }
        out.into_boxed_slice()
    }
}

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

/// Width of a cell as drawn: its text less the inline delimiters.
fn visible_width(cell: &str) -> usize {
    let mut out = Vec::new();
    let styles = Styles {
        body: Style::default(),
        marker: Style::default(),
        code: Style::default(),
        link: Style::default(),
        muted: Style::default(),
        levels: [Style::default(); 4],
    };
    inline(cell, 0, cell.len(), Style::default(), &styles, &mut out);
    out.iter()
        .filter_map(|r| cell.get(r.start as usize..r.end as usize))
        .map(UnicodeWidthStr::width)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::highlight::{styled_line, warm_now};

    fn rendered(text: &str) -> Vec<String> {
        warm_now();
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut r = MarkdownRenderer::new("base16-ocean.dark").unwrap();
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
        let mut r = MarkdownRenderer::new("base16-ocean.dark").unwrap();
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
        let mut r = MarkdownRenderer::new("base16-ocean.dark").unwrap();
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
