//! The async edge of the design loop: performs the effects the [`Architect`] returns
//! (reasoner calls, files, git, packets, journal) on tokio tasks and feeds the results
//! back as inputs. `volk run` drives it until the thread waits for a packet; the
//! workbench drives it through a [`SessionHandle`] and listens to [`Event`]s.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use serde_json::json;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::BadInput;
use crate::cxp::{Inbound, Packet, Scope};
use crate::design::write::write_design_docs;
use crate::limits::Limits;
use crate::project::Layout;
pub use crate::project::git::CommitInfo;
use crate::reasoner::metrics::{CallMetrics, Metered};
use crate::reasoner::{ReasonerRequest, SharedReasoner, StreamEvent};
use crate::volk::designed_with::DesignedWith;
use crate::volk::journal::{JournalEntry, JournalEvent};
use crate::volk::machine::{Architect, Effect, Input, Mode, ReflectionSetup, Written};
use crate::volk::protocol::Phase;
use crate::volk::protocol::{Action, ContextRoot, Event, Level, Notice, Query, RunOptions};
use crate::volk::queries::Queries;
pub use crate::volk::session::DEFAULT_MAX_CYCLES;
use crate::volk::session::{Session, SessionError};

#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the reasoner call failed: {0}")]
    CallFailed(String),
    #[error("{0}")]
    Refused(#[from] crate::volk::machine::Refusal),
    #[error(transparent)]
    Git(#[from] crate::volk::recover::GitTrouble),
}

struct CallOutcome {
    /// The call's usage, then its result.
    inputs: [Input; 2],
    metrics: CallMetrics,
}

/// Performs effects for one session.
struct Executor {
    reasoner: SharedReasoner,
    options: RunOptions,
    events: Option<UnboundedSender<Event>>,
    emitted: Vec<(Packet, PathBuf)>,
    failure: Option<String>,
    /// `design/` as it was when the last reasoner call started, to find what the person
    /// edited while it streamed.
    before_call: Option<Vec<(crate::design::Section, Option<String>)>>,
    /// Edits made while a call streamed, put back once the cycle is written and committed.
    edited_while_streaming: Vec<(PathBuf, String)>,
    /// The cycle costs last sent to the client.
    costs_sent: Vec<crate::volk::patch_cycle::CycleCost>,
}

/// Each `design/*.md` as it is on disk (`None` when absent); `None` when one cannot be
/// read (the hand-edit check reports that one).
fn design_on_disk(project_dir: &Path) -> Option<Vec<(crate::design::Section, Option<String>)>> {
    let dir = Layout::new(project_dir).design_dir();
    crate::design::Section::ALL
        .into_iter()
        .map(|s| {
            crate::design::write::read_design_file(&dir, s)
                .ok()
                .map(|text| (s, text))
        })
        .collect()
}

impl Executor {
    fn send(&self, event: Event) {
        if let Some(tx) = &self.events {
            let _ = tx.send(event);
        }
    }

    /// A line for the person: an event in plain words, and headless, the `[U:Ar]`
    /// line on stderr (progress lines carry the trace id there).
    fn say(&self, level: Level, text: &str, trace: Option<&str>) {
        if self.options.echo_stderr {
            let line = match trace {
                Some(trace) => format!("[U:Ar] {text} (trace {trace})"),
                None => format!("[U:Ar] {text}"),
            };
            crate::console::note(&crate::echo::escape_controls(&line));
        }
        self.send(Event::Notice {
            level,
            text: text.to_string(),
        });
    }

    /// Performs one effect; follow-up inputs go to `queue`, a reasoner call to `call`.
    async fn perform(
        &mut self,
        effect: Effect,
        session: &mut Session,
        queue: &mut VecDeque<Input>,
        call: &mut Option<BoxFuture<'static, CallOutcome>>,
    ) -> Result<(), RuntimeError> {
        match effect {
            Effect::GatherContext { text } => {
                let root = self.options.context.clone();
                let (section, symbols) =
                    tokio::task::spawn_blocking(move || gather_context(&root, &text))
                        .await
                        .unwrap_or_default();
                queue.push_back(Input::ContextReady { section, symbols });
            }
            Effect::CallReasoner { call: id, request } => {
                // The first call of a step (a lint repair follows the update it repairs).
                if self.before_call.is_none() {
                    self.before_call = design_on_disk(&session.project_dir);
                }
                self.send(Event::CallStarted {
                    call: id,
                    purpose: request.purpose,
                });
                *call = Some(Box::pin(run_call(
                    self.reasoner.clone(),
                    id,
                    request,
                    self.events.clone(),
                    self.options.echo_stderr,
                )));
            }
            Effect::KeepAnswer { path, text } => {
                crate::volk::unparsed::keep(&session.project_dir, &path, &text).map_err(
                    |source| RuntimeError::Io {
                        path: session.project_dir.join(&path),
                        source,
                    },
                )?;
            }
            Effect::WriteDocs { artifacts, written } => {
                // A file the person changed while the call streamed is kept: the cycle is
                // written (and committed) as the architect wrote it, then the edit is put
                // back, uncommitted, to be taken as a hand edit with the next feedback.
                if let (Some(before), Some(now)) = (
                    self.before_call.take(),
                    design_on_disk(&session.project_dir),
                ) {
                    let dir = Layout::new(&session.project_dir).design_dir();
                    for ((section, was), (_, is)) in before.into_iter().zip(now) {
                        if was != is
                            && let Some(text) = is
                        {
                            self.edited_while_streaming
                                .push((dir.join(section.file_name()), text));
                        }
                    }
                }
                let dir = Layout::new(&session.project_dir).design_dir();
                let target = dir.clone();
                let docs = artifacts.clone();
                tokio::task::spawn_blocking(move || write_design_docs(&target, &docs))
                    .await
                    .map_err(|e| RuntimeError::Io {
                        path: dir.clone(),
                        source: std::io::Error::other(e),
                    })?
                    .map_err(|source| RuntimeError::Io { path: dir, source })?;
                if let Written::Cycle { changed } = written {
                    self.send(Event::CycleReady {
                        cycle: session.cycle,
                        artifacts,
                        changed,
                    });
                }
            }
            Effect::Commit { cycle, message } => {
                self.send(Event::Committing { cycle });
                let dir = session.project_dir.clone();
                let had_commits = session.history.iter().any(|r| r.commit.is_some());
                let committed = tokio::task::spawn_blocking(move || {
                    crate::volk::recover::commit_step(&dir, &message, had_commits)
                })
                .await
                .map_err(|e| RuntimeError::CallFailed(e.to_string()))??;
                if let Some(committed) = committed {
                    let short_id: String = committed.id().to_string().chars().take(7).collect();
                    self.send(Event::Committed {
                        cycle,
                        short_id: short_id.clone(),
                    });
                    queue.push_back(Input::Committed { cycle, short_id });
                }
            }
            Effect::CommitReviewerEdit {
                message,
                fallback_author,
            } => {
                let dir = session.project_dir.clone();
                let result = tokio::task::spawn_blocking(move || {
                    crate::project::git::commit_all_by(&dir, &message, fallback_author)
                })
                .await;
                if let Ok(Err(e)) = result {
                    self.say(
                        Level::Warning,
                        &format!("the reviewer edit could not be committed: {e}"),
                        None,
                    );
                }
            }
            Effect::LoadReflection => {
                let path = self.options.reflection_config.clone();
                let loaded = tokio::task::spawn_blocking(move || load_reflection(path.as_deref()))
                    .await
                    .unwrap_or_else(|e| ReflectionSetup::Unreadable(e.to_string()));
                queue.push_back(Input::ReflectionLoaded(loaded));
            }
            Effect::ShowReflection { questions, answers } => {
                if self.options.echo_stderr {
                    crate::console::note(&format!(
                        "[U:Ar] reflection before finalizing ({} question(s)):",
                        questions.len()
                    ));
                    for line in answers.lines() {
                        // The model's words: no escape sequence reaches the terminal.
                        let line = crate::echo::escape_controls(line);
                        crate::console::note(&format!("[U:Ar]   {line}"));
                    }
                }
                self.send(Event::Reflection { questions, answers });
            }
            Effect::WriteReflection { markdown } => {
                let path = Layout::new(&session.project_dir).reflection();
                crate::confined::write_atomic(&session.project_dir, &path, markdown.as_bytes())
                    .map_err(|source| RuntimeError::Io { path, source })?;
            }
            Effect::ShowPlan(check) => self.send(Event::Plan(check)),
            Effect::WritePlan { json } => {
                let path = Layout::new(&session.project_dir).execution_plan();
                crate::confined::write_atomic(&session.project_dir, &path, json.as_bytes())
                    .map_err(|source| RuntimeError::Io { path, source })?;
            }
            Effect::Emit(packet) => {
                session.outbox_seq += 1;
                let path = session.outbox_dir().join(format!(
                    "{:03}-{}.json",
                    session.outbox_seq, packet.header.subject
                ));
                // Written once under its number: a step redone after a crash keeps the
                // packet that may already have been read.
                if std::fs::symlink_metadata(&path).is_err() {
                    let root = &session.project_dir;
                    let bytes = packet.to_json_pretty();
                    crate::confined::write_atomic(root, &path, bytes.as_bytes()).map_err(
                        |source| RuntimeError::Io {
                            path: path.clone(),
                            source,
                        },
                    )?;
                }
                if packet.header.subject == "implement" {
                    self.send(Event::Finalized {
                        packet: path.clone(),
                    });
                }
                self.emitted.push((packet, path));
            }
            Effect::Journal(entry) => {
                let entry = entry.stamped();
                let path = session.journal_path();
                let line = serde_json::to_string(&entry).unwrap_or_default();
                crate::confined::append_line(&session.project_dir, &path, &line)
                    .map_err(|source| RuntimeError::Io { path, source })?;
                self.send(Event::Journal(Box::new(entry)));
            }
            Effect::Log(line) => self.say(Level::Info, &line, Some(&session.trace_id)),
            Effect::Warn(line) => self.say(Level::Warning, &line, None),
            Effect::Notice(notice) => {
                if self.options.echo_stderr {
                    let line = match &notice {
                        Notice::CycleLimit { trace_id, .. } => {
                            format!("[U:Ar] {notice} (trace {trace_id})")
                        }
                        Notice::Cancelled { .. } => format!("[U:Ar] {notice}"),
                    };
                    crate::console::note(&crate::echo::escape_controls(&line));
                }
                self.send(Event::Noticed(notice));
            }
            Effect::SaveSession => session.save()?,
            Effect::Progress(update) => {
                let packet = format!(".volk/outbox/{:03}-implement.json", session.outbox_seq + 1);
                if let Err(e) = crate::volk::progress::apply(
                    &session.project_dir,
                    &session.thread_id,
                    &update,
                    &packet,
                ) {
                    self.say(
                        Level::Warning,
                        &format!("context.json not updated: {e}"),
                        None,
                    );
                }
            }
            // A client learns of it once, from the failed phase that follows.
            Effect::Failed { message, .. } => {
                if self.options.echo_stderr {
                    crate::console::note(&crate::echo::escape_controls(&format!(
                        "[U:Ar] reasoner call failed: {message}"
                    )));
                }
                self.failure = Some(message);
            }
        }
        Ok(())
    }

    /// The costs of every cycle, when they changed since the last send.
    fn send_costs(&mut self, session: &Session) {
        if self.costs_sent != session.patch.costs {
            self.costs_sent = session.patch.costs.clone();
            self.send(Event::Costs(self.costs_sent.clone()));
        }
    }

    fn journal_metrics(&self, session: &Session, metrics: &CallMetrics) {
        let entry = JournalEntry {
            time: String::new(),
            trace_id: session.trace_id.clone(),
            thread_id: session.thread_id.clone(),
            cycle: session.cycle,
            event: JournalEvent::ReasonerMetrics,
            detail: json!({
                "reasoner": self.reasoner.name(),
                "model": self.reasoner.model(),
                "metrics": metrics,
            }),
        }
        .stamped();
        let _ = crate::confined::append_line(
            &session.project_dir,
            &session.journal_path(),
            &serde_json::to_string(&entry).unwrap_or_default(),
        );
        self.send(Event::Metrics {
            ttft_ms: metrics.ttft_ms,
            tokens_per_sec: metrics.tokens_per_second,
        });
    }
}

/// Runs one reasoner call to its end, forwarding deltas as events; `echo` also says
/// each retry on stderr (headless), so a backoff never looks like a hang.
async fn run_call(
    reasoner: SharedReasoner,
    call: u64,
    request: ReasonerRequest,
    events: Option<UnboundedSender<Event>>,
    echo: bool,
) -> CallOutcome {
    let purpose = request.purpose;
    let mut text = String::new();
    let mut stream = Metered::new(reasoner.stream(request));
    let mut failure = None;
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => {
                match &event {
                    StreamEvent::Text { text: t } => text.push_str(t),
                    StreamEvent::Retrying(backoff) if echo => crate::console::note(
                        &crate::echo::escape_controls(&format!("[U:Ar] {backoff}")),
                    ),
                    _ => {}
                }
                if let Some(tx) = &events {
                    let _ = tx.send(Event::Delta {
                        call,
                        purpose,
                        event,
                    });
                }
            }
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    let metrics = stream.finish();
    let usage = Input::CallUsage {
        call,
        usage: metrics.usage,
    };
    let input = match failure {
        None => Input::ReasonerDone { call, text },
        Some(error) => {
            let retryable = !matches!(error, crate::reasoner::ReasonerError::MissingKey { .. });
            let kept = if text.is_empty() {
                String::new()
            } else {
                format!(" ({} bytes had arrived)", text.len())
            };
            Input::ReasonerFailed {
                call,
                message: format!("{error}{kept}"),
                retryable,
            }
        }
    };
    CallOutcome {
        inputs: [usage, input],
        metrics,
    }
}

/// The monorepo context for a design prompt, and which word matched which symbol.
/// Never fails: without a root (none given, no repository around) there is no context.
fn gather_context(root: &ContextRoot, text: &str) -> (String, Vec<String>) {
    let root = match root {
        ContextRoot::Off => None,
        ContextRoot::Discover => crate::context::resolve_root(None),
        ContextRoot::At(path) => crate::context::resolve_root(Some(path)),
    };
    let Some(root) = root else {
        return (String::new(), Vec::new());
    };
    let report = crate::context::build_context(&root, text);
    let symbols = report
        .matches
        .iter()
        .filter(|m| !matches!(m.shown, crate::context::Shown::Omitted))
        .map(|m| {
            format!(
                "{} -> {} {} ({}:{}-{})",
                m.written,
                m.kind.label(),
                m.symbol,
                m.file,
                m.start_line,
                m.end_line
            )
        })
        .collect();
    (report.section, symbols)
}

/// The reflection questions for the architect; `Ok(None)` when reflection is off.
/// Without a config path the default questions apply.
fn load_reflection(path: Option<&Path>) -> ReflectionSetup {
    match reflection_questions(path) {
        Ok(Some(questions)) => ReflectionSetup::Questions(questions),
        Ok(None) => ReflectionSetup::Off,
        Err(message) => ReflectionSetup::Unreadable(message),
    }
}

fn reflection_questions(path: Option<&Path>) -> Result<Option<Vec<String>>, String> {
    let fallback;
    let path = match path {
        Some(path) => path,
        None => {
            fallback = crate::reflection::locate_config(
                &std::env::current_dir().map_err(|e| e.to_string())?,
            );
            &fallback
        }
    };
    crate::reflection::architect_questions(path)
        .map(|selected| {
            selected.map(|qs| {
                qs.into_iter()
                    .map(|q| format!("[{}] {}", q.id, q.text))
                    .collect()
            })
        })
        .map_err(|e| e.to_string())
}

/// Drives `architect` from `first` until it waits. With `commands`, it keeps going
/// with the person's commands until the channel closes.
async fn drive(
    architect: &mut Architect,
    exec: &mut Executor,
    first: Option<Input>,
    mut commands: Option<UnboundedReceiver<Action>>,
) -> Result<(), RuntimeError> {
    let mut queue: VecDeque<Input> = first.into_iter().collect();
    let mut call: Option<BoxFuture<'static, CallOutcome>> = None;
    loop {
        while let Some(input) = queue.pop_front() {
            // The person acted: what `design/` holds now is theirs to have written.
            if matches!(input, Input::Act(_) | Input::ReviewerEdited { .. }) {
                exec.before_call = None;
            }
            // A hand edit that cannot be read refuses its feedback (see `edit_guard`).
            if let Err(refusal) = crate::volk::edit_guard::check(&architect.session, &input) {
                if commands.is_none() {
                    return Err(refusal.into());
                }
                exec.send(Event::Notice {
                    level: Level::Warning,
                    text: refusal.to_string(),
                });
                continue;
            }
            // Hand edits in `design/` are taken in (and committed) before the feedback.
            if let Some(artifacts) =
                crate::volk::edit_guard::detect_hand_edit(&architect.session, &input)
            {
                queue.push_front(input);
                queue.push_front(Input::ReviewerEdited { artifacts });
                continue;
            }
            let effects = match architect.handle(input) {
                Ok(effects) => effects,
                Err(refusal) if commands.is_some() => {
                    // A key pressed twice or a verdict on an old cycle: the loop did not
                    // fail, so the person is told on the status line, not in an error
                    // popup that would take the next keys.
                    exec.send(Event::Notice {
                        level: Level::Warning,
                        text: refusal.to_string(),
                    });
                    continue;
                }
                Err(refusal) => return Err(refusal.into()),
            };
            // One session write per transition, however many effects asked for it.
            let mut save = false;
            let mut rolled_back = false;
            for effect in effects {
                if matches!(effect, Effect::SaveSession) {
                    save = true;
                    continue;
                }
                if let Err(e) = exec
                    .perform(effect, &mut architect.session, &mut queue, &mut call)
                    .await
                {
                    // The workbench carries on from the last saved state; `r` redoes
                    // the step whose commit failed.
                    if commands.is_some()
                        && matches!(e, RuntimeError::Git(_))
                        && let Some(saved) = crate::volk::recover::roll_back(
                            &architect.session.project_dir,
                            &e.to_string(),
                        )?
                    {
                        // The saved phase is failed with this message: the phase
                        // event that follows reports it.
                        architect.restore(saved);
                        queue.clear();
                        call = None;
                        rolled_back = true;
                        break;
                    }
                    exec.send(Event::Stopped {
                        message: e.to_string(),
                    });
                    return Err(e);
                }
            }
            if rolled_back {
                exec.send(Event::Phase(architect.phase().clone()));
                continue;
            }
            if save {
                architect.session.save()?;
            }
            for (path, text) in std::mem::take(&mut exec.edited_while_streaming) {
                let root = &architect.session.project_dir;
                crate::confined::write_atomic(root, &path, text.as_bytes()).map_err(|source| {
                    RuntimeError::Io {
                        path: path.clone(),
                        source,
                    }
                })?;
                exec.say(
                    Level::Info,
                    &format!(
                        "{} was edited while the update streamed: the edit is kept and is taken with the next feedback",
                        path.display()
                    ),
                    None,
                );
            }
            // The figures first: a client that acts on the phase has them already.
            exec.send_costs(&architect.session);
            exec.send(Event::Phase(architect.phase().clone()));
            exec.send(Event::Review(Box::new(architect.session.review.clone())));
        }
        let Some(rx) = commands.as_mut() else {
            match call.take() {
                Some(pending) => {
                    let outcome = pending.await;
                    exec.journal_metrics(&architect.session, &outcome.metrics);
                    queue.extend(outcome.inputs);
                    continue;
                }
                None => return Ok(()),
            }
        };
        tokio::select! {
            outcome = async { match call.as_mut() { Some(c) => c.await, None => std::future::pending().await } } => {
                call = None;
                exec.journal_metrics(&architect.session, &outcome.metrics);
                queue.extend(outcome.inputs);
            }
            action = rx.recv() => {
                let Some(action) = action else { return Ok(()) };
                if action == Action::Cancel {
                    call = None; // dropping the stream stops the request
                }
                queue.push_back(Input::Act(action));
            }
        }
    }
}

/// The first input for a session loaded from disk: start it, or resume an interrupted
/// call (a crash or a closed terminal mid-stream).
pub fn resume_input(session: &mut Session) -> Option<Input> {
    match &session.phase {
        Phase::New => Some(Input::Begin),
        Phase::GatheringContext => Some(Input::Begin),
        Phase::Designing { .. } | Phase::Reflecting | Phase::Planning { .. } => {
            session.phase = Phase::Failed {
                resume: Box::new(session.phase.clone()),
                message: "interrupted".into(),
                retryable: true,
            };
            Some(Input::Act(Action::Retry))
        }
        _ => None,
    }
}

/// The outcome of one headless packet.
#[derive(Debug)]
pub struct HeadlessOutcome {
    /// Packets emitted, in order, with their outbox paths.
    pub emitted: Vec<(Packet, PathBuf)>,
    pub project_dir: PathBuf,
}

/// Drives a prepared headless session from `first` until it waits.
pub async fn drive_headless(
    mut session: Session,
    first: Option<Input>,
    reasoner: SharedReasoner,
    max_cycles: Option<u32>,
    options: RunOptions,
    source_name: &str,
) -> anyhow::Result<HeadlessOutcome> {
    if let Some(limit) = max_cycles {
        session.max_cycles = limit.clamp(1, Limits::CEILING.max_cycles);
    }
    let project_dir = session.project_dir.clone();
    let (tokens, repairs, lint_repairs) = bounded_limits(&options);
    session.reasoner = Some(DesignedWith::of(reasoner.as_ref()));
    let mut architect = Architect::new(session, Mode::Headless)
        .with_limits(tokens, repairs)
        .with_lint_repairs(lint_repairs);
    let mut exec = Executor {
        reasoner,
        options,
        events: None,
        emitted: Vec::new(),
        failure: None,
        before_call: None,
        edited_while_streaming: Vec::new(),
        costs_sent: Vec::new(),
    };
    match drive(&mut architect, &mut exec, first, None).await {
        Ok(()) => {}
        Err(RuntimeError::Refused(refusal)) => {
            return Err(BadInput::err(format!("{source_name}: {refusal}")));
        }
        Err(e) => return Err(e.into()),
    }
    if let Some(message) = exec.failure {
        return Err(RuntimeError::CallFailed(message).into());
    }
    Ok(HeadlessOutcome {
        emitted: exec.emitted,
        project_dir,
    })
}

/// The token and repair limits of a loop, each held to its ceiling whoever set it.
fn bounded_limits(options: &RunOptions) -> (u32, u32, u32) {
    let (default, ceiling) = (Limits::DEFAULT, Limits::CEILING);
    (
        options
            .max_tokens
            .unwrap_or(default.max_tokens)
            .min(ceiling.max_tokens),
        options
            .plan_repairs
            .unwrap_or(default.plan_repairs)
            .min(ceiling.plan_repairs),
        options
            .lint_repairs
            .unwrap_or(default.lint_repairs)
            .min(ceiling.lint_repairs),
    )
}

/// A cloneable way to send the person's actions to a running session and to ask
/// about its project. A read-only client's handle answers queries only.
#[derive(Debug, Clone)]
pub struct SessionHandle {
    actions: Option<UnboundedSender<Action>>,
    queries: Queries,
}

impl SessionHandle {
    /// A handle that only asks about `project_dir`: for a client that may not change
    /// the thread. Its answers go to `events`.
    pub fn reader(project_dir: PathBuf, events: UnboundedSender<Event>) -> SessionHandle {
        SessionHandle {
            actions: None,
            queries: Queries::new(project_dir, events),
        }
    }

    /// Sends `action` to the loop; `false` when nothing can take it (read-only, or
    /// the loop has stopped).
    pub fn act(&self, action: Action) -> bool {
        self.actions
            .as_ref()
            .is_some_and(|tx| tx.send(action).is_ok())
    }

    /// Answered with an event on the session's event channel.
    pub fn ask(&self, query: Query) {
        self.queries.ask(query);
    }
}

/// Starts the opened session on the current tokio runtime, interactively; its events
/// go to `events`, the client's own channel. A writer drives the loop; a reader gets
/// the phase the thread stands in and answers to its queries. Dropping every handle
/// ends it.
pub fn start(
    opened: &crate::volk::open::Opened,
    reasoner: SharedReasoner,
    options: RunOptions,
    events: UnboundedSender<Event>,
) -> Result<SessionHandle, BadInput> {
    let mut session = opened.session()?.clone();
    if let crate::volk::open::Access::ReadOnly { .. } = opened.access {
        // Where the thread stands, and its review (threads, the last cycle's hand
        // edit for the diff view), as a writer's loop reports them on start.
        let _ = events.send(Event::Phase(session.phase.clone()));
        let _ = events.send(Event::Review(Box::new(session.review.clone())));
        return Ok(SessionHandle::reader(opened.project_dir.clone(), events));
    }
    let queries = Queries::new(opened.project_dir.clone(), events.clone());
    let first = resume_input(&mut session);
    let (command_tx, command_rx) = unbounded_channel();
    let (tokens, repairs, lint_repairs) = bounded_limits(&options);
    session.reasoner = Some(DesignedWith::of(reasoner.as_ref()));
    let mut architect = Architect::new(session, Mode::Interactive)
        .with_limits(tokens, repairs)
        .with_lint_repairs(lint_repairs);
    let mut exec = Executor {
        reasoner,
        options,
        events: Some(events),
        emitted: Vec::new(),
        failure: None,
        before_call: None,
        edited_while_streaming: Vec::new(),
        costs_sent: Vec::new(),
    };
    tokio::spawn(async move {
        exec.send_costs(&architect.session);
        exec.send(Event::Phase(architect.phase().clone()));
        exec.send(Event::Review(Box::new(architect.session.review.clone())));
        if let Err(e) = drive(&mut architect, &mut exec, first, Some(command_rx)).await {
            tracing::error!("session runtime stopped: {e}");
        }
    });
    Ok(SessionHandle {
        actions: Some(command_tx),
        queries,
    })
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

/// Reads a design input for the workbench: a CXP packet (`.json`) whose subject starts a
/// design, or a requirements file (`.md`, `.txt`). Returns the scope, thread and trace id.
pub fn load_design_input(path: &Path) -> Result<(Scope, String, String), BadInput> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| BadInput::new(format!("{name}: cannot read: {e}")))?;
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    match extension.as_str() {
        "json" => {
            let mut packet =
                Packet::parse(&name, &text).map_err(|e| BadInput::new(e.to_string()))?;
            let trace_id = packet.ensure_trace_id();
            match packet
                .classify(&name)
                .map_err(|e| BadInput::new(e.to_string()))?
            {
                Inbound::Design(scope) => Ok((*scope, packet.header.thread_id.clone(), trace_id)),
                Inbound::Feedback(_) => Err(BadInput::new(format!(
                    "{name}: header.subject: design_feedback continues a design; open its project with `volk open`"
                ))),
                Inbound::Ignored { reason } => Err(BadInput::new(format!("{name}: {reason}"))),
            }
        }
        "md" | "txt" | "markdown" => {
            if text.trim().is_empty() {
                return Err(BadInput::new(format!(
                    "{name}: the requirements file is empty"
                )));
            }
            let title = text
                .lines()
                .map(|l| l.trim().trim_start_matches('#').trim())
                .find(|l| !l.is_empty())
                .unwrap_or_default()
                .to_string();
            // The project is named after the scope's title (its first heading), and
            // after the file only when the text starts without one.
            let heading = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .filter(|l| l.starts_with('#'))
                .map(|l| l.trim_start_matches('#').trim().to_string())
                .filter(|t| !t.is_empty());
            let project_name = heading.unwrap_or_else(|| {
                path.file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default()
                    .to_string()
            });
            let scope = Scope {
                task_summary: title,
                project_name,
                requirements: text,
                subject: "scope_validated".into(),
                ..Scope::default()
            };
            Ok((
                scope,
                format!("thread-{}", uuid::Uuid::new_v4()),
                uuid::Uuid::new_v4().to_string(),
            ))
        }
        other => Err(BadInput::new(format!(
            "{name}: unsupported input type '.{other}' (expected a .json packet or a .md/.txt requirements file)"
        ))),
    }
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
    use crate::volk::protocol::FinalizeReason;

    #[test]
    fn the_overview_says_when_the_cycle_limit_forced_the_finalize() {
        let dir = tempfile::tempdir().unwrap();
        let mut session = Session::new(
            "thread-1",
            "trace-1",
            dir.path().to_path_buf(),
            Default::default(),
            2,
        );
        session.save().unwrap();
        assert_eq!(
            crate::volk::open::Overview::of(&Session::load(dir.path()).unwrap().unwrap()).finalize,
            FinalizeReason::Ready
        );
        session.finalize = FinalizeReason::CycleLimit;
        session.save().unwrap();
        assert_eq!(
            crate::volk::open::Overview::of(&Session::load(dir.path()).unwrap().unwrap()).finalize,
            FinalizeReason::CycleLimit
        );
    }

    #[test]
    fn a_workbench_reopened_after_ready_gets_the_reflection_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut session = Session::new(
            "thread-1",
            "trace-1",
            dir.path().to_path_buf(),
            Default::default(),
            2,
        );
        session
            .reflections
            .push(crate::brief::reflected::Reflection {
                cycle: 1,
                answers: crate::brief::reflected::split(
                    &["[RFQ-010] What is missing?".into()],
                    "1. a load test",
                ),
            });
        session.phase = Phase::AwaitingReview { cycle: 1 };
        session.save().unwrap();
        assert_eq!(
            crate::volk::open::Overview::of(&Session::load(dir.path()).unwrap().unwrap())
                .reflection,
            None
        );
        session.phase = Phase::AwaitingPlanApproval;
        session.save().unwrap();
        let (questions, answers) =
            crate::volk::open::Overview::of(&Session::load(dir.path()).unwrap().unwrap())
                .reflection
                .unwrap();
        assert_eq!(questions, ["[RFQ-010] What is missing?"]);
        assert_eq!(answers, "1. a load test");
    }
}
