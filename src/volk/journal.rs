//! The decision journal: one JSON line per transition, with time and trace id, in
//! `PROJECT/.volk/journal.jsonl`. It never holds a credential or reflection answers.

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
    pub event: String,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub detail: Value,
}

impl JournalEntry {
    /// The line as written, with the current time.
    pub fn stamped(mut self) -> JournalEntry {
        self.time = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();
        self
    }
}
