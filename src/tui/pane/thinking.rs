//! The thinking pane: the reasoner's thinking stream, newest lines at the bottom,
//! wrapped at words (`t` shows or collapses it; the key acts from any focus, see
//! `workbench`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::widgets::Paragraph;

use crate::tui::ctx::View;
use crate::tui::widgets::panel;

pub fn draw(frame: &mut Frame, area: Rect, view: &View) {
    let p = view.theme.palette;
    let block = panel(
        " Thinking (t hides) ",
        p.border,
        Style::default().fg(p.muted),
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let text = if view.thinking.is_empty() {
        "the reasoner sends no thinking stream"
    } else {
        view.thinking
    };
    // The end of the stream, wrapped at words: long reasoning lines are read whole.
    let shown = crate::tui::wrap::tail_rows(
        text,
        inner.width,
        inner.height as usize,
        Style::default().fg(p.tail),
    );
    frame.render_widget(Paragraph::new(shown), inner);
}
