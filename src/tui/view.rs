//! Drawing the workbench from `&App`: the header and status line here, every pane
//! and popup in its own module. [`App::prepare_frame`] runs first (the run loop calls
//! it before each draw), so drawing changes nothing.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap as TextWrap};

use crate::tui::app::{App, Screen};
use crate::tui::event::Phase;
use crate::tui::layout::{MIN_HEIGHT, MIN_WIDTH, regions, too_small};
use crate::tui::pane::{diagram, review, summary, tabs, thinking, viewer};
use crate::tui::theme::Palette;
use crate::tui::widgets::SPINNER;

/// Draws one frame of the state as [`App::prepare_frame`] left it.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    let p = app.theme.palette;
    frame.render_widget(
        Block::default().style(Style::default().bg(p.background).fg(p.foreground)),
        area,
    );
    if too_small(area) {
        draw_too_small(frame, area, &p);
        return;
    }
    if app.screen == Screen::Summary {
        summary::draw(frame, area, &app.view());
    } else {
        let r = regions(area, app);
        draw_header(frame, r.header, app);
        tabs::draw(frame, r.tabs, app);
        // A zoomed screen leaves the other pane without an area.
        if !r.viewer.is_empty() {
            if diagram::drawing_shown(app) {
                diagram::draw(frame, r.viewer, app);
            } else {
                viewer::draw(frame, r.viewer, app);
            }
        }
        if !r.review.is_empty() {
            review::draw(frame, r.review, app);
        }
        if let Some(area) = r.thinking {
            thinking::draw(frame, area, &app.view());
        }
        draw_status(frame, r.status, app);
    }
    if let Some(popup) = &app.popup {
        popup.draw(frame, area, &app.view());
    }
}

/// Prepares and draws one frame on `terminal`: what the run loop does, for tests and
/// benchmarks that drive a terminal themselves.
pub fn render<B: ratatui::backend::Backend>(
    terminal: &mut ratatui::Terminal<B>,
    app: &mut App,
) -> Result<(), B::Error> {
    let size = terminal.size()?;
    app.prepare_frame(Rect::new(0, 0, size.width, size.height));
    terminal.draw(|f| draw(f, app))?;
    Ok(())
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
    let state_style = match app.model.phase() {
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
    ];
    // Read-only comes before anything else, so no width cuts it.
    if let Some(holder) = &app.read_only {
        spans.push(Span::styled(
            format!("READ-ONLY · held by {holder}"),
            Style::default()
                .fg(p.tab_active_fg)
                .bg(p.warning)
                .add_modifier(Modifier::BOLD),
        ));
        spans.push(sep.clone());
    }
    spans.extend([
        // What matters next: the state and the cycle survive the narrowest terminal.
        Span::styled(app.model.phase().short_label(), state_style),
        sep.clone(),
        Span::raw(format!("cycle {}/{}", app.model.cycle(), max)),
    ]);
    if app.offers().last_cycle {
        spans.push(Span::styled(
            " last cycle",
            Style::default().fg(p.warning).add_modifier(Modifier::BOLD),
        ));
    }
    spans.extend([
        sep.clone(),
        Span::styled(
            app.info.project_name.clone(),
            Style::default().fg(p.title).add_modifier(Modifier::BOLD),
        ),
        sep.clone(),
        Span::raw(if app.info.model.is_empty() {
            app.info.reasoner.clone()
        } else {
            format!("{}/{}", app.info.reasoner, app.info.model)
        }),
        sep,
        Span::styled(
            short_thread(&app.info.thread_id),
            Style::default().fg(p.muted),
        ),
    ]);
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

fn draw_status(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.theme.palette;
    let base = Style::default().fg(p.status_fg).bg(p.status_bg);
    let width = area.width as usize;
    let spinner = SPINNER[app.spinner % SPINNER.len()];
    let writing = match app.streaming_section() {
        Some(section) => format!("streaming {}", section.title()),
        None => app.model.phase().short_label(),
    };
    let activity = app.activity.activity();
    // The hints keep at least their share of the row (four keys at 80 columns),
    // whatever the activity line or the commit would take; the notice is drawn above
    // the status bar, so it never takes their place.
    let mut facts = String::new();
    if app.is_streaming() && activity.is_none() {
        if let Some(tps) = app.metrics.tokens_per_sec {
            facts.push_str(&format!(" · {tps:.0} tok/s"));
        }
        if let Some(ttft) = app.metrics.ttft_ms {
            facts.push_str(&format!(" · first token {ttft} ms"));
        }
    }
    if !app.is_streaming()
        && let Some(cost) = app.model.cost().latest()
    {
        facts.push_str(&format!(" · {}", cost.status()));
    }
    if app.model.committing() {
        facts.push_str(" · committing…");
    }
    if let Some(commit) = app.model.last_commit() {
        facts.push_str(&format!(" · commit {commit}"));
    }
    let now = std::time::Instant::now();
    let plain_left = if app.is_streaming() {
        format!(" {spinner} {writing}")
    } else if app.model.phase().is_busy() {
        format!(" {spinner} waiting for the reasoner")
    } else {
        " idle".to_string()
    };
    let wanted_left = match activity {
        Some(activity) => activity.line(now, width, &writing).chars().count() + 4,
        None => plain_left.chars().count() + facts.chars().count() + 2,
    };
    // Four keys at 80 columns; narrower, the activity line comes first.
    let least = if width >= 80 { width * 11 / 20 } else { 17 };
    let hint_room = width.saturating_sub(wanted_left).max(least);
    let hints = crate::tui::components::hint_bar(app, hint_room);
    let hints = match activity {
        // Narrow, the activity line needs the row more than the keys `?` lists.
        Some(_) if width < 80 => "? help ".to_string(),
        // The activity line names the cancel key already.
        Some(_) => hints.replacen(&format!("{} · ", crate::tui::activity::CANCEL_HINT), "", 1),
        None => hints,
    };
    let room = width.saturating_sub(hints.chars().count() + 1);
    let mut left = if let Some(activity) = activity {
        let line = activity.line(now, room.saturating_sub(3), &writing);
        format!(" {spinner} {line}")
    } else {
        plain_left
    };
    left.push_str(&facts);
    if left.chars().count() > room {
        let cut: String = left.chars().take(room.saturating_sub(1)).collect();
        left = format!("{cut}…");
    }
    let pad = width.saturating_sub(left.chars().count() + hints.chars().count());
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(left, base),
            Span::styled(" ".repeat(pad), base),
            Span::styled(hints, base),
        ])),
        area,
    );
    if area.y > 0 {
        draw_notice(frame, Rect::new(area.x, area.y - 1, area.width, 1), app);
    }
}

/// The notice on screen, over the row above the status bar (the panes' bottom
/// borders), in its level's colour; the position in the pane's corner stays visible.
fn draw_notice(frame: &mut Frame, row: Rect, app: &App) {
    use crate::tui::notice::Level;
    let Some(notice) = app.notice.shown(std::time::Instant::now()) else {
        return;
    };
    let p = app.theme.palette;
    let (mark, colour) = match notice.level {
        Level::Info => ("", p.accent),
        Level::Warning => ("warning: ", p.warning),
        Level::Error => ("error: ", p.error),
    };
    let tail = if notice.level == Level::Error {
        " · Esc dismisses"
    } else {
        ""
    };
    let text = notice.text.replace(['\n', '\r'], " ");
    let room = (row.width as usize).saturating_sub(14);
    let mut line = format!(" {mark}{text}{tail} ");
    if line.chars().count() > room {
        let cut: String = line.chars().take(room.saturating_sub(2)).collect();
        line = format!("{cut}… ");
    }
    let width = line.chars().count() as u16;
    let style = Style::default()
        .fg(colour)
        .bg(p.status_bg)
        .add_modifier(Modifier::BOLD);
    frame.render_widget(
        Paragraph::new(Line::styled(line, style)),
        Rect::new(row.x + 1, row.y, width.min(row.width.saturating_sub(1)), 1),
    );
}
