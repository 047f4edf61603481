//! The messages log (`M`): every notice of this run, oldest first, with its time
//! (UTC) and level, so one that went by while you read can still be found.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::app::App;
use crate::tui::keymap::{Binding, Chord, Group, Handled};
use crate::tui::notice::Level;
use crate::tui::widgets::{centered, popup_block};

/// How far the log is scrolled up from its newest line.
#[derive(Debug, Clone, Default)]
pub struct Messages {
    pub from_end: usize,
}

pub const BINDINGS: &[Binding] = &[
    Binding::new(
        "j k / ↑ ↓",
        "(messages) scroll",
        Group::Popups,
        &[
            Chord::ch('j'),
            Chord::ch('k'),
            Chord::plain(KeyCode::Down),
            Chord::plain(KeyCode::Up),
        ],
    )
    .hint("j k", "scroll", 1),
    Binding::new(
        "Esc / M / q",
        "(messages) close",
        Group::Popups,
        &[Chord::plain(KeyCode::Esc), Chord::ch('M'), Chord::ch('q')],
    )
    .hint("Esc", "close", 2),
];

impl Messages {
    pub fn on_key(&mut self, key: KeyEvent, app: &App) -> Handled {
        let count = app.notice.log().len();
        match key.code {
            KeyCode::Esc | KeyCode::Char('M') | KeyCode::Char('q') => return Handled::Close,
            KeyCode::Up | KeyCode::Char('k') => {
                self.from_end = (self.from_end + 1).min(count.saturating_sub(1));
            }
            KeyCode::Down | KeyCode::Char('j') => self.from_end = self.from_end.saturating_sub(1),
            _ => return Handled::Ignored,
        }
        Handled::Consumed
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, app: &App) {
        let p = app.theme.palette;
        let log = app.notice.log();
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
