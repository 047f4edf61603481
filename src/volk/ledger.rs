//! The processed-packet ledger, `PROJECT/.volk/processed.json`: every inbound packet
//! the thread has taken, with the outbound packet it produced. Pipelines resend a packet
//! when unsure it arrived; the ledger makes each one processed exactly once.
//!
//! An entry is written as `started` before the packet changes anything (the intent) and
//! becomes `done` with its outbound packet's outbox path once that packet is written. A
//! resend of a `done` packet replays the outbound packet; of a `started` one resumes the
//! step; a different packet for a cycle already taken is stale.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

use crate::cxp::Packet;
use crate::volk::session::Session;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Started,
    Done,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub subject: String,
    pub thread_id: String,
    /// `payload.design_cycle` as sent (absent for design subjects).
    pub design_cycle: Option<u32>,
    /// SHA-256 of the payload in canonical form (keys sorted), hex.
    pub digest: String,
    /// The outbox sequence number before this packet was taken: what it produced is
    /// numbered above it.
    pub outbox_from: u32,
    pub state: State,
    /// The outbound packet, relative to the project directory.
    #[serde(default)]
    pub outbound: Option<PathBuf>,
}

/// What to do with an inbound packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Never seen: process it.
    New,
    /// Already answered: print this outbound packet again.
    Replay(PathBuf),
    /// Taken but never finished (a crash): finish it.
    Resume(Entry),
    /// A different packet for a cycle already taken.
    Stale(Entry),
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Ledger {
    pub entries: Vec<Entry>,
}

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a volk ledger: {message}")]
    Corrupt { path: PathBuf, message: String },
}

/// The key a packet is known by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub subject: String,
    pub thread_id: String,
    pub design_cycle: Option<u32>,
    pub digest: String,
}

impl Key {
    pub fn of(packet: &Packet) -> Key {
        Key {
            subject: packet.header.subject.clone(),
            thread_id: packet.header.thread_id.clone(),
            design_cycle: packet
                .payload
                .get("design_cycle")
                .and_then(Value::as_u64)
                .and_then(|c| u32::try_from(c).ok()),
            digest: digest(&Value::Object(packet.payload.clone())),
        }
    }
}

/// SHA-256 of `value` with object keys sorted, so the same payload always has the same
/// digest however its keys were ordered.
pub fn digest(value: &Value) -> String {
    let mut hasher = Sha256::new();
    feed(&mut hasher, value);
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn feed(hasher: &mut Sha256, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            hasher.update(b"{");
            for key in keys {
                hasher.update(serde_json::to_string(key).unwrap_or_default().as_bytes());
                hasher.update(b":");
                if let Some(v) = map.get(key) {
                    feed(hasher, v);
                }
                hasher.update(b",");
            }
            hasher.update(b"}");
        }
        Value::Array(items) => {
            hasher.update(b"[");
            for item in items {
                feed(hasher, item);
                hasher.update(b",");
            }
            hasher.update(b"]");
        }
        other => hasher.update(other.to_string().as_bytes()),
    }
}

impl Ledger {
    pub fn path(project_dir: &Path) -> PathBuf {
        Session::dir(project_dir).join("processed.json")
    }

    pub fn load(project_dir: &Path) -> Result<Ledger, LedgerError> {
        let path = Self::path(project_dir);
        match crate::confined::read_text(project_dir, &path, crate::confined::Limit::LEDGER) {
            Ok(Some(text)) => serde_json::from_str(&text).map_err(|e| LedgerError::Corrupt {
                path,
                message: e.to_string(),
            }),
            Ok(None) => Ok(Ledger::default()),
            Err(source) => Err(LedgerError::Io { path, source }),
        }
    }

    pub fn save(&self, project_dir: &Path) -> Result<(), LedgerError> {
        let path = Self::path(project_dir);
        let text = serde_json::to_string_pretty(self).map_err(|e| LedgerError::Corrupt {
            path: path.clone(),
            message: e.to_string(),
        })?;
        crate::confined::write_atomic(project_dir, &path, text.as_bytes())
            .map_err(|source| LedgerError::Io { path, source })
    }

    /// What to do with a packet known by `key`.
    pub fn decide(&self, key: &Key) -> Decision {
        let same_slot = |e: &&Entry| {
            e.subject == key.subject
                && e.thread_id == key.thread_id
                && e.design_cycle == key.design_cycle
        };
        if let Some(entry) = self
            .entries
            .iter()
            .filter(same_slot)
            .find(|e| e.digest == key.digest)
        {
            return match (&entry.state, &entry.outbound) {
                (State::Done, Some(path)) => Decision::Replay(path.clone()),
                _ => Decision::Resume(entry.clone()),
            };
        }
        // A slot with a cycle (feedback) or a design subject takes one packet only.
        match self.entries.iter().find(same_slot) {
            Some(entry) => Decision::Stale(entry.clone()),
            None => Decision::New,
        }
    }

    /// Records the intent to process `key`, before anything changes.
    pub fn start(&mut self, key: &Key, outbox_from: u32) {
        self.entries.retain(|e| {
            !(e.subject == key.subject
                && e.thread_id == key.thread_id
                && e.design_cycle == key.design_cycle
                && e.digest == key.digest)
        });
        self.entries.push(Entry {
            subject: key.subject.clone(),
            thread_id: key.thread_id.clone(),
            design_cycle: key.design_cycle,
            digest: key.digest.clone(),
            outbox_from,
            state: State::Started,
            outbound: None,
        });
    }

    /// Marks `key` done with the outbound packet it produced.
    pub fn finish(&mut self, key: &Key, outbound: PathBuf) {
        if let Some(entry) = self.entries.iter_mut().rev().find(|e| {
            e.subject == key.subject && e.thread_id == key.thread_id && e.digest == key.digest
        }) {
            entry.state = State::Done;
            entry.outbound = Some(outbound);
        }
    }
}

/// The newest outbox packet numbered above `after`, relative to the project directory.
pub fn produced_since(project_dir: &Path, after: u32) -> Option<PathBuf> {
    let outbox = Session::dir(project_dir).join("outbox");
    let mut found: Vec<(u32, PathBuf)> = crate::confined::read_dir(project_dir, &outbox)
        .ok()?
        .into_iter()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let seq: u32 = name.split('-').next()?.parse().ok()?;
            name.ends_with(".json").then_some((seq, e.path()))
        })
        .filter(|(seq, _)| *seq > after)
        .collect();
    found.sort();
    let (_, path) = found.pop()?;
    path.strip_prefix(project_dir).ok().map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(cycle: Option<u32>, digest: &str) -> Key {
        Key {
            subject: "design_feedback".into(),
            thread_id: "t".into(),
            design_cycle: cycle,
            digest: digest.into(),
        }
    }

    #[test]
    fn same_packet_replays_different_packet_is_stale() {
        let mut ledger = Ledger::default();
        let a = key(Some(1), "aa");
        assert_eq!(ledger.decide(&a), Decision::New);
        ledger.start(&a, 1);
        assert!(matches!(ledger.decide(&a), Decision::Resume(_)));
        ledger.finish(&a, ".volk/outbox/002-design_review.json".into());
        assert_eq!(
            ledger.decide(&a),
            Decision::Replay(".volk/outbox/002-design_review.json".into())
        );
        assert!(matches!(
            ledger.decide(&key(Some(1), "bb")),
            Decision::Stale(_)
        ));
        assert_eq!(ledger.decide(&key(Some(2), "bb")), Decision::New);
    }

    #[test]
    fn digest_ignores_key_order() {
        let a: Value = serde_json::from_str(r#"{"a":1,"b":{"c":[1,2],"d":"x"}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"b":{"d":"x","c":[1,2]},"a":1}"#).unwrap();
        assert_eq!(digest(&a), digest(&b));
        let c: Value = serde_json::from_str(r#"{"a":2}"#).unwrap();
        assert_ne!(digest(&a), digest(&c));
    }
}
