//! How the design loop's events change the workbench: a new phase, stream deltas
//! (handed to [`crate::tui::stream`]), a finished cycle, the plan and reflection,
//! query answers (history, an older cycle), notices and failures.

use crate::brief::Question;
use crate::design::Section;
use crate::tui::app::{App, Follow, Metrics, OldCycle, Screen, Verdict, new_docs};
use crate::tui::backdrop::Halt;
use crate::tui::event::{AppEvent, LoopEvent, Phase};
use crate::tui::model::{Model, Restored};
use crate::tui::popup::Popup;
use crate::tui::popup::error::Failure;
use crate::tui::tab::Tab;
use crate::volk::protocol::Notice;

impl App {
    /// The session `volk open` found on disk: the model starts from it, and the tabs
    /// show its last cycle (and the reflection it was left with, after READY).
    pub fn open_session(&mut self, restored: Restored) {
        let changed = match &restored.cycle {
            Some((_, artifacts, Some(previous))) => artifacts.changed_since(previous),
            _ => Vec::new(),
        };
        let has_cycle = restored.cycle.is_some();
        self.model = Model::opened(restored);
        if has_cycle {
            self.changed = changed;
            self.show_cycle();
        }
        if self.model.reflection().is_some() {
            self.refresh_plan_tab();
        }
    }

    pub fn on_app_event(&mut self, event: AppEvent) {
        let event = match event {
            AppEvent::Loop(event) => event,
            AppEvent::JobFailed(message) => return self.warn(message),
        };
        // What the view needs to know of the session as it was before the event.
        let phase_changed =
            matches!(&event, LoopEvent::Phase(phase) if self.model.phase() != phase);
        let finishing_shown = self.model.reflection().is_some() || self.model.plan().is_some();
        let unchanged = matches!(&event, LoopEvent::Artifact { section, read: Ok(text) }
            if self.model.artifacts().get(*section) == text);
        self.model.apply(&event);
        match event {
            LoopEvent::Phase(phase) => self.on_phase(phase, phase_changed, finishing_shown),
            LoopEvent::CallStarted { call, .. } => {
                self.activity.started(call, std::time::Instant::now())
            }
            LoopEvent::Delta {
                call,
                purpose,
                event,
            } => self.on_delta(call, purpose, event),
            LoopEvent::CycleReady { cycle, changed, .. } => {
                self.sync_stream();
                self.end_stream();
                self.marks = Default::default();
                self.changed = changed;
                self.show_cycle();
                if self.tab_follow == Follow::Stream {
                    self.tab = Tab::default();
                }
                self.draft.cycle = cycle;
                for view in &mut self.views {
                    view.follow = Follow::Stream;
                }
                self.clamp_views();
            }
            LoopEvent::Reflection { .. } | LoopEvent::Plan(_) => {
                self.end_stream();
                self.refresh_plan_tab();
                self.select_tab(Tab::Plan);
            }
            LoopEvent::Metrics {
                ttft_ms,
                tokens_per_sec,
            } => {
                self.activity.ended();
                self.metrics = Metrics {
                    ttft_ms: ttft_ms.or(self.metrics.ttft_ms),
                    tokens_per_sec: tokens_per_sec.or(self.metrics.tokens_per_sec),
                    reported: true,
                };
            }
            LoopEvent::Stopped { message } => {
                let bytes = self.end_stream();
                self.backdrop_restore(Halt::Failed, bytes);
                self.verdict = Verdict::None;
                self.error(message.clone());
                self.popup = Some(Popup::Error(Failure::new(
                    message,
                    false,
                    &self.info,
                    &self.model,
                )));
            }
            LoopEvent::Journal(entry) => {
                if self.journal.is_empty() {
                    self.journal
                        .append_lines(&format!("{}\n", crate::tui::timeline::header()));
                }
                let line = self.timeline.line(&entry);
                self.journal.append_lines(&format!("{line}\n"));
            }
            LoopEvent::Artifact { section, read } => match read {
                Ok(_) => self.edited_by_hand(section, unchanged),
                // Left as written; the feedback will be refused until fixed.
                Err(message) => self.error(message),
            },
            LoopEvent::History(commits) => {
                if let Some(Popup::History(history)) = &mut self.popup {
                    history.commits = Some(commits);
                }
            }
            LoopEvent::OldCycle {
                short_id,
                summary,
                artifacts,
            } => {
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
            LoopEvent::QueryFailed(message) => self.warn(message),
            LoopEvent::Notice { level, text } => {
                self.notice.post(level, text);
            }
            LoopEvent::Noticed(notice) => {
                let line = notice.to_string();
                let warning = matches!(notice, Notice::CycleLimit { .. });
                if let Notice::Cancelled { questions } = notice {
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
                if warning {
                    self.warn(line);
                } else {
                    self.say(line);
                }
            }
            // Facts for the model alone (taken above).
            LoopEvent::Committing { .. }
            | LoopEvent::Committed { .. }
            | LoopEvent::Finalized { .. }
            | LoopEvent::Costs(_)
            | LoopEvent::PreviousCycle(_)
            | LoopEvent::Review(_) => {}
        }
    }

    /// The view's side of a new phase (the model took the phase already):
    /// `changed` when it differs from the one before, `finishing_shown` when the plan
    /// tab showed a reflection or plan.
    fn on_phase(&mut self, phase: Phase, changed: bool, finishing_shown: bool) {
        self.verdict = Verdict::None;
        if !phase.is_busy() {
            self.activity.ended();
        }
        match &phase {
            Phase::Designing { .. } => {
                self.metrics = Metrics::default();
                self.backdrop.asked();
            }
            Phase::Reflecting | Phase::Planning { .. } => {
                self.side_stream.clear();
                self.metrics = Metrics::default();
            }
            Phase::AwaitingReview { .. } if finishing_shown => self.reopened(),
            Phase::Finalized => {
                self.end_stream();
                self.screen = Screen::Summary;
                self.popup = None;
            }
            Phase::Cancelled { .. } => {
                let bytes = self.end_stream();
                self.backdrop_restore(Halt::Cancelled, bytes);
            }
            Phase::Failed {
                message, retryable, ..
            } => {
                let bytes = self.end_stream();
                self.backdrop_restore(Halt::Failed, bytes);
                // The failure is reported once, by this phase: a line in the log and
                // the popup that says what can help.
                if changed {
                    self.error(message.clone());
                }
                self.popup = Some(Popup::Error(Failure::new(
                    message.clone(),
                    *retryable,
                    &self.info,
                    &self.model,
                )));
            }
            _ => {}
        }
    }
}
