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
use crate::tui::app::{App, Screen, Verdict};
use crate::tui::event::{Action, Intent, Phase};
use crate::tui::popup::Window;
use crate::tui::keymap::{Binding, Chord, Group, Handled, Listed, command, listed};
use crate::tui::popup::Popup;
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

    fn on_key(&mut self, key: KeyEvent, app: &mut App) -> Handled {
        let answer = command(self.table(), &key);
        let yes = answer == Some(Answer::Yes);
        match self {
            Confirm::Ready => {
                if yes {
                    // Confirmed with the open items in view: a conflict left is the
                    // person's choice now, so READY is forced past it.
                    let force = !app.open_items().conflicts.is_empty();
                    app.act(Action::Review(Feedback {
                        force,
                        ..Feedback::ready(app.model.cycle())
                    }));
                    app.verdict = Verdict::Sent;
                }
                Handled::Close
            }
            Confirm::LastCycle => {
                if yes && let Some(cycle) = app.model.phase().reviewed_cycle() {
                    app.send_now(cycle);
                } else {
                    app.say("nothing sent: your questions are kept".into());
                }
                Handled::Close
            }
            Confirm::Quit { .. } if yes => {
                app.quit();
                Handled::Close
            }
            Confirm::Quit { .. } => match answer {
                Some(Answer::No) => Handled::Close,
                _ => Handled::Ignored,
            },
            Confirm::Cancel if yes => {
                // The call may have ended while the question was open.
                if crate::tui::pane::viewer::can_cancel(app) {
                    app.cancel_call();
                }
                Handled::Close
            }
            Confirm::Cancel => match answer {
                Some(Answer::No) => Handled::Close,
                _ => Handled::Ignored,
            },
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, app: &App) {
        let p = app.theme.palette;
        match self {
            Confirm::Ready => {
                let open = app.open_items();
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
                let n = app.draft.questions.len();
                let lines = vec![
                    Line::styled(
                        format!("Cycle {} is the last one allowed.", app.model.cycle()),
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
                let after = match app.model.phase() {
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

impl App {
    /// `x` or Esc in the viewer: stops the running call, asking first once text has
    /// arrived (a call still waiting for its first token has cost nothing yet).
    pub(crate) fn ask_cancel(&mut self) {
        if self.is_streaming() {
            self.popup = Some(Popup::Confirm(Confirm::Cancel));
        } else {
            self.cancel_call();
        }
    }

    /// What READY would leave open: the compiler's errors and conflicts on the text
    /// shown, the threads still waiting, the unsent draft questions.
    pub(crate) fn open_items(&self) -> crate::volk::ready::OpenItems {
        crate::volk::ready::OpenItems::of(
            &self.problems.diagnostics,
            &self.model.review().threads,
            self.draft.questions.len(),
        )
    }

    /// Ctrl-R: asks before answering READY.
    pub(crate) fn ask_ready(&mut self) {
        if self.refuse_read_only("answer READY") {
            return;
        }
        if !matches!(self.model.phase(), Phase::AwaitingReview { .. })
            || self.verdict == Verdict::Sent
        {
            self.say(self.no_review_now("Ctrl-R"));
            return;
        }
        self.popup = Some(Popup::Confirm(Confirm::Ready));
    }

    /// `q`: quits, asking first when a draft is unsent or a call runs.
    pub(crate) fn request_quit(&mut self) {
        fn sent_and_unanswered(phase: &Phase) -> bool {
            matches!(phase, Phase::Failed { resume, .. } | Phase::Cancelled { resume }
                if matches!(**resume, Phase::Designing { cycle } if cycle > 1))
        }
        // A draft that can never be sent (the design is final) is not worth a question.
        let unsent = self.draft.is_unsent() && !self.offers().closed;
        let reason = if unsent && self.screen == Screen::Workbench {
            Some("Your draft is not sent (it stays saved for `volk open`).")
        } else if self.model.phase().is_busy() && self.is_streaming() {
            Some("The architect is still working; quitting stops the call.")
        } else if sent_and_unanswered(self.model.phase()) {
            Some(
                "Your sent questions have no answer yet (the call failed); `volk open` keeps them and r sends them again.",
            )
        } else {
            None
        };
        match reason {
            Some(reason) => {
                self.popup = Some(Popup::Confirm(Confirm::Quit {
                    reason: reason.to_string(),
                }))
            }
            None => self.quit_now(),
        }
    }

    /// Ctrl-C: asks like `q`; a second Ctrl-C while it asks quits.
    pub(crate) fn interrupt(&mut self) {
        if matches!(self.popup, Some(Popup::Confirm(Confirm::Quit { .. }))) {
            self.popup = None;
            self.quit();
        } else {
            self.request_quit();
        }
    }

    /// Quits, stopping the running call first.
    fn quit(&mut self) {
        if self.model.phase().is_busy() {
            self.act(Action::Cancel);
        }
        self.quit_now();
    }

    /// Quits without another word.
    pub(crate) fn quit_now(&mut self) {
        self.intents.push(Intent::Quit);
    }
}
