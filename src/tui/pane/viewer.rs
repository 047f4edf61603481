//! The viewer: the current tab's document, with a cursor line, a line-number gutter,
//! soft wrap or sideways scrolling, search matches painted and the stream's tail.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap as TextWrap};

use crate::design::Section;
use crate::tui::app::{App, Focus, Follow, Wrap};
use crate::tui::conflict::{Region, Take, region_at, resolve};
use crate::tui::event::Intent;
use crate::tui::keymap::{Binding, Chord, Group, Handled, Motion, command};
use crate::tui::layout::viewer_geometry;
use crate::tui::widgets::panel;
use crate::tui::wrap;

/// Columns one ←/→ scrolls with wrap off.
const SIDE_STEP: usize = 8;

fn on_artifact_tab(app: &App) -> bool {
    app.tab.section().is_some() && !app.current_doc().is_empty()
}

/// A call runs that `x` (or Esc) can stop: text is streaming, or the call is out
/// and waits (for a first token or out a backoff).
pub(crate) fn can_cancel(app: &App) -> bool {
    app.model.phase().is_busy() && (app.is_streaming() || app.activity.activity().is_some())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Move(Motion),
    Left,
    Right,
    Take(Take),
    GoTo,
    Trace,
    FocusReview,
    Cancel,
}

pub const BINDINGS: &[Binding<Command, App>] = &[
    Binding::new(
        "j k / ↑ ↓",
        "move the cursor line",
        Group::Reading,
        &[
            (Chord::ch('j'), Command::Move(Motion::Down)),
            (Chord::ch('k'), Command::Move(Motion::Up)),
            (Chord::plain(KeyCode::Down), Command::Move(Motion::Down)),
            (Chord::plain(KeyCode::Up), Command::Move(Motion::Up)),
        ],
    ),
    Binding::new(
        "PgDn PgUp Space",
        "page down / up",
        Group::Reading,
        &[
            (
                Chord::plain(KeyCode::PageDown),
                Command::Move(Motion::PageDown),
            ),
            (Chord::plain(KeyCode::PageUp), Command::Move(Motion::PageUp)),
            (Chord::ch(' '), Command::Move(Motion::PageDown)),
        ],
    ),
    Binding::new(
        "g G / Home End",
        "top / bottom (G follows a stream again)",
        Group::Reading,
        &[
            (Chord::ch('g'), Command::Move(Motion::Top)),
            (Chord::ch('G'), Command::Move(Motion::Bottom)),
            (Chord::plain(KeyCode::Home), Command::Move(Motion::Top)),
            (Chord::plain(KeyCode::End), Command::Move(Motion::Bottom)),
        ],
    ),
    Binding::new("mouse wheel", "scroll", Group::Reading, &[]),
    Binding::new(
        "← →",
        "scroll sideways (wrap off)",
        Group::Reading,
        &[
            (Chord::plain(KeyCode::Left), Command::Left),
            (Chord::plain(KeyCode::Right), Command::Right),
        ],
    ),
    Binding::new(
        "< > =",
        "in an edit conflict: keep the reviewer's side / the architect's / both",
        Group::Reviewing,
        &[
            (Chord::ch('<'), Command::Take(Take::Reviewer)),
            (Chord::ch('>'), Command::Take(Take::Architect)),
            (Chord::ch('='), Command::Take(Take::Both)),
        ],
    )
    .hint("< > =", "keep mine/theirs/both", 0)
    .when(in_conflict),
    Binding::new(
        ":",
        "go to line N (:N, then Enter)",
        Group::Reading,
        &[(Chord::ch(':'), Command::GoTo)],
    )
    .hint(":", "go to line", 7)
    .when(has_lines),
    Binding::new(
        "*",
        "trace the id, class or module on the line across tabs (again: next name)",
        Group::Reading,
        &[(Chord::ch('*'), Command::Trace)],
    )
    .hint("*", "trace", 6)
    .when(on_artifact_tab),
    Binding::new(
        "f",
        "focus the review pane",
        Group::Reviewing,
        &[(Chord::ch('f'), Command::FocusReview)],
    )
    .hint("f", "review pane", 4),
    Binding::new(
        "x",
        "cancel the running call (asks once text has come)",
        Group::Always,
        &[(Chord::ch('x'), Command::Cancel)],
    )
    .hint("x", "cancel", 0)
    .when(can_cancel),
];

fn in_conflict(app: &App) -> bool {
    conflict_at_cursor(app).is_some()
}

fn has_lines(app: &App) -> bool {
    !app.current_doc().is_empty()
}

/// The conflict under the cursor of the current artifact tab.
pub(crate) fn conflict_at_cursor(app: &App) -> Option<(Section, Region)> {
    let section = app.tab.section()?;
    if app.old_cycle.is_some() || app.raw.shown() {
        return None;
    }
    let text = app.model.artifacts().get(section);
    let lines: Vec<&str> = text.lines().collect();
    let cursor = app.views[app.tab.index()].cursor;
    region_at(&lines, cursor).map(|r| (section, r))
}

/// `<`, `>`, `=`: keeps a side of the conflict under the cursor and has the file
/// rewritten (the run loop writes it, as after `E`).
fn take_conflict(app: &mut App, take: Take) {
    if app.refuse_read_only("resolve conflicts") {
        return;
    }
    let Some((section, region)) = conflict_at_cursor(app) else {
        app.say("<, >, =: put the cursor inside a conflict (<<<<<<< … >>>>>>>) first".into());
        return;
    };
    let text = resolve(app.model.artifacts().get(section), region, take);
    app.views[app.tab.index()].cursor = region.open;
    app.intents.push(Intent::ResolveConflict { section, text });
}

pub fn on_key(app: &mut App, key: KeyEvent) -> Handled {
    let Some(command) = command(BINDINGS, &key) else {
        return Handled::Ignored;
    };
    let tab = app.tab.index();
    match command {
        Command::FocusReview => app.focus = Focus::Review,
        Command::Take(side) => take_conflict(app, side),
        Command::GoTo if has_lines(app) => {
            app.popup = Some(crate::tui::popup::Popup::GoTo(Default::default()));
        }
        Command::GoTo => app.say(":: this tab has no lines yet".into()),
        Command::Trace => app.trace_at_cursor(),
        Command::Cancel if can_cancel(app) => app.ask_cancel(),
        Command::Cancel => return Handled::Ignored,
        Command::Left | Command::Right if app.wrap == Wrap::Soft => {
            app.say("←/→ scroll sideways with wrap off (w)".into());
        }
        Command::Left => {
            let view = &mut app.views[tab];
            view.left = view.left.saturating_sub(SIDE_STEP);
        }
        Command::Right => {
            let widest = app.current_doc().widest();
            let view = &mut app.views[tab];
            view.left = (view.left + SIDE_STEP).min(widest.saturating_sub(1));
        }
        Command::Move(Motion::Down) => app.move_cursor(1),
        Command::Move(Motion::Up) => app.move_cursor(-1),
        Command::Move(Motion::PageDown) => app.page(1, 1),
        Command::Move(Motion::PageUp) => app.page(-1, 1),
        Command::Move(Motion::Top) => {
            let view = &mut app.views[tab];
            view.cursor = 0;
            view.top = 0;
            view.follow = Follow::Manual;
        }
        Command::Move(Motion::Bottom) => {
            let len = app.current_doc().len();
            let view = &mut app.views[tab];
            view.cursor = len.saturating_sub(1);
            view.follow = Follow::Stream;
        }
    }
    Handled::Consumed
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.theme.palette;
    let focused = app.focus == Focus::Viewer;
    let tab = app.tab;
    let g = viewer_geometry(app, area);
    let (raw, is_live) = (g.raw, g.is_live);
    let wrap = app.wrap;
    let view = app.views[tab.index()];
    let len = app.current_doc().len();
    // The committed cycle, kept on screen (dimmed) until the stream replaces it.
    let showing = tab.section().and_then(|s| app.backdrop_of(s));
    let title = match &app.old_cycle {
        Some(old) => format!(
            " {} — {} (read-only, Esc returns) ",
            tab.title(),
            old.summary
        ),
        None if raw && is_live => " The architect's answer · no section marker yet ".to_string(),
        None if raw => " The architect's answer · no section markers found ".to_string(),
        None => match (tab.section().and_then(|s| app.patch_label(s)), showing) {
            (Some(label), _) => format!(" {} — {label} ", tab.title()),
            (None, Some(showing)) => format!(" {} · {} ", tab.title(), showing.banner()),
            (None, None) => format!(" {} ", tab.title()),
        },
    };
    // The class diagram's source, when it does not parse: the fault in the title and
    // its line marked.
    let fault = crate::tui::pane::diagram::source_fault(app);
    let (title, title_style) = match &fault {
        Some(f) => (
            format!(
                " {} · {} line {}:{} · v: drawing ",
                tab.title(),
                crate::design::lint::Code::DiagramSyntax,
                f.line,
                f.column
            ),
            Style::default().fg(p.error).add_modifier(Modifier::BOLD),
        ),
        None => match crate::tui::pane::diagram::source_refusal(app) {
            Some(why) => (
                format!(" {} · not drawn: {why} ", tab.title()),
                Style::default().fg(p.warning).add_modifier(Modifier::BOLD),
            ),
            None => (
                title,
                Style::default().fg(p.title).add_modifier(Modifier::BOLD),
            ),
        },
    };
    let fault_line = fault.as_ref().map(|f| f.line);
    let position = if len == 0 {
        String::new()
    } else {
        let follow = if view.follow == Follow::Stream && is_live {
            " follow"
        } else {
            ""
        };
        let sideways = match (wrap, view.left) {
            (Wrap::Off, left) if left > 0 => format!(" · col {}", left + 1),
            _ => String::new(),
        };
        format!(" {}/{}{}{} ", view.cursor + 1, len, sideways, follow)
    };
    let block = panel(
        title,
        if focused { p.accent } else { p.border },
        title_style,
    )
    .title_bottom(Line::styled(position, Style::default().fg(p.muted)).right_aligned());
    let block = match &fault {
        Some(f) => block.title_bottom(Line::styled(
            format!(" {} ", f.message),
            Style::default().fg(p.error),
        )),
        None => block,
    };
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 || inner.width < 4 {
        return;
    }
    let doc = app.current_doc();
    if doc.is_empty() {
        let message = match (tab.section(), app.model.phase()) {
            (None, _) if tab == crate::tui::tab::Tab::Plan => {
                "the reflection and the execution plan appear here after READY".to_string()
            }
            (None, _) => "the decision journal fills as the loop moves".to_string(),
            (Some(_), phase) if phase.is_busy() => {
                "waiting for the architect to reach this section…".to_string()
            }
            (Some(_), _) if app.partial_answer().is_some() => {
                let partial = app.partial_answer().map(|p| p.banner()).unwrap_or_default();
                format!("{partial}: the answer stopped before this section")
            }
            (Some(s), _) => format!("this cycle has no {} section", s.title().to_lowercase()),
        };
        frame.render_widget(
            Paragraph::new(Line::styled(
                message,
                Style::default().fg(p.muted).add_modifier(Modifier::ITALIC),
            )),
            inner,
        );
        return;
    }
    let (gutter_width, text_width) = (g.gutter_width, g.text_width);
    let has_tail = is_live && !doc.tail().is_empty();
    let top = view.top.min(len.saturating_sub(1));
    let text_x = inner.x + gutter_width;
    let settled = match (tab.section(), &app.old_cycle) {
        (Some(section), None) if gutter_width > 0 => crate::tui::threads::settled_lines(
            section,
            app.model.artifacts().get(section),
            &app.model.review().settled,
        ),
        _ => Vec::new(),
    };
    let needle = app.last_search.to_ascii_lowercase();
    let match_style = Style::default().fg(p.tab_active_fg).bg(p.warning);
    let mut y = inner.y;
    let bottom = inner.bottom();
    let mut index = top;
    let left = match wrap {
        Wrap::Off => view.left,
        Wrap::Soft => 0,
    };
    let buf = frame.buffer_mut();
    while y < bottom && index < len {
        let Some(line) = doc.line_ref(index) else {
            break;
        };
        let own_rows = line.own_rows();
        let drawn = line.to_line();
        let line = &drawn;
        // Most lines fit: draw them straight from the cache; split only long ones
        // (a table row taller than one line comes as its own rows).
        let wrapped;
        let rows: &[Line] = match (own_rows, wrap) {
            (Some(own), Wrap::Soft) => {
                wrapped = own
                    .into_iter()
                    .flat_map(|row| {
                        if row.width() > text_width as usize {
                            wrap::wrap_line(row, text_width)
                        } else {
                            vec![row]
                        }
                    })
                    .collect::<Vec<_>>();
                &wrapped
            }
            (Some(own), Wrap::Off) => {
                wrapped = own
                    .into_iter()
                    .map(|row| wrap::skip_columns(row, left))
                    .collect();
                &wrapped
            }
            (None, Wrap::Soft) if line.width() > text_width as usize => {
                wrapped = wrap::wrap_line(line.clone(), text_width);
                &wrapped
            }
            (None, Wrap::Off) if left > 0 => {
                wrapped = vec![wrap::skip_columns(line.clone(), left)];
                &wrapped
            }
            _ => std::slice::from_ref(line),
        };
        let is_cursor = index == view.cursor;
        if gutter_width > 0 {
            let style = if is_cursor {
                Style::default().fg(p.accent).bg(p.cursor_line)
            } else {
                Style::default().fg(p.line_number)
            };
            let is_settled = settled.iter().any(|r| r.contains(&index));
            let (mark, style) = if fault_line == Some(index + 1) {
                ("✗", style.fg(p.error).add_modifier(Modifier::BOLD))
            } else if is_settled {
                ("▐", style.fg(p.added))
            } else {
                (" ", style)
            };
            let number = format!("{:>w$}{mark}", index + 1, w = (gutter_width - 1) as usize);
            buf.set_string(inner.x, y, number, style);
            // A line an edit block of the running update wrote, marked as in a diff.
            if app.old_cycle.is_none()
                && tab.section().and_then(|s| app.marks[s].get(index)) == Some(&true)
            {
                buf.set_string(
                    inner.x + gutter_width - 1,
                    y,
                    "+",
                    Style::default().fg(p.added).add_modifier(Modifier::BOLD),
                );
            }
        }
        for row in rows.iter() {
            if y >= bottom {
                break;
            }
            if is_cursor && focused {
                buf.set_style(
                    Rect::new(text_x, y, text_width, 1),
                    Style::default().bg(p.cursor_line),
                );
            }
            buf.set_line(text_x, y, row, text_width);
            if showing.is_some() {
                buf.set_style(
                    Rect::new(text_x, y, text_width, 1),
                    Style::default().fg(p.muted).add_modifier(Modifier::DIM),
                );
            }
            if fault_line == Some(index + 1) {
                buf.set_style(
                    Rect::new(text_x, y, text_width, 1),
                    Style::default().fg(p.error),
                );
            }
            if !needle.is_empty() {
                mark_matches(buf, text_x, y, &row.to_string(), &needle, match_style);
            }
            y += 1;
        }
        index += 1;
    }
    if has_tail && y < bottom {
        let tail = doc.tail().to_string();
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled(
                    tail,
                    Style::default().fg(p.tail).add_modifier(Modifier::ITALIC),
                ),
                Span::styled("▍", Style::default().fg(p.accent)),
            ]))
            .wrap(TextWrap { trim: false }),
            Rect::new(text_x, y, text_width, bottom - y),
        );
    }
}

/// Paints the occurrences of `needle` (ASCII case-insensitive) in one drawn row.
fn mark_matches(
    buf: &mut ratatui::buffer::Buffer,
    x: u16,
    y: u16,
    row: &str,
    needle: &str,
    style: Style,
) {
    let haystack = row.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = haystack[from..].find(needle) {
        let start = from + found;
        let end = start + needle.len();
        let column = unicode_width::UnicodeWidthStr::width(&row[..start]) as u16;
        let width = unicode_width::UnicodeWidthStr::width(&row[start..end]) as u16;
        buf.set_style(Rect::new(x.saturating_add(column), y, width, 1), style);
        from = end;
    }
}
