//! One inbound packet, processed exactly once, by one writer.
//!
//! The order is what makes a crash at any instant recoverable by resending:
//! find or claim the thread's directory, take the thread lock, clear what a dead
//! process left ([`recover::sweep`]), consult the ledger (replay, stale, resume), record
//! the intent, and only then let the design loop change anything. The outbound packet
//! printed is always the one in the outbox, so a replay prints the same bytes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::BadInput;
use crate::cxp::{Inbound, Packet};
use crate::echo::escape_controls;
use crate::project::claim;
use crate::reasoner::SharedReasoner;
use crate::volk::ledger::{Decision, Key, Ledger, produced_since};
use crate::volk::lock::LockError;
use crate::volk::machine::{Architect, Input, Mode};
use crate::volk::open::{prepare_in, project_slug};
use crate::volk::protocol::Action;
use crate::volk::protocol::Phase;
use crate::volk::protocol::RunOptions;
use crate::volk::runtime::{HeadlessOutcome, drive_headless, resume_input};
use crate::volk::session::{DEFAULT_MAX_CYCLES, Session};

/// Where and how a packet is handled.
#[derive(Debug, Clone)]
pub struct Request {
    pub source_name: String,
    pub workspace: PathBuf,
    pub max_cycles: Option<u32>,
    /// How long to wait for another process holding the thread.
    pub lock_wait: Duration,
}

/// Handles `packet`; `Ok(None)` when it is not for the architect.
pub async fn handle(
    mut packet: Packet,
    request: &Request,
    reasoner: SharedReasoner,
    options: RunOptions,
) -> anyhow::Result<Option<HeadlessOutcome>> {
    let source = request.source_name.as_str();
    let inbound = packet
        .classify(source)
        .map_err(|e| BadInput::err(e.to_string()))?;
    let trace_id = packet.ensure_trace_id();
    let thread_id = packet.header.thread_id.clone();
    let key = Key::of(&packet);

    let dir = match &inbound {
        Inbound::Ignored { reason } => {
            crate::console::note(&format!(
                "[U:Ar] ignored packet from {}: {}",
                escape_controls(&packet.header.from_agent),
                escape_controls(reason)
            ));
            return Ok(None);
        }
        Inbound::Design(scope) => {
            claim::claim(&request.workspace, &project_slug(scope), &thread_id)
                .map_err(|e| {
                    anyhow::anyhow!(
                        "{}: cannot claim a project directory: {e}",
                        request.workspace.display()
                    )
                })?
                .dir()
                .to_path_buf()
        }
        Inbound::Feedback(_) => match claim::find_claimed(&request.workspace, &thread_id)
            .map_err(|e| anyhow::anyhow!("{}: {e}", request.workspace.display()))?
        {
            Some(dir) => dir,
            None => {
                return Err(BadInput::err(format!(
                    "{source}: header.thread_id: no design session for thread {} in {}",
                    escape_controls(&thread_id),
                    request.workspace.display()
                )));
            }
        },
    };

    let opened = crate::volk::open::open_dir(
        &dir,
        crate::volk::open::Wait::UpTo(request.lock_wait),
        "volk run",
    )
    .map_err(|e| match e.downcast::<LockError>() {
        // This very packet started and its process still holds the thread: it is being
        // processed, not refused.
        Ok(held @ LockError::Held { .. })
            if Ledger::load(&dir)
                .is_ok_and(|l| matches!(l.decide(&key), Decision::Resume(_))) =>
        {
            anyhow::Error::new(crate::error::InProgress(format!(
                "{held}; this packet is being processed by it (waited {} s, --lock-wait); nothing was done here, send it again once it finishes (exit 75)",
                request.lock_wait.as_secs()
            )))
        }
        Ok(held @ LockError::Held { .. }) => BadInput::err(format!(
            "{held}; gave up after {} s (--lock-wait)",
            request.lock_wait.as_secs()
        )),
        Ok(other) => anyhow::Error::new(other),
        Err(other) => other,
    })?;
    let _access = opened.access;
    let mut ledger = Ledger::load(&dir).map_err(|e| BadInput::err(e.to_string()))?;
    let existing = opened.session;
    let decision = ledger.decide(&key);
    let resuming = match decision {
        Decision::Replay(path) => return replay(&dir, &path).map(Some),
        Decision::Stale(entry) => {
            let cycle = entry
                .design_cycle
                .map(|c| format!(" for cycle {c}"))
                .unwrap_or_default();
            return Err(BadInput::err(format!(
                "{source}: payload: thread {} already took a different {} packet{cycle}; this one is stale",
                escape_controls(&thread_id),
                escape_controls(&key.subject)
            )));
        }
        Decision::Resume(entry) => {
            let waiting = existing.as_ref().is_some_and(|s| is_waiting(&s.phase));
            if waiting && let Some(path) = produced_since(&dir, entry.outbox_from) {
                // It finished before the crash; only the ledger missed it.
                ledger.finish(&key, path.clone());
                ledger.save(&dir).map_err(anyhow::Error::new)?;
                return replay(&dir, &path).map(Some);
            }
            true
        }
        Decision::New => false,
    };

    let (mut session, first) = match inbound {
        Inbound::Ignored { .. } => return Ok(None),
        Inbound::Design(scope) => {
            let limit = request.max_cycles.unwrap_or(DEFAULT_MAX_CYCLES);
            let (mut session, created) = prepare_in(&dir, *scope, &thread_id, &trace_id, limit)?;
            let first = if created {
                Some(Input::Begin)
            } else if session.phase.is_interrupted() {
                Some(Input::Act(Action::Retry))
            } else if let Some(input) = resume_input(&mut session) {
                Some(input)
            } else {
                return Err(BadInput::err(format!(
                    "{source}: header.thread_id: thread {} already has a design ({}) in {}",
                    escape_controls(&thread_id),
                    session.phase.label(),
                    session.project_dir.display()
                )));
            };
            (session, first)
        }
        Inbound::Feedback(feedback) => {
            let Some(mut session) = existing else {
                return Err(BadInput::err(format!(
                    "{}: no volk session here",
                    Session::path(&dir).display()
                )));
            };
            crate::volk::review::check_marks(&session.review, &feedback.marks)
                .map_err(|m| BadInput::err(format!("{source}: {m}")))?;
            // READY never ships an edit conflict unasked: refused before anything
            // is recorded, so the same packet with `force` still goes through.
            if feedback.verdict == crate::cxp::Verdict::Ready && !feedback.force {
                let conflicts = crate::volk::ready::conflicts_on_disk(&session.project_dir);
                if let Some(first) = conflicts.first() {
                    return Err(BadInput::err(format!(
                        "{source}: design/{}:{}: D050 an unresolved edit conflict is left ({} in all); resolve it, or send READY with payload.force: true",
                        first.file,
                        first.line,
                        conflicts.len()
                    )));
                }
            }
            let first = if session.phase.is_interrupted() {
                Input::Act(Action::Retry)
            } else if resuming && let Some(input) = resume_input(&mut session) {
                // Killed mid-step: finish the step this packet started.
                input
            } else {
                Input::Act(Action::Review(feedback))
            };
            (session, Some(first))
        }
    };
    if !resuming || packet.header.trace_id.is_some() {
        session.trace_id = trace_id;
    }
    // The phase and cycle checks run on a copy before the ledger records anything, so
    // a packet refused here (one cycle early, READY while reflecting) leaves no trace
    // and the right packet, sent later, is taken.
    if !resuming
        && let Some(input) = &first
        && let Err(refusal) = crate::volk::edit_guard::check(&session, input).and_then(|()| {
            Architect::new(session.clone(), Mode::Headless)
                .handle(input.clone())
                .map(drop)
        })
    {
        return Err(BadInput::err(format!("{source}: {refusal}")));
    }
    if !resuming {
        ledger.start(&key, session.outbox_seq);
        ledger.save(&dir).map_err(anyhow::Error::new)?;
    }

    let outcome = drive_headless(
        session,
        first,
        reasoner,
        request.max_cycles,
        options,
        source,
    )
    .await?;
    let Some((_, path)) = outcome.emitted.last() else {
        return Ok(Some(outcome));
    };
    let relative = path
        .strip_prefix(&outcome.project_dir)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.clone());
    ledger.finish(&key, relative.clone());
    ledger.save(&dir).map_err(anyhow::Error::new)?;
    let mut replayed = replay(&outcome.project_dir, &relative)?;
    replayed.project_dir = outcome.project_dir;
    Ok(Some(replayed))
}

fn is_waiting(phase: &Phase) -> bool {
    matches!(
        phase,
        Phase::AwaitingReview { .. }
            | Phase::AwaitingFinalize
            | Phase::AwaitingPlanApproval
            | Phase::Finalized
    )
}

/// The outbound packet stored at `relative` (in the outbox), as the outcome. A ledger
/// entry naming anything but a regular file in `.volk/outbox/` is refused: the ledger
/// is a file in the project, so it may have been forged.
fn replay(project_dir: &Path, relative: &Path) -> anyhow::Result<HeadlessOutcome> {
    let path = project_dir.join(relative);
    let outbox = Session::dir(project_dir).join("outbox");
    let in_outbox = relative.is_relative()
        && path.parent() == Some(outbox.as_path())
        && relative
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !in_outbox {
        return Err(BadInput::err(format!(
            "{}: outbound: {} is not a packet in .volk/outbox/; the ledger was altered",
            crate::volk::ledger::Ledger::path(project_dir).display(),
            escape_controls(&relative.display().to_string())
        )));
    }
    let limit = crate::confined::Limit::PACKET;
    let text = crate::confined::read_text(project_dir, &path, limit)
        .and_then(|t| t.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound)))
        .map_err(|e| {
            let line = format!("{}: cannot read the outbound packet: {e}", path.display());
            crate::confined::report(line, &e)
        })?;
    let packet: Packet = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{}: not a packet: {e}", path.display()))?;
    Ok(HeadlessOutcome {
        emitted: vec![(packet, path)],
        project_dir: project_dir.to_path_buf(),
    })
}

/// What `volk run` and `volk serve` build once from their flags before any packet:
/// one constructor and one entry point, so a worker on the bus processes a packet with
/// exactly the reasoner, config, trust rules and guards of `volk run`.
#[derive(Clone)]
pub struct Setup {
    pub workspace: PathBuf,
    pub reasoner: SharedReasoner,
    pub options: RunOptions,
    pub max_cycles: Option<u32>,
}

impl Setup {
    /// Reads `volk.toml` (trusted or not, as `volk run` does), builds the reasoner and
    /// creates the workspace.
    pub fn from_args(
        design: &crate::volk::loop_args::LoopArgs,
        cwd: &Path,
    ) -> anyhow::Result<Setup> {
        let workspace = design.workspace(cwd);
        let settings = design.settings(cwd).map_err(anyhow::Error::new)?;
        let reasoner = crate::reasoner::select::build(&design.reasoner, &settings)
            .map_err(anyhow::Error::new)?;
        let options = RunOptions {
            echo_stderr: true,
            context: design.context(&settings),
            reflection_config: Some(design.reflection_config(cwd)),
            max_tokens: settings.max_tokens,
            plan_repairs: settings.plan_repairs,
            lint_repairs: design.lint_repairs().map_err(anyhow::Error::new)?,
        };
        let max_cycles = design.max_cycles(&settings).map_err(anyhow::Error::new)?;
        std::fs::create_dir_all(&workspace).map_err(|e| {
            BadInput::err(format!(
                "{}: cannot create the workspace: {e}",
                workspace.display()
            ))
        })?;
        Ok(Setup {
            workspace,
            reasoner,
            options,
            max_cycles,
        })
    }

    /// Handles one packet under the thread's guards; see [`handle`].
    pub async fn process(
        &self,
        packet: Packet,
        source_name: &str,
        lock_wait: Duration,
    ) -> anyhow::Result<Option<HeadlessOutcome>> {
        let request = Request {
            source_name: source_name.to_string(),
            workspace: self.workspace.clone(),
            max_cycles: self.max_cycles,
            lock_wait,
        };
        handle(
            packet,
            &request,
            self.reasoner.clone(),
            self.options.clone(),
        )
        .await
    }
}

/// Parses packet text and refuses a bad sender before anything is created on disk.
pub fn accept(source_name: &str, text: &str) -> anyhow::Result<Packet> {
    let packet = Packet::parse(source_name, text).map_err(|e| BadInput::err(e.to_string()))?;
    packet
        .classify(source_name)
        .map_err(|e| BadInput::err(e.to_string()))?;
    Ok(packet)
}
