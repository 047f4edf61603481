//! A reasoner failure: the message, and `r` when the failure can be retried.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap as TextWrap};

use crate::tui::app::App;
use crate::tui::event::Action;
use crate::tui::keymap::{Binding, Chord, Group, Handled};
use crate::tui::popup::Popup;
use crate::tui::widgets::{centered, popup_block};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub message: String,
    pub retryable: bool,
}

fn retryable(app: &App) -> bool {
    matches!(&app.popup, Some(Popup::Error(f)) if f.retryable)
}

pub const BINDINGS: &[Binding] = &[
    Binding::new(
        "r",
        "(failure) retry, when the failure allows it",
        Group::Popups,
        &[Chord::ch('r')],
    )
    .hint("r", "retry", 1)
    .when(retryable),
    Binding::new(
        "Esc / Enter",
        "(failure) close",
        Group::Popups,
        &[Chord::plain(KeyCode::Esc), Chord::plain(KeyCode::Enter)],
    )
    .hint("Esc", "close", 2),
    Binding::new("q", "(failure) quit", Group::Popups, &[Chord::ch('q')]),
];

impl Failure {
    pub fn on_key(&mut self, key: KeyEvent, app: &mut App) -> Handled {
        match key.code {
            KeyCode::Char('r') if self.retryable => {
                app.act(Action::Retry);
                app.notice.clear();
                Handled::Close
            }
            KeyCode::Esc | KeyCode::Enter => Handled::Close,
            KeyCode::Char('q') => {
                app.request_quit();
                Handled::Close
            }
            _ => Handled::Ignored,
        }
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, app: &App) {
        let p = app.theme.palette;
        let mut lines = vec![Line::raw(self.message.clone()), Line::raw("")];
        let keys = if self.retryable {
            "r: retry · Esc: close · q: quit"
        } else {
            "Esc: close · q: quit"
        };
        lines.push(Line::styled(keys, Style::default().fg(p.accent)));
        let rect = centered(area, 70, 8);
        frame.render_widget(Clear, rect);
        frame.render_widget(
            Paragraph::new(lines)
                .wrap(TextWrap { trim: true })
                .block(popup_block(&p, " The reasoner failed ".into(), p.error)),
            rect,
        );
    }
}
