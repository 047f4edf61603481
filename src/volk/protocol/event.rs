//! What the runtime reports to a client: the loop's phase and the facts a screen
//! draws, each typed.

use std::path::PathBuf;

use crate::brief::Purpose;
use crate::design::{Artifacts, Section};
use crate::project::git::CommitInfo;
use crate::reasoner::StreamEvent;
use crate::volk::journal::JournalEntry;
use crate::volk::patch_cycle::CycleCost;
use crate::volk::plan_step::PlanCheck;
use crate::volk::protocol::{Level, Notice, Phase};

/// What the runtime reports to the workbench.
#[derive(Debug, Clone)]
pub enum Event {
    Phase(Phase),
    /// A reasoner call is sent; its deltas follow. Screens time the wait from here.
    CallStarted {
        call: u64,
        purpose: Purpose,
    },
    Delta {
        call: u64,
        purpose: Purpose,
        event: StreamEvent,
    },
    /// A design cycle is written to `design/` (its commit follows).
    CycleReady {
        cycle: u32,
        artifacts: Artifacts,
        changed: Vec<Section>,
    },
    /// A commit of the project began (a cycle, or the final design); `Committed`
    /// follows.
    Committing {
        cycle: u32,
    },
    Committed {
        cycle: u32,
        short_id: String,
    },
    Reflection {
        questions: Vec<String>,
        answers: String,
    },
    /// The compiled execution plan, as the plan step judged it.
    Plan(PlanCheck),
    /// The design is finalized: its `implement` packet is in the outbox at `packet`.
    Finalized {
        packet: PathBuf,
    },
    Metrics {
        ttft_ms: Option<u64>,
        tokens_per_sec: Option<f64>,
    },
    /// The runtime stopped on an error it cannot carry on from (a failed call is
    /// not one: it is a [`Phase::Failed`] with its message, reported once).
    Stopped {
        message: String,
    },
    /// A line for the person, in plain words: a client decorates it its own way.
    Notice {
        level: Level,
        text: String,
    },
    /// A moment a screen acts on (the cycle limit), as the core's value.
    Noticed(Notice),
    /// The review's threads and settled parts, after every transition.
    Review(Box<crate::volk::review::ReviewState>),
    /// A line of the decision journal, as written to `journal.jsonl`.
    Journal(Box<JournalEntry>),
    /// What every cycle so far cost, computed once in the core: the same list a
    /// client reads from the session on `volk open`.
    Costs(Vec<CycleCost>),
    /// Answer to [`Query::History`]: the project's commits, newest first.
    History(Vec<CommitInfo>),
    /// Answer to [`Query::Commit`]: an older cycle's artifacts, to read.
    OldCycle {
        short_id: String,
        summary: String,
        artifacts: Artifacts,
    },
    /// Answer to [`Query::PreviousCycle`].
    PreviousCycle(Artifacts),
    /// Answer to [`Query::Artifact`]: the file's text (empty when absent), or why
    /// it cannot be taken as a hand edit (the file and what is wrong).
    Artifact {
        section: Section,
        read: Result<String, String>,
    },
    /// A query could not be answered (the message says which and why).
    QueryFailed(String),
}
