//! The review pane: the person's questions, the architect's open questions (with
//! answers) and the review threads; while the loop reflects or plans it shows that
//! instead (see [`crate::tui::pane::finish`]).

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use crate::tui::app::{App, ComposerTarget, Focus, Verdict};
use crate::tui::event::{Action, Phase};
use crate::tui::keymap::{Binding, Chord, Group, Handled, Motion, command};
use crate::tui::pane::finish;
use crate::tui::widgets::{panel, section_title, text_lines};

/// The pane lists the questions (while the loop reflects or plans it shows that
/// instead, and its keys must not act on items nobody sees).
fn listing(app: &App) -> bool {
    !matches!(
        app.model.phase(),
        Phase::Reflecting
            | Phase::Planning { .. }
            | Phase::AwaitingFinalize
            | Phase::AwaitingPlanApproval
    )
}

fn on_question(app: &App) -> bool {
    listing(app) && app.review_pane.selected < app.draft.questions.len()
}

fn on_thread(app: &App) -> bool {
    listing(app) && app.selected_thread().is_some()
}

fn has_items(app: &App) -> bool {
    listing(app) && app.review_items() > 0
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Move(Motion),
    /// Edit a question, answer an open question, open a thread's diff.
    Open,
    FollowUp,
    Delete,
    FocusViewer,
}

impl Command {
    /// Acts on the selected item (and so only while the pane lists items).
    fn on_item(self) -> bool {
        matches!(self, Command::Open | Command::FollowUp | Command::Delete)
    }
}

pub const BINDINGS: &[Binding<Command, App>] = &[
    Binding::new(
        "j k / ↑ ↓",
        "(review pane) select a question or thread",
        Group::Reviewing,
        &[
            (Chord::ch('j'), Command::Move(Motion::Down)),
            (Chord::ch('k'), Command::Move(Motion::Up)),
            (Chord::plain(KeyCode::Down), Command::Move(Motion::Down)),
            (Chord::plain(KeyCode::Up), Command::Move(Motion::Up)),
        ],
    ),
    Binding::new(
        "PgDn PgUp",
        "(review pane) a page of items down / up",
        Group::Reviewing,
        &[
            (
                Chord::plain(KeyCode::PageDown),
                Command::Move(Motion::PageDown),
            ),
            (Chord::plain(KeyCode::PageUp), Command::Move(Motion::PageUp)),
        ],
    ),
    Binding::new(
        "g G / Home End",
        "(review pane) first / last item",
        Group::Reviewing,
        &[
            (Chord::ch('g'), Command::Move(Motion::Top)),
            (Chord::ch('G'), Command::Move(Motion::Bottom)),
            (Chord::plain(KeyCode::Home), Command::Move(Motion::Top)),
            (Chord::plain(KeyCode::End), Command::Move(Motion::Bottom)),
        ],
    ),
    Binding::new(
        "click / wheel",
        "(review pane) select an item / scroll the pane under the pointer",
        Group::Reviewing,
        &[],
    ),
    Binding::new(
        "Enter / e",
        "(review pane) edit a question, answer an open question",
        Group::Reviewing,
        &[
            (Chord::plain(KeyCode::Enter), Command::Open),
            (Chord::ch('e'), Command::Open),
        ],
    )
    .hint("e", "edit", 0)
    .when(has_items),
    Binding::new(
        "x / Delete",
        "(review pane) delete a question, close a thread",
        Group::Reviewing,
        &[
            (Chord::ch('x'), Command::Delete),
            (Chord::plain(KeyCode::Delete), Command::Delete),
        ],
    )
    .hint("x", "delete", 1)
    .when(on_question),
    Binding::new(
        "Enter / o",
        "(review pane, on a thread) the diff that answers it / a follow-up",
        Group::Reviewing,
        &[
            (Chord::plain(KeyCode::Enter), Command::Open),
            (Chord::ch('o'), Command::FollowUp),
        ],
    )
    .hint("o", "follow-up", 1)
    .when(on_thread),
    Binding::new(
        "f",
        "(review pane) back to the viewer",
        Group::Reviewing,
        &[(Chord::ch('f'), Command::FocusViewer)],
    )
    .hint("f", "viewer", 1),
];

pub fn on_key(app: &mut App, key: KeyEvent) -> Handled {
    let Some(command) = command(BINDINGS, &key) else {
        return Handled::Ignored;
    };
    if command.on_item() && !listing(app) {
        return Handled::Ignored;
    }
    // On a thread the item keys act on the thread.
    if command.on_item()
        && let Some(id) = app.selected_thread()
    {
        match command {
            Command::FollowUp => app.open_composer(ComposerTarget::FollowUp(id)),
            Command::Delete => {
                app.say(format!("{id} closed"));
                app.act(Action::Mark(crate::cxp::ReviewMarks {
                    close: vec![id],
                    ..Default::default()
                }));
            }
            _ => app.open_thread(id),
        }
        return Handled::Consumed;
    }
    let count = app.review_items();
    match command {
        Command::FocusViewer => app.focus = Focus::Viewer,
        Command::Move(Motion::Down) => {
            if count > 0 {
                app.review_pane.selected = (app.review_pane.selected + 1).min(count - 1);
            }
        }
        Command::Move(Motion::Up) => {
            app.review_pane.selected = app.review_pane.selected.saturating_sub(1)
        }
        Command::Move(Motion::PageDown) => page(app, 1),
        Command::Move(Motion::PageUp) => page(app, -1),
        Command::Move(Motion::Top) => app.review_pane.selected = 0,
        Command::Move(Motion::Bottom) => app.review_pane.selected = count.saturating_sub(1),
        Command::FollowUp => return Handled::Ignored,
        Command::Open => {
            let n = app.draft.questions.len();
            if app.review_pane.selected < n {
                app.open_composer(ComposerTarget::EditQuestion(app.review_pane.selected));
            } else if let Some(q) = app.model.open_questions().get(app.review_pane.selected - n) {
                let question = q.clone();
                app.open_composer(ComposerTarget::Answer { question });
            }
        }
        Command::Delete => {
            let n = app.draft.questions.len();
            if app.review_pane.selected < n {
                let removed = app.draft.questions.remove(app.review_pane.selected);
                app.deleted = Some((app.review_pane.selected, removed));
                app.say("question deleted · u undoes".into());
                app.draft_changed = true;
                app.review_pane.selected = app
                    .review_pane
                    .selected
                    .min(app.review_items().saturating_sub(1));
            }
        }
    }
    Handled::Consumed
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.theme.palette;
    let focused = app.focus == Focus::Review;
    let mut block = panel(
        " Review · J:Junior ",
        if focused { p.accent } else { p.border },
        Style::default().fg(p.title).add_modifier(Modifier::BOLD),
    );
    let inner = block.inner(area);
    if let Some(paragraph) = finish::body(&app.view(), inner) {
        frame.render_widget(block, area);
        frame.render_widget(paragraph, inner);
        return;
    }
    let rows = rows(app, focused, inner.width);
    let height = inner.height as usize;
    let count = app.review_items();
    if rows.len() > height && count > 0 {
        // The pane scrolls: say where the selection is among the items.
        let at = format!(" {}/{count} ", app.review_pane.selected.min(count - 1) + 1);
        block = block.title_bottom(Line::styled(at, Style::default().fg(p.muted)).right_aligned());
    }
    frame.render_widget(block, area);
    let buf = frame.buffer_mut();
    let top = app.review_pane.scroll.top;
    for (y, (line, _)) in (inner.y..inner.bottom()).zip(rows.iter().skip(top)) {
        buf.set_line(inner.x, y, line, inner.width);
    }
}

/// The review pane's own state: which item is selected and how far it is scrolled.
#[derive(Debug, Clone, Default)]
pub struct ReviewPane {
    pub selected: usize,
    pub scroll: ReviewScroll,
}

/// How far the review pane is scrolled, kept by [`settle`] before each frame.
#[derive(Debug, Clone, Default)]
pub struct ReviewScroll {
    /// The first screen row of the body that is drawn.
    pub top: usize,
    /// The item each row of the whole body belongs to (`None`: a heading or a hint),
    /// for clicks and paging.
    pub items: Vec<Option<usize>>,
    /// Rows the pane showed in the last frame.
    pub height: usize,
    /// The selection last brought into view: the wheel may leave it partly off the
    /// screen until the selection moves.
    shown: Option<usize>,
}

impl ReviewScroll {
    /// The first and last row of `item`.
    fn span(&self, item: usize) -> Option<(usize, usize)> {
        let first = self.items.iter().position(|i| *i == Some(item))?;
        let last = self.items.iter().rposition(|i| *i == Some(item))?;
        Some((first, last))
    }

    fn max_top(&self) -> usize {
        self.items.len().saturating_sub(self.height)
    }

    /// The item on `row`, else the next one below it, else the last.
    fn item_from(&self, row: usize) -> Option<usize> {
        self.items
            .iter()
            .skip(row)
            .flatten()
            .next()
            .or_else(|| self.items.iter().flatten().last())
            .copied()
    }
}

/// Before a frame: lays the body out at the pane's width and scrolls so that the
/// selected item is on screen (wholly, when it fits).
pub fn settle(app: &mut App, inner: Rect) {
    if finish::body(&app.view(), inner).is_some() {
        app.review_pane.scroll = ReviewScroll::default();
        return;
    }
    let items: Vec<Option<usize>> = rows(app, false, inner.width)
        .into_iter()
        .map(|(_, item)| item)
        .collect();
    let selected = app.review_pane.selected;
    let s = &mut app.review_pane.scroll;
    s.items = items;
    s.height = inner.height as usize;
    let height = s.height.max(1);
    let mut top = s.top.min(s.max_top());
    if let Some((first, last)) = s.span(selected) {
        let seen = first < top + height && last >= top;
        if s.shown != Some(selected) || !seen {
            if first < top {
                top = first;
            } else if last >= top + height {
                top = (last + 1 - height).min(first);
            }
        }
        s.shown = Some(selected);
    }
    s.top = top;
}

/// The wheel over the pane: scrolls it, and moves the selection onto the screen when
/// it scrolled off.
pub fn scroll(app: &mut App, delta: isize) {
    let s = &mut app.review_pane.scroll;
    s.top = s.top.saturating_add_signed(delta).min(s.max_top());
    // The items whose first row is on screen: their number or name is seen.
    let end = s.top + s.height.max(1);
    let visible: Vec<usize> = s
        .items
        .iter()
        .enumerate()
        .filter(|&(row, item)| {
            item.is_some() && (row == 0 || s.items[row - 1] != *item) && row >= s.top && row < end
        })
        .filter_map(|(_, item)| *item)
        .collect();
    if !visible.is_empty() && !visible.contains(&app.review_pane.selected) {
        let pick = if delta > 0 {
            visible.first()
        } else {
            visible.last()
        };
        if let Some(&item) = pick {
            app.review_pane.selected = item;
            s.shown = Some(item);
        }
    }
}

/// A click on `row` of the pane (0 is its first inner row) selects the item there.
pub fn click(app: &mut App, row: usize) {
    let s = &app.review_pane.scroll;
    if let Some(Some(item)) = s.items.get(s.top + row) {
        app.review_pane.selected = *item;
    }
}

/// PgDn / PgUp: the selection moves by about a page of rows.
fn page(app: &mut App, direction: isize) {
    let s = &app.review_pane.scroll;
    let Some((first, _)) = s.span(app.review_pane.selected) else {
        return;
    };
    let amount = s.height.saturating_sub(1).max(1) as isize * direction;
    if let Some(item) = s.item_from(first.saturating_add_signed(amount)) {
        app.review_pane.selected = item;
    }
}

/// The body as screen rows at `width` columns, each with the item it belongs to.
fn rows(app: &App, focused: bool, width: u16) -> Vec<(Line<'static>, Option<usize>)> {
    body(app, focused)
        .into_iter()
        .flat_map(|(line, item)| {
            // A row keeps the line's own style (the selection's background).
            let style = line.style;
            crate::tui::wrap::wrap_line(line, width.max(1))
                .into_iter()
                .map(move |row| (row.style(style), item))
        })
        .collect()
}

/// The questions, open questions and threads, each line with the item it shows.
fn body(app: &App, focused: bool) -> Vec<(Line<'static>, Option<usize>)> {
    let p = app.theme.palette;
    let mut lines: Vec<(Line<'static>, Option<usize>)> = Vec::new();
    let push = |lines: &mut Vec<(Line<'static>, Option<usize>)>,
                new: Vec<Line<'static>>,
                item: Option<usize>| {
        lines.extend(new.into_iter().map(|l| (l, item)));
    };
    let hint = Style::default().fg(p.muted);
    let n = app.draft.questions.len();
    push(
        &mut lines,
        vec![section_title(&p, &format!("Your questions ({n})"))],
        None,
    );
    if n == 0 {
        push(
            &mut lines,
            vec![Line::styled("a: ask · c: ask about the cursor line", hint)],
            None,
        );
    }
    for (i, q) in app.draft.questions.iter().enumerate() {
        let style = if focused && app.review_pane.selected == i {
            Style::default().bg(p.selection)
        } else {
            Style::default()
        };
        let mut item = text_lines(&format!("{}. ", i + 1), &q.text, style);
        if let Some(a) = &q.anchor {
            item.push(Line::styled(
                format!(
                    "   ↳ {} line {}: {}",
                    a.section.title(),
                    a.line,
                    a.quote.trim()
                ),
                hint,
            ));
        }
        if let Some(old) = &q.follows {
            item.push(Line::styled(format!("   ↳ follows up {old}"), hint));
        }
        push(&mut lines, item, Some(i));
    }
    if !app.draft.composer.trim().is_empty() {
        let draft = text_lines(
            "✎ ",
            &app.draft.composer,
            Style::default().fg(p.tail).add_modifier(Modifier::ITALIC),
        );
        push(&mut lines, draft, None);
    }
    if !app.model.open_questions().is_empty() {
        push(
            &mut lines,
            vec![
                Line::raw(""),
                section_title(&p, "Architect's open questions"),
            ],
            None,
        );
        for (j, q) in app.model.open_questions().iter().enumerate() {
            let style = if focused && app.review_pane.selected == n + j {
                Style::default().bg(p.selection)
            } else {
                Style::default()
            };
            let mut item = vec![Line::styled(format!("Q{}. {}", j + 1, q), style)];
            match app.draft.answer_for(q) {
                Some(a) => item.extend(text_lines("   → ", a, Style::default().fg(p.added))),
                None => item.push(Line::styled("   (f, then Enter to answer)", hint)),
            }
            push(&mut lines, item, Some(n + j));
        }
    }
    if !app.model.review().threads.is_empty() {
        push(
            &mut lines,
            vec![
                Line::raw(""),
                section_title(&p, "Threads (Enter answer · o follow-up · x close)"),
            ],
            None,
        );
        let first = n + app.model.open_questions().len();
        let selected = app
            .review_pane
            .selected
            .checked_sub(first)
            .filter(|_| focused);
        let (thread_lines, owners) =
            crate::tui::threads::lines(&app.model.review().threads, selected, &p);
        for (line, owner) in thread_lines.into_iter().zip(owners) {
            push(&mut lines, vec![line], owner.map(|t| first + t));
        }
    }
    let footer = match (app.verdict, app.model.phase()) {
        (Verdict::Sent, _) => "sent; waiting for the architect".to_string(),
        (_, Phase::AwaitingReview { .. }) if app.offers().last_cycle => {
            "LAST CYCLE: Ctrl-S finalizes without another revision (asks first) · Ctrl-R READY"
                .to_string()
        }
        (_, Phase::AwaitingReview { .. }) => "Ctrl-S send questions · Ctrl-R READY".to_string(),
        (_, phase) if phase.is_busy() => {
            "you can write questions while the architect works".to_string()
        }
        _ => String::new(),
    };
    push(
        &mut lines,
        vec![
            Line::raw(""),
            Line::styled(footer, Style::default().fg(p.accent)),
        ],
        None,
    );
    lines
}
