//! Everything that can happen to the workbench (`AppEvent`) and everything it can ask
//! for (`Intent`). `AppEvent` mirrors the design loop's runtime events one to one, plus
//! the results of the workbench's own background jobs; widgets only ever produce
//! intents, never call services.

use crate::design::Artifacts;
use crate::project::git::CommitInfo;
use crate::reasoner::Answer;
/// The runtime's events, which the workbench receives unchanged.
pub use crate::volk::runtime::Event as LoopEvent;

/// Where the design loop stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Nothing has happened yet (the runtime is starting).
    Starting,
    /// Finding existing code the design should reuse.
    GatheringContext,
    Designing {
        cycle: u32,
    },
    AwaitingReview {
        cycle: u32,
    },
    Reflecting,
    AwaitingFinalize,
    Planning {
        attempt: u32,
    },
    AwaitingPlanApproval,
    /// The implement packet is written; the thread is closed.
    Finalized,
    Failed {
        message: String,
    },
}

impl Phase {
    /// Short label for the header.
    pub fn label(&self) -> String {
        match self {
            Phase::Starting => "starting".into(),
            Phase::GatheringContext => "gathering context".into(),
            Phase::Designing { cycle } => format!("designing cycle {cycle}"),
            Phase::AwaitingReview { .. } => "your review".into(),
            Phase::Reflecting => "reflecting".into(),
            Phase::AwaitingFinalize => "reflection ready".into(),
            Phase::Planning { attempt } => format!("planning (attempt {attempt})"),
            Phase::AwaitingPlanApproval => "plan ready".into(),
            Phase::Finalized => "finalized".into(),
            Phase::Failed { .. } => "failed".into(),
        }
    }

    /// True while the architect is working (a reasoner call may be running).
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            Phase::Starting
                | Phase::GatheringContext
                | Phase::Designing { .. }
                | Phase::Reflecting
                | Phase::Planning { .. }
        )
    }
}

impl From<&crate::volk::session::Phase> for Phase {
    fn from(phase: &crate::volk::session::Phase) -> Phase {
        use crate::volk::session::Phase as Loop;
        match phase {
            Loop::New => Phase::Starting,
            Loop::GatheringContext => Phase::GatheringContext,
            Loop::Designing { cycle } => Phase::Designing { cycle: *cycle },
            Loop::AwaitingReview { cycle } => Phase::AwaitingReview { cycle: *cycle },
            Loop::Reflecting => Phase::Reflecting,
            Loop::AwaitingFinalize => Phase::AwaitingFinalize,
            Loop::Planning { attempt } => Phase::Planning { attempt: *attempt },
            Loop::AwaitingPlanApproval => Phase::AwaitingPlanApproval,
            Loop::Finalized => Phase::Finalized,
            Loop::Failed { message, .. } => Phase::Failed {
                message: message.clone(),
            },
        }
    }
}

/// What reaches the workbench: the loop's phase (projected for display), the loop's
/// other events unchanged, and the results of the workbench's own jobs.
#[derive(Debug, Clone)]
pub enum AppEvent {
    Phase(Phase),
    /// Everything else the design loop reports, as the runtime sent it.
    Loop(LoopEvent),
    /// The project's commits, newest first (answer to [`Intent::LoadHistory`]).
    History(Vec<CommitInfo>),
    /// The artifacts of an older commit, opened read-only.
    OldCycle {
        short_id: String,
        summary: String,
        artifacts: Artifacts,
    },
    /// The artifacts of the cycle before the current one (for the diff view).
    PreviousCycle(Artifacts),
    /// A background job of the workbench failed (history, draft saving).
    JobFailed(String),
}

/// What the workbench asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    /// Verdict QUESTIONS: the reviewer's questions and answers to the architect's own.
    SendQuestions {
        questions: Vec<String>,
        answers: Vec<Answer>,
    },
    /// Verdict READY.
    Ready,
    /// Go on from the reflection to finalization.
    Finalize,
    ApprovePlan,
    SteerPlan(String),
    Retry,
    Cancel,
    /// Close threads, settle or unsettle parts.
    Review(crate::cxp::ReviewMarks),
    /// Hand the terminal to `$VISUAL`/`$EDITOR` on an artifact at a line.
    EditArtifact {
        section: crate::design::Section,
        line: usize,
    },
    LoadHistory,
    LoadCommit {
        id: String,
        short_id: String,
        summary: String,
    },
    Quit,
}
