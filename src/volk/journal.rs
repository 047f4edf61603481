//! The decision journal: one JSON line per transition, with time and trace id, in
//! `PROJECT/.volk/journal.jsonl`. It never holds a credential: every line is redacted
//! as it is written, reflection answers included.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// RFC 3339, UTC; filled in by the runtime when the entry is written.
    #[serde(default)]
    pub time: String,
    pub trace_id: String,
    pub thread_id: String,
    pub cycle: u32,
    pub event: JournalEvent,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub detail: Value,
}

/// What a journal line records. The names are the `event` field of
/// `journal.jsonl`, read by people and by tools: never rename one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JournalEvent {
    /// A scope arrived and cycle 1 began.
    DesignStarted,
    /// The monorepo context for the prompt was gathered.
    ContextGathered,
    /// A UX packet was folded into the scope.
    UxDesignIncorporated,
    /// A reasoner call was sent.
    ReasonerCall,
    /// A reasoner call ended: its timing and tokens.
    ReasonerMetrics,
    /// A reasoner call failed.
    CallFailed,
    /// The person cancelled a running call.
    CallCancelled,
    /// An answer had no recognisable sections and was saved aside.
    AnswerUnparsed,
    /// An update rewrote a whole section instead of patching it.
    SectionRewritten,
    /// One edit block of an update, applied or refused.
    EditBlock,
    /// Edit blocks failed and the architect was asked to repair them.
    EditRepairRequested,
    /// A repair answer changed sections the repair did not ask for; they were ignored.
    UnaskedSectionsIgnored,
    /// What a cycle cost against a full rewrite.
    CycleCost,
    /// A cycle was written to `design/`.
    CycleWritten,
    /// A cycle or the final design was committed.
    Committed,
    /// The design compiler ran on a cycle.
    DesignLinted,
    /// The reviewer edited an artifact by hand.
    ReviewerEdit,
    /// The reviewer's hand edit was merged into the architect's new text.
    ReviewerEditMerged,
    /// A settled part the architect changed was put back.
    SettledRestored,
    /// The architect changed artifacts no thread asked about.
    UnrequestedChanges,
    /// A review thread opened or changed status.
    ThreadStatus,
    /// The reviewer settled a part.
    Settled,
    /// The reviewer unsettled a part.
    Unsettled,
    /// The reviewer's verdict arrived.
    FeedbackReceived,
    /// The cycle limit forced finalization.
    ForcedFinalize,
    /// The reflection pass began.
    ReflectionStarted,
    /// The reflection pass ended.
    ReflectionDone,
    /// The person withdrew READY after the reflection.
    ReviewReopened,
    /// The final design was written.
    FinalizedDocs,
    /// An execution plan was compiled.
    PlanCompiled,
    /// The person approved the plan.
    PlanApproved,
    /// The person steered the plan.
    PlanSteered,
    /// The plan could not be repaired and went to a person.
    Escalated,
    /// An implement packet named what a change affects.
    ImpactReport,
}

impl JournalEvent {
    pub const ALL: [JournalEvent; 34] = [
        JournalEvent::DesignStarted,
        JournalEvent::ContextGathered,
        JournalEvent::UxDesignIncorporated,
        JournalEvent::ReasonerCall,
        JournalEvent::ReasonerMetrics,
        JournalEvent::CallFailed,
        JournalEvent::CallCancelled,
        JournalEvent::AnswerUnparsed,
        JournalEvent::SectionRewritten,
        JournalEvent::EditBlock,
        JournalEvent::EditRepairRequested,
        JournalEvent::UnaskedSectionsIgnored,
        JournalEvent::CycleCost,
        JournalEvent::CycleWritten,
        JournalEvent::Committed,
        JournalEvent::DesignLinted,
        JournalEvent::ReviewerEdit,
        JournalEvent::ReviewerEditMerged,
        JournalEvent::SettledRestored,
        JournalEvent::UnrequestedChanges,
        JournalEvent::ThreadStatus,
        JournalEvent::Settled,
        JournalEvent::Unsettled,
        JournalEvent::FeedbackReceived,
        JournalEvent::ForcedFinalize,
        JournalEvent::ReflectionStarted,
        JournalEvent::ReflectionDone,
        JournalEvent::ReviewReopened,
        JournalEvent::FinalizedDocs,
        JournalEvent::PlanCompiled,
        JournalEvent::PlanApproved,
        JournalEvent::PlanSteered,
        JournalEvent::Escalated,
        JournalEvent::ImpactReport,
    ];

    pub fn name(self) -> &'static str {
        match self {
            JournalEvent::DesignStarted => "design_started",
            JournalEvent::ContextGathered => "context_gathered",
            JournalEvent::UxDesignIncorporated => "ux_design_incorporated",
            JournalEvent::ReasonerCall => "reasoner_call",
            JournalEvent::ReasonerMetrics => "reasoner_metrics",
            JournalEvent::CallFailed => "call_failed",
            JournalEvent::CallCancelled => "call_cancelled",
            JournalEvent::AnswerUnparsed => "answer_unparsed",
            JournalEvent::SectionRewritten => "section_rewritten",
            JournalEvent::EditBlock => "edit_block",
            JournalEvent::EditRepairRequested => "edit_repair_requested",
            JournalEvent::UnaskedSectionsIgnored => "unasked_sections_ignored",
            JournalEvent::CycleCost => "cycle_cost",
            JournalEvent::CycleWritten => "cycle_written",
            JournalEvent::Committed => "committed",
            JournalEvent::DesignLinted => "design_linted",
            JournalEvent::ReviewerEdit => "reviewer_edit",
            JournalEvent::ReviewerEditMerged => "reviewer_edit_merged",
            JournalEvent::SettledRestored => "settled_restored",
            JournalEvent::UnrequestedChanges => "unrequested_changes",
            JournalEvent::ThreadStatus => "thread_status",
            JournalEvent::Settled => "settled",
            JournalEvent::Unsettled => "unsettled",
            JournalEvent::FeedbackReceived => "feedback_received",
            JournalEvent::ForcedFinalize => "forced_finalize",
            JournalEvent::ReflectionStarted => "reflection_started",
            JournalEvent::ReflectionDone => "reflection_done",
            JournalEvent::ReviewReopened => "review_reopened",
            JournalEvent::FinalizedDocs => "finalized_docs",
            JournalEvent::PlanCompiled => "plan_compiled",
            JournalEvent::PlanApproved => "plan_approved",
            JournalEvent::PlanSteered => "plan_steered",
            JournalEvent::Escalated => "escalated",
            JournalEvent::ImpactReport => "impact_report",
        }
    }

    /// The event a journal line names; `None` for a name this version does not know
    /// (a newer volk wrote it), which a reader shows as it is.
    pub fn from_name(name: &str) -> Option<JournalEvent> {
        JournalEvent::ALL.into_iter().find(|e| e.name() == name)
    }
}

impl JournalEntry {
    /// The line as written, with the current time.
    pub fn stamped(mut self) -> JournalEntry {
        self.time = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_is_written_under_its_name() {
        for event in JournalEvent::ALL {
            assert_eq!(
                serde_json::to_value(event).unwrap(),
                serde_json::Value::String(event.name().into())
            );
            assert_eq!(JournalEvent::from_name(event.name()), Some(event));
        }
        assert_eq!(JournalEvent::from_name("something_new"), None);
    }
}
