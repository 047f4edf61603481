//! Questions asked before an act that cannot be taken back: answering READY, sending
//! questions on the last allowed cycle (which finalizes the design unanswered),
//! quitting with an unsent draft or a running call, and cancelling a call whose text
//! has begun to arrive (its tokens are paid for).

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap as TextWrap};

use crate::cxp::Feedback;
use crate::tui::event::{Action, Phase};
use crate::tui::keymap::{Binding, Chord, Group, Handled, Listed, command, listed};
use crate::tui::popup::Window;
use crate::tui::ctx::{Ctx, Do, View};
use crate::tui::widgets::{centered, popup_block};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirm {
    Ready,
    /// Ctrl-S on the last cycle: the questions would finalize the design unanswered.
    LastCycle,
    Quit {
        reason: String,
    },
    Cancel,
}

/// A confirmation's answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Yes,
    No,
}

const YES: &[(Chord, Answer)] = &[
    (Chord::ch('y'), Answer::Yes),
    (Chord::plain(KeyCode::Enter), Answer::Yes),
];

const NO: &[(Chord, Answer)] = &[
    (Chord::ch('n'), Answer::No),
    (Chord::plain(KeyCode::Esc), Answer::No),
];

pub const READY_BINDINGS: &[Binding<Answer>] = &[
    Binding::new("y / Enter", "(READY?) answer READY", Group::Popups, YES).hint("y", "READY", 1),
    Binding::new(
        "Esc",
        "(READY?) back, nothing sent (so does any other key)",
        Group::Popups,
        &[
            (Chord::plain(KeyCode::Esc), Answer::No),
            (Chord::AnyKey, Answer::No),
        ],
    )
    .hint("Esc", "back", 2),
];

pub const LAST_CYCLE_BINDINGS: &[Binding<Answer>] = &[
    Binding::new(
        "y / Enter",
        "(last cycle) send and finalize without another revision",
        Group::Popups,
        YES,
    )
    .hint("y", "send and finalize", 1),
    Binding::new(
        "n / Esc",
        "(last cycle) back, the questions kept (so does any other key)",
        Group::Popups,
        &[
            (Chord::ch('n'), Answer::No),
            (Chord::plain(KeyCode::Esc), Answer::No),
            (Chord::AnyKey, Answer::No),
        ],
    )
    .hint("n", "back", 2),
];

pub const QUIT_BINDINGS: &[Binding<Answer>] = &[
    Binding::new("y / Enter", "(Quit?) quit", Group::Popups, YES).hint("y", "quit", 1),
    Binding::new("n / Esc", "(Quit?) stay", Group::Popups, NO).hint("n", "stay", 2),
];

pub const CANCEL_BINDINGS: &[Binding<Answer>] = &[
    Binding::new(
        "y / Enter",
        "(Cancel the call?) cancel it",
        Group::Popups,
        YES,
    )
    .hint("y", "cancel the call", 1),
    Binding::new(
        "n / Esc",
        "(Cancel the call?) let it run",
        Group::Popups,
        NO,
    )
    .hint("n", "keep it", 2),
];

impl Confirm {
    /// This question's keys.
    pub fn table(&self) -> &'static [Binding<Answer>] {
        match self {
            Confirm::Ready => READY_BINDINGS,
            Confirm::LastCycle => LAST_CYCLE_BINDINGS,
            Confirm::Quit { .. } => QUIT_BINDINGS,
            Confirm::Cancel => CANCEL_BINDINGS,
        }
    }
}

impl Window for Confirm {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        vec![
            listed(READY_BINDINGS),
            listed(LAST_CYCLE_BINDINGS),
            listed(QUIT_BINDINGS),
            listed(CANCEL_BINDINGS),
        ]
    }

    fn bindings(&self) -> Vec<&'static dyn Listed> {
        listed(self.table())
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
        let answer = command(self.table(), &key);
        let yes = answer == Some(Answer::Yes);
        match self {
            Confirm::Ready => {
                if yes {
                    // Confirmed with the open items in view: a conflict left is the
                    // person's choice now, so READY is forced past it.
                    let force = !cx.open_items().conflicts.is_empty();
                    let ready = Feedback {
                        force,
                        ..Feedback::ready(cx.model.cycle())
                    };
                    cx.ask(Do::Verdict(Action::Review(ready)));
                }
                Handled::Close
            }
            Confirm::LastCycle => {
                if yes && let Some(cycle) = cx.model.phase().reviewed_cycle() {
                    cx.ask(Do::SendNow(cycle));
                } else {
                    cx.say("nothing sent: your questions are kept".into());
                }
                Handled::Close
            }
            Confirm::Quit { .. } if yes => {
                cx.ask(Do::Quit);
                Handled::Close
            }
            Confirm::Quit { .. } => match answer {
                Some(Answer::No) => Handled::Close,
                _ => Handled::Ignored,
            },
            Confirm::Cancel if yes => {
                // The call may have ended while the question was open.
                if cx.can_cancel {
                    cx.ask(Do::CancelCall);
                }
                Handled::Close
            }
            Confirm::Cancel => match answer {
                Some(Answer::No) => Handled::Close,
                _ => Handled::Ignored,
            },
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        let p = view.theme.palette;
        match self {
            Confirm::Ready => {
                let open = view.open_items();
                let mut lines = vec![
                    Line::raw("Answer READY: the design is good to finalize."),
                    Line::raw("The architect reflects once, then writes the final design"),
                    Line::raw("and the implement packet for the code director."),
                ];
                if !open.is_empty() {
                    lines.push(Line::raw(""));
                    lines.push(Line::styled("Still open:", Style::default().fg(p.warning)));
                    lines.push(Line::styled(
                        format!("  {}", open.summary()),
                        Style::default().fg(p.warning),
                    ));
                    for c in &open.conflicts {
                        lines.push(Line::styled(
                            format!("  conflict at design/{}:{}", c.file, c.line),
                            Style::default().fg(p.warning),
                        ));
                    }
                    lines.push(Line::raw(
                        "Errors and open threads go with the implement packet.",
                    ));
                    lines.push(Line::styled(
                        "finalize anyway?",
                        Style::default().fg(p.warning),
                    ));
                }
                lines.push(Line::raw(""));
                lines.push(Line::styled(
                    if open.is_empty() {
                        "y / Enter: READY · Esc: back"
                    } else {
                        "y / Enter: finalize anyway · Esc: back"
                    },
                    Style::default().fg(p.accent),
                ));
                let width = lines
                    .iter()
                    .map(|l| l.width() as u16 + 2)
                    .max()
                    .unwrap_or(0)
                    .clamp(64, 96);
                let rect = centered(area, width, lines.len() as u16 + 2);
                frame.render_widget(Clear, rect);
                frame.render_widget(
                    Paragraph::new(lines).block(popup_block(&p, " READY? ".into(), p.accent)),
                    rect,
                );
            }
            Confirm::LastCycle => {
                let n = view.draft.questions.len();
                let lines = vec![
                    Line::styled(
                        format!("Cycle {} is the last one allowed.", view.model.cycle()),
                        Style::default().fg(p.warning),
                    ),
                    Line::raw(format!(
                        "Sending {n} question(s) now finalizes the design without"
                    )),
                    Line::raw("another revision: the architect will not answer them."),
                    Line::raw(""),
                    Line::styled(
                        "y / Enter: send and finalize · n / Esc: back, questions kept",
                        Style::default().fg(p.accent),
                    ),
                ];
                let rect = centered(area, 66, lines.len() as u16 + 2);
                frame.render_widget(Clear, rect);
                frame.render_widget(
                    Paragraph::new(lines).block(popup_block(
                        &p,
                        " Last cycle: finalize? ".into(),
                        p.warning,
                    )),
                    rect,
                );
            }
            Confirm::Quit { reason } => {
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
            Confirm::Cancel => {
                let after = match view.model.phase() {
                    Phase::Designing { cycle } if *cycle > 1 => {
                        "Your questions come back to the review pane, to amend and send again."
                    }
                    _ => "r runs the call again from the start.",
                };
                let lines = vec![
                    Line::raw("The architect's answer has begun to arrive; cancelling drops it."),
                    Line::raw(after),
                    Line::raw(""),
                    Line::styled(
                        "y / Enter: cancel the call · n / Esc: let it run",
                        Style::default().fg(p.accent),
                    ),
                ];
                let rect = centered(area, 72, 6);
                frame.render_widget(Clear, rect);
                frame.render_widget(
                    Paragraph::new(lines)
                        .wrap(TextWrap { trim: true })
                        .block(popup_block(&p, " Cancel the call? ".into(), p.warning)),
                    rect,
                );
            }
        }
    }
}
