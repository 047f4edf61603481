//! The Problems list: what the design compiler finds in the design on screen, errors
//! first, each with its code, message, artifact and line; Enter shows the line in
//! its tab. The list is the live one: it changes as a cycle streams.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::ctx::{Ctx, Do, View};
use crate::tui::popup::Window;
use crate::tui::keymap::{Binding, Chord, Group, Handled, command, Listed, listed};
use crate::tui::popup::Listing;
use crate::tui::widgets::{centered, list_top, popup_block};

#[derive(Debug, Clone, Default)]
pub struct ProblemList {
    pub selected: usize,
}

pub const BINDINGS: &[Binding<Listing>] = &[
    Binding::new(
        "j k / ↑ ↓",
        "(problems) select a problem",
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
        "(problems) show the problem's line in its tab",
        Group::Popups,
        &[(Chord::plain(KeyCode::Enter), Listing::Go)],
    )
    .hint("Enter", "go to line", 1),
    Binding::new(
        "Esc / p / q",
        "(problems) close",
        Group::Popups,
        &[
            (Chord::plain(KeyCode::Esc), Listing::Close),
            (Chord::ch('p'), Listing::Close),
            (Chord::ch('q'), Listing::Close),
        ],
    )
    .hint("Esc", "close", 3),
];

impl Window for ProblemList {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        vec![listed(BINDINGS)]
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
        let count = cx.problems.diagnostics.len();
        match command(BINDINGS, &key) {
            Some(Listing::Close) => return Handled::Close,
            Some(Listing::Down) => self.selected = (self.selected + 1).min(count.saturating_sub(1)),
            Some(Listing::Up) => self.selected = self.selected.saturating_sub(1),
            Some(Listing::Go) => {
                let Some(d) = cx.problems.diagnostics.get(self.selected) else {
                    return Handled::Close;
                };
                let (section, line) = (d.artifact, d.line);
                let notice = format!("{} {}", d.code, d.message);
                cx.ask(Do::JumpTo(section, line));
                cx.say(notice);
                return Handled::Close;
            }
            None => return Handled::Ignored,
        }
        Handled::Consumed
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        let p = view.theme.palette;
        let problems = view.problems;
        let width = area.width.saturating_sub(4).min(110);
        let height = (view.problems.diagnostics.len() as u16 + 2)
            .max(3)
            .min(area.height.saturating_sub(4));
        let rect = centered(area, width, height);
        frame.render_widget(Clear, rect);
        let total = problems.total();
        let title = format!(
            " Problems · {} error{} · {} warning{} ",
            total.errors,
            if total.errors == 1 { "" } else { "s" },
            total.warnings,
            if total.warnings == 1 { "" } else { "s" },
        );
        let rows = rect.height.saturating_sub(2) as usize;
        let selected = self
            .selected
            .min(problems.diagnostics.len().saturating_sub(1));
        let top = list_top(selected, problems.diagnostics.len(), rows);
        let lines: Vec<Line> = if problems.is_empty() {
            vec![Line::styled(
                "no problems: the five artifacts agree",
                Style::default().fg(p.muted),
            )]
        } else {
            problems
                .diagnostics
                .iter()
                .enumerate()
                .skip(top)
                .take(rows)
                .map(|(i, d)| {
                    let (mark, colour) = if d.is_error() {
                        ("✗", p.error)
                    } else {
                        ("⚠", p.warning)
                    };
                    let text = if i == selected {
                        Style::default().bg(p.selection)
                    } else {
                        Style::default()
                    };
                    Line::from(vec![
                        Span::styled(
                            format!("{mark} {} ", d.code),
                            Style::default().fg(colour).add_modifier(Modifier::BOLD),
                        ),
                        Span::styled(
                            format!("{}:{} ", d.artifact.title(), d.line),
                            Style::default().fg(p.accent),
                        ),
                        Span::styled(d.message.clone(), text),
                    ])
                })
                .collect()
        };
        frame.render_widget(
            Paragraph::new(lines).block(popup_block(&p, title, p.accent).title_bottom(
                Line::styled(
                    " Enter go to line · Esc close ",
                    Style::default().fg(p.muted),
                ),
            )),
            rect,
        );
    }
}
