//! What a follow-up request of an update cycle asks for, carried in the reasoner's
//! brief so the prompt, the offline drafter and a retried call all see the same thing.

use serde::{Deserialize, Serialize};

use crate::design::Section;
use crate::design::edit::EditBlock;

/// The follow-up after blocks failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairKind {
    /// Send new blocks for the failed ones (once per cycle).
    Blocks,
    /// The repair failed too: write these sections whole.
    Full,
}

/// A block that did not apply, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedBlock {
    pub block: EditBlock,
    pub reason: String,
}

/// One section to repair; its current text is in the brief's design.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionRepair {
    pub section: Section,
    pub failures: Vec<FailedBlock>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepairRequest {
    pub kind: RepairKind,
    pub sections: Vec<SectionRepair>,
}
