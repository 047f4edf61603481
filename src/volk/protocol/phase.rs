//! Where a design thread stands, as the core persists it and every screen draws it.

use serde::{Deserialize, Serialize};

/// Where the loop stands. Persisted, so it names what the thread waits for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// Created, nothing done yet.
    #[default]
    New,
    /// Finding existing code the design should reuse.
    GatheringContext,
    /// The reasoner is writing design cycle `cycle`.
    Designing { cycle: u32 },
    /// Cycle `cycle` is written and committed; waiting for the reviewer's verdict.
    AwaitingReview { cycle: u32 },
    /// The architect answers the reflection questions about its own design.
    Reflecting,
    /// Reflection answers are shown; the person finalizes or asks more.
    AwaitingFinalize,
    /// The reasoner writes the execution plan (attempt counts repairs too).
    Planning { attempt: u32 },
    /// The compiled plan is shown; the person approves it or steers it.
    AwaitingPlanApproval,
    /// The implement packet is written; the thread is closed.
    Finalized,
    /// A reasoner call failed; `resume` is where a retry continues. `retryable` is false
    /// when running the same call again in this process cannot help (a missing key).
    Failed {
        resume: Box<Phase>,
        message: String,
        #[serde(default = "retryable_by_default")]
        retryable: bool,
    },
    /// The person stopped the running call; `resume` is where a retry continues. A
    /// cancelled update also takes amended questions for the cycle it revised.
    Cancelled { resume: Box<Phase> },
}

/// Sessions written before `retryable` was recorded resume as retryable, as they did.
fn retryable_by_default() -> bool {
    true
}

impl Phase {
    /// A short label for headers and logs.
    pub fn label(&self) -> String {
        match self {
            Phase::New => "new".into(),
            Phase::GatheringContext => "gathering context".into(),
            Phase::Designing { cycle } => format!("designing cycle {cycle}"),
            Phase::AwaitingReview { cycle } => format!("awaiting review of cycle {cycle}"),
            Phase::Reflecting => "reflecting".into(),
            Phase::AwaitingFinalize => "awaiting finalize".into(),
            Phase::Planning { attempt } => format!("planning (attempt {attempt})"),
            Phase::AwaitingPlanApproval => "awaiting plan approval".into(),
            Phase::Finalized => "finalized".into(),
            Phase::Failed { message, .. } => format!("failed: {message}"),
            Phase::Cancelled { .. } => "cancelled".into(),
        }
    }

    /// The few words a screen's header has room for.
    pub fn short_label(&self) -> String {
        match self {
            Phase::New => "starting".into(),
            Phase::GatheringContext => "gathering context".into(),
            Phase::Designing { cycle } => format!("designing cycle {cycle}"),
            Phase::AwaitingReview { .. } => "your review".into(),
            Phase::Reflecting => "reflecting".into(),
            Phase::AwaitingFinalize => "reflection ready".into(),
            Phase::Planning { attempt } => format!("planning (attempt {attempt})"),
            Phase::AwaitingPlanApproval => "plan ready".into(),
            Phase::Finalized => "finalized".into(),
            Phase::Failed { .. } => "failed".into(),
            Phase::Cancelled { .. } => "cancelled".into(),
        }
    }

    /// True while the architect is working (a reasoner call may be running).
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            Phase::New
                | Phase::GatheringContext
                | Phase::Designing { .. }
                | Phase::Reflecting
                | Phase::Planning { .. }
        )
    }

    /// True when running the failed call again may succeed.
    pub fn can_retry(&self) -> bool {
        matches!(
            self,
            Phase::Failed {
                retryable: true,
                ..
            } | Phase::Cancelled { .. }
        )
    }

    /// The cycle whose review questions are taken now: the one awaiting review, or
    /// the one a cancelled update was revising (its questions may be amended).
    pub fn reviewed_cycle(&self) -> Option<u32> {
        match self {
            Phase::AwaitingReview { cycle } => Some(*cycle),
            Phase::Cancelled { resume } => match **resume {
                Phase::Designing { cycle } if cycle > 1 => Some(cycle - 1),
                _ => None,
            },
            _ => None,
        }
    }

    /// A call was interrupted (failed or cancelled): the next step is its retry.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, Phase::Failed { .. } | Phase::Cancelled { .. })
    }

    /// Where a retry of the interrupted call continues.
    pub fn resume(&self) -> Option<&Phase> {
        match self {
            Phase::Failed { resume, .. } | Phase::Cancelled { resume } => Some(resume),
            _ => None,
        }
    }
}

/// Why a design is finalized: the reviewer said READY, or the cycle limit was reached
/// with questions still open (the packet's `forced`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FinalizeReason {
    #[default]
    Ready,
    CycleLimit,
}

impl FinalizeReason {
    pub fn is_forced(self) -> bool {
        self == FinalizeReason::CycleLimit
    }

    /// How the final commit message says it ended.
    pub fn describe(self) -> &'static str {
        match self {
            FinalizeReason::Ready => "after READY",
            FinalizeReason::CycleLimit => "at the cycle limit, without READY",
        }
    }
}
