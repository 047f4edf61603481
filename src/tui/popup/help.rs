//! The help window: every component's bindings, grouped, written from the same lists
//! the keys are handled by.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap as TextWrap};

use crate::tui::ctx::{Ctx, View};
use crate::tui::popup::Window;
use crate::tui::keymap::{Binding, Chord, Group, Handled, Listed, command, listed};
use crate::tui::popup::Listing;
use crate::tui::theme::Palette;
use crate::tui::widgets::{centered, popup_block, section_title};

/// The help's lines: `(group title, [(keys, help)])`.
pub type Groups = Vec<(&'static str, Vec<(&'static str, &'static str)>)>;

#[derive(Debug, Clone)]
pub struct Help {
    pub scroll: usize,
    /// Every component's keys, as the workbench lists them.
    pub groups: Groups,
}

impl Help {
    pub fn new(groups: Groups) -> Help {
        Help { scroll: 0, groups }
    }
}

pub const BINDINGS: &[Binding<Listing>] = &[
    Binding::new(
        "j k / ↑ ↓",
        "(help) scroll",
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
        "Esc / ? / q",
        "(help) close",
        Group::Popups,
        &[
            (Chord::plain(KeyCode::Esc), Listing::Close),
            (Chord::ch('?'), Listing::Close),
            (Chord::ch('q'), Listing::Close),
        ],
    )
    .hint("Esc", "close", 2),
];

fn lines(groups: &Groups, p: &Palette) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (group, keys) in groups {
        lines.push(section_title(p, group));
        for &(key, what) in keys {
            lines.push(Line::from(vec![
                Span::styled(format!("  {key:<16}"), Style::default().fg(p.accent)),
                Span::raw(what),
            ]));
        }
        lines.push(Line::raw(""));
    }
    lines
}

impl Window for Help {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        vec![listed(BINDINGS)]
    }

    fn on_key(&mut self, key: KeyEvent, _cx: &mut Ctx) -> Handled {
        match command(BINDINGS, &key) {
            Some(Listing::Close) => return Handled::Close,
            Some(Listing::Down) => {
                let count = self
                    .groups
                    .iter()
                    .map(|(_, k)| k.len() + 2)
                    .sum::<usize>();
                self.scroll = (self.scroll + 1).min(count.saturating_sub(1));
            }
            Some(Listing::Up) => self.scroll = self.scroll.saturating_sub(1),
            Some(Listing::Go) | None => return Handled::Ignored,
        }
        Handled::Consumed
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        let p = view.theme.palette;
        let rect = centered(area, 92, area.height.saturating_sub(2));
        let lines = lines(&self.groups, &p);
        let scroll = self.scroll.min(lines.len().saturating_sub(1));
        frame.render_widget(Clear, rect);
        frame.render_widget(
            Paragraph::new(lines)
                .wrap(TextWrap { trim: false })
                .block(popup_block(
                    &p,
                    " Keys (Esc closes, j/k scroll) ".into(),
                    p.accent,
                ))
                .scroll((scroll as u16, 0)),
            rect,
        );
    }
}
