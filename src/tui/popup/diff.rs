//! The diff of one artifact against the previous cycle, with the changes no review
//! thread asked for marked above it.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::design::Section;
use crate::tui::app::App;
use crate::tui::diff::{DiffKind, DiffLine, diff_lines};
use crate::tui::keymap::{Binding, Chord, Group, Handled};
use crate::tui::popup::Popup;
use crate::tui::widgets::{centered, popup_block};
use crate::tui::wrap;

pub struct DiffView {
    pub section: Section,
    pub lines: Vec<DiffLine>,
    pub scroll: usize,
}

pub const BINDINGS: &[Binding] = &[
    Binding::new(
        "j k / ↑ ↓",
        "(diff) scroll a line",
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
        "PgDn PgUp Space",
        "(diff) scroll a page",
        Group::Popups,
        &[
            Chord::plain(KeyCode::PageDown),
            Chord::plain(KeyCode::PageUp),
            Chord::ch(' '),
        ],
    ),
    Binding::new(
        "Esc / d / q",
        "(diff) close",
        Group::Popups,
        &[Chord::plain(KeyCode::Esc), Chord::ch('d'), Chord::ch('q')],
    )
    .hint("Esc", "close", 2),
];

impl DiffView {
    pub fn on_key(&mut self, key: KeyEvent, app: &mut App) -> Handled {
        let step = app.areas.viewer.height.max(1) as usize;
        match key.code {
            KeyCode::Esc | KeyCode::Char('d') | KeyCode::Char('q') => return Handled::Close,
            KeyCode::Down | KeyCode::Char('j') => self.scroll_by(1),
            KeyCode::Up | KeyCode::Char('k') => self.scroll_by(-1),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll_by(step as isize),
            KeyCode::PageUp => self.scroll_by(-(step as isize)),
            _ => return Handled::Ignored,
        }
        Handled::Consumed
    }

    /// Scrolls, stopping at the last line (the mouse wheel uses it too).
    pub fn scroll_by(&mut self, delta: isize) {
        self.scroll = self
            .scroll
            .saturating_add_signed(delta)
            .min(self.lines.len().saturating_sub(1));
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, app: &App) {
        let p = app.theme.palette;
        let rect = centered(
            area,
            area.width.saturating_sub(4),
            area.height.saturating_sub(2),
        );
        frame.render_widget(Clear, rect);
        // Long lines wrap at words under their sign, like the viewer's.
        let text_width = rect.width.saturating_sub(4).max(1);
        let mut shown: Vec<Line> = Vec::new();
        for l in self.lines.iter().skip(self.scroll) {
            if shown.len() >= rect.height as usize {
                break;
            }
            let (sign, style) = match l.kind {
                DiffKind::Same => ("  ", Style::default().fg(p.foreground)),
                DiffKind::Added => ("+ ", Style::default().fg(p.added)),
                DiffKind::Removed => ("- ", Style::default().fg(p.removed)),
                DiffKind::Gap => ("  ", Style::default().fg(p.muted)),
            };
            let rows = wrap::wrap_line(Line::styled(l.text.as_str(), style), text_width);
            for (i, row) in rows.into_iter().enumerate() {
                let mut spans = vec![Span::styled(if i == 0 { sign } else { "  " }, style)];
                spans.extend(row.spans);
                shown.push(Line::from(spans));
            }
        }
        let mut body = if shown.is_empty() {
            vec![Line::styled(
                "no change since the previous cycle",
                Style::default().fg(p.muted),
            )]
        } else {
            shown
        };
        // A change no review thread asked for is marked above the diff.
        for c in app
            .review
            .last
            .unrequested
            .iter()
            .filter(|c| c.artifact == self.section.key())
        {
            body.insert(
                0,
                Line::styled(
                    format!("⚠ unrequested change: {}", c.summary),
                    Style::default().fg(p.warning).add_modifier(Modifier::BOLD),
                ),
            );
        }
        let added = self
            .lines
            .iter()
            .filter(|l| l.kind == DiffKind::Added)
            .count();
        let removed = self
            .lines
            .iter()
            .filter(|l| l.kind == DiffKind::Removed)
            .count();
        frame.render_widget(
            Paragraph::new(body).block(
                popup_block(
                    &p,
                    format!(
                        " {} · changes since the previous cycle (+{added} −{removed}) ",
                        self.section.title()
                    ),
                    p.accent,
                )
                .title_bottom(Line::styled(
                    " j/k PgUp/PgDn scroll · Esc close ",
                    Style::default().fg(p.muted),
                )),
            ),
            rect,
        );
    }
}

impl App {
    /// `d`: the diff of the current tab's artifact.
    pub(crate) fn open_diff(&mut self) {
        let Some(section) = self.tab.section() else {
            self.notice = Some("d: the journal has no diff".into());
            return;
        };
        self.open_diff_for(section, false);
    }

    /// The diff of `section` against the previous cycle; `at_change` scrolls to the
    /// first changed hunk (a thread's answer).
    pub(crate) fn open_diff_for(&mut self, section: Section, at_change: bool) {
        let Some(previous) = &self.previous else {
            self.notice = Some("d: no earlier cycle to compare with yet".into());
            return;
        };
        let lines = diff_lines(previous.get(section), self.artifacts.get(section));
        let scroll = if at_change {
            lines
                .iter()
                .position(|l| matches!(l.kind, DiffKind::Added | DiffKind::Removed))
                .map_or(0, |i| i.saturating_sub(2))
        } else {
            0
        };
        self.popup = Some(Popup::Diff(DiffView {
            section,
            lines,
            scroll,
        }));
    }
}
