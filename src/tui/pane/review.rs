//! The review pane: the person's questions, the architect's open questions (with
//! answers) and the review threads; while the loop reflects or plans it shows that
//! instead (see [`crate::tui::pane::finish`]).

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Text};
use ratatui::widgets::{Paragraph, Wrap as TextWrap};

use crate::tui::app::{App, ComposerTarget, Focus, Verdict};
use crate::tui::event::{Action, Phase};
use crate::tui::keymap::{Binding, Chord, Group, Handled};
use crate::tui::pane::finish;
use crate::tui::widgets::{panel, section_title, text_lines};

/// The pane lists the questions (while the loop reflects or plans it shows that
/// instead, and its keys must not act on items nobody sees).
fn listing(app: &App) -> bool {
    !matches!(
        app.phase,
        Phase::Reflecting
            | Phase::Planning { .. }
            | Phase::AwaitingFinalize
            | Phase::AwaitingPlanApproval
    )
}

fn on_question(app: &App) -> bool {
    listing(app) && app.review_selected < app.draft.questions.len()
}

fn on_thread(app: &App) -> bool {
    listing(app) && app.selected_thread().is_some()
}

fn has_items(app: &App) -> bool {
    listing(app) && app.review_items() > 0
}

pub const BINDINGS: &[Binding] = &[
    Binding::new(
        "j k / ↑ ↓",
        "(review pane) select a question or thread",
        Group::Reviewing,
        &[
            Chord::ch('j'),
            Chord::ch('k'),
            Chord::plain(KeyCode::Down),
            Chord::plain(KeyCode::Up),
        ],
    ),
    Binding::new(
        "Enter / e",
        "(review pane) edit a question, answer an open question",
        Group::Reviewing,
        &[Chord::plain(KeyCode::Enter), Chord::ch('e')],
    )
    .hint("e", "edit", 0)
    .when(has_items),
    Binding::new(
        "x / Delete",
        "(review pane) delete a question, close a thread",
        Group::Reviewing,
        &[Chord::ch('x'), Chord::plain(KeyCode::Delete)],
    )
    .hint("x", "delete", 1)
    .when(on_question),
    Binding::new(
        "Enter / o",
        "(review pane, on a thread) the diff that answers it / a follow-up",
        Group::Reviewing,
        &[Chord::plain(KeyCode::Enter), Chord::ch('o')],
    )
    .hint("o", "follow-up", 1)
    .when(on_thread),
    Binding::new(
        "f",
        "(review pane) back to the viewer",
        Group::Reviewing,
        &[Chord::ch('f')],
    )
    .hint("f", "viewer", 1),
];

pub fn on_key(app: &mut App, key: KeyEvent) -> Handled {
    let count = app.review_items();
    let item_key = matches!(
        key.code,
        KeyCode::Enter | KeyCode::Char('e' | 'o' | 'x') | KeyCode::Delete
    );
    if item_key && !listing(app) {
        return Handled::Ignored;
    }
    match key.code {
        KeyCode::Char('f') => app.focus = Focus::Viewer,
        KeyCode::Down | KeyCode::Char('j') => {
            if count > 0 {
                app.review_selected = (app.review_selected + 1).min(count - 1);
            }
        }
        KeyCode::Up | KeyCode::Char('k') => {
            app.review_selected = app.review_selected.saturating_sub(1)
        }
        KeyCode::Enter
        | KeyCode::Char('e')
        | KeyCode::Char('o')
        | KeyCode::Delete
        | KeyCode::Char('x')
            if app.selected_thread().is_some() =>
        {
            let Some(id) = app.selected_thread() else {
                return Handled::Ignored;
            };
            match key.code {
                KeyCode::Char('o') => app.open_composer(ComposerTarget::FollowUp(id)),
                KeyCode::Delete | KeyCode::Char('x') => {
                    app.notice = Some(format!("{id} closed"));
                    app.act(Action::Mark(crate::cxp::ReviewMarks {
                        close: vec![id],
                        ..Default::default()
                    }));
                }
                _ => app.open_thread(id),
            }
        }
        KeyCode::Enter | KeyCode::Char('e') => {
            let n = app.draft.questions.len();
            if app.review_selected < n {
                app.open_composer(ComposerTarget::EditQuestion(app.review_selected));
            } else if let Some(q) = app.open_questions.get(app.review_selected - n) {
                let question = q.clone();
                app.open_composer(ComposerTarget::Answer { question });
            }
        }
        KeyCode::Delete | KeyCode::Char('x') => {
            let n = app.draft.questions.len();
            if app.review_selected < n {
                let removed = app.draft.questions.remove(app.review_selected);
                app.deleted = Some((app.review_selected, removed));
                app.notice = Some("question deleted · u undoes".into());
                app.draft_changed = true;
                app.review_selected = app
                    .review_selected
                    .min(app.review_items().saturating_sub(1));
            }
        }
        _ => return Handled::Ignored,
    }
    Handled::Consumed
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.theme.palette;
    let focused = app.focus == Focus::Review;
    let block = panel(
        " Review · J:Junior ",
        if focused { p.accent } else { p.border },
        Style::default().fg(p.title).add_modifier(Modifier::BOLD),
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if let Some(paragraph) = finish::body(app, inner) {
        frame.render_widget(paragraph, inner);
        return;
    }
    let (lines, selected_line) = body(app, focused);
    let scroll = selected_line.saturating_sub(inner.height.saturating_sub(3) as usize) as u16;
    frame.render_widget(
        Paragraph::new(Text::from(lines))
            .scroll((scroll, 0))
            .wrap(TextWrap { trim: false }),
        inner,
    );
}

/// The questions, open questions and threads, and the line of the selected item.
fn body(app: &App, focused: bool) -> (Vec<Line<'static>>, usize) {
    let p = app.theme.palette;
    let mut lines: Vec<Line<'static>> = Vec::new();
    let hint = Style::default().fg(p.muted);
    let mut selected_line = 0usize;
    let n = app.draft.questions.len();
    lines.push(section_title(&p, &format!("Your questions ({n})")));
    if n == 0 {
        lines.push(Line::styled("a: ask · c: ask about the cursor line", hint));
    }
    for (i, q) in app.draft.questions.iter().enumerate() {
        let selected = focused && app.review_selected == i;
        if selected {
            selected_line = lines.len();
        }
        let style = if selected {
            Style::default().bg(p.selection)
        } else {
            Style::default()
        };
        lines.extend(text_lines(&format!("{}. ", i + 1), &q.text, style));
        if let Some(a) = &q.anchor {
            lines.push(Line::styled(
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
            lines.push(Line::styled(format!("   ↳ follows up {old}"), hint));
        }
    }
    if !app.draft.composer.trim().is_empty() {
        lines.extend(text_lines(
            "✎ ",
            &app.draft.composer,
            Style::default().fg(p.tail).add_modifier(Modifier::ITALIC),
        ));
    }
    if !app.open_questions.is_empty() {
        lines.push(Line::raw(""));
        lines.push(section_title(&p, "Architect's open questions"));
        for (j, q) in app.open_questions.iter().enumerate() {
            let selected = focused && app.review_selected == n + j;
            if selected {
                selected_line = lines.len();
            }
            let style = if selected {
                Style::default().bg(p.selection)
            } else {
                Style::default()
            };
            lines.push(Line::styled(format!("Q{}. {}", j + 1, q), style));
            match app.draft.answer_for(q) {
                Some(a) => lines.extend(text_lines("   → ", a, Style::default().fg(p.added))),
                None => lines.push(Line::styled("   (f, then Enter to answer)", hint)),
            }
        }
    }
    if !app.review.threads.is_empty() {
        lines.push(Line::raw(""));
        lines.push(section_title(
            &p,
            "Threads (Enter answer · o follow-up · x close)",
        ));
        let first = n + app.open_questions.len();
        let selected = app.review_selected.checked_sub(first).filter(|_| focused);
        let (thread_lines, at) = crate::tui::threads::lines(&app.review.threads, selected, &p);
        if let Some(at) = at {
            selected_line = lines.len() + at;
        }
        lines.extend(thread_lines);
    }
    lines.push(Line::raw(""));
    let footer = match (app.verdict, &app.phase) {
        (Verdict::Sent, _) => "sent; waiting for the architect".to_string(),
        (_, Phase::AwaitingReview { .. }) if finish::last_cycle(app) => {
            "LAST CYCLE: Ctrl-S finalizes without another revision (asks first) · Ctrl-R READY"
                .to_string()
        }
        (_, Phase::AwaitingReview { .. }) => "Ctrl-S send questions · Ctrl-R READY".to_string(),
        (_, phase) if phase.is_busy() => {
            "you can write questions while the architect works".to_string()
        }
        _ => String::new(),
    };
    lines.push(Line::styled(footer, Style::default().fg(p.accent)));
    (lines, selected_line)
}
