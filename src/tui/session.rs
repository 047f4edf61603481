//! The bridge between the workbench and the design loop's runtime
//! (`volk::volk::runtime`): it creates or resumes a session, maps the runtime's events
//! to [`AppEvent`]s one to one and the workbench's [`Intent`]s to runtime commands.

use std::path::PathBuf;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::BadInput;
use crate::cxp::{Inbound, Packet, Scope};
use crate::design::Artifacts;
use crate::reasoner::SharedReasoner;
use crate::tui::event::{AppEvent, Intent, Phase};
use crate::volk::runtime::{self, Command, Event, RunOptions};
use crate::volk::session::{self as loop_session, Session};

/// How a workbench session begins.
#[derive(Debug, Clone)]
pub enum Start {
    /// A new design of `scope` in `workspace` (or the thread's existing project there).
    Scope {
        scope: Box<Scope>,
        thread_id: String,
        trace_id: String,
        workspace: PathBuf,
        max_cycles: Option<u32>,
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
    /// The newest finished cycle when resuming, and the one before it.
    pub restored: Option<(u32, Artifacts, Option<Artifacts>)>,
    /// The newest implement packet in the outbox, for a finalized session.
    pub implement_packet: Option<PathBuf>,
    pub events: UnboundedReceiver<AppEvent>,
    pub commands: UnboundedSender<Intent>,
}

/// Reads a packet held in memory (the bundled demo scope) as a design start.
pub fn scope_from_packet(
    source_name: &str,
    text: &str,
) -> Result<(Scope, String, String), BadInput> {
    let mut packet = Packet::parse(source_name, text).map_err(|e| BadInput::new(e.to_string()))?;
    let trace_id = packet.ensure_trace_id();
    match packet
        .classify(source_name)
        .map_err(|e| BadInput::new(e.to_string()))?
    {
        Inbound::Design(scope) => Ok((*scope, packet.header.thread_id.clone(), trace_id)),
        _ => Err(BadInput::new(format!(
            "{source_name}: header.subject: not a packet that starts a design"
        ))),
    }
}

/// Maps one runtime event to the workbench's event.
pub fn app_event(event: Event) -> AppEvent {
    match event {
        Event::Phase(phase) => AppEvent::Phase(Phase::from(&phase)),
        other => AppEvent::Loop(other),
    }
}

/// Maps an intent for the design loop to a runtime command; `None` for the
/// workbench's own intents.
pub fn command(intent: Intent) -> Option<Command> {
    Some(match intent {
        Intent::SendQuestions { questions, answers } => {
            Command::SendQuestions { questions, answers }
        }
        Intent::Ready => Command::Ready,
        Intent::Finalize => Command::Finalize,
        Intent::ApprovePlan => Command::ApprovePlan,
        Intent::SteerPlan(note) => Command::SteerPlan(note),
        Intent::Retry => Command::Retry,
        Intent::Cancel => Command::Cancel,
        Intent::Review(marks) => Command::Review(marks),
        Intent::LoadHistory
        | Intent::LoadCommit { .. }
        | Intent::EditArtifact { .. }
        | Intent::Quit => return None,
    })
}

/// Creates or resumes the session and starts the runtime on the current tokio runtime.
pub async fn connect(
    start: Start,
    reasoner: SharedReasoner,
    options: RunOptions,
) -> anyhow::Result<Connected> {
    let project_dir = match start {
        Start::Scope {
            scope,
            thread_id,
            trace_id,
            workspace,
            max_cycles,
        } => {
            let limit = max_cycles.unwrap_or(loop_session::DEFAULT_MAX_CYCLES);
            let (session, _created) = tokio::task::spawn_blocking(move || {
                runtime::prepare_project(&workspace, *scope, &thread_id, &trace_id, limit)
            })
            .await??;
            session.project_dir
        }
        Start::Open(dir) => dir,
    };
    let session = Session::load(&project_dir)
        .map_err(|e| BadInput::err(e.to_string()))?
        .ok_or_else(|| {
            BadInput::err(format!(
                "{}: not a volk project (no .volk/session.json)",
                project_dir.display()
            ))
        })?;
    let restored = (session.cycle > 0 && !session.artifacts.is_empty()).then(|| {
        (
            session.cycle,
            session.artifacts.clone(),
            session.previous.clone(),
        )
    });
    let name = if session.scope.project_name.trim().is_empty() {
        session.scope.task_summary.clone()
    } else {
        session.scope.project_name.clone()
    };
    let implement_packet = newest_implement_packet(&session.outbox_dir());
    let reasoner_name = reasoner.name().to_string();
    let model = reasoner.model().to_string();
    let (handle, mut runtime_events) = runtime::start(project_dir.clone(), reasoner, options)?;

    let (event_tx, events) = unbounded_channel();
    tokio::spawn(async move {
        while let Some(event) = runtime_events.recv().await {
            if event_tx.send(app_event(event)).is_err() {
                return;
            }
        }
    });
    let (commands, mut intents) = unbounded_channel::<Intent>();
    tokio::spawn(async move {
        while let Some(intent) = intents.recv().await {
            if let Some(command) = command(intent) {
                handle.send(command);
            }
        }
    });
    Ok(Connected {
        project_dir,
        project_name: name,
        thread_id: session.thread_id.clone(),
        max_cycles: session.max_cycles,
        reasoner_name,
        model,
        restored,
        implement_packet,
        events,
        commands,
    })
}

/// The outbox packets are numbered (`NNN-subject.json`), so the greatest name is the
/// newest.
fn newest_implement_packet(outbox: &std::path::Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(outbox).ok()?;
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("-implement.json"))
        })
        .max()
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
    fn the_demo_scope_starts_a_design() {
        let (scope, thread, _) =
            scope_from_packet("assets/demo/scope.json", crate::tui::cli::DEMO_SCOPE).unwrap();
        assert_eq!(scope.project_name, "bookshelf");
        assert_eq!(thread, "demo-bookshelf");
    }

    #[test]
    fn every_loop_intent_becomes_a_command() {
        assert_eq!(command(Intent::Ready), Some(Command::Ready));
        assert_eq!(command(Intent::Retry), Some(Command::Retry));
        assert_eq!(command(Intent::LoadHistory), None);
        assert_eq!(command(Intent::Quit), None);
    }
}
