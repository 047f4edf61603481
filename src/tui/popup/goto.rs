//! Go to a line (`:N`, as in vi and helix): a one-line bar at the bottom; digits,
//! Enter moves the cursor to that line of the current tab, Esc leaves it where it was.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::app::{App, Follow};
use crate::tui::popup::Window;
use crate::tui::keymap::{Binding, Chord, Group, Handled, command, Listed, listed};
use crate::tui::popup::Field;

#[derive(Debug, Clone, Default)]
pub struct GoTo {
    pub digits: String,
}

pub const BINDINGS: &[Binding<Field>] = &[
    Binding::new(
        "Enter",
        "(go to line) move the cursor to the line",
        Group::Popups,
        &[(Chord::plain(KeyCode::Enter), Field::Keep)],
    )
    .hint("Enter", "go", 1),
    Binding::new(
        "Esc",
        "(go to line) stay where you are",
        Group::Popups,
        &[(Chord::plain(KeyCode::Esc), Field::Back)],
    )
    .hint("Esc", "back", 2),
    Binding::new(
        "digits, Backspace",
        "(go to line) the line number (other keys say it takes digits)",
        Group::Popups,
        &[
            (Chord::AnyChar, Field::Type),
            (Chord::plain(KeyCode::Backspace), Field::Erase),
        ],
    ),
];

impl Window for GoTo {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        vec![listed(BINDINGS)]
    }

    fn on_key(&mut self, key: KeyEvent, app: &mut App) -> Handled {
        let typed = match key.code {
            KeyCode::Char(c) => c,
            _ => ' ',
        };
        match command(BINDINGS, &key) {
            Some(Field::Back) => Handled::Close,
            Some(Field::Keep) => {
                match self.digits.parse::<usize>() {
                    Ok(line) if line > 0 => app.go_to_line(line),
                    _ => app.say(":: type a line number, then Enter".into()),
                }
                Handled::Close
            }
            Some(Field::Erase) => {
                self.digits.pop();
                Handled::Consumed
            }
            Some(Field::Type) if typed.is_ascii_digit() && self.digits.len() < 9 => {
                self.digits.push(typed);
                Handled::Consumed
            }
            Some(Field::Type) => {
                app.say(format!(
                    ":{}{typed}: a line number takes digits only",
                    self.digits
                ));
                Handled::Consumed
            }
            None => Handled::Ignored,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, app: &App) {
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
