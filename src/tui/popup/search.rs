//! Search as you type: the bar at the bottom, the cursor moving to the first match
//! as the query grows; Enter keeps the place, Esc goes back to where `/` was pressed.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::ctx::{Ctx, Do, SearchStep, View};
use crate::tui::popup::Window;
use crate::tui::keymap::{Binding, Chord, Group, Handled, command, Listed, listed};
use crate::tui::popup::Field;

#[derive(Debug, Clone, Default)]
pub struct Search {
    pub query: String,
}

pub const BINDINGS: &[Binding<Field>] = &[
    Binding::new(
        "Enter",
        "(search) keep the match",
        Group::Popups,
        &[(Chord::plain(KeyCode::Enter), Field::Keep)],
    )
    .hint("Enter", "keep", 1),
    Binding::new(
        "Esc",
        "(search) back to where it started",
        Group::Popups,
        &[(Chord::plain(KeyCode::Esc), Field::Back)],
    )
    .hint("Esc", "back", 2),
    Binding::new(
        "text, Backspace",
        "(search) the query",
        Group::Popups,
        &[
            (Chord::AnyChar, Field::Type),
            (Chord::plain(KeyCode::Backspace), Field::Erase),
        ],
    ),
];

impl Window for Search {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        vec![listed(BINDINGS)]
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
        match command(BINDINGS, &key) {
            Some(Field::Back) => {
                // Back to where the search started, and to the search before.
                cx.ask(Do::Search(SearchStep::Back));
                Handled::Close
            }
            Some(Field::Keep) => {
                cx.ask(Do::Search(SearchStep::Keep(std::mem::take(&mut self.query))));
                Handled::Close
            }
            Some(edit @ (Field::Type | Field::Erase)) => {
                match (edit, key.code) {
                    (Field::Type, KeyCode::Char(c)) => self.query.push(c),
                    _ => {
                        self.query.pop();
                    }
                }
                cx.ask(Do::Search(SearchStep::Typed(self.query.clone())));
                Handled::Consumed
            }
            None => Handled::Ignored,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        let p = view.theme.palette;
        let rect = Rect::new(area.x, area.bottom().saturating_sub(1), area.width, 1);
        frame.render_widget(Clear, rect);
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled("/", Style::default().fg(p.accent)),
                Span::raw(self.query.clone()),
                Span::styled("▍", Style::default().fg(p.accent)),
            ]))
            .style(Style::default().bg(p.status_bg).fg(p.status_fg)),
            rect,
        );
        if let Some(status) = view.search_status {
            frame.render_widget(
                Paragraph::new(format!("{status} · Enter keeps · Esc goes back "))
                    .right_aligned()
                    .style(Style::default().bg(p.status_bg).fg(p.muted)),
                Rect::new(
                    area.x + area.width / 2,
                    rect.y,
                    area.width - area.width / 2,
                    1,
                ),
            );
        }
    }
}
