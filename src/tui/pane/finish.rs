//! Finishing a design: the reflection before finalizing and the execution plan to
//! approve or steer, drawn in the review pane's place while the loop is there (and in
//! full in the plan tab, `pane/plan.rs`); and what the screen may
//! still offer once the design is on its way to final.

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Text};
use ratatui::widgets::{Paragraph, Wrap as TextWrap};

use crate::tui::ctx::{Ctx, Do, View};
use crate::tui::event::{Action, Phase};
use crate::tui::keymap::{Binding, Chord, Group, Handled, command};
use crate::tui::popup::composer::ComposerTarget;
use crate::tui::widgets::section_title;
use crate::volk::protocol::Offers;

fn finalizing(offers: &Offers) -> bool {
    offers.finalize
}

fn approving(offers: &Offers) -> bool {
    offers.plan
}

fn reopenable(offers: &Offers) -> bool {
    offers.reopen
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Finalize,
    Reopen,
    Approve,
    Steer,
}

/// The keys act while the core offers them: their conditions read the offers.
pub const BINDINGS: &[Binding<Command, Offers>] = &[
    Binding::new(
        "Enter",
        "after the reflection: finalize",
        Group::Finishing,
        &[(Chord::plain(KeyCode::Enter), Command::Finalize)],
    )
    .hint("Enter", "finalize", 0)
    .when(finalizing),
    Binding::new(
        "b",
        "after the reflection: back to the review (READY was a mistake)",
        Group::Finishing,
        &[(Chord::ch('b'), Command::Reopen)],
    )
    .hint("b", "back to review", 1)
    .when(reopenable),
    Binding::new(
        "y",
        "approve the execution plan",
        Group::Finishing,
        &[(Chord::ch('y'), Command::Approve)],
    )
    .hint("y", "approve", 0)
    .when(approving),
    Binding::new(
        "s",
        "steer the next plan attempt",
        Group::Finishing,
        &[(Chord::ch('s'), Command::Steer)],
    )
    .hint("s", "steer", 0)
    .when(approving),
];

/// The finishing keys act only while the core offers them; otherwise the key goes on
/// to the panes (Enter edits a question, `s` means nothing).
pub fn on_key(cx: &mut Ctx, key: KeyEvent) -> Handled {
    let offers = cx.offers;
    match command(BINDINGS, &key) {
        Some(Command::Finalize) if finalizing(&offers) => {
            cx.ask(Do::Verdict(Action::Finalize));
        }
        Some(Command::Reopen) if reopenable(&offers) => {
            cx.ask(Do::Verdict(Action::Reopen));
            cx.say("READY withdrawn: the cycle is under review again".into());
        }
        Some(Command::Approve) if approving(&offers) => {
            cx.ask(Do::Verdict(Action::ApprovePlan));
        }
        Some(Command::Steer) if approving(&offers) => {
            cx.ask(Do::OpenComposer(ComposerTarget::Steer))
        }
        _ => return Handled::Ignored,
    }
    Handled::Consumed
}

/// The review pane's body while the loop reflects, plans or waits for a decision on
/// either; `None` in the other phases.
pub fn body(view: &View, inner: Rect) -> Option<Paragraph<'static>> {
    let p = view.theme.palette;
    let mut lines: Vec<Line<'static>> = Vec::new();
    match view.model.phase() {
        Phase::Reflecting | Phase::Planning { .. } => {
            let what = if *view.model.phase() == Phase::Reflecting {
                "The architect reflects on the design…"
            } else {
                "The architect compiles an execution plan…"
            };
            lines.push(section_title(&p, what));
            let tail: Vec<&str> = view.side_stream.lines().collect();
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
            lines.push(if view.model.finalize().is_forced() {
                Line::styled(
                    "the cycle limit forced this finalize: no way back to the review",
                    Style::default().fg(p.warning),
                )
            } else {
                Line::styled(
                    "b: back to the review (READY was a mistake)",
                    Style::default().fg(p.accent),
                )
            });
            lines.push(Line::styled(
                "7 Plan: the reflection in full · + zooms",
                Style::default().fg(p.muted),
            ));
            if let Some(r) = view.model.reflection() {
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
            if let Some(plan) = view.model.plan() {
                let (mark, style) = if plan.ok {
                    ("compiles", p.added)
                } else {
                    ("does not compile", p.error)
                };
                lines.push(Line::styled(
                    format!("the plan {mark}"),
                    Style::default().fg(style),
                ));
                lines.push(Line::styled(
                    "7 Plan: every stage and prompt · + zooms",
                    Style::default().fg(p.muted),
                ));
                // The stages, prompts and diagnostics are read in the plan tab; the
                // pane only says what is there.
                let stages = plan.graph.iter().filter(|l| l.starts_with('┌')).count();
                if stages > 0 {
                    lines.push(Line::raw(format!("{stages} stages")));
                }
                if plan.error_count > 0 {
                    lines.push(Line::styled(
                        format!("{} error(s), shown in 7 Plan", plan.error_count),
                        Style::default().fg(p.warning),
                    ));
                }
            }
            return Some(Paragraph::new(Text::from(lines)).wrap(TextWrap { trim: false }));
        }
        _ => return None,
    }
    // The streams and the plan are drawn unwrapped so that the newest lines stay in view.
    Some(Paragraph::new(Text::from(lines)))
}
