//! What a person or a reviewer decides, and the moments the core tells them about.

use crate::cxp::Feedback;

/// A decision of the person or of the reviewer. The workbench sends these for keys, and
/// `volk run` turns a `design_feedback` packet into one: both speak this vocabulary.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The verdict on a cycle: QUESTIONS (with them) or READY.
    Review(Feedback),
    /// After reflection: finalize now.
    Finalize,
    /// After reflection: READY was a mistake; review the same cycle again.
    Reopen,
    ApprovePlan,
    /// Steer the next plan attempt with a note.
    SteerPlan(String),
    /// Run the failed call again.
    Retry,
    /// Stop the running call.
    Cancel,
    /// Close threads, settle or unsettle parts, outside a verdict (the workbench).
    Mark(crate::cxp::ReviewMarks),
}

/// A moment the person must be told about, as a value a screen can act on; its
/// `Display` is the line in plain words (`volk run` adds `[U:Ar]` and the trace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The reviewer asked questions on the last allowed cycle: the design is finalized
    /// without READY.
    CycleLimit {
        cycle: u32,
        max: u32,
        trace_id: String,
    },
    /// The person cancelled the running call. `questions` are the ones the cancelled
    /// update was answering, handed back to be amended and sent again.
    Cancelled {
        questions: Vec<crate::brief::Question>,
    },
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::CycleLimit { max, .. } => write!(
                f,
                "Max design cycles reached ({max}): finalizing without READY"
            ),
            Notice::Cancelled { questions } if questions.is_empty() => {
                write!(f, "call cancelled; r runs it again")
            }
            Notice::Cancelled { questions } => write!(
                f,
                "call cancelled; your {} question(s) are back to amend: Ctrl-S sends them, r resends them as they were",
                questions.len()
            ),
        }
    }
}
