//! The review threads in the review pane: grouped by the cycle they were asked
//! after, each with its status badge, the changes that answered it, and whether it is
//! carried over to the next update.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::tui::theme::Palette;
use crate::volk::threads::{Thread, ThreadStatus};

/// The threads in the order the pane lists them (and selection counts them).
pub fn ordered(threads: &[Thread]) -> Vec<&Thread> {
    let mut list: Vec<&Thread> = threads.iter().collect();
    list.sort_by_key(|t| {
        let index: u32 =
            t.id.rsplit('.')
                .next()
                .and_then(|i| i.parse().ok())
                .unwrap_or(0);
        (t.cycle_asked, index)
    });
    list
}

fn badge(status: ThreadStatus, p: &Palette) -> Span<'static> {
    let color = match status {
        ThreadStatus::Addressed => p.added,
        ThreadStatus::Answered => p.accent,
        ThreadStatus::Unaddressed => p.warning,
        ThreadStatus::Open | ThreadStatus::Closed => p.muted,
    };
    Span::styled(
        format!("[{}]", status.label()),
        Style::default().fg(color).add_modifier(Modifier::BOLD),
    )
}

/// The lines of the threads section; `selected` is the index into [`ordered`] that has
/// the cursor. Returns the lines and, for each line, the thread (index into
/// [`ordered`]) it belongs to, so the review pane can scroll to and click on one.
pub fn lines(
    threads: &[Thread],
    selected: Option<usize>,
    p: &Palette,
) -> (Vec<Line<'static>>, Vec<Option<usize>>) {
    let mut out = Vec::new();
    let mut owners = Vec::new();
    let mut cycle = None;
    let hint = Style::default().fg(p.muted);
    for (i, t) in ordered(threads).into_iter().enumerate() {
        if cycle != Some(t.cycle_asked) {
            cycle = Some(t.cycle_asked);
            out.push(Line::styled(format!("after cycle {}", t.cycle_asked), hint));
            owners.push(None);
        }
        let style = if selected == Some(i) {
            Style::default().bg(p.selection)
        } else {
            Style::default()
        };
        // A question of several lines keeps them, each further one indented under
        // the first word after the id.
        let question = t.question.replace("\r\n", "\n").replace('\r', "\n");
        let mut rows = question.split('\n');
        let head = badge(t.status, p);
        let indent =
            " ".repeat(head.width() + 2 + unicode_width::UnicodeWidthStr::width(t.id.as_str()));
        out.push(Line::from(vec![
            head,
            Span::styled(
                format!(" {} {}", t.id, rows.next().unwrap_or_default()),
                style,
            ),
        ]));
        for row in rows {
            out.push(Line::styled(format!("{indent}{row}"), style));
        }
        if let Some(anchor) = &t.anchor {
            out.push(Line::styled(format!("   ↳ {anchor}"), hint));
        }
        for c in &t.changes {
            out.push(Line::styled(
                format!("   → {}: {}", c.artifact, c.summary),
                Style::default().fg(p.added),
            ));
        }
        if let Some(answer) = &t.answer {
            out.push(Line::styled(
                format!("   → {answer}"),
                Style::default().fg(p.accent),
            ));
        }
        if t.status == ThreadStatus::Unaddressed {
            out.push(Line::styled(
                "   ↻ carried over to the next update",
                Style::default().fg(p.warning),
            ));
        }
        if let Some(old) = &t.follows {
            out.push(Line::styled(format!("   follows up {old}"), hint));
        }
        owners.resize(out.len(), Some(i));
    }
    (out, owners)
}

/// The 0-based line ranges of `text` that settled requirements or ADRs cover, for the
/// viewer's gutter (a settled artifact is marked on its tab instead).
pub fn settled_lines(
    section: crate::design::Section,
    text: &str,
    settled: &[String],
) -> Vec<std::ops::Range<usize>> {
    use crate::design::settled::{Mark, settled_ranges};
    let marks: Vec<Mark> = settled
        .iter()
        .filter_map(|s| Mark::parse(s))
        .filter(|m| !matches!(m, Mark::Artifact(_)))
        .collect();
    if marks.is_empty() {
        return Vec::new();
    }
    settled_ranges(section, text, &marks)
        .into_iter()
        .map(|r| {
            let first = text[..r.start].matches('\n').count();
            let last = first + text[r.start..r.end].matches('\n').count();
            first..last + 1
        })
        .collect()
}
