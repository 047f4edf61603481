//! The places `*` found: every line of the five artifacts that names the traced
//! requirement, ADR, class or module, as `volk trace` lists them. Enter shows one;
//! after the list closes, `n`/`N` step through them tab to tab.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::ctx::{Ctx, Do, View};
use crate::tui::popup::Window;
use crate::tui::keymap::{Binding, Chord, Group, Handled, command, Listed, listed};
use crate::tui::popup::Listing;
use crate::tui::widgets::{centered, list_top, popup_block};

#[derive(Debug, Clone, Default)]
pub struct TraceList {
    pub selected: usize,
}

pub const BINDINGS: &[Binding<Listing>] = &[
    Binding::new(
        "j k / ↑ ↓",
        "(trace) select a place",
        Group::Popups,
        &[
            (Chord::ch('j'), Listing::Down),
            (Chord::ch('k'), Listing::Up),
            (Chord::plain(KeyCode::Down), Listing::Down),
            (Chord::plain(KeyCode::Up), Listing::Up),
        ],
    )
    .hint("j k", "select", 2),
    Binding::new(
        "Enter",
        "(trace) show the place in its tab",
        Group::Popups,
        &[(Chord::plain(KeyCode::Enter), Listing::Go)],
    )
    .hint("Enter", "go", 1),
    Binding::new(
        "Esc / q",
        "(trace) close; n N then step through the places",
        Group::Popups,
        &[
            (Chord::plain(KeyCode::Esc), Listing::Close),
            (Chord::ch('q'), Listing::Close),
        ],
    )
    .hint("Esc", "close, then n N", 3),
];

impl Window for TraceList {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        vec![listed(BINDINGS)]
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
        let count = cx.trace.map_or(0, |t| t.trace.occurrences.len());
        match command(BINDINGS, &key) {
            Some(Listing::Close) => return Handled::Close,
            Some(Listing::Down) => self.selected = (self.selected + 1).min(count.saturating_sub(1)),
            Some(Listing::Up) => self.selected = self.selected.saturating_sub(1),
            Some(Listing::Go) => {
                cx.ask(Do::TraceGo(self.selected));
                return Handled::Close;
            }
            None => return Handled::Ignored,
        }
        Handled::Consumed
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        let p = view.theme.palette;
        let Some(state) = view.trace else {
            return;
        };
        let places = &state.trace.occurrences;
        let width = area.width.saturating_sub(4).min(110);
        let height = (places.len() as u16 + 2)
            .max(3)
            .min(area.height.saturating_sub(4));
        let rect = centered(area, width, height);
        frame.render_widget(Clear, rect);
        let rows = rect.height.saturating_sub(2) as usize;
        let top = list_top(self.selected, places.len(), rows);
        let lines: Vec<Line> = if places.is_empty() {
            vec![Line::styled(
                "it appears nowhere",
                Style::default().fg(p.muted),
            )]
        } else {
            places
                .iter()
                .enumerate()
                .skip(top)
                .take(rows)
                .map(|(i, o)| {
                    let text = if i == self.selected {
                        Style::default().bg(p.selection)
                    } else {
                        Style::default()
                    };
                    Line::from(vec![
                        Span::styled(
                            format!("{}:{} ", o.artifact.title(), o.line),
                            Style::default().fg(p.accent),
                        ),
                        Span::styled(o.text.clone(), text),
                    ])
                })
                .collect()
        };
        let title = format!(
            " Trace {} · {} place{} ",
            state.trace.id,
            places.len(),
            if places.len() == 1 { "" } else { "s" }
        );
        frame.render_widget(
            Paragraph::new(lines).block(popup_block(&p, title, p.accent).title_bottom(
                Line::styled(
                    " Enter go · Esc close, then n N step through them ",
                    Style::default().fg(p.muted),
                ),
            )),
            rect,
        );
    }
}
