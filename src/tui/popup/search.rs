//! Search as you type: the bar at the bottom, the cursor moving to the first match
//! as the query grows; Enter keeps the place, Esc goes back to where `/` was pressed.

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
use crate::tui::popup::Popup;

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

    fn on_key(&mut self, key: KeyEvent, app: &mut App) -> Handled {
        match command(BINDINGS, &key) {
            Some(Field::Back) => {
                // Back to where the search started, and to the search before.
                if let Some((cursor, previous)) = app.search_origin.take() {
                    app.views[app.tab.index()].cursor = cursor;
                    app.last_search = previous;
                }
                app.search_status = None;
                Handled::Close
            }
            Some(Field::Keep) => {
                app.search_origin = None;
                app.last_search = std::mem::take(&mut self.query);
                Handled::Close
            }
            Some(edit @ (Field::Type | Field::Erase)) => {
                match (edit, key.code) {
                    (Field::Type, KeyCode::Char(c)) => self.query.push(c),
                    _ => {
                        self.query.pop();
                    }
                }
                app.search_as_typed(&self.query);
                Handled::Consumed
            }
            None => Handled::Ignored,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, app: &App) {
        let p = app.theme.palette;
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
        if let Some(status) = &app.search_status {
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

impl App {
    /// `/`: opens the search bar, remembering where to go back to.
    pub(crate) fn open_search(&mut self) {
        self.search_origin = Some((
            self.views[self.tab.index()].cursor,
            std::mem::take(&mut self.last_search),
        ));
        self.last_find = crate::tui::trace::LastFind::Search;
        self.search_status = None;
        self.popup = Some(Popup::Search(Search::default()));
    }

    pub(crate) fn search_next(&mut self, backwards: bool) {
        if self.last_search.is_empty() {
            self.say("/: type a search first".into());
            return;
        }
        let from = self.views[self.tab.index()].cursor;
        let found = self.current_doc().find(&self.last_search, from, backwards);
        self.show_match(found, from, backwards);
    }

    /// Moves to the first match at or after where `/` was pressed, as the query grows.
    fn search_as_typed(&mut self, query: &str) {
        let origin = self.search_origin.as_ref().map_or(0, |(c, _)| *c);
        self.last_search = query.to_string();
        if query.is_empty() {
            self.views[self.tab.index()].cursor = origin;
            self.search_status = None;
            return;
        }
        let doc = self.current_doc();
        let found = match doc.lines().get(origin) {
            Some(line) if line.to_lowercase().contains(&query.to_lowercase()) => Some(origin),
            _ => doc.find(query, origin, false),
        };
        self.show_match(found, origin, false);
    }

    /// Puts the cursor on a match and says which of how many it is, and whether the
    /// search went round the end of the document.
    fn show_match(&mut self, found: Option<usize>, from: usize, backwards: bool) {
        let needle = self.last_search.to_lowercase();
        let Some(line) = found else {
            let status = format!("not found: {}", self.last_search);
            self.search_status = Some(status.clone());
            self.say(status);
            return;
        };
        let doc = self.current_doc();
        let matching: Vec<usize> = doc
            .lines()
            .iter()
            .enumerate()
            .filter(|(_, l)| l.to_lowercase().contains(&needle))
            .map(|(i, _)| i)
            .collect();
        let nth = matching
            .iter()
            .position(|&i| i == line)
            .map_or(0, |i| i + 1);
        let wrapped = if backwards { line > from } else { line < from };
        let mut status = format!("{nth}/{}", matching.len());
        if wrapped {
            status.push_str(if backwards {
                " · wrapped to the bottom"
            } else {
                " · wrapped to the top"
            });
        }
        let view = &mut self.views[self.tab.index()];
        view.cursor = line;
        view.follow = Follow::Manual;
        self.say(format!("/{} {status}", self.last_search));
        self.search_status = Some(status);
    }
}
