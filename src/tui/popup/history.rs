//! The cycles (commits) of the design; Enter opens one read-only, or, when the list
//! was opened from a diff (`c`), diffs the artifact against it. The newest Enter
//! wins: a slower answer to an earlier one is dropped.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::keymap::{Binding, Chord, Group, Handled, Listed, command, listed};
use crate::tui::ctx::{Ctx, Do, View, Wanted};
use crate::tui::popup::{Listing, Popup, Window};
use crate::tui::popup::diff::{CompareWanted, DiffView};
use crate::tui::widgets::{centered, popup_block};
use crate::volk::protocol::Query;
use crate::volk::runtime::CommitInfo;

#[derive(Debug, Clone, Default)]
pub struct History {
    /// `None` until the runtime answers.
    pub commits: Option<Vec<CommitInfo>>,
    pub selected: usize,
    pub pick: Pick,
}

/// What Enter does with the cycle picked.
#[derive(Debug, Clone, Default)]
pub enum Pick {
    /// Opens it read-only.
    #[default]
    Open,
    /// Diffs the artifact of this diff against it; Esc brings this diff back.
    Compare(Box<DiffView>),
}

pub const BINDINGS: &[Binding<Listing>] = &[
    Binding::new(
        "j k / ↑ ↓",
        "(cycles) select a cycle",
        Group::Popups,
        &[
            (Chord::ch('j'), Listing::Down),
            (Chord::ch('k'), Listing::Up),
            (Chord::plain(KeyCode::Down), Listing::Down),
            (Chord::plain(KeyCode::Up), Listing::Up),
        ],
    )
    .hint("j k", "select", 1),
    Binding::new(
        "Enter",
        "(cycles) open the cycle read-only",
        Group::Popups,
        &[(Chord::plain(KeyCode::Enter), Listing::Go)],
    )
    .hint("Enter", "open", 2),
    Binding::new(
        "Esc / h / q",
        "(cycles) close",
        Group::Popups,
        &[
            (Chord::plain(KeyCode::Esc), Listing::Close),
            (Chord::ch('h'), Listing::Close),
            (Chord::ch('q'), Listing::Close),
        ],
    )
    .hint("Esc", "close", 3),
];

/// The list opened from a diff with `c`.
pub const COMPARE_BINDINGS: &[Binding<Listing>] = &[
    Binding::new(
        "j k / ↑ ↓",
        "(compare) select a cycle",
        Group::Popups,
        &[
            (Chord::ch('j'), Listing::Down),
            (Chord::ch('k'), Listing::Up),
            (Chord::plain(KeyCode::Down), Listing::Down),
            (Chord::plain(KeyCode::Up), Listing::Up),
        ],
    )
    .hint("j k", "select", 1),
    Binding::new(
        "Enter",
        "(compare) diff against the cycle",
        Group::Popups,
        &[(Chord::plain(KeyCode::Enter), Listing::Go)],
    )
    .hint("Enter", "compare", 2),
    Binding::new(
        "Esc / h / q",
        "(compare) back to the diff",
        Group::Popups,
        &[
            (Chord::plain(KeyCode::Esc), Listing::Close),
            (Chord::ch('h'), Listing::Close),
            (Chord::ch('q'), Listing::Close),
        ],
    )
    .hint("Esc", "back", 3),
];

impl History {
    /// The list for picking what `diff` compares with.
    pub fn comparing(diff: DiffView) -> History {
        History {
            pick: Pick::Compare(Box::new(diff)),
            ..History::default()
        }
    }

    fn table(&self) -> &'static [Binding<Listing>] {
        match self.pick {
            Pick::Open => BINDINGS,
            Pick::Compare(_) => COMPARE_BINDINGS,
        }
    }
}

impl Window for History {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        vec![listed(BINDINGS), listed(COMPARE_BINDINGS)]
    }

    fn bindings(&self) -> Vec<&'static dyn Listed> {
        listed(self.table())
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
        let count = self.commits.as_ref().map_or(0, Vec::len);
        match command(self.table(), &key) {
            Some(Listing::Close) => {
                cx.ask(Do::Want(Wanted::Nothing));
                if let Pick::Compare(diff) = std::mem::take(&mut self.pick) {
                    cx.ask(Do::Open(Popup::Diff(diff)));
                }
                return Handled::Close;
            }
            Some(Listing::Down) => self.selected = (self.selected + 1).min(count.saturating_sub(1)),
            Some(Listing::Up) => self.selected = self.selected.saturating_sub(1),
            Some(Listing::Go) => {
                if let Some(c) = self.commits.as_ref().and_then(|c| c.get(self.selected)) {
                    match &self.pick {
                        Pick::Open => cx.ask(Do::Want(Wanted::Commit(c.short_id.clone()))),
                        Pick::Compare(diff) => {
                            cx.ask(Do::Want(Wanted::Compare(CompareWanted {
                                short_id: c.short_id.clone(),
                                section: diff.section,
                                layout: diff.layout,
                            })));
                            cx.say(format!("reading {}…", c.short_id));
                        }
                    }
                    cx.ask(Do::Ask(Query::Commit {
                        id: c.id.clone(),
                        short_id: c.short_id.clone(),
                        summary: c.summary.clone(),
                    }));
                }
            }
            None => return Handled::Ignored,
        }
        Handled::Consumed
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        let p = view.theme.palette;
        let rect = centered(area, 72, area.height.saturating_sub(6).min(20));
        frame.render_widget(Clear, rect);
        let lines: Vec<Line> = match &self.commits {
            None => vec![Line::styled(
                "reading the history…",
                Style::default().fg(p.muted),
            )],
            Some(list) if list.is_empty() => {
                vec![Line::styled("no commits yet", Style::default().fg(p.muted))]
            }
            Some(list) => list
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let style = if i == self.selected {
                        Style::default().bg(p.selection)
                    } else {
                        Style::default()
                    };
                    Line::from(vec![
                        Span::styled(format!("{} ", c.short_id), Style::default().fg(p.accent)),
                        Span::styled(c.summary.clone(), style),
                    ])
                })
                .collect(),
        };
        let (title, keys) = match &self.pick {
            Pick::Open => (
                " Cycles (commits) ".to_string(),
                " Enter open read-only · Esc close ",
            ),
            Pick::Compare(diff) => (
                format!(" Compare {} with the cycle… ", diff.section.title()),
                " Enter compare · Esc back to the diff ",
            ),
        };
        frame.render_widget(
            Paragraph::new(lines).block(
                popup_block(&p, title, p.accent)
                    .title_bottom(Line::styled(keys, Style::default().fg(p.muted))),
            ),
            rect,
        );
    }
}
