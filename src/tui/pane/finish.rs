//! Finishing a design: the reflection before finalizing and the execution plan to
//! approve or steer, drawn in the review pane's place while the loop is there.

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Text};
use ratatui::widgets::{Paragraph, Wrap as TextWrap};

use crate::tui::app::{App, ComposerTarget, Verdict};
use crate::tui::event::{Action, Phase};
use crate::tui::keymap::{Binding, Chord, Group, Handled};
use crate::tui::widgets::section_title;

fn finalizing(app: &App) -> bool {
    app.phase == Phase::AwaitingFinalize
}

fn approving(app: &App) -> bool {
    app.phase == Phase::AwaitingPlanApproval
}

pub const BINDINGS: &[Binding] = &[
    Binding::new(
        "Enter",
        "after the reflection: finalize",
        Group::Finishing,
        &[Chord::plain(KeyCode::Enter)],
    )
    .hint("Enter", "finalize", 0)
    .when(finalizing),
    Binding::new(
        "y",
        "approve the execution plan",
        Group::Finishing,
        &[Chord::ch('y')],
    )
    .hint("y", "approve", 0)
    .when(approving),
    Binding::new(
        "s",
        "steer the next plan attempt",
        Group::Finishing,
        &[Chord::ch('s')],
    )
    .hint("s", "steer", 0)
    .when(approving),
];

pub fn on_key(app: &mut App, key: KeyEvent) -> Handled {
    match key.code {
        KeyCode::Enter if finalizing(app) => {
            app.act(Action::Finalize);
            app.verdict = Verdict::Sent;
        }
        KeyCode::Char('y') if approving(app) => {
            app.act(Action::ApprovePlan);
            app.verdict = Verdict::Sent;
        }
        KeyCode::Char('s') if approving(app) => app.open_composer(ComposerTarget::Steer),
        _ => return Handled::Ignored,
    }
    Handled::Consumed
}

/// The review pane's body while the loop reflects, plans or waits for a decision on
/// either; `None` in the other phases.
pub fn body(app: &App, inner: Rect) -> Option<Paragraph<'static>> {
    let p = app.theme.palette;
    let mut lines: Vec<Line<'static>> = Vec::new();
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
            // The reflection is prose: it wraps.
            return Some(Paragraph::new(Text::from(lines)).wrap(TextWrap { trim: false }));
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
        _ => return None,
    }
    // The streams and the plan are drawn unwrapped so that the newest lines stay in view.
    Some(Paragraph::new(Text::from(lines)))
}
