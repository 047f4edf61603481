//! Opening a design thread, one way for every client: `volk run` and `volk serve` for
//! a packet, `volk design` and `volk open` for the workbench.
//!
//! The order is what makes a crash at any instant recoverable: find or claim the
//! thread's directory, take the thread lock, clear what a dead process left, then load
//! the session once, trimmed to what its last save recorded and with a commit the
//! records missed put back. A client that cannot take the lock may still read: the
//! workbench opens read-only and says who holds it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::BadInput;
use crate::cxp::Scope;
use crate::design::Artifacts;
use crate::project::Layout;
use crate::project::scaffold::init_project;
use crate::volk::lock::{self, LockError, ThreadLock};
use crate::volk::protocol::Phase;
use crate::volk::recover;
use crate::volk::session::{DEFAULT_MAX_CYCLES, Session, SessionError};

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

/// How a client waits for a thread another process holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// The workbench: at once, and read-only when held.
    ReadOnlyIfHeld,
    /// A packet: up to this long, then the caller is told who holds it.
    UpTo(Duration),
}

/// Whether this process may change the thread.
#[derive(Debug)]
pub enum Access {
    /// It holds the thread lock until this value is dropped.
    Writer(ThreadLock),
    /// Another process holds the thread (named here): this one only reads.
    ReadOnly { holder: String },
}

impl Access {
    pub fn holder(&self) -> Option<&str> {
        match self {
            Access::Writer(_) => None,
            Access::ReadOnly { holder } => Some(holder),
        }
    }
}

/// A thread's directory, opened.
#[derive(Debug)]
pub struct Opened {
    pub project_dir: PathBuf,
    pub access: Access,
    /// The session, read once (after recovery, for a writer).
    pub session: Option<Session>,
}

/// Locks `dir` as `command`, recovers what a dead process left (for a writer) and
/// loads the session once. A thread held past the wait is a [`LockError::Held`] in
/// the error, for the caller to explain.
pub fn open_dir(dir: &Path, wait: Wait, command: &str) -> anyhow::Result<Opened> {
    let access = match wait {
        Wait::ReadOnlyIfHeld => match lock::try_acquire(dir, command) {
            Ok(Ok(lock)) => Access::Writer(lock),
            Ok(Err(LockError::Held { holder, .. })) => Access::ReadOnly {
                holder: holder
                    .map_or_else(|| "another volk process".to_string(), |h| h.to_string()),
            },
            Ok(Err(other)) | Err(other) => return Err(other.into()),
        },
        Wait::UpTo(limit) => match lock::acquire(dir, limit, command) {
            Ok(lock) => Access::Writer(lock),
            Err(other) => return Err(other.into()),
        },
    };
    let session = match access {
        Access::Writer(_) => recovered(dir)?,
        Access::ReadOnly { .. } => load(dir)?,
    };
    Ok(Opened {
        project_dir: dir.to_path_buf(),
        access,
        session,
    })
}

/// Opens a workbench's thread: claims a new scope's directory (scaffolding its project
/// and session when this process may write), or the project named.
pub fn open(start: Start, command: &str) -> anyhow::Result<Opened> {
    match start {
        Start::Scope {
            scope,
            thread_id,
            trace_id,
            workspace,
            max_cycles,
        } => {
            let dir = crate::project::claim::claim(&workspace, &project_slug(&scope), &thread_id)
                .map_err(|e| anyhow::anyhow!("{}: {e}", workspace.display()))?
                .dir()
                .to_path_buf();
            let mut opened = open_dir(&dir, Wait::ReadOnlyIfHeld, command)?;
            if opened.session.is_none() && matches!(opened.access, Access::Writer(_)) {
                let limit = max_cycles.unwrap_or(DEFAULT_MAX_CYCLES);
                let (session, _) = prepare_in(&dir, *scope, &thread_id, &trace_id, limit)?;
                opened.session = Some(session);
            }
            opened.project_dir = dir.canonicalize().unwrap_or(dir);
            Ok(opened)
        }
        Start::Open(dir) => open_dir(&dir, Wait::ReadOnlyIfHeld, command),
    }
}

impl Opened {
    /// The session, or the error line a client shows when the directory has none.
    pub fn session(&self) -> Result<&Session, BadInput> {
        self.session.as_ref().ok_or_else(|| {
            BadInput::new(format!(
                "{}: not a volk project (no session)",
                Session::path(&self.project_dir).display()
            ))
        })
    }

    /// What a client shows before the first event.
    pub fn overview(&self) -> Result<Overview, BadInput> {
        Ok(Overview::of(self.session()?))
    }
}

/// Clears what a dead process left in `dir`, then loads its session trimmed to its last
/// save, with a commit its records missed put back. Only a lock holder may do this.
fn recovered(dir: &Path) -> anyhow::Result<Option<Session>> {
    recover::sweep(dir).map_err(|e| {
        crate::confined::report(
            format!("{}: cannot clear temp files: {e}", dir.display()),
            &e,
        )
    })?;
    let Some(mut session) = load(dir)? else {
        return Ok(None);
    };
    recover::trim_journal(&session).map_err(|e| {
        crate::confined::report(format!("{}: {e}", session.journal_path().display()), &e)
    })?;
    // A kill right after a commit: the commit is in git, its records are not.
    let journal = session.journal_path();
    if recover::repair_commits(&mut session)
        .map_err(|e| crate::confined::report(format!("{}: {e}", journal.display()), &e))?
    {
        session.save().map_err(anyhow::Error::new)?;
    }
    Ok(Some(session))
}

/// The session in `dir`; a corrupt one or one of an unknown version is bad input.
fn load(dir: &Path) -> anyhow::Result<Option<Session>> {
    Session::load(dir).map_err(session_error)
}

/// A session file volk cannot read is the input's fault: one line, exit 2.
fn session_error(e: SessionError) -> anyhow::Error {
    match e {
        SessionError::Corrupt { path, message } => {
            BadInput::err(format!("{}: not a volk session: {message}", path.display()))
        }
        other => anyhow::Error::new(other),
    }
}

/// Creates (or finds) the project and session of a new design thread: the thread's
/// own directory, or a new one claimed atomically (see [`crate::project::claim`]).
pub fn prepare_project(
    workspace: &Path,
    scope: Scope,
    thread_id: &str,
    trace_id: &str,
    max_cycles: u32,
) -> anyhow::Result<(Session, bool)> {
    let claimed = crate::project::claim::claim(workspace, &project_slug(&scope), thread_id)
        .map_err(|e| anyhow::anyhow!("{}: {e}", workspace.display()))?;
    prepare_in(claimed.dir(), scope, thread_id, trace_id, max_cycles)
}

/// The directory name a scope asks for.
pub fn project_slug(scope: &Scope) -> String {
    if scope.project_name.trim().is_empty() {
        crate::project::slug::slugify(&scope.task_summary)
    } else {
        crate::project::slug::slugify(&scope.project_name)
    }
}

/// The session in `dir`, a directory claimed for `thread_id`: loaded, or scaffolded
/// and created (`true`).
pub fn prepare_in(
    dir: &Path,
    scope: Scope,
    thread_id: &str,
    trace_id: &str,
    max_cycles: u32,
) -> anyhow::Result<(Session, bool)> {
    let dir = dir.to_path_buf();
    if let Some(existing) = load(&dir)? {
        return Ok((existing, false));
    }
    let report = init_project(&dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    if let Some(error) = &report.git_error {
        tracing::warn!("git init failed in {}: {error}", dir.display());
    }
    if let Some(Err(error)) = &report.venv {
        tracing::debug!("uv venv failed in {}: {error}", dir.display());
    }
    let dir = dir.canonicalize().unwrap_or(dir);
    let session = Session::new(thread_id, trace_id, dir, scope, max_cycles);
    session.save().map_err(session_error)?;
    Ok((session, true))
}

/// What a client shows of a session before its first event, read from disk.
#[derive(Debug, Clone)]
pub struct Overview {
    pub project_name: String,
    pub thread_id: String,
    pub max_cycles: u32,
    /// Why the design is being finalized, when it is.
    pub finalize: crate::volk::protocol::FinalizeReason,
    /// The newest finished cycle, its artifacts and the cycle's before it.
    pub restored: Option<(u32, Artifacts, Option<Artifacts>)>,
    /// The newest implement packet in the outbox, for a finalized session.
    pub implement_packet: Option<PathBuf>,
    /// What each cycle so far cost (the workbench's cost meter).
    pub costs: Vec<crate::volk::patch_cycle::CycleCost>,
    /// The newest reflection, once the design is past READY: its questions and
    /// answers as the plan tab shows them.
    pub reflection: Option<(Vec<String>, String)>,
}

impl Overview {
    /// What a client shows of `session` before its first event.
    pub fn of(session: &Session) -> Overview {
        let layout = Layout::new(&session.project_dir);
        let restored = (session.cycle > 0 && !session.artifacts.is_empty()).then(|| {
            (
                session.cycle,
                session.artifacts.clone(),
                session.previous.clone(),
            )
        });
        let project_name = if session.scope.project_name.trim().is_empty() {
            session.scope.task_summary.clone()
        } else {
            session.scope.project_name.clone()
        };
        Overview {
            project_name,
            thread_id: session.thread_id.clone(),
            max_cycles: session.max_cycles,
            finalize: session.finalize,
            restored,
            implement_packet: layout.newest_implement_packet(),
            costs: session.patch.costs.clone(),
            reflection: past_ready(&session.phase)
                .then(|| {
                    session
                        .reflections
                        .last()
                        .map(crate::brief::reflected::shown)
                })
                .flatten(),
        }
    }
}

/// True once READY was accepted: the reflection belongs to the design as it stands.
fn past_ready(phase: &Phase) -> bool {
    match phase {
        Phase::AwaitingFinalize
        | Phase::Planning { .. }
        | Phase::AwaitingPlanApproval
        | Phase::Finalized => true,
        Phase::Failed { resume, .. } | Phase::Cancelled { resume } => past_ready(resume),
        _ => false,
    }
}
