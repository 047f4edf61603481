//! Drawing the workbench: one function per region, all reading the [`App`]. Only the
//! visible lines are touched; highlighting is cached in the documents.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Wrap as TextWrap};

use crate::design::Section;
use crate::tui::app::{
    App, ComposerTarget, Focus, Follow, Gutter, Popup, Screen, TAB_COUNT, ThinkingPane, Verdict,
    Wrap, tab_title,
};
use crate::tui::diff::DiffKind;
use crate::tui::document::Progress;
use crate::tui::event::Phase;
use crate::tui::keys::HELP;
use crate::tui::theme::Palette;
use crate::tui::wrap;

/// The smallest terminal the layout fits in.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

/// Time a frame may spend highlighting; the rest follows in the next frames.
const HIGHLIGHT_BUDGET: std::time::Duration = std::time::Duration::from_millis(4);

const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

/// The regions of the workbench screen.
pub struct Regions {
    pub header: Rect,
    pub tabs: Rect,
    pub viewer: Rect,
    pub review: Rect,
    pub thinking: Option<Rect>,
    pub status: Rect,
}

/// Splits the screen: review pane on the right when wide, below when narrow.
pub fn regions(area: Rect, app: &App) -> Regions {
    let show_thinking = app.thinking_pane == ThinkingPane::Shown;
    let [header, tabs, body, thinking, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(4),
        Constraint::Length(if show_thinking { 7 } else { 0 }),
        Constraint::Length(1),
    ])
    .areas(area);
    let (viewer, review) = if area.width >= 110 {
        let [v, r] =
            Layout::horizontal([Constraint::Min(40), Constraint::Length(area.width * 3 / 10)])
                .areas(body);
        (v, r)
    } else {
        let [v, r] =
            Layout::vertical([Constraint::Min(3), Constraint::Length(body.height / 3)]).areas(body);
        (v, r)
    };
    Regions {
        header,
        tabs,
        viewer,
        review,
        thinking: show_thinking.then_some(thinking),
        status,
    }
}

/// Draws one frame.
pub fn draw(frame: &mut Frame, app: &mut App) {
    let area = frame.area();
    let p = app.theme.palette;
    frame.render_widget(
        Block::default().style(Style::default().bg(p.background).fg(p.foreground)),
        area,
    );
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        draw_too_small(frame, area, &p);
        return;
    }
    app.sync_stream();
    if app.screen == Screen::Summary {
        draw_summary(frame, area, app);
        draw_popup(frame, area, app);
        return;
    }
    let r = regions(area, app);
    draw_header(frame, r.header, app);
    draw_tabs(frame, r.tabs, app);
    draw_viewer(frame, r.viewer, app);
    draw_review(frame, r.review, app);
    if let Some(thinking) = r.thinking {
        draw_thinking(frame, thinking, app);
    }
    draw_status(frame, r.status, app);
    draw_popup(frame, area, app);
}

fn draw_too_small(frame: &mut Frame, area: Rect, p: &Palette) {
    let text = vec![
        Line::styled(
            "volk needs a larger terminal",
            Style::default().fg(p.warning).add_modifier(Modifier::BOLD),
        ),
        Line::raw(format!(
            "at least {MIN_WIDTH}x{MIN_HEIGHT}, this one is {}x{}",
            area.width, area.height
        )),
        Line::styled(
            "resize the window, or press q to quit",
            Style::default().fg(p.muted),
        ),
    ];
    let height = (text.len() as u16).min(area.height);
    let y = area.y + area.height.saturating_sub(height) / 2;
    frame.render_widget(
        Paragraph::new(text)
            .centered()
            .wrap(TextWrap { trim: true }),
        Rect::new(area.x, y, area.width, height),
    );
}

fn draw_header(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.theme.palette;
    let sep = Span::styled(" · ", Style::default().fg(p.muted));
    let max = if app.info.max_cycles == 0 {
        99
    } else {
        app.info.max_cycles
    };
    let state_style = match app.phase {
        Phase::Failed { .. } => Style::default().fg(p.error),
        Phase::Cancelled { .. } => Style::default().fg(p.warning),
        Phase::AwaitingReview { .. } | Phase::AwaitingFinalize | Phase::AwaitingPlanApproval => {
            Style::default().fg(p.accent).add_modifier(Modifier::BOLD)
        }
        _ => Style::default().fg(p.foreground),
    };
    let mut spans = vec![
        Span::styled(
            " volk ",
            Style::default()
                .fg(p.tab_active_fg)
                .bg(p.tab_active_bg)
                .add_modifier(Modifier::BOLD),
        ),
        Span::raw(" "),
        // What matters first: the state and the cycle survive the narrowest terminal.
        Span::styled(app.phase.short_label(), state_style),
        sep.clone(),
        Span::raw(format!("cycle {}/{}", app.cycle, max)),
        sep.clone(),
        Span::styled(
            app.info.project_name.clone(),
            Style::default().fg(p.title).add_modifier(Modifier::BOLD),
        ),
        sep.clone(),
        Span::raw(format!("{}/{}", app.info.reasoner, app.info.model)),
        sep,
        Span::styled(
            short_thread(&app.info.thread_id),
            Style::default().fg(p.muted),
        ),
    ];
    if let Some(holder) = &app.read_only {
        spans.push(Span::styled(
            format!("  [READ-ONLY: held by {holder}]"),
            Style::default().fg(p.warning).add_modifier(Modifier::BOLD),
        ));
    }
    if let Some(old) = &app.old_cycle {
        spans.push(Span::styled(
            format!("  [read-only: {}]", old.short_id),
            Style::default().fg(p.warning),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// A thread id short enough for the header (`thread-1a2b3c4d-…` becomes
/// `thread-1a2b3c4d…`); the whole id is in the session and the journal.
fn short_thread(id: &str) -> String {
    const KEEP: usize = 15;
    if id.chars().count() <= KEEP + 1 {
        return id.to_string();
    }
    let cut: String = id.chars().take(KEEP).collect();
    format!("{}…", cut.trim_end_matches(['-', '_']))
}

fn draw_tabs(frame: &mut Frame, area: Rect, app: &mut App) {
    let p = app.theme.palette;
    let streaming = app.streaming_section();
    let mut x = area.x;
    let mut rects = Vec::with_capacity(TAB_COUNT);
    for tab in 0..TAB_COUNT {
        let section = Section::ALL.get(tab).copied();
        let marker = match section {
            Some(s) if Some(s) == streaming => format!("{} ", SPINNER[app.spinner % SPINNER.len()]),
            Some(s) if app.previous.is_some() && app.changed.contains(&s) => "• ".to_string(),
            _ => String::new(),
        };
        let settled = section.is_some_and(|s| app.review.settled.iter().any(|m| m == s.key()));
        let lock = if settled { " [settled]" } else { "" };
        let label = format!(" {} {}{}{lock} ", tab + 1, marker, tab_title(tab));
        let width = (label.chars().count() as u16).min(area.right().saturating_sub(x));
        let rect = Rect::new(x, area.y, width, 1);
        let style = if tab == app.tab {
            Style::default()
                .fg(p.tab_active_fg)
                .bg(p.tab_active_bg)
                .add_modifier(Modifier::BOLD)
        } else if section.is_some_and(|s| app.previous.is_some() && app.changed.contains(&s)) {
            Style::default().fg(p.tab_changed)
        } else if section.is_some_and(|s| app.docs[s.index()].is_empty()) {
            Style::default().fg(p.muted)
        } else {
            Style::default().fg(p.foreground)
        };
        frame.render_widget(Paragraph::new(Span::styled(label, style)), rect);
        rects.push(rect);
        x = x.saturating_add(width + 1);
        if x >= area.right() {
            break;
        }
    }
    app.areas.tabs = rects;
}

fn digits(n: usize) -> u16 {
    let mut d = 1;
    let mut n = n / 10;
    while n > 0 {
        d += 1;
        n /= 10;
    }
    d
}

fn draw_viewer(frame: &mut Frame, area: Rect, app: &mut App) {
    let p = app.theme.palette;
    let focused = app.focus == Focus::Viewer;
    let tab = app.tab;
    let live_section = app.streaming_section();
    let raw = tab < Section::ALL.len() && app.old_cycle.is_none() && app.raw.shown();
    let is_live = (Section::ALL
        .get(tab)
        .is_some_and(|s| Some(*s) == live_section)
        || (raw && app.is_streaming()))
        && app.old_cycle.is_none();
    let wrap = app.wrap;
    let gutter = app.gutter;
    let view = app.views[tab];
    let len = app.current_doc().len();
    let title = match &app.old_cycle {
        Some(old) => format!(
            " {} — {} (read-only, Esc returns) ",
            tab_title(tab),
            old.summary
        ),
        None if raw && is_live => " The architect's answer · no section marker yet ".to_string(),
        None if raw => " The architect's answer · no section markers found ".to_string(),
        None => match Section::ALL.get(tab).and_then(|s| app.patch_label(*s)) {
            Some(label) => format!(" {} — {label} ", tab_title(tab)),
            None => format!(" {} ", tab_title(tab)),
        },
    };
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
        Style::default().fg(p.title).add_modifier(Modifier::BOLD),
    )
    .title_bottom(Line::styled(position, Style::default().fg(p.muted)).right_aligned());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    app.areas.viewer = inner;
    if inner.height == 0 || inner.width < 4 {
        return;
    }
    let height = inner.height as usize;

    // While a stream grows, the gutter is sized for a thousand lines at once, so the
    // text does not shift sideways each time the count gains a digit.
    let numbered = if is_live { len.max(999) } else { len.max(1) };
    let gutter_width = match gutter {
        Gutter::Numbers => digits(numbered) + 1,
        Gutter::Hidden => 0,
    };
    let text_width = inner.width.saturating_sub(gutter_width).max(1);
    let doc = app.current_doc();
    let rows_of = |i: usize| match wrap {
        Wrap::Soft => doc.lines().get(i).map_or(1, |l| wrap::rows(l, text_width)),
        Wrap::Off => 1,
    };
    // The first line to draw so that line `last` (and `extra` rows after it) ends
    // exactly at the bottom.
    let top_ending_at = |last: usize, extra: usize| {
        let mut used = extra;
        let mut first = last + 1;
        while first > 0 {
            let r = rows_of(first - 1);
            if used + r > height {
                break;
            }
            used += r;
            first -= 1;
        }
        first.min(last)
    };
    // Keep the cursor (and, when following a stream, the tail) on screen.
    let has_tail = is_live && !doc.tail().is_empty();
    let mut top = view.top.min(len.saturating_sub(1));
    if is_live && view.follow == Follow::Stream && !app.follows_edit(tab) {
        let tail_rows = if has_tail {
            wrap::rows(doc.tail(), text_width.saturating_sub(1))
        } else {
            0
        };
        top = if len == 0 {
            0
        } else {
            top_ending_at(len - 1, tail_rows)
        };
    } else if view.cursor < top {
        top = view.cursor;
    } else if len > 0 {
        top = top.max(top_ending_at(view.cursor.min(len - 1), 0));
    }
    let last_top = if len == 0 {
        0
    } else {
        top_ending_at(len - 1, 0)
    };
    app.views[tab].top = top;
    app.areas.viewer_last_top = last_top;

    let budget = std::time::Instant::now() + HIGHLIGHT_BUDGET;
    let doc = app.current_doc_mut();
    if doc.highlight_until(top + height, Some(budget)) == Progress::Waiting {
        app.redraw_soon = true;
    }
    app.areas.viewer_lines.clear();
    let doc = app.current_doc();
    if doc.is_empty() {
        let message = match (Section::ALL.get(tab), &app.phase) {
            (None, _) => "the decision journal fills as the loop moves".to_string(),
            (Some(_), phase) if phase.is_busy() => {
                "waiting for the architect to reach this section…".to_string()
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
    let text_x = inner.x + gutter_width;
    let settled = match (Section::ALL.get(tab), &app.old_cycle) {
        (Some(section), None) if gutter_width > 0 => crate::tui::threads::settled_lines(
            *section,
            app.artifacts.get(*section),
            &app.review.settled,
        ),
        _ => Vec::new(),
    };
    let needle = app.last_search.to_ascii_lowercase();
    let match_style = Style::default().fg(p.tab_active_fg).bg(p.warning);
    let mut y = inner.y;
    let bottom = inner.bottom();
    let mut index = top;
    let mut row_lines = std::mem::take(&mut app.areas.viewer_lines);
    row_lines.clear();
    let left = match wrap {
        Wrap::Off => view.left,
        Wrap::Soft => 0,
    };
    let doc = app.current_doc();
    let buf = frame.buffer_mut();
    while y < bottom && index < len {
        let Some(line) = doc.line_ref(index) else {
            break;
        };
        let drawn = line.to_line();
        let line = &drawn;
        // Most lines fit: draw them straight from the cache; split only long ones.
        let wrapped;
        let rows: &[Line] = match wrap {
            Wrap::Soft if line.width() > text_width as usize => {
                wrapped = wrap::wrap_line(line.clone(), text_width);
                &wrapped
            }
            Wrap::Off if left > 0 => {
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
            let (mark, style) = if is_settled {
                ("▐", style.fg(p.added))
            } else {
                (" ", style)
            };
            let number = format!("{:>w$}{mark}", index + 1, w = (gutter_width - 1) as usize);
            buf.set_string(inner.x, y, number, style);
            // A line an edit block of the running update wrote, marked as in a diff.
            if app.old_cycle.is_none()
                && app.marks.get(tab).and_then(|m| m.get(index)) == Some(&true)
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
            if !needle.is_empty() {
                mark_matches(buf, text_x, y, &row.to_string(), &needle, match_style);
            }
            row_lines.push(index);
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
    app.areas.viewer_lines = row_lines;
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

/// A typed text as lines: the first after `prefix`, the others indented under it,
/// so the line breaks a person typed (Ctrl-J) or pasted survive.
fn text_lines(prefix: &str, text: &str, style: Style) -> Vec<Line<'static>> {
    let indent = " ".repeat(unicode_width::UnicodeWidthStr::width(prefix));
    text.split('\n')
        .enumerate()
        .map(|(i, line)| {
            let lead = if i == 0 { prefix } else { indent.as_str() };
            Line::styled(format!("{lead}{line}"), style)
        })
        .collect()
}

fn section_title(p: &Palette, text: &str) -> Line<'static> {
    Line::styled(
        text.to_string(),
        Style::default().fg(p.title).add_modifier(Modifier::BOLD),
    )
}

fn draw_review(frame: &mut Frame, area: Rect, app: &mut App) {
    let p = app.theme.palette;
    let focused = app.focus == Focus::Review;
    let block = panel(
        " Review · J:Junior ",
        if focused { p.accent } else { p.border },
        Style::default().fg(p.title).add_modifier(Modifier::BOLD),
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    app.areas.review = inner;
    let mut lines: Vec<Line<'static>> = Vec::new();
    let hint = Style::default().fg(p.muted);
    let mut selected_line = 0usize;
    match &app.phase {
        Phase::Reflecting | Phase::Planning { .. } => {
            let what = if app.phase == Phase::Reflecting {
                "The architect reflects on the design…"
            } else {
                "The architect compiles an execution plan…"
            };
            lines.push(section_title(&p, what));
            let tail: Vec<&str> = app.side_stream.lines().collect();
            let from = tail
                .len()
                .saturating_sub(inner.height.saturating_sub(1) as usize);
            lines.extend(
                tail[from..]
                    .iter()
                    .map(|l| Line::styled(l.to_string(), Style::default().fg(p.tail))),
            );
        }
        Phase::AwaitingFinalize => {
            lines.push(section_title(&p, "Reflection before finalizing"));
            lines.push(Line::styled(
                "Enter: finalize the design",
                Style::default().fg(p.accent),
            ));
            if let Some(r) = &app.reflection {
                for q in &r.questions {
                    lines.push(Line::raw(format!("• {q}")));
                }
                lines.push(Line::raw(""));
                lines.extend(r.answers.lines().map(|l| Line::raw(l.to_string())));
            }
        }
        Phase::AwaitingPlanApproval => {
            lines.push(section_title(&p, "Execution plan"));
            lines.push(Line::styled(
                "y: approve · s: steer the next attempt",
                Style::default().fg(p.accent),
            ));
            if let Some(plan) = &app.plan {
                let (mark, style) = if plan.ok {
                    ("compiles", p.added)
                } else {
                    ("does not compile", p.error)
                };
                lines.push(Line::styled(
                    format!("the plan {mark}"),
                    Style::default().fg(style),
                ));
                lines.extend(plan.graph.iter().map(|g| Line::raw(g.clone())));
                if plan.graph.is_empty() {
                    lines.extend(
                        plan.source
                            .as_deref()
                            .unwrap_or_default()
                            .lines()
                            .map(|l| Line::styled(l.to_string(), Style::default().fg(p.muted))),
                    );
                }
                if !plan.diagnostics_human.is_empty() {
                    lines.push(Line::raw(""));
                    lines.extend(
                        plan.diagnostics_human
                            .lines()
                            .map(|l| Line::styled(l.to_string(), Style::default().fg(p.warning))),
                    );
                }
            }
        }
        _ => {
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
                        Some(a) => {
                            lines.extend(text_lines("   → ", a, Style::default().fg(p.added)))
                        }
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
                let (thread_lines, at) =
                    crate::tui::threads::lines(&app.review.threads, selected, &p);
                if let Some(at) = at {
                    selected_line = lines.len() + at;
                }
                lines.extend(thread_lines);
            }
            lines.push(Line::raw(""));
            let footer = match (app.verdict, &app.phase) {
                (Verdict::Sent, _) => "sent; waiting for the architect".to_string(),
                (_, Phase::AwaitingReview { .. }) => {
                    "Ctrl-S send questions · Ctrl-R READY".to_string()
                }
                (_, phase) if phase.is_busy() => {
                    "you can write questions while the architect works".to_string()
                }
                _ => String::new(),
            };
            lines.push(Line::styled(footer, Style::default().fg(p.accent)));
        }
    }
    let scroll = selected_line.saturating_sub(inner.height.saturating_sub(3) as usize) as u16;
    // The streams and the plan are drawn unwrapped so that the newest lines stay in view.
    let mut paragraph = Paragraph::new(Text::from(lines)).scroll((scroll, 0));
    if !matches!(
        app.phase,
        Phase::Reflecting | Phase::Planning { .. } | Phase::AwaitingPlanApproval
    ) {
        paragraph = paragraph.wrap(TextWrap { trim: false });
    }
    frame.render_widget(paragraph, inner);
}

fn draw_thinking(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.theme.palette;
    let block = panel(
        " Thinking (t hides) ",
        p.border,
        Style::default().fg(p.muted),
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let text = if app.thinking.is_empty() {
        "the reasoner sends no thinking stream"
    } else {
        app.thinking.as_str()
    };
    // The end of the stream, wrapped at words: long reasoning lines are read whole.
    let shown = crate::tui::wrap::tail_rows(
        text,
        inner.width,
        inner.height as usize,
        Style::default().fg(p.tail),
    );
    frame.render_widget(Paragraph::new(shown), inner);
}

fn draw_status(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.theme.palette;
    let base = Style::default().fg(p.status_fg).bg(p.status_bg);
    let spinner = SPINNER[app.spinner % SPINNER.len()];
    let mut left = String::new();
    let writing = match app.streaming_section() {
        Some(section) => format!("streaming {}", section.title()),
        None => app.phase.short_label(),
    };
    if let Some(activity) = app.activity.activity() {
        // The activity line first; the right side keeps `? help` (and `q quit`
        // without a notice).
        let tail = if app.notice.is_some() { 9 } else { 17 };
        let room = (area.width as usize).saturating_sub(3 + tail);
        let line = activity.line(std::time::Instant::now(), room, &writing);
        left.push_str(&format!(" {spinner} {line}"));
    } else if app.is_streaming() {
        left.push_str(&format!(" {spinner} {writing}"));
        if let Some(tps) = app.metrics.tokens_per_sec {
            left.push_str(&format!(" · {tps:.0} tok/s"));
        }
        if let Some(ttft) = app.metrics.ttft_ms {
            left.push_str(&format!(" · first token {ttft} ms"));
        }
    } else if app.phase.is_busy() {
        left.push_str(&format!(" {spinner} waiting for the reasoner"));
    } else {
        left.push_str(" idle");
    }
    if !app.is_streaming()
        && let Some(cost) = app.cost.latest()
    {
        left.push_str(&format!(" · {}", cost.status()));
    }
    if app.committing {
        left.push_str(" · committing…");
    }
    if let Some(commit) = &app.last_commit {
        left.push_str(&format!(" · commit {commit}"));
    }
    let hints;
    let help = if app.notice.is_some() {
        "  ? help "
    } else {
        let width = (area.width as usize).saturating_sub(left.chars().count() + 2);
        hints = crate::tui::keys::hint_bar(hint_context(app), width);
        hints.as_str()
    };
    let room =
        (area.width as usize).saturating_sub(left.chars().count() + help.chars().count() + 3);
    let right = match &app.notice {
        Some(n) if n.chars().count() > room => {
            let cut: String = n.chars().take(room.saturating_sub(1)).collect();
            format!("{cut}…{help}")
        }
        Some(n) => format!("{n}{help}"),
        None => help.to_string(),
    };
    let notice_style = if app.notice.is_some() {
        base.fg(p.warning)
    } else {
        base
    };
    let pad = (area.width as usize).saturating_sub(left.chars().count() + right.chars().count());
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(left, base),
            Span::styled(" ".repeat(pad), base),
            Span::styled(right, notice_style),
        ])),
        area,
    );
}

/// Which keys the hint bar lists: those of the focus and phase at hand.
fn hint_context(app: &App) -> crate::tui::keys::Context {
    use crate::tui::keys::Context;
    match (&app.popup, app.screen, &app.phase) {
        (Some(Popup::Composer { .. }), _, _) => Context::Composer,
        (Some(Popup::Diff { .. }), _, _) => Context::Diff,
        (_, Screen::Summary, _) => Context::Summary,
        (_, _, Phase::AwaitingFinalize) => Context::Finalize,
        (_, _, Phase::AwaitingPlanApproval) => Context::Plan,
        _ if app.focus == Focus::Review => Context::ReviewPane,
        _ if app.is_streaming() => Context::Streaming,
        _ => Context::Reading,
    }
}

fn draw_summary(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.theme.palette;
    let block = panel(
        " Design finalized ",
        p.accent,
        Style::default().fg(p.title).add_modifier(Modifier::BOLD),
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let label = Style::default().fg(p.muted);
    let mut lines = vec![
        Line::raw(""),
        Line::from(vec![
            Span::styled("  project   ", label),
            Span::raw(app.info.project_dir.display().to_string()),
        ]),
        Line::from(vec![
            Span::styled("  thread    ", label),
            Span::raw(app.info.thread_id.clone()),
        ]),
        Line::from(vec![
            Span::styled("  cycles    ", label),
            Span::raw(app.cycle.to_string()),
        ]),
    ];
    if let Some(commit) = &app.last_commit {
        lines.push(Line::from(vec![
            Span::styled("  commit    ", label),
            Span::raw(commit.clone()),
        ]));
    }
    if let Some(outcome) = &app.outcome {
        lines.push(Line::from(vec![
            Span::styled("  packet    ", label),
            Span::styled(
                outcome.packet_path.display().to_string(),
                Style::default().fg(p.added).add_modifier(Modifier::BOLD),
            ),
        ]));
        lines.push(Line::from(vec![
            Span::styled("  subject   ", label),
            Span::raw(format!("{} → U:Cd", outcome.subject)),
        ]));
    }
    if let Some(saved) = app.cost.summary() {
        lines.push(Line::from(vec![
            Span::styled("  saved     ", label),
            Span::raw(saved),
        ]));
    }
    if let Some(warning) = &app.warning {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!("  ⚠ {warning}"),
            Style::default().fg(p.warning).add_modifier(Modifier::BOLD),
        ));
    }
    lines.push(Line::raw(""));
    lines.push(section_title(&p, "  What next"));
    lines.push(Line::raw(
        "  • The design is in design/ and committed; the packet above carries all five",
    ));
    lines.push(Line::raw(
        "    artifacts to the code director (U:Cd). Hand it on, e.g.:",
    ));
    if let Some(outcome) = &app.outcome {
        lines.push(Line::styled(
            format!("      cat {}", outcome.packet_path.display()),
            Style::default().fg(p.accent),
        ));
    }
    lines.push(Line::raw(format!(
        "  • Read the design again later: volk open {}",
        app.info.project_dir.display()
    )));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "  Enter: back to the artifacts · q: quit",
        Style::default().fg(p.accent),
    ));
    frame.render_widget(Paragraph::new(lines).wrap(TextWrap { trim: false }), inner);
}

/// A rectangle of `width` x `height` centred in `area`, clipped to it.
fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn popup_block(p: &Palette, title: String, colour: ratatui::style::Color) -> Block<'static> {
    panel(
        title,
        colour,
        Style::default().fg(colour).add_modifier(Modifier::BOLD),
    )
    .style(Style::default().bg(p.background).fg(p.foreground))
}

fn draw_popup(frame: &mut Frame, area: Rect, app: &mut App) {
    let p = app.theme.palette;
    let Some(popup) = &mut app.popup else { return };
    match popup {
        Popup::Help { scroll } => {
            let rect = centered(area, 92, area.height.saturating_sub(2));
            let mut lines = Vec::new();
            for (group, keys) in HELP {
                lines.push(section_title(&p, group));
                for (key, what) in *keys {
                    lines.push(Line::from(vec![
                        Span::styled(format!("  {key:<16}"), Style::default().fg(p.accent)),
                        Span::raw(*what),
                    ]));
                }
                lines.push(Line::raw(""));
            }
            *scroll = (*scroll).min(lines.len().saturating_sub(1));
            frame.render_widget(Clear, rect);
            frame.render_widget(
                Paragraph::new(lines)
                    .wrap(TextWrap { trim: false })
                    .block(popup_block(
                        &p,
                        " Keys (Esc closes, j/k scroll) ".into(),
                        p.accent,
                    ))
                    .scroll((*scroll as u16, 0)),
                rect,
            );
        }
        Popup::Composer { target, editor } => {
            let (title, context) = match target {
                ComposerTarget::NewQuestion { anchor: Some(a) } => (
                    " Question about this line ".to_string(),
                    Some(format!(
                        "{} line {}: {}",
                        a.section.title(),
                        a.line,
                        a.quote.trim()
                    )),
                ),
                ComposerTarget::NewQuestion { anchor: None } => {
                    (" New question ".to_string(), None)
                }
                ComposerTarget::EditQuestion(i) => (format!(" Edit question {} ", *i + 1), None),
                ComposerTarget::Answer { question } => {
                    (" Your answer ".to_string(), Some(question.clone()))
                }
                ComposerTarget::Steer => (" Steer the next plan attempt ".to_string(), None),
                ComposerTarget::FollowUp(id) => (
                    format!(" Follow-up to {id} "),
                    Some(format!("reopens {id} as a new thread linked to it")),
                ),
            };
            let height = 10u16 + u16::from(context.is_some()) * 2;
            let rect = centered(area, area.width.saturating_sub(8).min(100), height);
            frame.render_widget(Clear, rect);
            let enter = match target {
                ComposerTarget::NewQuestion { .. } | ComposerTarget::EditQuestion(_) => {
                    " Enter save · Ctrl-S send all ·"
                }
                ComposerTarget::Answer { .. } => " Enter save answer ·",
                ComposerTarget::FollowUp(_) => " Enter save follow-up ·",
                ComposerTarget::Steer => " Enter send ·",
            };
            let block = popup_block(&p, title, p.accent).title_bottom(Line::styled(
                format!("{enter} Ctrl-J newline · Ctrl-L clear · Esc keeps "),
                Style::default().fg(p.muted),
            ));
            let inner = block.inner(rect);
            frame.render_widget(block, rect);
            let mut editor_area = inner;
            if let Some(context) = context {
                let [ctx, rest] =
                    Layout::vertical([Constraint::Length(2), Constraint::Min(1)]).areas(inner);
                frame.render_widget(
                    Paragraph::new(Line::styled(
                        context,
                        Style::default().fg(p.muted).add_modifier(Modifier::ITALIC),
                    ))
                    .wrap(TextWrap { trim: true }),
                    ctx,
                );
                editor_area = rest;
            }
            editor.set_style(Style::default().fg(p.foreground).bg(p.background));
            editor.set_cursor_line_style(Style::default());
            frame.render_widget(&**editor, editor_area);
        }
        Popup::Search { query } => {
            let rect = Rect::new(area.x, area.bottom().saturating_sub(1), area.width, 1);
            frame.render_widget(Clear, rect);
            frame.render_widget(
                Paragraph::new(Line::from(vec![
                    Span::styled("/", Style::default().fg(p.accent)),
                    Span::raw(query.clone()),
                    Span::styled("▍", Style::default().fg(p.accent)),
                ]))
                .style(Style::default().bg(p.status_bg).fg(p.status_fg)),
                rect,
            );
            if let Some(status) = &app.search_status {
                frame.render_widget(
                    Paragraph::new(format!("{status} · Enter keeps · Esc goes back "))
                        .right_aligned()
                        .style(Style::default().bg(p.status_bg).fg(p.muted)),
                    Rect::new(
                        area.x + area.width / 2,
                        rect.y,
                        area.width - area.width / 2,
                        1,
                    ),
                );
            }
        }
        Popup::ConfirmReady => {
            let unsent = app.draft.questions.len();
            let mut lines = vec![
                Line::raw("Answer READY: the design is good to finalize."),
                Line::raw("The architect reflects once, then writes the final design"),
                Line::raw("and the implement packet for the code director."),
            ];
            if unsent > 0 {
                lines.push(Line::styled(
                    format!("{unsent} unsent question(s) stay in your draft, unsent."),
                    Style::default().fg(p.warning),
                ));
            }
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                "y / Enter: READY · Esc: back",
                Style::default().fg(p.accent),
            ));
            let rect = centered(area, 64, lines.len() as u16 + 2);
            frame.render_widget(Clear, rect);
            frame.render_widget(
                Paragraph::new(lines).block(popup_block(&p, " READY? ".into(), p.accent)),
                rect,
            );
        }
        Popup::ConfirmQuit { reason } => {
            let lines = vec![
                Line::raw(reason.clone()),
                Line::raw(""),
                Line::styled(
                    "y / Enter: quit · n / Esc: stay",
                    Style::default().fg(p.accent),
                ),
            ];
            let rect = centered(area, 64, 5);
            frame.render_widget(Clear, rect);
            frame.render_widget(
                Paragraph::new(lines)
                    .wrap(TextWrap { trim: true })
                    .block(popup_block(&p, " Quit? ".into(), p.warning)),
                rect,
            );
        }
        Popup::Diff {
            section,
            lines,
            scroll,
        } => {
            let rect = centered(
                area,
                area.width.saturating_sub(4),
                area.height.saturating_sub(2),
            );
            frame.render_widget(Clear, rect);
            // Long lines wrap at words under their sign, like the viewer's.
            let text_width = rect.width.saturating_sub(4).max(1);
            let mut shown: Vec<Line> = Vec::new();
            for l in lines.iter().skip(*scroll) {
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
                .filter(|c| c.artifact == section.key())
            {
                body.insert(
                    0,
                    Line::styled(
                        format!("⚠ unrequested change: {}", c.summary),
                        Style::default().fg(p.warning).add_modifier(Modifier::BOLD),
                    ),
                );
            }
            let added = lines.iter().filter(|l| l.kind == DiffKind::Added).count();
            let removed = lines.iter().filter(|l| l.kind == DiffKind::Removed).count();
            frame.render_widget(
                Paragraph::new(body).block(
                    popup_block(
                        &p,
                        format!(
                            " {} · changes since the previous cycle (+{added} −{removed}) ",
                            section.title()
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
        Popup::History { commits, selected } => {
            let rect = centered(area, 72, area.height.saturating_sub(6).min(20));
            frame.render_widget(Clear, rect);
            let lines: Vec<Line> = match commits {
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
                        let style = if i == *selected {
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
            frame.render_widget(
                Paragraph::new(lines).block(
                    popup_block(&p, " Cycles (commits) ".into(), p.accent).title_bottom(
                        Line::styled(
                            " Enter open read-only · Esc close ",
                            Style::default().fg(p.muted),
                        ),
                    ),
                ),
                rect,
            );
        }
        Popup::Error { message, retryable } => {
            let mut lines = vec![Line::raw(message.clone()), Line::raw("")];
            let keys = if *retryable {
                "r: retry · Esc: close · q: quit"
            } else {
                "Esc: close · q: quit"
            };
            lines.push(Line::styled(keys, Style::default().fg(p.accent)));
            let rect = centered(area, 70, 8);
            frame.render_widget(Clear, rect);
            frame.render_widget(
                Paragraph::new(lines)
                    .wrap(TextWrap { trim: true })
                    .block(popup_block(&p, " The reasoner failed ".into(), p.error)),
                rect,
            );
        }
    }
}

/// A rounded, bordered panel with a styled title: the frame of every pane and popup.
fn panel<'a>(
    title: impl Into<std::borrow::Cow<'a, str>>,
    border: Color,
    title_style: Style,
) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(Style::default().fg(border))
        .title(Span::styled(title, title_style))
}
