//! The tab bar: one tab per artifact and the journal; digits, Tab and a click pick one.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::Paragraph;

use crate::tui::app::App;
use crate::tui::keymap::{Binding, Chord, Group, Handled};
use crate::tui::tab::Tab;
use crate::tui::widgets::SPINNER;

pub const BINDINGS: &[Binding] = &[
    Binding::new(
        "1-7",
        "Architecture … Class diagram (the five artifacts), Journal, Plan",
        Group::Tabs,
        &[
            Chord::ch('1'),
            Chord::ch('2'),
            Chord::ch('3'),
            Chord::ch('4'),
            Chord::ch('5'),
            Chord::ch('6'),
            Chord::ch('7'),
        ],
    ),
    Binding::new(
        "Tab / Shift-Tab",
        "next / previous tab (or click a tab)",
        Group::Tabs,
        &[
            Chord::plain(KeyCode::Tab),
            Chord::Key(KeyCode::BackTab, KeyModifiers::SHIFT),
        ],
    ),
];

pub fn on_key(app: &mut App, key: KeyEvent) -> Handled {
    let tab = match key.code {
        KeyCode::Char(c @ '1'..='9') => match Tab::for_digit(c) {
            Some(tab) => tab,
            None => return Handled::Ignored,
        },
        KeyCode::Tab => app.tab.next(),
        KeyCode::BackTab => app.tab.previous(),
        _ => return Handled::Ignored,
    };
    app.pick_tab(tab);
    Handled::Consumed
}

/// A tab's label: its number, a spinner or change mark, its title, and whether it is
/// settled.
fn label(app: &App, tab: Tab) -> String {
    let section = tab.section();
    let marker = match section {
        Some(s) if Some(s) == app.streaming_section() => {
            format!("{} ", SPINNER[app.spinner % SPINNER.len()])
        }
        Some(s) if app.previous.is_some() && app.changed.contains(&s) => "• ".to_string(),
        _ => String::new(),
    };
    let settled = section.is_some_and(|s| app.review.settled.iter().any(|m| m == s.key()));
    let lock = if settled { " [settled]" } else { "" };
    format!(" {} {}{}{lock} ", tab.index() + 1, marker, tab.title())
}

/// Where each tab is drawn (for clicks): the tabs that fit in `area`.
pub fn rects(area: Rect, app: &App) -> Vec<Rect> {
    let mut x = area.x;
    let mut rects = Vec::with_capacity(Tab::COUNT);
    for tab in Tab::ALL {
        let width = (label(app, tab).chars().count() as u16).min(area.right().saturating_sub(x));
        rects.push(Rect::new(x, area.y, width, 1));
        x = x.saturating_add(width + 1);
        if x >= area.right() {
            break;
        }
    }
    rects
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.theme.palette;
    for (tab, rect) in Tab::ALL.into_iter().zip(rects(area, app)) {
        let section = tab.section();
        let style = if tab == app.tab {
            Style::default()
                .fg(p.tab_active_fg)
                .bg(p.tab_active_bg)
                .add_modifier(Modifier::BOLD)
        } else if section.is_some_and(|s| app.previous.is_some() && app.changed.contains(&s)) {
            Style::default().fg(p.tab_changed)
        } else if section
            .is_some_and(|s| app.docs[s.index()].is_empty() || app.backdrop_of(s).is_some())
        {
            Style::default().fg(p.muted)
        } else {
            Style::default().fg(p.foreground)
        };
        frame.render_widget(Paragraph::new(Span::styled(label(app, tab), style)), rect);
    }
}
