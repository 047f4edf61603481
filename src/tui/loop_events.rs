//! How the design loop's events change the workbench: a new phase, stream deltas
//! (handed to [`crate::tui::stream`]), a finished cycle, the plan and reflection,
//! query answers (history, an older cycle), notices and failures.

use crate::brief::Question;
use crate::design::Section;
use crate::tui::app::{
    App, Follow, Metrics, OldCycle, Outcome, ReflectionView, Screen, Verdict, new_docs,
};
use crate::tui::backdrop::Halt;
use crate::tui::event::{AppEvent, LoopEvent, Phase};
use crate::tui::popup::Popup;
use crate::tui::popup::error::Failure;
use crate::tui::tab::Tab;
use crate::volk::protocol::Notice;

impl App {
    pub fn on_app_event(&mut self, event: AppEvent) {
        match event {
            AppEvent::Loop(LoopEvent::Phase(phase)) => self.on_phase(phase),
            AppEvent::Loop(LoopEvent::CallStarted { call, purpose }) => {
                self.last_call = Some(purpose);
                self.activity.started(call, std::time::Instant::now())
            }
            AppEvent::Loop(LoopEvent::Delta {
                call,
                purpose,
                event,
            }) => self.on_delta(call, purpose, event),
            AppEvent::Loop(LoopEvent::CycleReady {
                cycle,
                artifacts,
                changed,
            }) => {
                self.sync_stream();
                self.end_stream();
                self.marks = Default::default();
                if !self.artifacts.is_empty() && self.artifacts != artifacts {
                    self.previous = Some(self.artifacts.clone());
                }
                self.changed = changed;
                self.show_artifacts(cycle, artifacts);
                self.committing = true;
                if self.tab_follow == Follow::Stream {
                    self.tab = Tab::default();
                }
                self.draft.cycle = cycle;
                for view in &mut self.views {
                    view.follow = Follow::Stream;
                }
                self.clamp_views();
            }
            AppEvent::Loop(LoopEvent::Committing { .. }) => self.committing = true,
            AppEvent::Loop(LoopEvent::Committed { short_id, .. }) => {
                self.committing = false;
                self.last_commit = Some(short_id);
            }
            AppEvent::Loop(LoopEvent::Reflection { questions, answers }) => {
                self.end_stream();
                self.reflection = Some(ReflectionView { questions, answers });
                self.refresh_plan_tab();
                self.select_tab(Tab::Plan);
            }
            AppEvent::Loop(LoopEvent::Plan(check)) => {
                self.end_stream();
                self.plan = Some(check);
                self.refresh_plan_tab();
                self.select_tab(Tab::Plan);
            }
            AppEvent::Loop(LoopEvent::Finalized { packet }) => {
                self.outcome = Some(Outcome {
                    packet_path: packet,
                    subject: "implement".into(),
                });
            }
            AppEvent::Loop(LoopEvent::Metrics {
                ttft_ms,
                tokens_per_sec,
            }) => {
                self.activity.ended();
                self.metrics = Metrics {
                    ttft_ms: ttft_ms.or(self.metrics.ttft_ms),
                    tokens_per_sec: tokens_per_sec.or(self.metrics.tokens_per_sec),
                    reported: true,
                };
            }
            AppEvent::Loop(LoopEvent::Stopped { message }) => {
                let bytes = self.end_stream();
                self.backdrop_restore(Halt::Failed, bytes);
                self.verdict = Verdict::None;
                self.error(message.clone());
                self.popup = Some(Popup::Error(Failure::new(message, false, self)));
            }
            AppEvent::Loop(LoopEvent::Journal(entry)) => {
                if self.journal.is_empty() {
                    self.journal
                        .append_lines(&format!("{}\n", crate::tui::timeline::header()));
                }
                let line = self.timeline.line(&entry);
                self.journal.append_lines(&format!("{line}\n"));
            }
            AppEvent::Loop(LoopEvent::Costs(costs)) => self.cost.restore(&costs),
            AppEvent::Loop(LoopEvent::Artifact { section, read }) => match read {
                Ok(text) => self.edited_by_hand(section, &text),
                // Left as written; the feedback will be refused until fixed.
                Err(message) => self.error(message),
            },
            AppEvent::Loop(LoopEvent::History(commits)) => {
                if let Some(Popup::History(history)) = &mut self.popup {
                    history.commits = Some(commits);
                }
            }
            AppEvent::Loop(LoopEvent::OldCycle {
                short_id,
                summary,
                artifacts,
            }) => {
                if self.compared_cycle(&short_id, &summary, &artifacts) {
                    return;
                }
                if self.wanted_commit.as_deref() != Some(short_id.as_str()) {
                    return; // superseded by a later Enter, or the popup was closed
                }
                self.wanted_commit = None;
                let mut docs = new_docs(&self.theme);
                for doc in &mut docs {
                    doc.set_rendering(self.rendering);
                }
                for section in Section::ALL {
                    docs[section.index()].set_text(artifacts.get(section));
                }
                self.old_cycle = Some(OldCycle {
                    short_id,
                    summary,
                    docs,
                });
                self.popup = None;
                self.clamp_views();
            }
            AppEvent::Loop(LoopEvent::PreviousCycle(artifacts)) => {
                if self.previous.is_none() {
                    self.previous = Some(artifacts);
                }
            }
            AppEvent::JobFailed(message) | AppEvent::Loop(LoopEvent::QueryFailed(message)) => {
                self.warn(message)
            }
            AppEvent::Loop(LoopEvent::Review(state)) => self.review = *state,
            AppEvent::Loop(LoopEvent::Notice { level, text }) => {
                self.notice.post(level, text);
            }
            AppEvent::Loop(LoopEvent::Noticed(notice)) => {
                let line = notice.to_string();
                let warning = matches!(notice, Notice::CycleLimit { .. });
                match notice {
                    Notice::CycleLimit { trace_id, .. } => {
                        // The summary's warning keeps the trace id; the status bar does not.
                        self.warning = Some(format!("{line} (trace {trace_id})"));
                        self.finalize = crate::volk::protocol::FinalizeReason::CycleLimit;
                    }
                    Notice::Cancelled { questions } => {
                        // Back in the review pane, in the order sent, ahead of any
                        // question written since.
                        let back: Vec<Question> = questions
                            .into_iter()
                            .filter(|q| !self.draft.questions.contains(q))
                            .collect();
                        if !back.is_empty() {
                            self.draft.questions.splice(0..0, back);
                            self.draft_changed = true;
                        }
                    }
                }
                if warning {
                    self.warn(line);
                } else {
                    self.say(line);
                }
            }
        }
    }

    fn on_phase(&mut self, phase: Phase) {
        self.verdict = Verdict::None;
        if !phase.is_busy() {
            self.activity.ended();
        }
        match &phase {
            Phase::Designing { cycle } => {
                self.cycle = *cycle;
                self.metrics = Metrics::default();
                self.backdrop.asked();
            }
            Phase::Reflecting | Phase::Planning { .. } => {
                self.side_stream.clear();
                self.metrics = Metrics::default();
            }
            Phase::AwaitingReview { cycle } => {
                self.cycle = *cycle;
                self.reopened();
            }
            Phase::Finalized => {
                self.end_stream();
                self.screen = Screen::Summary;
                self.popup = None;
            }
            Phase::Cancelled { resume } => {
                // A cancelled update leaves the cycle it revised under review; a
                // cancelled first design is still cycle 1.
                if let Some(cycle) = phase.reviewed_cycle() {
                    self.cycle = cycle;
                } else if let Phase::Designing { cycle } = **resume {
                    self.cycle = cycle;
                }
                let bytes = self.end_stream();
                self.backdrop_restore(Halt::Cancelled, bytes);
            }
            Phase::Failed {
                message,
                retryable,
                resume,
            } => {
                // The header counts the cycle the failed call was writing (a project
                // whose first cycle failed reopens as cycle 1, not 0).
                if let Phase::Designing { cycle } = **resume {
                    self.cycle = cycle;
                }
                let bytes = self.end_stream();
                self.backdrop_restore(Halt::Failed, bytes);
                // The failure is reported once, by this phase: a line in the log and
                // the popup that says what can help.
                if self.phase != phase {
                    self.error(message.clone());
                }
                self.popup = Some(Popup::Error(Failure::new(
                    message.clone(),
                    *retryable,
                    self,
                )));
            }
            _ => {}
        }
        self.phase = phase;
    }
}
