//! Go to a line (`:N`, as in vi and helix): a one-line bar at the bottom; digits,
//! Enter moves the cursor to that line of the current tab, Esc leaves it where it was.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::ctx::{Ctx, Do, View};
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

    fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
        let typed = match key.code {
            KeyCode::Char(c) => c,
            _ => ' ',
        };
        match command(BINDINGS, &key) {
            Some(Field::Back) => Handled::Close,
            Some(Field::Keep) => {
                match self.digits.parse::<usize>() {
                    Ok(line) if line > 0 => cx.ask(Do::GoToLine(line)),
                    _ => cx.say(":: type a line number, then Enter".into()),
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
                cx.say(format!(
                    ":{}{typed}: a line number takes digits only",
                    self.digits
                ));
                Handled::Consumed
            }
            None => Handled::Ignored,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        let p = view.theme.palette;
        let rect = Rect::new(area.x, area.bottom().saturating_sub(1), area.width, 1);
        let len = view.doc_lines;
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
