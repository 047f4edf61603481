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

/// Declares the journal's events once: each variant with the name it is written
/// under, from which the serde name, [`JournalEvent::name`] and [`JournalEvent::ALL`]
/// all come.
macro_rules! journal_events {
    ($($(#[doc = $doc:literal])* $variant:ident => $name:literal,)*) => {
        /// What a journal line records. The names are the `event` field of
        /// `journal.jsonl`, read by people and by tools: never rename one.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum JournalEvent {
            $($(#[doc = $doc])* #[serde(rename = $name)] $variant,)*
        }

        impl JournalEvent {
            pub const ALL: [JournalEvent; [$($name),*].len()] = [$(JournalEvent::$variant),*];

            /// The name a journal line carries.
            pub fn name(self) -> &'static str {
                match self {
                    $(JournalEvent::$variant => $name,)*
                }
            }
        }
    };
}

journal_events! {
    /// A scope arrived and cycle 1 began.
    DesignStarted => "design_started",
    /// The monorepo context for the prompt was gathered.
    ContextGathered => "context_gathered",
    /// A UX packet was folded into the scope.
    UxDesignIncorporated => "ux_design_incorporated",
    /// A reasoner call was sent.
    ReasonerCall => "reasoner_call",
    /// A reasoner call ended: its timing and tokens.
    ReasonerMetrics => "reasoner_metrics",
    /// A reasoner call failed.
    CallFailed => "call_failed",
    /// The person cancelled a running call.
    CallCancelled => "call_cancelled",
    /// An answer had no recognisable sections and was saved aside.
    AnswerUnparsed => "answer_unparsed",
    /// An update rewrote a whole section instead of patching it.
    SectionRewritten => "section_rewritten",
    /// One edit block of an update, applied or refused.
    EditBlock => "edit_block",
    /// Edit blocks failed and the architect was asked to repair them.
    EditRepairRequested => "edit_repair_requested",
    /// A repair answer changed sections the repair did not ask for; they were ignored.
    UnaskedSectionsIgnored => "unasked_sections_ignored",
    /// What a cycle cost against a full rewrite.
    CycleCost => "cycle_cost",
    /// A cycle was written to `design/`.
    CycleWritten => "cycle_written",
    /// A cycle or the final design was committed.
    Committed => "committed",
    /// The design compiler ran on a cycle.
    DesignLinted => "design_linted",
    /// The reviewer edited an artifact by hand.
    ReviewerEdit => "reviewer_edit",
    /// The reviewer's hand edit was merged into the architect's new text.
    ReviewerEditMerged => "reviewer_edit_merged",
    /// A settled part the architect changed was put back.
    SettledRestored => "settled_restored",
    /// The architect changed artifacts no thread asked about.
    UnrequestedChanges => "unrequested_changes",
    /// A review thread opened or changed status.
    ThreadStatus => "thread_status",
    /// The reviewer settled a part.
    Settled => "settled",
    /// The reviewer unsettled a part.
    Unsettled => "unsettled",
    /// The reviewer's verdict arrived.
    FeedbackReceived => "feedback_received",
    /// The cycle limit forced finalization.
    ForcedFinalize => "forced_finalize",
    /// The reflection pass began.
    ReflectionStarted => "reflection_started",
    /// The reflection pass ended.
    ReflectionDone => "reflection_done",
    /// The person withdrew READY after the reflection.
    ReviewReopened => "review_reopened",
    /// The final design was written.
    FinalizedDocs => "finalized_docs",
    /// An execution plan was compiled.
    PlanCompiled => "plan_compiled",
    /// The person approved the plan.
    PlanApproved => "plan_approved",
    /// The person steered the plan.
    PlanSteered => "plan_steered",
    /// The plan could not be repaired and went to a person.
    Escalated => "escalated",
    /// An implement packet named what a change affects.
    ImpactReport => "impact_report",
}

impl JournalEvent {
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
