//! What the session is, as the core last said it: the phase, the cycle and its
//! artifacts, the cycle before, the review, the reflection and plan, the costs, the
//! commit. The workbench's view state (tabs, scroll, focus, popups) lives in `App`
//! beside it.
//!
//! The fields are private and [`Model::apply`] is the one writer: a pane can read the
//! session but not make up a fact the core never sent, so what the screen shows is
//! what `volk run` prints and what `volk open` restores.

use std::path::PathBuf;

use crate::brief::Purpose;
use crate::design::Artifacts;
use crate::design::questions::open_questions;
use crate::tui::event::{LoopEvent, Phase};
use crate::tui::patch_view::CostMeter;
use crate::volk::plan_step::PlanCheck;
use crate::volk::protocol::{FinalizeReason, Notice, Offers};
use crate::volk::review::ReviewState;

/// Static facts shown in the header.
#[derive(Debug, Clone, Default)]
pub struct SessionInfo {
    pub project_name: String,
    pub project_dir: PathBuf,
    pub thread_id: String,
    pub max_cycles: u32,
    pub reasoner: String,
    /// Empty when `reasoner` is the whole label (`offline drafter (no model)`).
    pub model: String,
}

/// The reflection before finalizing: the questions asked and the architect's answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReflectionView {
    pub questions: Vec<String>,
    pub answers: String,
}

/// The finalized design: shown on the summary screen.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub packet_path: PathBuf,
    pub subject: String,
}

#[derive(Debug, Default)]
pub struct Model {
    phase: Phase,
    cycle: u32,
    artifacts: Artifacts,
    /// The cycle before, for diffs and change marks.
    previous: Option<Artifacts>,
    /// The architect's open questions in the architecture.
    open_questions: Vec<String>,
    /// Threads and settled parts.
    review: ReviewState,
    reflection: Option<ReflectionView>,
    plan: Option<PlanCheck>,
    outcome: Option<Outcome>,
    /// Why the design is being finalized: at the cycle limit there is no way back.
    finalize: FinalizeReason,
    last_commit: Option<String>,
    /// A cycle is written and its commit not yet reported.
    committing: bool,
    /// A warning the summary repeats (the cycle limit forced finalization).
    warning: Option<String>,
    cost: CostMeter,
    /// Why the last reasoner call was sent: the failure popup names what `r` resends.
    last_call: Option<Purpose>,
}

/// What a session restored on `volk open` brings (see [`Model::opened`]).
pub struct Restored {
    pub finalize: FinalizeReason,
    /// The last cycle, its artifacts and the cycle before.
    pub cycle: Option<(u32, Artifacts, Option<Artifacts>)>,
    pub costs: Vec<crate::volk::patch_cycle::CycleCost>,
    pub reflection: Option<(Vec<String>, String)>,
}

impl Model {
    /// The session as `volk open` found it on disk.
    pub fn opened(restored: Restored) -> Model {
        let mut model = Model {
            finalize: restored.finalize,
            ..Model::default()
        };
        if let Some((cycle, artifacts, previous)) = restored.cycle {
            model.take_cycle(cycle, artifacts);
            model.previous = previous;
        }
        model.cost.restore(&restored.costs);
        model.reflection = restored
            .reflection
            .map(|(questions, answers)| ReflectionView { questions, answers });
        model
    }

    /// Takes what `event` says about the session. Events that only move the view
    /// (stream deltas, query answers shown in a popup) leave it as it is.
    pub fn apply(&mut self, event: &LoopEvent) {
        match event {
            LoopEvent::Phase(phase) => self.enter(phase),
            LoopEvent::CallStarted { purpose, .. } => self.last_call = Some(*purpose),
            LoopEvent::CycleReady {
                cycle, artifacts, ..
            } => {
                if !self.artifacts.is_empty() && self.artifacts != *artifacts {
                    self.previous = Some(std::mem::take(&mut self.artifacts));
                }
                self.take_cycle(*cycle, artifacts.clone());
                self.committing = true;
            }
            LoopEvent::Committing { .. } => self.committing = true,
            LoopEvent::Committed { short_id, .. } => {
                self.committing = false;
                self.last_commit = Some(short_id.clone());
            }
            LoopEvent::Reflection { questions, answers } => {
                self.reflection = Some(ReflectionView {
                    questions: questions.clone(),
                    answers: answers.clone(),
                });
            }
            LoopEvent::Plan(check) => self.plan = Some(check.clone()),
            LoopEvent::Finalized { packet } => {
                self.outcome = Some(Outcome {
                    packet_path: packet.clone(),
                    subject: "implement".into(),
                });
            }
            LoopEvent::Costs(costs) => self.cost.restore(costs),
            LoopEvent::Artifact {
                section,
                read: Ok(text),
            } => self.artifacts.set(*section, text.clone()),
            LoopEvent::PreviousCycle(artifacts) if self.previous.is_none() => {
                self.previous = Some(artifacts.clone());
            }
            LoopEvent::Review(state) => self.review = (**state).clone(),
            LoopEvent::Noticed(notice @ Notice::CycleLimit { trace_id, .. }) => {
                // The summary's warning keeps the trace id; the status bar does not.
                self.warning = Some(format!("{notice} (trace {trace_id})"));
                self.finalize = FinalizeReason::CycleLimit;
            }
            _ => {}
        }
    }

    fn enter(&mut self, phase: &Phase) {
        match phase {
            Phase::Designing { cycle } => self.cycle = *cycle,
            Phase::AwaitingReview { cycle } => {
                self.cycle = *cycle;
                // READY withdrawn: the reflection and plan were for a design that is
                // not final any more.
                self.reflection = None;
                self.plan = None;
            }
            // A cancelled update leaves the cycle it revised under review; a cancelled
            // first design is still cycle 1.
            Phase::Cancelled { resume } => {
                if let Some(cycle) = phase.reviewed_cycle() {
                    self.cycle = cycle;
                } else if let Phase::Designing { cycle } = **resume {
                    self.cycle = cycle;
                }
            }
            // The header counts the cycle the failed call was writing (a project whose
            // first cycle failed reopens as cycle 1, not 0).
            Phase::Failed { resume, .. } => {
                if let Phase::Designing { cycle } = **resume {
                    self.cycle = cycle;
                }
            }
            _ => {}
        }
        self.phase = phase.clone();
    }

    fn take_cycle(&mut self, cycle: u32, artifacts: Artifacts) {
        self.open_questions = open_questions(&artifacts.architecture);
        self.artifacts = artifacts;
        self.cycle = cycle;
    }

    /// What the person may do now, as the core rules it (the machine's guards use the
    /// same rule).
    pub fn offers(&self, max_cycles: u32) -> Offers {
        Offers::of(&self.phase, self.finalize, max_cycles)
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    pub fn cycle(&self) -> u32 {
        self.cycle
    }

    pub fn artifacts(&self) -> &Artifacts {
        &self.artifacts
    }

    pub fn previous(&self) -> Option<&Artifacts> {
        self.previous.as_ref()
    }

    pub fn open_questions(&self) -> &[String] {
        &self.open_questions
    }

    pub fn review(&self) -> &ReviewState {
        &self.review
    }

    pub fn reflection(&self) -> Option<&ReflectionView> {
        self.reflection.as_ref()
    }

    pub fn plan(&self) -> Option<&PlanCheck> {
        self.plan.as_ref()
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    pub fn finalize(&self) -> FinalizeReason {
        self.finalize
    }

    pub fn last_commit(&self) -> Option<&str> {
        self.last_commit.as_deref()
    }

    pub fn committing(&self) -> bool {
        self.committing
    }

    pub fn warning(&self) -> Option<&str> {
        self.warning.as_deref()
    }

    pub fn cost(&self) -> &CostMeter {
        &self.cost
    }

    pub fn last_call(&self) -> Option<Purpose> {
        self.last_call
    }
}
