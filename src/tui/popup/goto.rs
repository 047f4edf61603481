//! Go to a line (`:N`, as in vi and helix): a one-line bar at the bottom; digits,
//! Enter moves the cursor to that line of the current tab, Esc leaves it where it was.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::app::{App, Follow};
use crate::tui::keymap::{Binding, Chord, Group, Handled};

#[derive(Debug, Clone, Default)]
pub struct GoTo {
    pub digits: String,
}

pub const BINDINGS: &[Binding] = &[
    Binding::new(
        "Enter",
        "(go to line) move the cursor to the line",
        Group::Popups,
        &[Chord::plain(KeyCode::Enter)],
    )
    .hint("Enter", "go", 1),
    Binding::new(
        "Esc",
        "(go to line) stay where you are",
        Group::Popups,
        &[Chord::plain(KeyCode::Esc)],
    )
    .hint("Esc", "back", 2),
    Binding::new(
        "digits, Backspace",
        "(go to line) the line number (other keys say it takes digits)",
        Group::Popups,
        &[Chord::AnyChar, Chord::plain(KeyCode::Backspace)],
    ),
];

impl GoTo {
    pub fn on_key(&mut self, key: KeyEvent, app: &mut App) -> Handled {
        match key.code {
            KeyCode::Esc => Handled::Close,
            KeyCode::Enter => {
                match self.digits.parse::<usize>() {
                    Ok(line) if line > 0 => app.go_to_line(line),
                    _ => app.say(":: type a line number, then Enter".into()),
                }
                Handled::Close
            }
            KeyCode::Backspace => {
                self.digits.pop();
                Handled::Consumed
            }
            KeyCode::Char(c) if c.is_ascii_digit() && self.digits.len() < 9 => {
                self.digits.push(c);
                Handled::Consumed
            }
            KeyCode::Char(c) => {
                app.say(format!(
                    ":{}{c}: a line number takes digits only",
                    self.digits
                ));
                Handled::Consumed
            }
            _ => Handled::Ignored,
        }
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, app: &App) {
        let p = app.theme.palette;
        let rect = Rect::new(area.x, area.bottom().saturating_sub(1), area.width, 1);
        let len = app.current_doc().len();
        frame.render_widget(Clear, rect);
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled(":", Style::default().fg(p.accent)),
                Span::raw(self.digits.clone()),
                Span::styled("▍", Style::default().fg(p.accent)),
                Span::styled(
                    format!("   go to line (1-{len}) · Enter goes · Esc stays"),
                    Style::default().fg(p.muted),
                ),
            ]))
            .style(Style::default().bg(p.status_bg).fg(p.status_fg)),
            rect,
        );
    }
}

impl App {
    /// Puts the cursor on `line` (1-based, clamped to the document) of the current
    /// tab, scrolled into view by the next frame.
    pub(crate) fn go_to_line(&mut self, line: usize) {
        let len = self.current_doc().len();
        if len == 0 {
            self.say(":: this tab has no lines yet".into());
            return;
        }
        let target = line.min(len);
        let view = &mut self.views[self.tab.index()];
        view.cursor = target - 1;
        view.follow = Follow::Manual;
        if target < line {
            self.say(format!(
                ":{line}: the document has {len} lines; at the last"
            ));
        }
    }
}
