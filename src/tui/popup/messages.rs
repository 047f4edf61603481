//! The messages log (`M`): every notice of this run, oldest first, with its time
//! (UTC) and level, so one that went by while you read can still be found.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::ctx::{Ctx, View};
use crate::tui::popup::Window;
use crate::tui::keymap::{Binding, Chord, Group, Handled, command, Listed, listed};
use crate::tui::notice::Level;
use crate::tui::popup::Listing;
use crate::tui::widgets::{centered, popup_block};

/// How far the log is scrolled up from its newest line.
#[derive(Debug, Clone, Default)]
pub struct Messages {
    pub from_end: usize,
}

pub const BINDINGS: &[Binding<Listing>] = &[
    Binding::new(
        "j k / ↑ ↓",
        "(messages) scroll",
        Group::Popups,
        &[
            (Chord::ch('j'), Listing::Down),
            (Chord::ch('k'), Listing::Up),
            (Chord::plain(KeyCode::Down), Listing::Down),
            (Chord::plain(KeyCode::Up), Listing::Up),
        ],
    )
    .hint("j k", "scroll", 1),
    Binding::new(
        "Esc / M / q",
        "(messages) close",
        Group::Popups,
        &[
            (Chord::plain(KeyCode::Esc), Listing::Close),
            (Chord::ch('M'), Listing::Close),
            (Chord::ch('q'), Listing::Close),
        ],
    )
    .hint("Esc", "close", 2),
];

impl Window for Messages {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        vec![listed(BINDINGS)]
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
        let count = cx.notices.log().len();
        match command(BINDINGS, &key) {
            Some(Listing::Close) => return Handled::Close,
            Some(Listing::Up) => {
                self.from_end = (self.from_end + 1).min(count.saturating_sub(1));
            }
            Some(Listing::Down) => self.from_end = self.from_end.saturating_sub(1),
            Some(Listing::Go) | None => return Handled::Ignored,
        }
        Handled::Consumed
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        let p = view.theme.palette;
        let log = view.notices.log();
        let rect = centered(area, 100, area.height.saturating_sub(4));
        let rows = rect.height.saturating_sub(2) as usize;
        let end = log.len().saturating_sub(self.from_end);
        let start = end.saturating_sub(rows);
        let mut lines: Vec<Line> = log[start..end]
            .iter()
            .map(|entry| {
                let time = humantime::format_rfc3339_seconds(entry.at).to_string();
                let clock = time.get(11..19).unwrap_or("--:--:--").to_string();
                let colour = match entry.level {
                    Level::Info => p.foreground,
                    Level::Warning => p.warning,
                    Level::Error => p.error,
                };
                Line::from(vec![
                    Span::styled(format!("{clock} "), Style::default().fg(p.muted)),
                    Span::styled(
                        format!("{:<8}", entry.level.label()),
                        Style::default().fg(colour).add_modifier(Modifier::BOLD),
                    ),
                    Span::raw(entry.text.replace(['\n', '\r'], " ")),
                ])
            })
            .collect();
        if lines.is_empty() {
            lines.push(Line::styled(
                "no messages yet",
                Style::default().fg(p.muted),
            ));
        }
        let title = format!(" Messages ({}) · j/k scroll · Esc closes ", log.len());
        frame.render_widget(Clear, rect);
        frame.render_widget(
            Paragraph::new(lines).block(popup_block(&p, title, p.accent)),
            rect,
        );
    }
}
