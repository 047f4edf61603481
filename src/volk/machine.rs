//! The design loop as a pure state machine: an [`Input`] (a packet, a person's action,
//! the result of an effect) goes in, [`Effect`]s come out. Nothing here touches the
//! disk, the network or the clock, so every transition is tested directly and the
//! workbench and `volk run` share one source of truth.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::brief::Purpose;
use crate::cxp::{CODE_DIRECTOR, Feedback, JUNIOR, Packet, Verdict};
use crate::design::parser::parse;
use crate::design::questions::open_questions;
use crate::design::{Artifacts, Section};
use crate::limits::Limits;
use crate::reasoner::ReasonerRequest;
use crate::volk::journal::{JournalEntry, JournalEvent};
use crate::volk::lint_step;
use crate::volk::patch_cycle::{self, Next};
use crate::volk::plan_step::{self, PlanCheck};
use crate::volk::prompts;
use crate::volk::protocol::{Action, Notice, Offers};
use crate::volk::protocol::{FinalizeReason, Phase};
use crate::volk::review;
use crate::volk::session::{CycleRecord, PendingCall, Session};

/// Who decides at the points where a person may step in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `volk run`: reflection answers go to stderr, a clean plan is approved, the loop
    /// stops whenever it waits for a packet.
    Headless,
    /// The workbench: the person finalizes after reflection and approves the plan.
    Interactive,
}

/// Why the artifacts are written: a new cycle changes what the reviewer reads, while
/// finalization writes the same text again and must leave the reader where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// A new cycle, and the artifacts it changed.
    Cycle {
        changed: Vec<Section>,
    },
    Final,
}

/// Everything that can happen to a design thread.
#[derive(Debug, Clone)]
pub enum Input {
    /// A new session: start the first design.
    Begin,
    /// The monorepo context is gathered (possibly empty).
    ContextReady {
        section: String,
        symbols: Vec<String>,
    },
    ReasonerDone {
        call: u64,
        text: String,
    },
    /// What a call's prompt cost, sent before its `ReasonerDone` or `ReasonerFailed`:
    /// the provider's usage, if it reported one.
    CallUsage {
        call: u64,
        usage: Option<crate::reasoner::Usage>,
    },
    ReasonerFailed {
        call: u64,
        message: String,
        retryable: bool,
    },
    /// What the person (a key in the workbench) or the reviewer (a packet) decided.
    Act(Action),
    /// The reflection questions to ask (`None`: reflection is off), or why they could
    /// not be read (reflection is then skipped, never fatal).
    ReflectionLoaded(ReflectionSetup),
    Committed {
        cycle: u32,
        short_id: String,
    },
    /// The reviewer edited `design/*.md` by hand before sending feedback (found by the
    /// runtime); `artifacts` is the design as the files now have it.
    ReviewerEdited {
        artifacts: Artifacts,
    },
}

/// What the reflection configuration asks of the architect before finalizing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReflectionSetup {
    /// These questions, each `[id] text`.
    Questions(Vec<String>),
    /// Reflection is off, or no question is enabled: finalize at once.
    Off,
    /// The configuration could not be read (the message says which file and why): the
    /// pass is skipped with a warning, never the design.
    Unreadable(String),
}

/// What the runtime must do, in order.
#[derive(Debug, Clone)]
pub enum Effect {
    /// Find existing code matching `text`; answer with [`Input::ContextReady`].
    GatherContext {
        text: String,
    },
    /// Start a reasoner call; answer with `ReasonerDone` or `ReasonerFailed`.
    CallReasoner {
        call: u64,
        request: ReasonerRequest,
    },
    /// Keep an answer volk could not use at `path` (relative to the project).
    KeepAnswer {
        path: String,
        text: String,
    },
    /// Write the artifacts to `design/` (before any packet that claims them).
    WriteDocs {
        artifacts: Artifacts,
        written: Written,
    },
    /// Commit the project; answer with `Committed` when done.
    Commit {
        cycle: u32,
        message: String,
    },
    /// Commit a hand edit as the reviewer: the person's git identity, else
    /// `fallback_author`.
    CommitReviewerEdit {
        message: String,
        fallback_author: &'static str,
    },
    /// Read the reflection questions; answer with `ReflectionLoaded`.
    LoadReflection,
    /// Show the reflection answers (stderr headless, a pane in the workbench); they
    /// are kept by [`Effect::WriteReflection`] and the journal.
    ShowReflection {
        questions: Vec<String>,
        answers: String,
    },
    /// Write `design/reflection.md` (committed with the final design).
    WriteReflection {
        markdown: String,
    },
    /// Show a compiled (or failed) plan to the person.
    ShowPlan(PlanCheck),
    /// Write `design/execution_plan.json`.
    WritePlan {
        json: String,
    },
    /// Write the packet to the outbox (and, headless, to stdout).
    Emit(Packet),
    Journal(JournalEntry),
    /// A progress line, in plain words: `volk run` prints it as `[U:Ar] … (trace …)`.
    Log(String),
    /// A warning line, in plain words: `volk run` prints it as `[U:Ar] …`.
    Warn(String),
    /// A moment with meaning for a screen (the cycle limit), printed as a warning too.
    Notice(Notice),
    SaveSession,
    /// Record progress in `context.json` for the pipeline.
    Progress(crate::volk::progress::ContextUpdate),
    /// A call failed: `volk run` says so on stderr; a client learns it once, from the
    /// failed phase. `retryable` offers the retry key.
    Failed {
        message: String,
        retryable: bool,
    },
}

/// Input that does not fit the thread's state: the caller's error, nothing changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refusal {
    #[error("thread {thread} is {phase}; it does not take {what}")]
    WrongPhase {
        thread: String,
        phase: String,
        what: String,
    },
    #[error(
        "payload.design_cycle: feedback is for cycle {got} but thread {thread} is at cycle {expected}"
    )]
    StaleCycle {
        thread: String,
        got: u32,
        expected: u32,
    },
    /// A close, settle or unsettle mark that names nothing (the message names the field).
    #[error("{0}")]
    Review(String),
    /// READY while an edit conflict is left in the design (`payload.force` overrides).
    #[error(
        "design/{file}:{line}: D050 an unresolved edit conflict is left ({count} in all); resolve it, or send READY with payload.force: true"
    )]
    Conflict {
        file: String,
        line: usize,
        count: usize,
    },
    /// Going back to the review after the cycle limit forced finalization.
    #[error("cycle {cycle} was the last of {max}: the design can only be finalized")]
    LastCycle { cycle: u32, max: u32 },
}

/// The state machine of one thread.
#[derive(Debug)]
pub struct Architect {
    pub session: Session,
    mode: Mode,
    next_call: u64,
    in_flight: Option<u64>,
    /// The size of the running call's prompt, for the estimate of its input tokens.
    in_flight_prompt_bytes: u64,
    max_tokens: u32,
    plan_repairs: u32,
    /// Automatic repair passes a cycle with design errors gets, and those used.
    lint_repairs: u32,
    lint_repairs_used: u32,
}

impl Architect {
    pub fn new(session: Session, mode: Mode) -> Architect {
        Architect {
            session,
            mode,
            next_call: 1,
            in_flight: None,
            in_flight_prompt_bytes: 0,
            max_tokens: Limits::DEFAULT.max_tokens,
            plan_repairs: Limits::DEFAULT.plan_repairs,
            lint_repairs: Limits::DEFAULT.lint_repairs,
            lint_repairs_used: 0,
        }
    }

    pub fn with_limits(mut self, max_tokens: u32, plan_repairs: u32) -> Architect {
        self.max_tokens = max_tokens;
        self.plan_repairs = plan_repairs;
        self
    }

    /// Goes back to `session` (the last one saved) after a step could not finish; the
    /// call the step had started, if any, is forgotten.
    pub fn restore(&mut self, session: Session) {
        self.session = session;
        self.in_flight = None;
    }

    /// `--lint-repairs N`: 0 shows every cycle to the person as it came.
    pub fn with_lint_repairs(mut self, repairs: u32) -> Architect {
        self.lint_repairs = repairs;
        self
    }

    pub fn phase(&self) -> &Phase {
        &self.session.phase
    }

    /// The call whose result is awaited, if any.
    pub fn in_flight(&self) -> Option<u64> {
        self.in_flight
    }

    /// True when the thread waits for something outside the runtime: a packet, the
    /// person, or nothing at all.
    pub fn is_waiting(&self) -> bool {
        self.in_flight.is_none()
            && matches!(
                self.session.phase,
                Phase::AwaitingReview { .. }
                    | Phase::AwaitingFinalize
                    | Phase::AwaitingPlanApproval
                    | Phase::Finalized
                    | Phase::Failed { .. }
                    | Phase::Cancelled { .. }
            )
    }

    /// Applies one input.
    pub fn handle(&mut self, input: Input) -> Result<Vec<Effect>, Refusal> {
        let mut fx = Vec::new();
        match input {
            Input::Begin => self.begin(&mut fx)?,
            Input::ContextReady { section, symbols } => {
                self.context_ready(section, symbols, &mut fx)
            }
            Input::ReasonerDone { call, text } => {
                if self.in_flight != Some(call) {
                    return Ok(fx); // a stale result of a cancelled call
                }
                self.in_flight = None;
                self.reasoner_done(text, &mut fx);
            }
            Input::CallUsage { call, usage } => {
                if self.in_flight == Some(call)
                    && let Phase::Designing { cycle } = self.session.phase
                {
                    self.session
                        .patch
                        .record_input(cycle, self.in_flight_prompt_bytes, usage);
                }
            }
            Input::ReasonerFailed {
                call,
                message,
                retryable,
            } => {
                if self.in_flight != Some(call) {
                    return Ok(fx);
                }
                self.in_flight = None;
                if retryable || !self.repair_failed(&message, &mut fx) {
                    let message = if retryable {
                        format!("{message}; r sends {} again", self.pending_name())
                    } else {
                        message
                    };
                    self.fail(message, retryable, &mut fx);
                }
            }
            Input::Act(action) => self.act(action, &mut fx)?,
            Input::ReflectionLoaded(loaded) => self.reflection_loaded(loaded, &mut fx),
            Input::Committed { cycle, short_id } => {
                if let Some(record) = self
                    .session
                    .history
                    .iter_mut()
                    .rev()
                    .find(|r| r.cycle == cycle)
                {
                    record.commit = Some(short_id.clone());
                }
                self.journal(
                    &mut fx,
                    JournalEvent::Committed,
                    json!({ "commit": short_id, "cycle": cycle }),
                );
                fx.push(Effect::SaveSession);
            }
            Input::ReviewerEdited { artifacts } => self.reviewer_edited(artifacts, &mut fx)?,
        }
        Ok(fx)
    }

    /// A hand edit is committed on its own before the cycle it feeds, and remembered
    /// for the merge after it.
    fn reviewer_edited(&mut self, edited: Artifacts, fx: &mut Vec<Effect>) -> Result<(), Refusal> {
        self.expect(
            matches!(self.session.phase, Phase::AwaitingReview { .. }),
            "a hand edit",
        )?;
        let sections =
            review::record_edit(&mut self.session.review, &self.session.artifacts, &edited);
        self.session.artifacts = edited;
        let names: Vec<&str> = sections.iter().map(|s| s.key()).collect();
        self.journal(
            fx,
            JournalEvent::ReviewerEdit,
            json!({ "artifacts": names }),
        );
        self.log(
            fx,
            format!("reviewer edit of {} committed", names.join(", ")),
        );
        fx.push(Effect::CommitReviewerEdit {
            message: review::edit_message(&sections),
            fallback_author: match self.mode {
                Mode::Headless => crate::cxp::JUNIOR,
                Mode::Interactive => "volk reviewer",
            },
        });
        fx.push(Effect::SaveSession);
        Ok(())
    }

    fn act(&mut self, action: Action, fx: &mut Vec<Effect>) -> Result<(), Refusal> {
        match action {
            Action::Review(feedback) => self.feedback(feedback, fx)?,
            Action::Finalize => {
                self.expect(self.offers().finalize, "finalize")?;
                self.finalize_docs(fx);
            }
            Action::Reopen => {
                self.expect(self.offers().finalize, "going back to the review")?;
                if !self.offers().reopen {
                    return Err(Refusal::LastCycle {
                        cycle: self.session.cycle,
                        max: self.session.max_cycles,
                    });
                }
                let cycle = self.session.cycle;
                self.journal(fx, JournalEvent::ReviewReopened, json!({ "cycle": cycle }));
                self.log(
                    fx,
                    format!("READY withdrawn; cycle {cycle} is under review again"),
                );
                self.session.phase = Phase::AwaitingReview { cycle };
                fx.push(Effect::SaveSession);
            }
            Action::ApprovePlan => {
                self.expect(self.offers().plan, "a plan approval")?;
                self.journal(fx, JournalEvent::PlanApproved, json!({}));
                self.emit_implement(fx);
            }
            Action::SteerPlan(note) => {
                self.expect(self.offers().plan, "a plan note")?;
                self.journal(fx, JournalEvent::PlanSteered, json!({ "note": note }));
                self.session.plan.notes.push(note);
                self.session.phase = Phase::Planning { attempt: 1 };
                self.call(Purpose::Plan, self.session.brief(Purpose::Plan), fx);
            }
            Action::Retry => {
                let Some(resume) = self.session.phase.resume() else {
                    return Err(self.wrong_phase("a retry"));
                };
                self.session.phase = resume.clone();
                match (self.session.pending.clone(), &self.session.phase) {
                    (Some(pending), _) => self.call(pending.purpose, pending.brief, fx),
                    // Interrupted between READY and the reflection call: reflect again,
                    // never rewind an accepted design to cycle 1.
                    (None, Phase::Reflecting) => fx.push(Effect::LoadReflection),
                    (None, Phase::Planning { .. }) => {
                        self.call(Purpose::Plan, self.session.brief(Purpose::Plan), fx)
                    }
                    (None, _) => self.begin_design(fx),
                }
            }
            Action::Cancel => {
                if self.in_flight.take().is_some() {
                    self.cancel(fx);
                }
            }
            Action::Mark(marks) => {
                let notes = review::apply_marks(&mut self.session.review, &marks)
                    .map_err(Refusal::Review)?;
                for (event, detail) in notes {
                    self.journal(fx, event, detail);
                }
                fx.push(Effect::SaveSession);
            }
        }
        Ok(())
    }

    /// The call a retry sends, as the failure names it.
    fn pending_name(&self) -> &'static str {
        use crate::design::edit::repair::RepairKind;
        let Some(pending) = &self.session.pending else {
            return "the call";
        };
        let brief = &pending.brief;
        if brief.reformat.is_some() {
            return "the reformat request";
        }
        match (
            pending.purpose,
            brief.repair.as_ref().map(|r| r.kind),
            brief.pass,
        ) {
            (Purpose::Design, ..) => "the design request",
            (Purpose::Update, Some(RepairKind::Blocks), _) => "the block repair",
            (Purpose::Update, Some(RepairKind::Full), _) => "the request for whole sections",
            (Purpose::Update, None, crate::brief::Pass::LintRepair) => {
                "the design compiler's repair pass"
            }
            (Purpose::Update, None, _) => "the update",
            (Purpose::Reflect, ..) => "the reflection",
            (Purpose::Plan, ..) => "the plan request",
        }
    }

    fn expect(&self, ok: bool, what: &str) -> Result<(), Refusal> {
        if ok {
            Ok(())
        } else {
            Err(self.wrong_phase(what))
        }
    }

    /// What the person may do now: the screen binds its keys to this, and the
    /// guards above refuse what it does not offer.
    pub fn offers(&self) -> Offers {
        Offers::of(
            &self.session.phase,
            self.session.finalize,
            self.session.max_cycles,
        )
    }

    fn wrong_phase(&self, what: &str) -> Refusal {
        Refusal::WrongPhase {
            thread: self.session.thread_id.clone(),
            phase: self.session.phase.label(),
            what: what.to_string(),
        }
    }

    fn journal(&self, fx: &mut Vec<Effect>, event: JournalEvent, detail: Value) {
        fx.push(Effect::Journal(JournalEntry {
            time: String::new(),
            trace_id: self.session.trace_id.clone(),
            thread_id: self.session.thread_id.clone(),
            cycle: self.session.cycle,
            event,
            detail,
        }));
    }

    fn log(&self, fx: &mut Vec<Effect>, message: String) {
        fx.push(Effect::Log(message));
    }

    fn begin(&mut self, fx: &mut Vec<Effect>) -> Result<(), Refusal> {
        if matches!(self.session.phase, Phase::GatheringContext) {
            // Interrupted while gathering: the start is journaled already; gather again.
            fx.push(Effect::GatherContext {
                text: self.context_query(),
            });
            return Ok(());
        }
        self.expect(matches!(self.session.phase, Phase::New), "a new design")?;
        let scope = &self.session.scope;
        self.journal(
            fx,
            JournalEvent::DesignStarted,
            json!({ "subject": scope.subject, "task_summary": scope.task_summary, "max_cycles": self.session.max_cycles }),
        );
        self.log(
            fx,
            format!(
                "design started for thread {} ({})",
                self.session.thread_id, scope.subject
            ),
        );
        if scope.ux_design.is_some() {
            self.log(fx, "UX design incorporated into the prompt".into());
            self.journal(fx, JournalEvent::UxDesignIncorporated, Value::Null);
        }
        if let Some(report) = &scope.impact_report {
            self.log(fx, format!("impact report: {report}"));
            self.journal(fx, JournalEvent::ImpactReport, report.clone());
        }
        self.session.phase = Phase::GatheringContext;
        fx.push(Effect::GatherContext {
            text: self.context_query(),
        });
        fx.push(Effect::SaveSession);
        Ok(())
    }

    /// The text whose words are looked up in the monorepo.
    fn context_query(&self) -> String {
        let scope = &self.session.scope;
        let mut text = format!(
            "{}\n{}\n{}",
            scope.task_summary, scope.requirements, scope.original_intent
        );
        for story in &scope.user_stories {
            text.push('\n');
            text.push_str(&crate::cxp::value_text(story));
        }
        if let Some(ux) = &scope.ux_design {
            text.push('\n');
            text.push_str(ux);
        }
        text
    }

    fn context_ready(&mut self, section: String, symbols: Vec<String>, fx: &mut Vec<Effect>) {
        if !matches!(self.session.phase, Phase::GatheringContext) {
            return;
        }
        self.session.context = prompts::cap(&section, prompts::CONTEXT_CAP);
        self.journal(
            fx,
            JournalEvent::ContextGathered,
            json!({ "bytes": section.len(), "symbols": symbols }),
        );
        self.begin_design(fx);
    }

    fn begin_design(&mut self, fx: &mut Vec<Effect>) {
        self.session.phase = Phase::Designing { cycle: 1 };
        self.call(Purpose::Design, self.session.brief(Purpose::Design), fx);
    }

    /// Issues a reasoner call and remembers it so a failure can be retried.
    fn call(&mut self, purpose: Purpose, brief: crate::brief::Brief, fx: &mut Vec<Effect>) {
        let context = &self.session.context;
        let prompt = match purpose {
            _ if brief.reformat.is_some() => prompts::reformat(&brief),
            Purpose::Design => prompts::design(&brief, context),
            Purpose::Update => prompts::update(&brief, context),
            Purpose::Reflect => prompts::reflect(&brief),
            Purpose::Plan => plan_step::prompt(&brief, &self.session.plan),
        };
        let call = self.next_call;
        self.next_call += 1;
        self.in_flight = Some(call);
        self.in_flight_prompt_bytes = (prompts::SYSTEM.len() + prompt.len()) as u64;
        self.session.pending = Some(PendingCall {
            purpose,
            brief: brief.clone(),
        });
        self.journal(
            fx,
            JournalEvent::ReasonerCall,
            json!({ "call": call, "purpose": purpose, "prompt_bytes": prompt.len() }),
        );
        fx.push(Effect::SaveSession);
        fx.push(Effect::CallReasoner {
            call,
            request: ReasonerRequest {
                purpose,
                system: prompts::SYSTEM.to_string(),
                prompt,
                max_tokens: self.max_tokens,
                brief: Arc::new(brief),
            },
        });
    }

    /// Stops where the running call was: a retry runs it again, and a cancelled
    /// update hands its new questions back to the reviewer.
    fn cancel(&mut self, fx: &mut Vec<Effect>) {
        let resume = match self.session.phase.resume() {
            Some(resume) => Box::new(resume.clone()),
            None => Box::new(self.session.phase.clone()),
        };
        let purpose = self.session.pending.as_ref().map(|p| p.purpose);
        let questions = match (&*resume, &self.session.pending) {
            (Phase::Designing { cycle }, Some(p)) if p.purpose == Purpose::Update => {
                let reviewed = cycle.saturating_sub(1);
                let asked: Vec<&str> = self
                    .session
                    .review
                    .threads
                    .iter()
                    .filter(|t| t.cycle_asked == reviewed)
                    .map(|t| t.id.as_str())
                    .collect();
                p.brief
                    .questions
                    .iter()
                    .filter(|q| q.thread.as_deref().is_some_and(|id| asked.contains(&id)))
                    .map(|q| crate::brief::Question {
                        thread: None,
                        carried_from: None,
                        ..q.clone()
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        self.journal(
            fx,
            JournalEvent::CallCancelled,
            json!({ "purpose": purpose }),
        );
        self.session.phase = Phase::Cancelled { resume };
        fx.push(Effect::SaveSession);
        fx.push(Effect::Notice(Notice::Cancelled { questions }));
    }

    /// Feedback for the cycle a cancelled update was revising replaces the feedback
    /// that started it: the threads that feedback opened go, and the cycle is under
    /// review again.
    fn withdraw_cancelled_update(&mut self) -> bool {
        let Phase::Cancelled { resume } = &self.session.phase else {
            return false;
        };
        let Phase::Designing { cycle } = **resume else {
            return false;
        };
        if !matches!(&self.session.pending, Some(p) if p.purpose == Purpose::Update) {
            return false;
        }
        let reviewed = cycle.saturating_sub(1);
        self.session.review.threads.retain(|t| {
            !(t.cycle_asked == reviewed && t.status == crate::volk::threads::ThreadStatus::Open)
        });
        self.session.pending = None;
        self.session.cycle = reviewed;
        self.session.phase = Phase::AwaitingReview { cycle: reviewed };
        true
    }

    fn fail(&mut self, message: String, retryable: bool, fx: &mut Vec<Effect>) {
        let resume = match self.session.phase.resume() {
            Some(resume) => Box::new(resume.clone()),
            None => Box::new(self.session.phase.clone()),
        };
        self.journal(
            fx,
            JournalEvent::CallFailed,
            json!({ "message": message, "retryable": retryable }),
        );
        self.session.phase = Phase::Failed {
            resume,
            message: message.clone(),
            retryable,
        };
        fx.push(Effect::SaveSession);
        fx.push(Effect::Failed { message, retryable });
    }

    fn reasoner_done(&mut self, text: String, fx: &mut Vec<Effect>) {
        let purpose = self.session.pending.as_ref().map(|p| p.purpose);
        match (self.session.phase.clone(), purpose) {
            (Phase::Designing { cycle }, _) => self.design_written(cycle, &text, fx),
            (Phase::Reflecting, _) => self.reflected(text, fx),
            (Phase::Planning { attempt }, _) => self.plan_written(attempt, &text, fx),
            _ => {}
        }
    }

    /// An update answer: edit blocks and whole sections against the current design.
    /// `None` when a follow-up request (a repair, or sections in full) went out.
    /// `changes` is the answer's `CHANGES:` part, held for the cycle's check.
    fn read_update(
        &mut self,
        cycle: u32,
        text: &str,
        changes: Option<String>,
        fx: &mut Vec<Effect>,
    ) -> Option<Artifacts> {
        let brief = self
            .session
            .pending
            .as_ref()
            .map(|p| p.brief.clone())
            .unwrap_or_default();
        // Blocks apply to the design the model was shown: the current cycle, or the
        // candidate a repair pass (of the design compiler) sent back to it.
        let shown = brief
            .current
            .clone()
            .unwrap_or_else(|| self.session.artifacts.clone());
        let reading = patch_cycle::read_answer(
            &mut self.session.patch,
            &shown,
            cycle,
            &brief,
            text,
            &|design: &Artifacts| review::settled_byte_ranges(&self.session.review, design),
        );
        // Lines about a section whose change was ignored do not make it count.
        let changes = match changes {
            Some(c) if !reading.ignored.is_empty() => {
                Some(patch_cycle::changes_without(&c, &reading.ignored))
            }
            other => other,
        };
        review::hold_changes(&mut self.session.review, changes);
        for (event, detail) in reading.journal {
            self.journal(fx, event, detail);
        }
        for line in reading.notices {
            self.log(fx, line);
        }
        for dropped in &reading.dropped {
            let restored = review::hold_dropped(
                &mut self.session.review,
                &shown,
                dropped.section,
                &dropped.block.search,
            );
            fx.push(Effect::Warn(format!(
                "settled {} in {}: the architect's block touching it was dropped",
                restored.item, restored.artifact
            )));
        }
        match reading.next {
            Next::Ask(brief) => {
                self.call(Purpose::Update, *brief, fx);
                None
            }
            Next::Done { artifacts, .. } => Some(artifacts),
        }
    }

    fn design_written(&mut self, cycle: u32, text: &str, fx: &mut Vec<Effect>) {
        // The architect's account of the cycle, however its sections came (whole or
        // as edit blocks): the list is a part of the answer of its own, and every
        // answer of the cycle adds to it.
        let changes = crate::design::parser::sections(text)
            .changes()
            .map(str::to_string);
        let update = matches!(&self.session.pending, Some(p) if p.purpose == Purpose::Update);
        let artifacts = if update {
            // Any update answer is readable: one with no section changes nothing more.
            match self.read_update(cycle, text, changes, fx) {
                Some(artifacts) => artifacts,
                None => return,
            }
        } else {
            review::hold_changes(&mut self.session.review, changes);
            let artifacts = parse(text);
            if !artifacts.is_empty() {
                let cost = self.session.patch.first_cycle(text, &artifacts);
                self.journal(
                    fx,
                    JournalEvent::CycleCost,
                    json!({ "cycle": cycle, "cost": cost }),
                );
                self.log(fx, cost.status());
            }
            artifacts
        };
        if artifacts.is_empty() && !update {
            self.unparsed(cycle, text, fx);
            return;
        }
        if self.lint_repair(cycle, &artifacts, fx) {
            return;
        }
        self.close_cycle(cycle, artifacts, fx);
    }

    /// The first design (or its reformat) had no section marker: kept, and failed
    /// with a retry that reformats it (then designs again).
    fn unparsed(&mut self, cycle: u32, text: &str, fx: &mut Vec<Effect>) {
        let kept = crate::volk::unparsed::relative_path(cycle, text);
        fx.push(Effect::KeepAnswer {
            path: kept.clone(),
            text: text.to_string(),
        });
        self.journal(
            fx,
            JournalEvent::AnswerUnparsed,
            json!({ "bytes": text.len(), "saved": kept }),
        );
        // The retry of this call reformats the answer; if a reformatted answer
        // still has no markers, the retry after it designs again.
        let next = match self.session.pending.as_mut() {
            Some(pending) if pending.brief.reformat.is_none() => {
                pending.brief.reformat = Some(text.to_string());
                "a retry asks the model only to put it under the markers"
            }
            Some(pending) => {
                pending.brief.reformat = None;
                "a retry asks for the design again"
            }
            None => "",
        };
        self.fail(
            format!(
                "the reasoner's answer ({} bytes) has none of the five section markers; it is saved in {kept}; {next}",
                text.len()
            ),
            true,
            fx,
        );
    }

    /// A repair pass's call failed for good (a retry would fail the same way): the
    /// cycle is committed with the text it had before the pass (its findings travel
    /// with the review), so no words are lost and the cycle does not end in a dead
    /// end. False when the failed call was no repair. A failure worth retrying stays
    /// a failure whose retry sends that same repair.
    fn repair_failed(&mut self, message: &str, fx: &mut Vec<Effect>) -> bool {
        let Phase::Designing { cycle } = self.session.phase else {
            return false;
        };
        let Some(pending) = &self.session.pending else {
            return false;
        };
        if pending.purpose != Purpose::Update || !pending.brief.is_repair() {
            return false;
        }
        let before = match self.session.patch.progress.take() {
            Some(progress) if progress.cycle == cycle => progress.working,
            _ => pending
                .brief
                .current
                .clone()
                .unwrap_or_else(|| self.session.artifacts.clone()),
        };
        self.journal(
            fx,
            JournalEvent::CallFailed,
            json!({ "message": message, "retryable": false, "repair": true }),
        );
        fx.push(Effect::Warn(format!(
            "the repair call of cycle {cycle} failed: {message}; cycle {cycle} is committed as it was before the repair"
        )));
        self.lint_repairs_used = 0;
        self.close_cycle(cycle, before, fx);
        true
    }

    /// Writes, commits and sends a cycle for review: the reviewer's edit merged,
    /// settled text restored and the `CHANGES:` of all its answers checked.
    fn close_cycle(&mut self, cycle: u32, mut artifacts: Artifacts, fx: &mut Vec<Effect>) {
        let changes = review::take_changes(&mut self.session.review);
        self.session.pending = None;
        self.session.patch.progress = None;
        let missing: Vec<&str> = artifacts
            .iter()
            .filter(|(_, t)| t.is_empty())
            .map(|(s, _)| s.key())
            .collect();
        if !missing.is_empty() {
            fx.push(Effect::Warn(format!(
                "cycle {cycle}: empty sections: {}",
                missing.join(", ")
            )));
        }
        let mut body = String::new();
        if cycle > 1 {
            let after = review::after_cycle(
                &mut self.session.review,
                &self.session.artifacts,
                artifacts,
                changes.as_deref(),
            );
            for warning in after.warnings {
                fx.push(Effect::Warn(warning));
            }
            for (event, detail) in after.notes {
                self.journal(fx, event, detail);
            }
            body =
                crate::volk::threads::commit_body(&self.session.review.threads, &after.reconciled);
            artifacts = after.artifacts;
        }
        let changed: Vec<Section> = artifacts.changed_since(&self.session.artifacts);
        let previous = std::mem::replace(&mut self.session.artifacts, artifacts);
        if cycle > 1 {
            self.session.previous = Some(previous);
        }
        self.session.cycle = cycle;
        self.session.history.push(CycleRecord {
            cycle,
            commit: None,
            feedback: None,
        });
        self.session.phase = Phase::AwaitingReview { cycle };
        fx.push(Effect::WriteDocs {
            artifacts: self.session.artifacts.clone(),
            written: Written::Cycle {
                changed: changed.clone(),
            },
        });
        let mut message = cycle_message(cycle, &changed, &self.session.scope.task_summary);
        if !body.is_empty() {
            message.push_str("\n\n");
            message.push_str(&body);
        }
        fx.push(Effect::Commit { cycle, message });
        self.journal(
            fx,
            JournalEvent::CycleWritten,
            json!({ "changed": changed.iter().map(|s| s.key()).collect::<Vec<_>>(), "missing": missing }),
        );
        self.log(
            fx,
            format!("design cycle {cycle} written and committed; review requested from {JUNIOR}"),
        );
        fx.push(Effect::SaveSession);
        fx.push(Effect::Emit(self.review_packet()));
    }

    /// Journals the cycle's findings; with errors and a repair pass left, asks the
    /// architect to fix them (the person's questions still stand) and returns true.
    fn lint_repair(&mut self, cycle: u32, artifacts: &Artifacts, fx: &mut Vec<Effect>) -> bool {
        let linted = lint_step::check(artifacts);
        let detail = lint_step::journal_detail(&linted, self.lint_repairs_used);
        self.journal(fx, JournalEvent::DesignLinted, detail);
        if !linted.has_errors() || self.lint_repairs_used >= self.lint_repairs {
            self.lint_repairs_used = 0;
            return false;
        }
        self.lint_repairs_used += 1;
        self.log(
            fx,
            format!(
                "cycle {cycle} has {} design error(s); asking for a repair before the review",
                linted.error_count()
            ),
        );
        let mut brief = match self.session.pending.take() {
            Some(p) => p.brief,
            None => self.session.brief(Purpose::Update),
        };
        brief.cycle = cycle;
        brief.current = Some(artifacts.clone());
        brief.lint_feedback = lint_step::notes(&linted);
        brief.lint_sections = lint_step::sections(&linted);
        // A new pass: nothing of an earlier block repair or reformat goes with it.
        brief.repair = None;
        brief.reformat = None;
        brief.pass = crate::brief::Pass::LintRepair;
        self.session.patch.progress = None;
        self.call(Purpose::Update, brief, fx);
        true
    }

    fn review_packet(&self) -> Packet {
        let s = &self.session;
        let mut payload = artifacts_payload(&s.artifacts);
        payload.insert("design_cycle".into(), json!(s.cycle));
        payload.insert(
            "project_dir".into(),
            json!(s.project_dir.display().to_string()),
        );
        payload.insert("task_summary".into(), json!(s.scope.task_summary));
        payload.insert(
            "open_questions".into(),
            json!(open_questions(&s.artifacts.architecture)),
        );
        payload.insert("max_cycles".into(), json!(s.max_cycles));
        payload.insert(
            "diagnostics".into(),
            lint_step::payload(&lint_step::check(&s.artifacts)),
        );
        if let Some(cost) = s.patch.cost(s.cycle) {
            payload.insert("cost".into(), json!(cost));
        }
        review::payload_into(&s.review, &mut payload);
        Packet::outbound(JUNIOR, "design_review", &s.thread_id, &s.trace_id, payload)
    }

    fn feedback(&mut self, feedback: Feedback, fx: &mut Vec<Effect>) -> Result<(), Refusal> {
        self.withdraw_cancelled_update();
        let cycle = match self.session.phase {
            Phase::AwaitingReview { cycle } => cycle,
            Phase::AwaitingFinalize => self.session.cycle,
            _ => return Err(self.wrong_phase("design feedback")),
        };
        if let Some(got) = feedback.design_cycle
            && got != cycle
        {
            return Err(Refusal::StaleCycle {
                thread: self.session.thread_id.clone(),
                got,
                expected: cycle,
            });
        }
        if feedback.verdict == Verdict::Ready && !feedback.force {
            let open = crate::volk::ready::OpenItems::gather(&self.session);
            if let Some(conflict) = open.conflicts.first() {
                return Err(Refusal::Conflict {
                    file: conflict.file.clone(),
                    line: conflict.line,
                    count: open.conflicts.len(),
                });
            }
        }
        let mut commit = None;
        if let Some(record) = self
            .session
            .history
            .iter_mut()
            .rev()
            .find(|r| r.cycle == cycle)
        {
            record.feedback = Some(feedback.clone());
            commit = record.commit.clone();
        }
        let marks = review::apply_marks(&mut self.session.review, &feedback.marks)
            .map_err(Refusal::Review)?;
        for (event, detail) in marks {
            self.journal(fx, event, detail);
        }
        fx.push(Effect::Progress(
            crate::volk::progress::ContextUpdate::CycleFinished {
                cycle,
                verdict: feedback.verdict,
                commit,
            },
        ));
        for answer in &feedback.answers {
            // Sent again after a cancel: the same answer binds once.
            if !self.session.answers.contains(answer) {
                self.session.answers.push(answer.clone());
            }
        }
        let mut detail = json!({ "verdict": feedback.verdict, "questions": feedback.questions, "answers": feedback.answers });
        if feedback.verdict == Verdict::Ready {
            // What READY left open, so the journal shows what was finalized anyway.
            detail["open"] = crate::volk::ready::OpenItems::gather(&self.session).detail();
            detail["force"] = json!(feedback.force);
        }
        self.journal(fx, JournalEvent::FeedbackReceived, detail);
        match feedback.verdict {
            Verdict::Ready => {
                self.log(fx, format!("verdict READY for cycle {cycle}"));
                let open = crate::volk::ready::OpenItems::gather(&self.session);
                if !open.is_empty() {
                    fx.push(Effect::Warn(format!(
                        "READY with {} still open; they go with the implement packet",
                        open.summary()
                    )));
                }
                self.start_finalization(fx);
            }
            Verdict::Questions if cycle >= self.session.max_cycles => {
                self.session.finalize = FinalizeReason::CycleLimit;
                fx.push(Effect::Notice(Notice::CycleLimit {
                    cycle,
                    max: self.session.max_cycles,
                    trace_id: self.session.trace_id.clone(),
                }));
                self.journal(
                    fx,
                    JournalEvent::ForcedFinalize,
                    json!({ "max_cycles": self.session.max_cycles }),
                );
                self.start_finalization(fx);
            }
            Verdict::Questions => {
                self.log(
                    fx,
                    format!(
                        "{} question(s) on cycle {cycle}; revising as cycle {}",
                        feedback.questions.len(),
                        cycle + 1
                    ),
                );
                self.session.phase = Phase::Designing { cycle: cycle + 1 };
                review::clear_held(&mut self.session.review);
                self.session.patch.progress = None;
                let opened =
                    review::open_threads(&mut self.session.review, cycle, &feedback.questions);
                for (event, detail) in opened {
                    self.journal(fx, event, detail);
                }
                let mut brief = self.session.brief(Purpose::Update);
                (brief.questions, brief.review) =
                    review::prompt(&self.session.review, &self.session.artifacts, cycle);
                brief.lint_feedback = lint_step::notes(&lint_step::check(&self.session.artifacts));
                self.call(Purpose::Update, brief, fx);
            }
        }
        Ok(())
    }

    fn start_finalization(&mut self, fx: &mut Vec<Effect>) {
        // A hand edit sent with READY is the design now: there is nothing to merge.
        self.session.review.edit = None;
        self.session.phase = Phase::Reflecting;
        fx.push(Effect::SaveSession);
        fx.push(Effect::LoadReflection);
    }

    fn reflection_loaded(&mut self, loaded: ReflectionSetup, fx: &mut Vec<Effect>) {
        if !matches!(self.session.phase, Phase::Reflecting) || self.in_flight.is_some() {
            return;
        }
        match loaded {
            ReflectionSetup::Questions(questions) if !questions.is_empty() => {
                self.journal(
                    fx,
                    JournalEvent::ReflectionStarted,
                    json!({ "questions": questions.len() }),
                );
                let mut brief = self.session.brief(Purpose::Reflect);
                brief.reflection_questions = questions;
                // What is still open goes with it, so the reflection cannot claim a
                // clean design unopposed.
                brief.lint_feedback = lint_step::notes(&lint_step::check(&self.session.artifacts));
                brief.questions = crate::volk::threads::pending_questions(
                    &self.session.review.threads,
                    self.session.cycle,
                );
                self.call(Purpose::Reflect, brief, fx);
            }
            ReflectionSetup::Questions(_) | ReflectionSetup::Off => self.finalize_docs(fx),
            ReflectionSetup::Unreadable(message) => {
                fx.push(Effect::Warn(format!("reflection skipped: {message}")));
                self.finalize_docs(fx);
            }
        }
    }

    fn reflected(&mut self, answers: String, fx: &mut Vec<Effect>) {
        let questions = self
            .session
            .pending
            .take()
            .map(|p| p.brief.reflection_questions)
            .unwrap_or_default();
        let kept = crate::brief::reflected::split(&questions, &answers);
        self.journal(
            fx,
            JournalEvent::ReflectionDone,
            json!({ "questions": questions.len(), "answers": kept }),
        );
        self.session
            .reflections
            .push(crate::brief::reflected::Reflection {
                cycle: self.session.cycle,
                answers: kept,
            });
        fx.push(Effect::WriteReflection {
            markdown: crate::brief::reflected::markdown(&self.session.reflections),
        });
        fx.push(Effect::ShowReflection { questions, answers });
        match self.mode {
            Mode::Headless => self.finalize_docs(fx),
            Mode::Interactive => {
                self.session.phase = Phase::AwaitingFinalize;
                fx.push(Effect::SaveSession);
            }
        }
    }

    fn finalize_docs(&mut self, fx: &mut Vec<Effect>) {
        let cycle = self.session.cycle;
        fx.push(Effect::WriteDocs {
            artifacts: self.session.artifacts.clone(),
            written: Written::Final,
        });
        let how = self.session.finalize.describe();
        fx.push(Effect::Commit {
            cycle,
            message: format!("Finalize design after {cycle} cycle(s), {how}"),
        });
        self.journal(
            fx,
            JournalEvent::FinalizedDocs,
            json!({ "forced": self.session.finalize.is_forced() }),
        );
        self.log(
            fx,
            format!("design finalized after {cycle} cycle(s); drafting the execution plan"),
        );
        self.session.phase = Phase::Planning { attempt: 1 };
        self.call(Purpose::Plan, self.session.brief(Purpose::Plan), fx);
    }

    fn plan_written(&mut self, attempt: u32, text: &str, fx: &mut Vec<Effect>) {
        let check = plan_step::check(text);
        self.session.plan.given = plan_step::given();
        self.session.plan.source = check.source.clone();
        self.session.plan.diagnostics = check.diagnostics_human.clone();
        self.session.plan.ok = check.ok;
        self.journal(
            fx,
            JournalEvent::PlanCompiled,
            json!({ "attempt": attempt, "ok": check.ok, "errors": check.error_count }),
        );
        if !check.ok && attempt <= self.plan_repairs {
            self.log(
                fx,
                format!("execution plan attempt {attempt} has errors; asking for a repair"),
            );
            self.session.phase = Phase::Planning {
                attempt: attempt + 1,
            };
            let mut brief = self.session.brief(Purpose::Plan);
            brief
                .plan_feedback
                .extend(check.repair_notes.iter().cloned());
            self.call(Purpose::Plan, brief, fx);
            return;
        }
        self.session.pending = None;
        fx.push(Effect::ShowPlan(check.clone()));
        match self.mode {
            Mode::Interactive => {
                self.session.phase = Phase::AwaitingPlanApproval;
                fx.push(Effect::SaveSession);
            }
            Mode::Headless => {
                if !check.ok {
                    fx.push(Effect::Warn(format!(
                        "the execution plan still has errors after {} repair(s); it is not attached:\n{}",
                        self.plan_repairs, check.diagnostics_human
                    )));
                }
                self.emit_implement(fx);
            }
        }
    }

    fn emit_implement(&mut self, fx: &mut Vec<Effect>) {
        let plan = match (&self.session.plan.source, self.session.plan.ok) {
            (Some(source), true) => serde_json::from_str::<Value>(source).ok(),
            _ => None,
        };
        // Before the plan commit, so the state the pipeline reads is committed with it.
        fx.push(Effect::Progress(
            crate::volk::progress::ContextUpdate::Escalated {
                cycles: self.session.cycle,
            },
        ));
        if let Some(plan) = &plan {
            fx.push(Effect::WritePlan {
                json: serde_json::to_string_pretty(plan).unwrap_or_default(),
            });
            fx.push(Effect::Commit {
                cycle: self.session.cycle,
                message: "Add the execution plan".into(),
            });
        }
        let s = &self.session;
        let scope = &s.scope;
        let mut payload = artifacts_payload(&s.artifacts);
        payload.insert(
            "project_dir".into(),
            json!(s.project_dir.display().to_string()),
        );
        payload.insert("task_summary".into(), json!(scope.task_summary));
        payload.insert("original_intent".into(), json!(scope.original_intent));
        payload.insert(
            "structured_requirements".into(),
            json!(scope.structured_requirements),
        );
        payload.insert("user_stories".into(), json!(scope.user_stories));
        payload.insert("monorepo_src_section".into(), json!(s.context));
        payload.insert("nfrs".into(), json!(scope.nfrs));
        payload.insert(
            "spec_metadata".into(),
            Value::Object(scope.spec_metadata.clone()),
        );
        payload.insert("design_cycles".into(), json!(s.cycle));
        payload.insert(
            "reflection".into(),
            crate::brief::reflected::payload(&s.reflections),
        );
        payload.insert("forced".into(), json!(s.finalize.is_forced()));
        payload.insert(
            "diagnostics".into(),
            lint_step::payload(&lint_step::check(&s.artifacts)),
        );
        payload.insert(
            "open_threads".into(),
            crate::volk::threads::payload(&crate::volk::ready::open_threads(&s.review.threads)),
        );
        if let Some(plan) = plan {
            payload.insert("execution_plan".into(), plan);
        }
        let packet = Packet::outbound(
            CODE_DIRECTOR,
            "implement",
            &s.thread_id,
            &s.trace_id,
            payload,
        );
        self.session.phase = Phase::Finalized;
        self.journal(fx, JournalEvent::Escalated, json!({ "to": CODE_DIRECTOR }));
        self.log(fx, format!("implement packet sent to {CODE_DIRECTOR}"));
        fx.push(Effect::SaveSession);
        fx.push(Effect::Emit(packet));
    }
}

fn artifacts_payload(artifacts: &Artifacts) -> Map<String, Value> {
    let mut payload = Map::new();
    for (section, text) in artifacts.iter() {
        payload.insert(section.key().into(), json!(text));
    }
    payload
}

fn cycle_message(cycle: u32, changed: &[Section], summary: &str) -> String {
    let what = if cycle == 1 || changed.len() == Section::ALL.len() {
        "all artifacts".to_string()
    } else if changed.is_empty() {
        "no artifact changed".to_string()
    } else {
        changed
            .iter()
            .map(|s| s.title())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut message = format!("Design cycle {cycle}: {what}");
    if cycle == 1 && !summary.is_empty() {
        message.push_str("\n\n");
        message.push_str(summary);
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brief::Purpose;
    use crate::cxp::Scope;
    use crate::reasoner::offline::draft;

    fn scope() -> Scope {
        Scope {
            task_summary: "Build a task management CLI with SQLite storage".into(),
            project_name: "taskman".into(),
            requirements: "1. Add tasks\n2. List tasks".into(),
            subject: "scope_validated".into(),
            ..Scope::default()
        }
    }

    fn architect(mode: Mode, max_cycles: u32) -> Architect {
        let session = Session::new("thread-1", "trace-1", "/tmp/p".into(), scope(), max_cycles);
        Architect::new(session, mode)
    }

    fn call_of(fx: &[Effect]) -> (u64, ReasonerRequest) {
        fx.iter()
            .find_map(|e| match e {
                Effect::CallReasoner { call, request } => Some((*call, request.clone())),
                _ => None,
            })
            .expect("a reasoner call")
    }

    fn emitted(fx: &[Effect]) -> Option<&Packet> {
        fx.iter().find_map(|e| match e {
            Effect::Emit(p) => Some(p),
            _ => None,
        })
    }

    /// Runs the reasoner offline for the pending call.
    fn answer(a: &mut Architect, fx: &[Effect]) -> Vec<Effect> {
        let (call, request) = call_of(fx);
        let text = draft(request.purpose, &request.brief);
        a.handle(Input::ReasonerDone { call, text }).unwrap()
    }

    fn designed(mode: Mode, max_cycles: u32) -> Architect {
        let mut a = architect(mode, max_cycles);
        a.handle(Input::Begin).unwrap();
        let fx = a
            .handle(Input::ContextReady {
                section: String::new(),
                symbols: vec![],
            })
            .unwrap();
        answer(&mut a, &fx);
        a
    }

    fn feedback(verdict: Verdict, questions: &[&str]) -> Input {
        Input::Act(Action::Review(Feedback {
            verdict,
            questions: questions
                .iter()
                .map(|q| crate::brief::Question::new(*q))
                .collect(),
            design_cycle: None,
            answers: vec![],
            project_dir: None,
            marks: Default::default(),
            force: false,
        }))
    }

    #[test]
    fn begin_gathers_context_then_calls_the_reasoner_for_a_design() {
        let mut a = architect(Mode::Headless, 99);
        let fx = a.handle(Input::Begin).unwrap();
        assert!(fx.iter().any(|e| matches!(e, Effect::GatherContext { .. })));
        let fx = a
            .handle(Input::ContextReady {
                section: "class Foo: pass".into(),
                symbols: vec!["Foo".into()],
            })
            .unwrap();
        let (_, request) = call_of(&fx);
        assert_eq!(request.purpose, Purpose::Design);
        assert!(request.prompt.contains("class Foo: pass"));
        assert_eq!(a.phase(), &Phase::Designing { cycle: 1 });
    }

    #[test]
    fn a_design_is_written_and_committed_before_the_review_packet() {
        let mut a = architect(Mode::Headless, 99);
        a.handle(Input::Begin).unwrap();
        let fx = a
            .handle(Input::ContextReady {
                section: String::new(),
                symbols: vec![],
            })
            .unwrap();
        let fx = answer(&mut a, &fx);
        let write = fx
            .iter()
            .position(|e| matches!(e, Effect::WriteDocs { .. }))
            .unwrap();
        let commit = fx
            .iter()
            .position(|e| matches!(e, Effect::Commit { .. }))
            .unwrap();
        let emit = fx
            .iter()
            .position(|e| matches!(e, Effect::Emit(_)))
            .unwrap();
        assert!(write < commit && commit < emit);
        let packet = emitted(&fx).unwrap();
        assert_eq!(packet.header.subject, "design_review");
        assert_eq!(packet.header.to_agent, "J:Junior");
        assert_eq!(packet.payload["design_cycle"], 1);
        assert_eq!(packet.payload["project_dir"], "/tmp/p");
        assert_eq!(a.phase(), &Phase::AwaitingReview { cycle: 1 });
    }

    #[test]
    fn questions_start_the_next_cycle_as_numbered_threads() {
        let mut a = designed(Mode::Headless, 99);
        let fx = a
            .handle(feedback(
                Verdict::Questions,
                &["Schema?", "Delete or flag?"],
            ))
            .unwrap();
        let (_, request) = call_of(&fx);
        assert_eq!(request.purpose, Purpose::Update);
        assert!(
            request
                .prompt
                .contains("- Q1.1: Schema?\n- Q1.2: Delete or flag?"),
            "{}",
            request.prompt
        );
        assert_eq!(a.phase(), &Phase::Designing { cycle: 2 });
        let fx = answer(&mut a, &fx);
        assert_eq!(a.session.cycle, 2);
        assert_eq!(emitted(&fx).unwrap().payload["design_cycle"], 2);
    }

    #[test]
    fn ready_reflects_finalizes_plans_and_escalates_in_order() {
        let mut a = designed(Mode::Headless, 99);
        let fx = a.handle(feedback(Verdict::Ready, &[])).unwrap();
        assert!(fx.iter().any(|e| matches!(e, Effect::LoadReflection)));
        let fx = a
            .handle(Input::ReflectionLoaded(ReflectionSetup::Questions(vec![
                "Is it testable?".into(),
            ])))
            .unwrap();
        let (_, request) = call_of(&fx);
        assert_eq!(request.purpose, Purpose::Reflect);
        assert!(request.prompt.contains("1. Is it testable?"));
        let fx = answer(&mut a, &fx);
        // Headless: the answers are shown, journaled and written down, and
        // finalization follows.
        assert!(
            fx.iter()
                .any(|e| matches!(e, Effect::ShowReflection { .. }))
        );
        let done = fx
            .iter()
            .find_map(|e| match e {
                Effect::Journal(j) if j.event == JournalEvent::ReflectionDone => Some(&j.detail),
                _ => None,
            })
            .unwrap();
        assert_eq!(done["answers"][0]["question"], "Is it testable?");
        assert!(!done["answers"][0]["answer"].as_str().unwrap().is_empty());
        let reflection = fx
            .iter()
            .position(|e| matches!(e, Effect::WriteReflection { .. }))
            .unwrap();
        let write = fx
            .iter()
            .position(|e| matches!(e, Effect::WriteDocs { .. }))
            .unwrap();
        assert!(reflection < write);
        let commit = fx
            .iter()
            .position(|e| matches!(e, Effect::Commit { .. }))
            .unwrap();
        assert!(write < commit);
        let fx = answer(&mut a, &fx); // the plan
        let packet = emitted(&fx).unwrap();
        assert_eq!(packet.header.subject, "implement");
        assert_eq!(packet.header.to_agent, "U:Cd");
        assert_eq!(
            packet.payload["reflection"][0]["answer"],
            a.session.reflections[0].answers[0].answer.as_str()
        );
        for key in [
            "architecture",
            "requirements",
            "file_tree",
            "api_spec",
            "class_diagram",
        ] {
            assert!(packet.payload.contains_key(key), "{key}");
        }
        for key in [
            "project_dir",
            "task_summary",
            "original_intent",
            "structured_requirements",
            "user_stories",
            "monorepo_src_section",
            "nfrs",
            "spec_metadata",
        ] {
            assert!(packet.payload.contains_key(key), "{key}");
        }
        assert!(packet.payload.contains_key("execution_plan"));
        let plan_write = fx
            .iter()
            .position(|e| matches!(e, Effect::WritePlan { .. }))
            .unwrap();
        let emit = fx
            .iter()
            .position(|e| matches!(e, Effect::Emit(_)))
            .unwrap();
        assert!(plan_write < emit);
        assert_eq!(a.phase(), &Phase::Finalized);
    }

    #[test]
    fn cycle_limit_forces_finalization_with_a_warning() {
        let mut a = designed(Mode::Headless, 1);
        let fx = a.handle(feedback(Verdict::Questions, &["More?"])).unwrap();
        assert!(fx.iter().any(
            |e| matches!(e, Effect::Notice(n @ Notice::CycleLimit { max: 1, .. })
                if n.to_string().starts_with("Max design cycles reached (1)"))
        ));
        assert_eq!(
            a.session.finalize,
            crate::volk::protocol::FinalizeReason::CycleLimit
        );
        assert_eq!(a.phase(), &Phase::Reflecting);
    }

    #[test]
    fn empty_sections_are_still_in_the_implement_packet() {
        let mut a = architect(Mode::Headless, 99).with_lint_repairs(0);
        a.handle(Input::Begin).unwrap();
        let fx = a
            .handle(Input::ContextReady {
                section: String::new(),
                symbols: vec![],
            })
            .unwrap();
        let (call, _) = call_of(&fx);
        a.handle(Input::ReasonerDone {
            call,
            text: "ARCHITECTURE:\nonly this".into(),
        })
        .unwrap();
        a.handle(feedback(Verdict::Ready, &[])).unwrap();
        let fx = a
            .handle(Input::ReflectionLoaded(ReflectionSetup::Off))
            .unwrap();
        let fx = answer(&mut a, &fx);
        let packet = emitted(&fx).unwrap();
        assert_eq!(packet.payload["file_tree"], "");
        assert_eq!(packet.payload["architecture"], "only this");
    }

    #[test]
    fn a_reply_without_markers_fails_and_can_be_retried() {
        let mut a = architect(Mode::Interactive, 99);
        a.handle(Input::Begin).unwrap();
        let fx = a
            .handle(Input::ContextReady {
                section: String::new(),
                symbols: vec![],
            })
            .unwrap();
        let (call, _) = call_of(&fx);
        let fx = a
            .handle(Input::ReasonerDone {
                call,
                text: "I cannot help".into(),
            })
            .unwrap();
        assert!(fx.iter().any(|e| matches!(
            e,
            Effect::Failed {
                retryable: true,
                ..
            }
        )));
        assert!(matches!(a.phase(), Phase::Failed { .. }));
        let fx = a.handle(Input::Act(Action::Retry)).unwrap();
        let (_, request) = call_of(&fx);
        assert_eq!(request.purpose, Purpose::Design);
        assert_eq!(a.phase(), &Phase::Designing { cycle: 1 });
    }

    #[test]
    fn a_retry_after_ready_reflects_again_instead_of_rewinding() {
        let mut a = architect(Mode::Headless, 5);
        a.session.cycle = 2;
        a.session.pending = None;
        a.session.phase = Phase::Failed {
            resume: Box::new(Phase::Reflecting),
            message: "interrupted".into(),
            retryable: true,
        };
        let fx = a.handle(Input::Act(Action::Retry)).unwrap();
        assert!(fx.iter().any(|e| matches!(e, Effect::LoadReflection)));
        assert!(!fx.iter().any(|e| matches!(e, Effect::CallReasoner { .. })));
        assert_eq!(a.session.phase, Phase::Reflecting);
        assert_eq!(a.session.cycle, 2);
    }

    #[test]
    fn stale_results_and_wrong_inputs_change_nothing() {
        let mut a = designed(Mode::Interactive, 99);
        assert!(
            a.handle(Input::ReasonerDone {
                call: 999,
                text: "x".into()
            })
            .unwrap()
            .is_empty()
        );
        assert!(matches!(
            a.handle(Input::Act(Action::ApprovePlan)),
            Err(Refusal::WrongPhase { .. })
        ));
        let stale = Input::Act(Action::Review(Feedback {
            verdict: Verdict::Ready,
            questions: vec![],
            design_cycle: Some(5),
            answers: vec![],
            project_dir: None,
            marks: Default::default(),
            force: false,
        }));
        assert!(matches!(
            a.handle(stale),
            Err(Refusal::StaleCycle {
                got: 5,
                expected: 1,
                ..
            })
        ));
        assert_eq!(a.phase(), &Phase::AwaitingReview { cycle: 1 });
    }

    #[test]
    fn interactive_waits_for_finalize_and_plan_approval_and_honours_steering() {
        let mut a = designed(Mode::Interactive, 99);
        a.handle(feedback(Verdict::Ready, &[])).unwrap();
        let fx = a
            .handle(Input::ReflectionLoaded(ReflectionSetup::Questions(vec![
                "Q?".into(),
            ])))
            .unwrap();
        answer(&mut a, &fx);
        assert_eq!(a.phase(), &Phase::AwaitingFinalize);
        let fx = a.handle(Input::Act(Action::Finalize)).unwrap();
        let fx = answer(&mut a, &fx);
        assert!(fx.iter().any(|e| matches!(e, Effect::ShowPlan(p) if p.ok)));
        assert_eq!(a.phase(), &Phase::AwaitingPlanApproval);
        let fx = a
            .handle(Input::Act(Action::SteerPlan("one stage per module".into())))
            .unwrap();
        let (_, request) = call_of(&fx);
        assert!(request.prompt.contains("one stage per module"));
        answer(&mut a, &fx);
        let fx = a.handle(Input::Act(Action::ApprovePlan)).unwrap();
        assert_eq!(emitted(&fx).unwrap().header.subject, "implement");
        assert_eq!(a.phase(), &Phase::Finalized);
    }

    #[test]
    fn a_failing_edit_block_asks_again_before_anything_is_written() {
        let mut a = designed(Mode::Headless, 99);
        let before = a.session.artifacts.clone();
        let fx = a
            .handle(feedback(Verdict::Questions, &["Schema?"]))
            .unwrap();
        let (call, _) = call_of(&fx);
        let text = "API_SPEC:\n<<<<<<< SEARCH\nnot in the spec\n=======\nx\n>>>>>>> REPLACE\n";
        let fx = a
            .handle(Input::ReasonerDone {
                call,
                text: text.into(),
            })
            .unwrap();
        assert!(
            !fx.iter()
                .any(|e| matches!(e, Effect::WriteDocs { .. } | Effect::Emit(_)))
        );
        let (call, request) = call_of(&fx);
        assert_eq!(request.purpose, Purpose::Update);
        assert!(request.prompt.contains("not in the spec"));
        assert_eq!(a.phase(), &Phase::Designing { cycle: 2 });
        // A failed call is retried with the same repair request.
        a.handle(Input::ReasonerFailed {
            call,
            message: "cut".into(),
            retryable: true,
        })
        .unwrap();
        let fx = a.handle(Input::Act(Action::Retry)).unwrap();
        let (call, again) = call_of(&fx);
        assert_eq!(again.prompt, request.prompt);
        let fx = answer(&mut a, &fx);
        let _ = call;
        assert_eq!(emitted(&fx).unwrap().payload["design_cycle"], 2);
        assert_eq!(a.session.artifacts.api_spec, before.api_spec);
        assert!(emitted(&fx).unwrap().payload["cost"]["streamed_tokens"].as_u64() > Some(0));
    }

    /// After each kind of failure, a retry sends exactly the call the failure names,
    /// and a success clears it: no later pass reuses the repair.
    #[test]
    fn a_retry_sends_what_the_failure_names() {
        fn fail_and_retry(a: &mut Architect, fx: &[Effect]) -> (String, ReasonerRequest) {
            let (call, request) = call_of(fx);
            let fx = a
                .handle(Input::ReasonerFailed {
                    call,
                    message: "503".into(),
                    retryable: true,
                })
                .unwrap();
            let message = fx
                .iter()
                .find_map(|e| match e {
                    Effect::Failed { message, .. } => Some(message.clone()),
                    _ => None,
                })
                .unwrap();
            let fx = a.handle(Input::Act(Action::Retry)).unwrap();
            let (_, again) = call_of(&fx);
            assert_eq!(again.prompt, request.prompt, "{message}");
            (message, again)
        }
        // The update.
        let mut a = designed(Mode::Headless, 99);
        let fx = a
            .handle(feedback(Verdict::Questions, &["Schema?"]))
            .unwrap();
        let (message, _) = fail_and_retry(&mut a, &fx);
        assert!(message.ends_with("r sends the update again"), "{message}");
        // The block repair.
        let call = a.in_flight().unwrap();
        let text = "API_SPEC:\n<<<<<<< SEARCH\nnot in the spec\n=======\nx\n>>>>>>> REPLACE\n";
        let fx = a
            .handle(Input::ReasonerDone {
                call,
                text: text.into(),
            })
            .unwrap();
        let (message, repair) = fail_and_retry(&mut a, &fx);
        assert!(
            message.ends_with("r sends the block repair again"),
            "{message}"
        );
        assert!(repair.brief.repair.is_some());
        // Done with nothing more: the cycle closes, and its pending call is gone.
        let call = a.in_flight().unwrap();
        a.handle(Input::ReasonerDone {
            call,
            text: String::new(),
        })
        .unwrap();
        assert_eq!(a.phase(), &Phase::AwaitingReview { cycle: 2 });
        assert!(a.session.pending.is_none());
        // A design compiler's repair pass, after a block repair, carries no repair.
        let mut b = architect(Mode::Headless, 99);
        b.handle(Input::Begin).unwrap();
        let fx = b
            .handle(Input::ContextReady {
                section: String::new(),
                symbols: vec![],
            })
            .unwrap();
        let (call, request) = call_of(&fx);
        let broken = draft(request.purpose, &request.brief)
            .replace("classDiagram\n", "classDiagram\n  class Phantom\n");
        let fx = b
            .handle(Input::ReasonerDone { call, text: broken })
            .unwrap();
        let (message, lint) = fail_and_retry(&mut b, &fx);
        assert!(
            message.ends_with("r sends the design compiler's repair pass again"),
            "{message}"
        );
        assert!(lint.brief.repair.is_none());
        assert!(lint.prompt.contains("Problems the design compiler found"));
        // The first design without markers: the retry reformats it.
        let mut c = architect(Mode::Headless, 99);
        c.handle(Input::Begin).unwrap();
        let fx = c
            .handle(Input::ContextReady {
                section: String::new(),
                symbols: vec![],
            })
            .unwrap();
        let (call, _) = call_of(&fx);
        let fx = c
            .handle(Input::ReasonerDone {
                call,
                text: "just prose".into(),
            })
            .unwrap();
        assert!(fx.iter().any(|e| matches!(e, Effect::Failed { message, .. } if message.contains("put it under the markers"))));
        let fx = c.handle(Input::Act(Action::Retry)).unwrap();
        let (_, reformat) = call_of(&fx);
        assert_eq!(reformat.brief.reformat.as_deref(), Some("just prose"));
    }

    #[test]
    fn a_repair_that_fails_for_good_commits_what_applied_before_it() {
        let mut a = designed(Mode::Headless, 99);
        let fx = a
            .handle(feedback(Verdict::Questions, &["Schema?"]))
            .unwrap();
        let (call, _) = call_of(&fx);
        let spec = a.session.artifacts.api_spec.clone();
        let first = spec.lines().next().unwrap().to_string();
        let text = format!(
            "API_SPEC:\n<<<<<<< SEARCH\n{first}\n=======\n{first} # applied\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nnot in the spec\n=======\nx\n>>>>>>> REPLACE\nCHANGES:\n- Q1.1 api_spec: noted the schema\n"
        );
        let fx = a.handle(Input::ReasonerDone { call, text }).unwrap();
        let (call, _) = call_of(&fx);
        let fx = a
            .handle(Input::ReasonerFailed {
                call,
                message: "400 context too long".into(),
                retryable: false,
            })
            .unwrap();
        assert!(!fx.iter().any(|e| matches!(e, Effect::Failed { .. })));
        let packet = emitted(&fx).expect("the cycle goes to review");
        assert_eq!(packet.payload["design_cycle"], 2);
        assert!(a.session.artifacts.api_spec.contains("# applied"));
        assert_eq!(packet.payload["threads"][0]["status"], "addressed");
        assert_eq!(a.phase(), &Phase::AwaitingReview { cycle: 2 });
    }

    #[test]
    fn answers_bind_the_next_cycle() {
        let mut a = designed(Mode::Headless, 99);
        let fx = a
            .handle(Input::Act(Action::Review(Feedback {
                verdict: Verdict::Questions,
                questions: vec!["Schema?".into()],
                design_cycle: Some(1),
                answers: vec![crate::brief::Answer {
                    question: "Shared?".into(),
                    answer: "No, single user".into(),
                }],
                project_dir: None,
                marks: Default::default(),
                force: false,
            })))
            .unwrap();
        let (_, request) = call_of(&fx);
        assert!(request.prompt.contains("No, single user"));
        assert!(request.prompt.contains("binding"));
    }

    #[test]
    fn an_anchored_question_reads_the_same_from_the_workbench_and_a_packet() {
        use crate::brief::{Anchor, Question};
        let line = "- Q1.1 [api_spec line 3: \"def run()\"]: Why sync?";
        let workbench = Question::anchored(
            "Why sync?",
            Anchor {
                section: crate::design::Section::ApiSpec,
                line: 3,
                quote: "def run()".into(),
            },
        );
        let payload = serde_json::json!({
            "verdict": "QUESTIONS",
            "questions": [{"text": "Why sync?", "anchor": {"section": "api_spec", "line": 3, "quote": "def run()"}}]
        });
        let packet = crate::cxp::feedback_from(payload.as_object().unwrap()).unwrap();
        let typed = Question::new("[API spec line 3: \"def run()\"] Why sync?");
        for question in [workbench, packet.questions[0].clone(), typed] {
            let mut a = designed(Mode::Headless, 99);
            let fx = a
                .handle(Input::Act(Action::Review(Feedback {
                    verdict: Verdict::Questions,
                    questions: vec![question],
                    design_cycle: Some(1),
                    answers: vec![],
                    project_dir: None,
                    marks: Default::default(),
                    force: false,
                })))
                .unwrap();
            let (_, request) = call_of(&fx);
            assert!(request.prompt.contains(line), "{}", request.prompt);
        }
    }

    #[test]
    fn ready_can_be_withdrawn_after_the_reflection_but_not_at_the_limit() {
        let mut a = designed(Mode::Interactive, 99);
        let fx = a.handle(feedback(Verdict::Ready, &[])).unwrap();
        let fx = a
            .handle(Input::ReflectionLoaded(ReflectionSetup::Questions(vec![
                "Q?".into(),
            ])))
            .unwrap_or(fx);
        answer(&mut a, &fx);
        assert_eq!(a.phase(), &Phase::AwaitingFinalize);
        a.handle(Input::Act(Action::Reopen)).unwrap();
        assert_eq!(a.phase(), &Phase::AwaitingReview { cycle: 1 });
        // The same cycle takes questions again.
        let fx = a
            .handle(feedback(Verdict::Questions, &["Schema?"]))
            .unwrap();
        assert_eq!(call_of(&fx).1.purpose, Purpose::Update);

        let mut forced = designed(Mode::Interactive, 1);
        let fx = forced
            .handle(feedback(Verdict::Questions, &["Late?"]))
            .unwrap();
        let fx = forced
            .handle(Input::ReflectionLoaded(ReflectionSetup::Questions(vec![
                "Q?".into(),
            ])))
            .unwrap_or(fx);
        answer(&mut forced, &fx);
        assert_eq!(forced.phase(), &Phase::AwaitingFinalize);
        let refused = forced.handle(Input::Act(Action::Reopen)).unwrap_err();
        assert!(refused.to_string().contains("last of 1"), "{refused}");
        assert_eq!(forced.phase(), &Phase::AwaitingFinalize);
    }

    #[test]
    fn a_cancelled_update_hands_its_questions_back_to_amend_or_resend() {
        use crate::brief::Question;
        let mut a = designed(Mode::Interactive, 99);
        let fx = a
            .handle(feedback(
                Verdict::Questions,
                &["Schema?", "Flag or delete?"],
            ))
            .unwrap();
        let (_, first) = call_of(&fx);
        let fx = a.handle(Input::Act(Action::Cancel)).unwrap();
        assert_eq!(a.phase().short_label(), "cancelled");
        let back = fx
            .iter()
            .find_map(|e| match e {
                Effect::Notice(Notice::Cancelled { questions }) => Some(questions.clone()),
                _ => None,
            })
            .unwrap();
        assert_eq!(
            back,
            [Question::new("Schema?"), Question::new("Flag or delete?")]
        );
        assert_eq!(a.phase().reviewed_cycle(), Some(1));
        // r: the same call again.
        let mut resent = Architect::new(a.session.clone(), Mode::Interactive);
        let fx = resent.handle(Input::Act(Action::Retry)).unwrap();
        assert_eq!(call_of(&fx).1.prompt, first.prompt);
        // Amended: the cancelled feedback's threads go, the new ones take their ids.
        let fx = a
            .handle(Input::Act(Action::Review(Feedback::questions(
                1,
                vec![Question::new("Which schema, exactly?")],
                vec![],
            ))))
            .unwrap();
        let (_, amended) = call_of(&fx);
        assert!(
            amended.prompt.contains("- Q1.1: Which schema, exactly?"),
            "{}",
            amended.prompt
        );
        assert!(
            !amended.prompt.contains("Flag or delete?"),
            "{}",
            amended.prompt
        );
        let ids: Vec<_> = a
            .session
            .review
            .threads
            .iter()
            .map(|t| t.id.as_str())
            .collect();
        assert_eq!(ids, ["Q1.1"]);
        assert_eq!(a.phase(), &Phase::Designing { cycle: 2 });
    }

    /// Through the design loop: READY, reflection, `b` (reopen), READY again. The
    /// first reflection stays in the history and the second is asked for anew.
    #[test]
    fn a_reopened_design_keeps_its_reflection_and_is_asked_again() {
        use crate::cxp::{Feedback, Verdict};
        use crate::volk::machine::{Architect, Effect, Input, Mode, ReflectionSetup};
        use crate::volk::protocol::Action;
        use crate::volk::protocol::Phase;
        use crate::volk::session::Session;

        fn call(fx: &[Effect]) -> (u64, crate::reasoner::ReasonerRequest) {
            fx.iter()
                .find_map(|e| match e {
                    Effect::CallReasoner { call, request } => Some((*call, request.clone())),
                    _ => None,
                })
                .expect("a reasoner call")
        }
        fn ready() -> Input {
            Input::Act(Action::Review(Feedback {
                verdict: Verdict::Ready,
                questions: vec![],
                design_cycle: Some(1),
                answers: vec![],
                project_dir: None,
                marks: Default::default(),
                force: false,
            }))
        }
        let scope = crate::cxp::Scope {
            task_summary: "A task CLI".into(),
            requirements: "1. Add tasks".into(),
            ..Default::default()
        };
        let session = Session::new("t", "r", "/tmp/p".into(), scope, 5);
        let mut a = Architect::new(session, Mode::Interactive);
        a.handle(Input::Begin).unwrap();
        let fx = a
            .handle(Input::ContextReady {
                section: String::new(),
                symbols: vec![],
            })
            .unwrap();
        let (id, request) = call(&fx);
        let text = crate::reasoner::offline::draft(request.purpose, &request.brief);
        a.handle(Input::ReasonerDone { call: id, text }).unwrap();
        let mut written = String::new();
        for gap in ["no load test for NFR-01", "no spec for the Redis client"] {
            let fx = a.handle(ready()).unwrap();
            assert!(fx.iter().any(|e| matches!(e, Effect::LoadReflection)));
            let fx = a
                .handle(Input::ReflectionLoaded(ReflectionSetup::Questions(vec![
                    "[RFQ-010] What is missing?".into(),
                ])))
                .unwrap();
            let (id, _) = call(&fx);
            let fx = a
                .handle(Input::ReasonerDone {
                    call: id,
                    text: format!("1. {gap}"),
                })
                .unwrap();
            written = fx
                .iter()
                .find_map(|e| match e {
                    Effect::WriteReflection { markdown } => Some(markdown.clone()),
                    _ => None,
                })
                .unwrap();
            assert_eq!(a.phase(), &Phase::AwaitingFinalize);
            if gap.starts_with("no load") {
                a.handle(Input::Act(Action::Reopen)).unwrap();
            }
        }
        assert_eq!(a.session.reflections.len(), 2);
        assert!(written.contains("## After READY on cycle 1\n\n### RFQ-010: What is missing?\n\nno spec for the Redis client"), "{written}");
        assert!(written.contains("## Earlier: after READY on cycle 1 (the design was reopened)\n\n### RFQ-010: What is missing?\n\nno load test for NFR-01"), "{written}");
        let fx = a.handle(Input::Act(Action::Finalize)).unwrap();
        let (_, plan) = call(&fx);
        let newest = plan.prompt.find("no spec for the Redis client").unwrap();
        let earlier = plan.prompt.find("no load test for NFR-01").unwrap();
        assert!(newest < earlier, "{}", plan.prompt);
    }
}
