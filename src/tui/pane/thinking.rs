//! The thinking pane: the reasoner's thinking stream, newest lines at the bottom
//! (`t` shows or collapses it; the key acts from any focus, see `workbench`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use crate::tui::app::App;
use crate::tui::widgets::panel;

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.theme.palette;
    let block = panel(
        " Thinking (t hides) ",
        p.border,
        Style::default().fg(p.muted),
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let text = if app.thinking.is_empty() {
        "the reasoner sends no thinking stream"
    } else {
        app.thinking.as_str()
    };
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(inner.height as usize);
    let shown: Vec<Line> = lines[from..]
        .iter()
        .map(|l| Line::styled(l.to_string(), Style::default().fg(p.tail)))
        .collect();
    frame.render_widget(Paragraph::new(shown), inner);
}
