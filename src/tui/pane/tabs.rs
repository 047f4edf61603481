//! The tab bar: one tab per artifact and the journal; digits, Tab and a click pick one.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::design::Section;
use crate::tui::app::App;
use crate::tui::keymap::{Binding, Chord, Group, Handled, command};
use crate::tui::tab::Tab;
use crate::tui::widgets::SPINNER;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Pick(Tab),
    Next,
    Previous,
}

pub const BINDINGS: &[Binding<Command>] = &[
    Binding::new(
        "1-7",
        "Architecture … Class diagram (the five artifacts), Journal, Plan",
        Group::Tabs,
        &[
            (Chord::ch('1'), Command::Pick(Tab::ALL[0])),
            (Chord::ch('2'), Command::Pick(Tab::ALL[1])),
            (Chord::ch('3'), Command::Pick(Tab::ALL[2])),
            (Chord::ch('4'), Command::Pick(Tab::ALL[3])),
            (Chord::ch('5'), Command::Pick(Tab::ALL[4])),
            (Chord::ch('6'), Command::Pick(Tab::ALL[5])),
            (Chord::ch('7'), Command::Pick(Tab::ALL[6])),
        ],
    ),
    Binding::new(
        "Tab / Shift-Tab",
        "next / previous tab (or click a tab)",
        Group::Tabs,
        &[
            (Chord::plain(KeyCode::Tab), Command::Next),
            (
                Chord::Key(KeyCode::BackTab, KeyModifiers::SHIFT),
                Command::Previous,
            ),
        ],
    ),
];

pub fn on_key(app: &mut App, key: KeyEvent) -> Handled {
    let tab = match command(BINDINGS, &key) {
        Some(Command::Pick(tab)) => tab,
        Some(Command::Next) => app.tab.next(),
        Some(Command::Previous) => app.tab.previous(),
        None => return Handled::Ignored,
    };
    app.pick_tab(tab);
    Handled::Consumed
}

/// How much of a tab's label fits: the whole title, a short one, or (for every tab
/// but the current) only the number, with the problem counts kept to the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fit {
    Full,
    Short,
    /// The shortest titles, without the padding blank before the number.
    Tiny,
    Numbers,
}

/// A tab's label in pieces: its number, a spinner or change mark, its title and
/// whether it is settled, then the artifact's error and warning counts.
struct Label {
    text: String,
    errors: Option<String>,
    warnings: Option<String>,
}

impl Label {
    fn width(&self) -> usize {
        let counts = [&self.errors, &self.warnings]
            .into_iter()
            .flatten()
            .map(|c| c.chars().count())
            .sum::<usize>();
        self.text.chars().count() + counts
    }
}

fn short_title(tab: Tab) -> &'static str {
    match tab {
        Tab::Artifact(Section::Architecture) => "Arch",
        Tab::Artifact(Section::Requirements) => "Reqs",
        Tab::Artifact(Section::FileTree) => "Tree",
        Tab::Artifact(Section::ApiSpec) => "API",
        Tab::Artifact(Section::ClassDiagram) => "Classes",
        Tab::Journal => "Journal",
        Tab::Plan => "Plan",
    }
}

fn tiny_title(tab: Tab) -> &'static str {
    match tab {
        Tab::Artifact(Section::ClassDiagram) => "Cls",
        Tab::Journal => "Jrnl",
        other => short_title(other),
    }
}

fn label(app: &App, tab: Tab, fit: Fit) -> Label {
    let section = tab.section();
    let marker = match section {
        Some(s) if Some(s) == app.streaming_section() => {
            format!("{} ", SPINNER[app.spinner % SPINNER.len()])
        }
        Some(s) if app.model.previous().is_some() && app.changed.contains(&s) => "• ".to_string(),
        _ => String::new(),
    };
    let settled = section.is_some_and(|s| app.model.review().settled.iter().any(|m| m == s.key()));
    let counts = section.map(|s| app.problems.counts(s)).unwrap_or_default();
    let (errors, warnings) = (
        (counts.errors > 0).then(|| format!("✗{}", counts.errors)),
        (counts.warnings > 0).then(|| format!("⚠{}", counts.warnings)),
    );
    let n = tab.index() + 1;
    let text = match fit {
        Fit::Numbers if tab != app.tab => format!(" {n} {marker}"),
        Fit::Full => {
            let lock = if settled { " [settled]" } else { "" };
            format!(" {n} {marker}{}{lock} ", tab.title())
        }
        Fit::Short | Fit::Numbers => {
            let lock = if settled { "*" } else { "" };
            format!(" {n} {marker}{}{lock} ", short_title(tab))
        }
        Fit::Tiny => {
            let lock = if settled { "*" } else { "" };
            format!("{n} {marker}{}{lock} ", tiny_title(tab))
        }
    };
    // Counts go after the title with one space between them and one at the end.
    let spaced = |c: Option<String>| c.map(|c| format!("{c} "));
    Label {
        text,
        errors: spaced(errors),
        warnings: spaced(warnings),
    }
}

/// The labels of every tab at the widest fit that keeps them all in `width`
/// columns: the titles shorten, with their counts, before any tab is cut, so all
/// seven stay reachable at 80 and at 60 columns.
fn labels(app: &App, width: u16) -> Vec<Label> {
    let gaps = Tab::COUNT - 1;
    let at = |fit| -> Vec<Label> { Tab::ALL.iter().map(|t| label(app, *t, fit)).collect() };
    for candidate in [
        at(Fit::Full),
        at(Fit::Short),
        at(Fit::Tiny),
        at(Fit::Numbers),
    ] {
        if candidate.iter().map(Label::width).sum::<usize>() + gaps <= width as usize {
            return candidate;
        }
    }
    at(Fit::Numbers)
}

/// Where each tab is drawn (for clicks): the tabs that fit in `area`.
pub fn rects(area: Rect, app: &App) -> Vec<Rect> {
    let mut x = area.x;
    let mut rects = Vec::with_capacity(Tab::COUNT);
    for label in labels(app, area.width) {
        let width = (label.width() as u16).min(area.right().saturating_sub(x));
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
    let labels = labels(app, area.width);
    for ((tab, label), rect) in Tab::ALL.into_iter().zip(labels).zip(rects(area, app)) {
        let section = tab.section();
        let style = if tab == app.tab {
            Style::default()
                .fg(p.tab_active_fg)
                .bg(p.tab_active_bg)
                .add_modifier(Modifier::BOLD)
        } else if section
            .is_some_and(|s| app.model.previous().is_some() && app.changed.contains(&s))
        {
            Style::default().fg(p.tab_changed)
        } else if section
            .is_some_and(|s| app.docs[s.index()].is_empty() || app.backdrop_of(s).is_some())
        {
            Style::default().fg(p.muted)
        } else {
            Style::default().fg(p.foreground)
        };
        let mut spans = vec![Span::styled(label.text, style)];
        if let Some(e) = label.errors {
            spans.push(Span::styled(e, style.fg(p.error)));
        }
        if let Some(w) = label.warnings {
            spans.push(Span::styled(w, style.fg(p.warning)));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), rect);
    }
}
