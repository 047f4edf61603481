//! The bridge between the workbench and the design loop's runtime: it starts (or
//! resumes) a session, maps the runtime's events to [`AppEvent`]s one to one and the
//! workbench's [`Intent`]s to runtime commands.

use std::path::{Path, PathBuf};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::BadInput;
use crate::design::Artifacts;
use crate::reasoner::SharedReasoner;
use crate::tui::event::{AppEvent, Intent};

/// How a workbench session begins.
#[derive(Debug, Clone)]
pub enum Start {
    /// A new design from an inbound packet.
    Packet {
        packet: serde_json::Value,
        workspace: PathBuf,
        max_cycles: Option<u32>,
        context_root: Option<PathBuf>,
    },
    /// Resume the session in an existing project.
    Open(PathBuf),
}

/// A running session as the workbench sees it.
pub struct Connected {
    pub project_dir: PathBuf,
    pub project_name: String,
    pub thread_id: String,
    pub max_cycles: u32,
    pub reasoner_name: String,
    pub model: String,
    /// The newest finished cycle when resuming.
    pub restored: Option<(u32, Artifacts)>,
    pub events: UnboundedReceiver<AppEvent>,
    pub commands: UnboundedSender<Intent>,
}

/// Reads the input of `volk design`: a CXP packet (`.json`) or a requirements file
/// (`.md`, `.txt`) that becomes a `scope_validated` packet from the product manager.
pub fn packet_from_input(path: &Path) -> anyhow::Result<serde_json::Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| BadInput::err(format!("{}: cannot read: {e}", path.display())))?;
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    match extension.as_str() {
        "json" => serde_json::from_str(&text).map_err(|e| {
            BadInput::err(format!(
                "{}:{}:{}: invalid JSON: {e}",
                path.display(),
                e.line(),
                e.column()
            ))
        }),
        "md" | "txt" | "markdown" => Ok(packet_from_requirements(path, &text)),
        other => Err(BadInput::err(format!(
            "{}: expected a .json packet or a .md/.txt requirements file, not '.{other}'",
            path.display()
        ))),
    }
}

fn packet_from_requirements(path: &Path, text: &str) -> serde_json::Value {
    let summary = text
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .unwrap_or("a design")
        .to_string();
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("project")
        .to_string();
    serde_json::json!({
        "header": {
            "from_agent": "U:PM",
            "to_agent": "U:Ar",
            "subject": "scope_validated",
        },
        "payload": {
            "task_summary": summary,
            "project_name": name,
            "requirements": text,
            "original_intent": summary,
        }
    })
}

/// Starts or resumes the session.
pub async fn connect(start: Start, reasoner: SharedReasoner) -> anyhow::Result<Connected> {
    let _ = (start, reasoner);
    anyhow::bail!(
        "the design loop's runtime is not on this branch yet; the workbench is wired to it at the merge"
    )
}

/// Joins two event sources into one channel.
pub fn merge(
    mut a: UnboundedReceiver<AppEvent>,
    mut b: UnboundedReceiver<AppEvent>,
) -> UnboundedReceiver<AppEvent> {
    let (tx, rx) = unbounded_channel();
    tokio::spawn(async move {
        let mut a_open = true;
        let mut b_open = true;
        while a_open || b_open {
            tokio::select! {
                event = a.recv(), if a_open => match event {
                    Some(e) => { if tx.send(e).is_err() { return; } }
                    None => a_open = false,
                },
                event = b.recv(), if b_open => match event {
                    Some(e) => { if tx.send(e).is_err() { return; } }
                    None => b_open = false,
                },
            }
        }
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_file_becomes_a_scope_packet() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("reading-log.md");
        std::fs::write(&path, "# A reading log\n\n1. Track books\n").unwrap();
        let packet = packet_from_input(&path).unwrap();
        assert_eq!(packet["header"]["subject"], "scope_validated");
        assert_eq!(packet["payload"]["task_summary"], "A reading log");
        assert_eq!(packet["payload"]["project_name"], "reading-log");
    }

    #[test]
    fn invalid_json_names_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scope.json");
        std::fs::write(&path, "{\n  \"header\": ,\n}").unwrap();
        let err = packet_from_input(&path).unwrap_err();
        assert!(crate::error::is_bad_input(&err));
        let message = err.to_string();
        assert!(message.contains("scope.json:2:"), "{message}");
    }

    #[test]
    fn the_demo_scope_is_a_valid_packet() {
        let packet: serde_json::Value = serde_json::from_str(crate::tui::cli::DEMO_SCOPE).unwrap();
        assert_eq!(packet["header"]["from_agent"], "U:PM");
        assert_eq!(packet["payload"]["project_name"], "bookshelf");
    }
}
