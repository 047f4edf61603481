//! The event loop: one `tokio::select!` over terminal input, the design loop's events
//! (sent by the runtime straight to this loop's channel), the workbench's own jobs, the
//! frame scheduler and a spinner tick. Actions and queries go to the session's handle
//! as the core's values; the answers come back as events. Nothing here waits on disk
//! or network.

use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::crossterm::event::Event;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::tui::app::App;
use crate::tui::draft::DraftStore;
use crate::tui::event::{AppEvent, Intent, LoopEvent};
use crate::tui::frame::{FRAME, FrameScheduler};
use crate::tui::highlight;
use crate::tui::view;
use crate::volk::protocol::Query;
use crate::volk::runtime::SessionHandle;

/// How the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The person quit.
    Quit,
    /// Terminal input ended (the terminal went away).
    InputClosed,
}

/// How quickly input reached the screen during one run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LoopStats {
    pub frames: u64,
    pub inputs: u64,
    /// The longest time from a terminal event arriving to the end of the frame that
    /// showed it.
    pub worst_input_to_frame: Duration,
}

/// What the loop talks to.
pub struct Channels {
    pub terminal: UnboundedReceiver<Event>,
    /// The design loop's events, sent by the runtime straight to this channel.
    pub events: UnboundedReceiver<LoopEvent>,
    /// Failures of the workbench's own jobs (saving the draft).
    pub jobs: UnboundedReceiver<String>,
    /// The running session: actions and queries go to it as the core's values.
    pub session: SessionHandle,
}

/// Runs until the person quits. `drafts` saves the draft on every change.
pub async fn run<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    mut channels: Channels,
    drafts: Option<&DraftStore>,
) -> anyhow::Result<(Exit, LoopStats)>
where
    B::Error: Send + Sync + 'static,
{
    let mut frames = FrameScheduler::new(FRAME);
    let mut spinner = tokio::time::interval(Duration::from_millis(100));
    spinner.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    frames.request();
    let mut events_open = true;
    let mut jobs_open = true;
    let mut stats = LoopStats::default();
    // The oldest terminal event not yet on screen.
    let mut input_since: Option<std::time::Instant> = None;
    loop {
        let deadline = frames.deadline(tokio::time::Instant::now());
        // The notice on screen goes at its time without another key.
        let notice_goes = app.notice.deadline().map(tokio::time::Instant::from_std);
        tokio::select! {
            biased;
            input = channels.terminal.recv() => match input {
                Some(event) => {
                    if let Event::Resize(_, _) = event {
                        terminal.autoresize()?;
                    }
                    input_since.get_or_insert_with(std::time::Instant::now);
                    stats.inputs += 1;
                    app.on_terminal_event(event);
                    frames.request_now();
                }
                None => return Ok((Exit::InputClosed, stats)),
            },
            _ = sleep_until(deadline), if deadline.is_some() => {
                view::render(terminal, app)?;
                frames.drawn(tokio::time::Instant::now());
                stats.frames += 1;
                if let Some(since) = input_since.take() {
                    let latency = since.elapsed();
                    if latency > FRAME {
                        tracing::debug!("input took {latency:?} to reach the screen");
                    }
                    stats.worst_input_to_frame = stats.worst_input_to_frame.max(latency);
                }
                if std::mem::take(&mut app.redraw_soon) {
                    frames.request();
                }
            }
            event = channels.events.recv(), if events_open => match event {
                Some(event) => {
                    app.on_app_event(AppEvent::Loop(event));
                    // Take whatever else is queued: one redraw for the whole batch.
                    while let Ok(more) = channels.events.try_recv() {
                        app.on_app_event(AppEvent::Loop(more));
                    }
                    frames.request();
                }
                None => events_open = false,
            },
            failure = channels.jobs.recv(), if jobs_open => match failure {
                Some(message) => {
                    app.on_app_event(AppEvent::JobFailed(message));
                    frames.request();
                }
                None => jobs_open = false,
            },
            _ = sleep_until(notice_goes), if notice_goes.is_some() => {
                app.notice.expire(std::time::Instant::now());
                frames.request();
            }
            _ = spinner.tick(), if app.model.phase().is_busy() || app.model.committing() || !highlight::is_warm() => {
                app.tick();
                frames.request();
            }
        }
        for intent in app.take_intents() {
            match intent {
                Intent::Quit => {
                    // Draw once more so the screen is current if the terminal is shared.
                    return Ok((Exit::Quit, stats));
                }
                Intent::EditArtifact { section, line } => {
                    let path = app
                        .info
                        .project_dir
                        .join("design")
                        .join(section.file_name());
                    match crate::tui::editor::hand_over(&path, line) {
                        // The runtime reads what the editor left (it owns `design/`).
                        Ok(status) if status.success() => {
                            channels.session.ask(Query::Artifact(section));
                        }
                        Ok(status) => {
                            app.say(format!("the editor exited with {status}"));
                        }
                        Err(e) => app.say(format!("cannot start the editor: {e}")),
                    }
                    terminal.clear()?;
                    frames.request_now();
                }
                Intent::ResolveConflict { section, text } => {
                    let path = app
                        .info
                        .project_dir
                        .join("design")
                        .join(section.file_name());
                    match write_file(&path, &format!("{text}\n")) {
                        // Read back through the runtime, as after $EDITOR, so the
                        // model holds what is on disk.
                        Ok(()) => channels.session.ask(Query::Artifact(section)),
                        Err(e) => app.error(format!("cannot write {}: {e}", path.display())),
                    }
                    frames.request_now();
                }
                Intent::Act(action) => {
                    if !channels.session.act(action) {
                        app.say("the design loop has stopped".into());
                    }
                }
                Intent::Ask(query) => channels.session.ask(query),
            }
        }
        if app.draft_changed {
            app.draft_changed = false;
            if let Some(store) = drafts {
                store.update(&app.draft);
            }
        }
    }
}

/// Writes `text` to `path` through a temp file in the same directory and a rename,
/// so an interrupted write never leaves half a file.
fn write_file(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(text.as_bytes())?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Reads terminal input on a plain thread (crossterm's reader blocks) and forwards it.
/// The thread ends when the receiver is dropped.
pub fn spawn_input_reader() -> UnboundedReceiver<Event> {
    let (tx, rx) = unbounded_channel();
    let _ = std::thread::Builder::new()
        .name("volk-input".into())
        .spawn(move || {
            use ratatui::crossterm::event;
            loop {
                if crate::tui::editor::INPUT_PAUSED.load(std::sync::atomic::Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                match event::poll(Duration::from_millis(100)) {
                    Ok(true) => match event::read() {
                        Ok(ev) => {
                            if tx.send(ev).is_err() {
                                return;
                            }
                        }
                        Err(e) => {
                            tracing::warn!("terminal input: {e}");
                            return;
                        }
                    },
                    Ok(false) => {
                        if tx.is_closed() {
                            return;
                        }
                    }
                    Err(e) => {
                        tracing::warn!("terminal input: {e}");
                        return;
                    }
                }
            }
        });
    rx
}
