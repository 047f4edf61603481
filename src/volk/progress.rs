//! `PROJECT/context.json`: where the work stands, for the pipeline around volk
//! (SPEC-030 US-005). Each finished cycle appends `{cycle, verdict, commit, at}` to
//! `session_history`; finalization sets `state` to `IN_PROGRESS` with the implement
//! packet's outbox path before that packet goes out. Keys volk does not own are kept,
//! and the file is replaced atomically.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::cxp::Verdict;

/// A change to `context.json`, returned by the state machine as an effect.
#[derive(Debug, Clone, PartialEq)]
pub enum ContextUpdate {
    /// The reviewer's verdict closed `cycle`.
    CycleFinished {
        cycle: u32,
        verdict: Verdict,
        commit: Option<String>,
    },
    /// The design goes to the code director after `cycles` cycles.
    Escalated { cycles: u32 },
}

#[derive(Debug, thiserror::Error)]
pub enum ProgressError {
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a JSON object ({message}); left as it is")]
    Corrupt {
        path: std::path::PathBuf,
        message: String,
    },
}

/// Applies `update` to `project_dir/context.json`. `implement_packet` is the outbox path
/// the implement packet will have (for [`ContextUpdate::Escalated`]).
pub fn apply(
    project_dir: &Path,
    thread_id: &str,
    update: &ContextUpdate,
    implement_packet: &str,
) -> Result<(), ProgressError> {
    let path = project_dir.join("context.json");
    let limit = crate::confined::Limit::LEDGER;
    let mut doc: Map<String, Value> = match crate::confined::read_text(project_dir, &path, limit) {
        Ok(Some(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(ProgressError::Corrupt {
                    path,
                    message: "the root is not an object".into(),
                });
            }
            Err(e) => {
                return Err(ProgressError::Corrupt {
                    path,
                    message: e.to_string(),
                });
            }
        },
        Ok(None) => Map::new(),
        Err(source) => return Err(ProgressError::Io { path, source }),
    };
    let at = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    match update {
        ContextUpdate::CycleFinished {
            cycle,
            verdict,
            commit,
        } => {
            let history = doc
                .entry("session_history")
                .or_insert_with(|| Value::Array(Vec::new()));
            if !history.is_array() {
                *history = Value::Array(Vec::new());
            }
            if let Value::Array(items) = history {
                // A step redone after a crash replaces its own entry.
                items.retain(|item| {
                    item.get("cycle").and_then(Value::as_u64) != Some(u64::from(*cycle))
                });
                items.push(
                    json!({ "cycle": cycle, "verdict": verdict, "commit": commit, "at": at }),
                );
            }
        }
        ContextUpdate::Escalated { cycles } => {
            let state = doc
                .entry("state")
                .or_insert_with(|| Value::Object(Map::new()));
            if !state.is_object() {
                *state = Value::Object(Map::new());
            }
            if let Value::Object(state) = state {
                state.insert("work_status".into(), json!("IN_PROGRESS"));
                state.insert("thread_id".into(), json!(thread_id));
                state.insert("cycles".into(), json!(cycles));
                state.insert("implement_packet".into(), json!(implement_packet));
            }
        }
    }
    doc.entry("deferred_work")
        .or_insert_with(|| Value::Array(Vec::new()));
    let text = serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_default();
    crate::confined::write_atomic(project_dir, &path, text.as_bytes())
        .map_err(|source| ProgressError::Io { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_and_state_are_written_and_foreign_keys_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("context.json");
        std::fs::write(
            &path,
            r#"{"state": {"owner": "pm"}, "deferred_work": [1], "session_history": [], "mine": true}"#,
        )
        .unwrap();
        let finished = |cycle, verdict| ContextUpdate::CycleFinished {
            cycle,
            verdict,
            commit: Some(format!("c{cycle}")),
        };
        apply(dir.path(), "t", &finished(1, Verdict::Questions), "").unwrap();
        apply(dir.path(), "t", &finished(1, Verdict::Questions), "").unwrap();
        apply(dir.path(), "t", &finished(2, Verdict::Ready), "").unwrap();
        apply(
            dir.path(),
            "t",
            &ContextUpdate::Escalated { cycles: 2 },
            ".volk/outbox/004-implement.json",
        )
        .unwrap();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(doc["mine"], true);
        assert_eq!(doc["deferred_work"], json!([1]));
        assert_eq!(doc["state"]["owner"], "pm");
        assert_eq!(doc["state"]["work_status"], "IN_PROGRESS");
        assert_eq!(doc["state"]["cycles"], 2);
        assert_eq!(
            doc["state"]["implement_packet"],
            ".volk/outbox/004-implement.json"
        );
        let history = doc["session_history"].as_array().unwrap();
        assert_eq!(history.len(), 2);
        assert_eq!(history[0]["verdict"], "QUESTIONS");
        assert_eq!(history[1]["commit"], "c2");
        assert!(history[1]["at"].as_str().unwrap().ends_with('Z'));
    }
}
