//! The bridge between the workbench and the design loop's runtime
//! (`volk::volk::runtime`): it creates or resumes a session, maps the runtime's events
//! to [`AppEvent`]s one to one and the workbench's [`Intent`]s to runtime commands.

use std::path::PathBuf;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::BadInput;
use crate::cxp::{Inbound, Packet, Scope};
use crate::design::Artifacts;
use crate::reasoner::SharedReasoner;
use crate::tui::event::{AppEvent, Intent};
use crate::volk::lock::{self, LockError, ThreadLock};
use crate::volk::runtime::{self, Action, Event, Query, RunOptions};
use crate::volk::session::Session;

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
    /// Why a resumed session is being finalized (a forced finalize has no way back).
    pub finalize: crate::volk::session::FinalizeReason,
    pub reasoner_name: String,
    pub model: String,
    /// The newest finished cycle when resuming, and the one before it.
    pub restored: Option<(u32, Artifacts, Option<Artifacts>)>,
    /// The newest implement packet in the outbox, for a finalized session.
    pub implement_packet: Option<PathBuf>,
    /// What each cycle so far cost (for the cost meter).
    pub costs: Vec<crate::volk::patch_cycle::CycleCost>,
    /// The newest reflection of a design past READY (questions, answers).
    pub reflection: Option<(Vec<String>, String)>,
    pub events: UnboundedReceiver<AppEvent>,
    pub commands: UnboundedSender<Intent>,
    /// The thread lock, held while the workbench runs; `None` when read-only.
    pub lock: Option<ThreadLock>,
    /// Who holds the thread when this workbench may only read it.
    pub read_only: Option<String>,
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

/// What an intent asks of the runtime.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Act(Action),
    Query(Query),
}

/// Maps an intent to what it asks of the runtime; `None` for the workbench's own.
pub fn request(intent: Intent) -> Option<Request> {
    Some(match intent {
        Intent::Act(action) => Request::Act(action),
        Intent::LoadHistory => Request::Query(Query::History),
        Intent::LoadCommit {
            id,
            short_id,
            summary,
        } => Request::Query(Query::Commit {
            id,
            short_id,
            summary,
        }),
        Intent::EditArtifact { .. } | Intent::ResolveConflict { .. } | Intent::Quit => {
            return None;
        }
    })
}

/// Creates or resumes the session and starts the runtime on the current tokio runtime.
pub async fn connect(
    start: Start,
    reasoner: SharedReasoner,
    options: RunOptions,
) -> anyhow::Result<Connected> {
    let (project_dir, lock) = match start {
        Start::Scope {
            scope,
            thread_id,
            trace_id,
            workspace,
            max_cycles,
        } => {
            let limit = max_cycles.unwrap_or(runtime::DEFAULT_MAX_CYCLES);
            tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
                let slug = runtime::project_slug(&scope);
                let dir = crate::project::claim::claim(&workspace, &slug, &thread_id)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", workspace.display()))?
                    .dir()
                    .to_path_buf();
                let lock = take_lock(&dir, "volk design")?;
                if lock.is_ok() {
                    runtime::prepare_in(&dir, *scope, &thread_id, &trace_id, limit)?;
                }
                Ok((dir.canonicalize().unwrap_or(dir), lock))
            })
            .await??
        }
        Start::Open(dir) => {
            let lock = take_lock(&dir, "volk open")?;
            (dir, lock)
        }
    };
    let dir = project_dir.clone();
    let overview = tokio::task::spawn_blocking(move || runtime::overview(&dir))
        .await?
        .map_err(|e| BadInput::err(e.to_string()))?;
    let restored = overview.restored;
    let implement_packet = overview.implement_packet;
    let reasoner_name = reasoner.name().to_string();
    let model = reasoner.model().to_string();
    let (lock, read_only) = match lock {
        Ok(lock) => (Some(lock), None),
        Err(holder) => (None, Some(holder)),
    };
    let (event_tx, events) = unbounded_channel();
    let (commands, mut intents) = unbounded_channel::<Intent>();
    if read_only.is_none() {
        let (handle, mut runtime_events) = runtime::start(project_dir.clone(), reasoner, options)?;
        tokio::spawn(async move {
            while let Some(event) = runtime_events.recv().await {
                if event_tx.send(AppEvent::Loop(event)).is_err() {
                    return;
                }
            }
        });
        if restored.is_some() {
            // The diff view of a resumed session compares with the cycle before.
            handle.query(Query::PreviousCycle);
        }
        tokio::spawn(async move {
            while let Some(intent) = intents.recv().await {
                match request(intent) {
                    Some(Request::Act(action)) => handle.act(action),
                    Some(Request::Query(query)) => handle.query(query),
                    None => {}
                }
            }
        });
    } else {
        // Nothing may change the thread: actions are dropped (the app refuses them
        // first, with a notice); reading the history still works.
        let (query_tx, mut answers) = unbounded_channel::<Event>();
        let queries = crate::volk::queries::Queries::new(project_dir.clone(), query_tx);
        if restored.is_some() {
            queries.ask(Query::PreviousCycle);
        }
        tokio::spawn(async move {
            while let Some(intent) = intents.recv().await {
                if let Some(Request::Query(query)) = request(intent) {
                    queries.ask(query);
                }
            }
        });
        // Show where the thread stands, and its review (threads, the last cycle's
        // hand edit for the diff view), as the runtime would on start.
        if let Ok(Some(session)) = Session::load(&project_dir) {
            let _ = event_tx.send(AppEvent::Loop(Event::Phase(session.phase)));
            let _ = event_tx.send(AppEvent::Loop(Event::Review(Box::new(session.review))));
        }
        tokio::spawn(async move {
            while let Some(event) = answers.recv().await {
                if event_tx.send(AppEvent::Loop(event)).is_err() {
                    return;
                }
            }
        });
    }
    Ok(Connected {
        project_dir,
        project_name: overview.project_name,
        thread_id: overview.thread_id,
        max_cycles: overview.max_cycles,
        finalize: overview.finalize,
        reasoner_name,
        model,
        restored,
        costs: overview.costs,
        reflection: overview.reflection,
        implement_packet,
        events,
        commands,
        lock,
        read_only,
    })
}

/// The thread lock for a workbench: `Ok(lock)` to write, `Err(holder)` to open
/// read-only because another process holds it. With the lock, what a dead process left
/// behind is swept first.
fn take_lock(dir: &std::path::Path, command: &str) -> anyhow::Result<Result<ThreadLock, String>> {
    match lock::try_acquire(dir, command)? {
        Ok(lock) => {
            crate::volk::recover::sweep(dir).map_err(|e| {
                crate::confined::report(
                    format!("{}: cannot clear temp files: {e}", dir.display()),
                    &e,
                )
            })?;
            if let Ok(Some(mut session)) = Session::load(dir) {
                crate::volk::recover::trim_journal(&session).map_err(|e| {
                    crate::confined::report(
                        format!("{}: {e}", session.journal_path().display()),
                        &e,
                    )
                })?;
                // A kill right after a commit: the commit is in git, its records are not.
                if crate::volk::recover::repair_commits(&mut session).unwrap_or(false) {
                    session.save()?;
                }
            }
            Ok(Ok(lock))
        }
        Err(LockError::Held { holder, .. }) => Ok(Err(
            holder.map_or_else(|| "another volk process".to_string(), |h| h.to_string())
        )),
        Err(other) => Err(other.into()),
    }
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
    fn intents_become_actions_or_queries() {
        assert_eq!(
            request(Intent::Act(Action::Retry)),
            Some(Request::Act(Action::Retry))
        );
        assert_eq!(
            request(Intent::LoadHistory),
            Some(Request::Query(Query::History))
        );
        assert_eq!(request(Intent::Quit), None);
    }
}
