//! Small drawing pieces every pane and popup uses: the bordered panel, a popup's
//! frame and place, titles, and typed text split into lines.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders};

use crate::tui::theme::Palette;

pub const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

/// A rounded, bordered panel with a styled title: the frame of every pane and popup.
pub fn panel<'a>(
    title: impl Into<std::borrow::Cow<'a, str>>,
    border: Color,
    title_style: Style,
) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(Style::default().fg(border))
        .title(Span::styled(title, title_style))
}

pub fn popup_block(p: &Palette, title: String, colour: Color) -> Block<'static> {
    panel(
        title,
        colour,
        Style::default().fg(colour).add_modifier(Modifier::BOLD),
    )
    .style(Style::default().bg(p.background).fg(p.foreground))
}

/// A rectangle of `width` x `height` centred in `area`, clipped to it.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

pub fn section_title(p: &Palette, text: &str) -> Line<'static> {
    Line::styled(
        text.to_string(),
        Style::default().fg(p.title).add_modifier(Modifier::BOLD),
    )
}

/// A typed text as lines: the first after `prefix`, the others indented under it,
/// so the line breaks a person typed (Ctrl-J) or pasted survive.
pub fn text_lines(prefix: &str, text: &str, style: Style) -> Vec<Line<'static>> {
    let indent = " ".repeat(unicode_width::UnicodeWidthStr::width(prefix));
    text.split('\n')
        .enumerate()
        .map(|(i, line)| {
            let lead = if i == 0 { prefix } else { indent.as_str() };
            Line::styled(format!("{lead}{line}"), style)
        })
        .collect()
}

/// The first row to draw of a `len`-row list in `height` rows so that `selected`
/// is on screen (a list window that scrolls with its selection).
pub fn list_top(selected: usize, len: usize, height: usize) -> usize {
    let height = height.max(1);
    selected
        .saturating_sub(height - 1)
        .min(len.saturating_sub(height))
}
