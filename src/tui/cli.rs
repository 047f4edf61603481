//! `volk demo`, `volk design`, `volk open`: resolve the inputs, start the design loop,
//! enter full-screen mode and run the workbench until the person quits.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use crate::BadInput;
use crate::config::Settings;
use crate::reasoner::SharedReasoner;
use crate::reasoner::offline::OfflineDrafter;
use crate::reasoner::select::ReasonerArgs;
use crate::tui::app::{App, SessionInfo};
use crate::tui::draft::{self, DraftError, DraftStore};
use crate::tui::event::AppEvent;
use crate::tui::model::Restored;
use crate::tui::runloop::{self, Channels, Exit};
use crate::tui::signals::{Signals, Stop};
use crate::tui::terminal::TerminalGuard;
use crate::tui::theme::Theme;
use crate::tui::view;
use crate::volk::loop_args::LoopArgs;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::volk::open::{Opened, Start};
use crate::volk::protocol::{ContextRoot, Event, RunOptions};
use crate::volk::runtime::SessionHandle;

/// The bundled example scope.
pub const DEMO_SCOPE: &str = include_str!("../../assets/demo/scope.json");

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Workspace for the demo project (default: a new directory in the temp dir).
    #[arg(long)]
    pub workspace: Option<PathBuf>,
    /// Colour theme (a name from themes/ or a path to a theme file).
    #[arg(long)]
    pub theme: Option<String>,
}

#[derive(Debug, Args)]
pub struct DesignArgs {
    /// A CXP packet (.json) or a requirements file (.md, .txt).
    pub input: PathBuf,
    #[command(flatten)]
    pub design: LoopArgs,
    /// Colour theme (a name from themes/ or a path to a theme file).
    #[arg(long)]
    pub theme: Option<String>,
}

#[derive(Debug, Args)]
pub struct OpenArgs {
    /// A project directory created by volk.
    pub project_dir: PathBuf,
    #[command(flatten)]
    pub reasoner: ReasonerArgs,
    #[arg(long)]
    pub theme: Option<String>,
    /// Automatic repair passes for a cycle with design errors before the review
    /// (default 1; 0 turns them off).
    #[arg(long, value_name = "N")]
    pub lint_repairs: Option<u32>,
}

fn theme(flag: Option<&str>, settings: &Settings) -> anyhow::Result<Theme> {
    let name = flag.or(settings.theme.as_deref()).unwrap_or("dark");
    Theme::load(name).map_err(|e| BadInput::err(e.to_string()))
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?)
}

fn options(settings: &Settings, context: ContextRoot) -> RunOptions {
    RunOptions {
        echo_stderr: false,
        context,
        reflection_config: None,
        max_tokens: settings.max_tokens,
        plan_repairs: settings.plan_repairs,
        lint_repairs: None,
    }
}

pub fn demo(args: DemoArgs) -> anyhow::Result<ExitCode> {
    let launched = Instant::now();
    let settings = Settings::load(&[Path::new(".")])?;
    let theme = theme(args.theme.as_deref(), &settings)?;
    let workspace = match args.workspace {
        Some(dir) => dir,
        None => tempfile::Builder::new()
            .prefix("volk-demo-")
            .tempdir()?
            .keep(),
    };
    crate::fsutil::create_private_dir(&workspace)
        .map_err(|e| BadInput::err(format!("{}: cannot create: {e}", workspace.display())))?;
    let (scope, thread_id, trace_id) =
        crate::volk::runtime::scope_from_packet("assets/demo/scope.json", DEMO_SCOPE)?;
    // Paced so a person can watch the tabs fill: about 1.6 KB/s in 48-byte chunks.
    let reasoner: SharedReasoner = Arc::new(OfflineDrafter::paced(Duration::from_millis(30), 48));
    let start = Start::Scope {
        scope: Box::new(scope),
        thread_id,
        trace_id,
        workspace: workspace.clone(),
        max_cycles: settings.max_cycles,
    };
    let code = workbench(
        launched,
        start,
        reasoner,
        theme,
        options(&settings, ContextRoot::Off),
    )?;
    crate::console::line(&format!(
        "volk demo: the workspace is {}",
        workspace.display()
    ))?;
    Ok(code)
}

pub fn design(args: DesignArgs) -> anyhow::Result<ExitCode> {
    let launched = Instant::now();
    let cwd = std::env::current_dir()?;
    let design = &args.design;
    let settings = design.settings(&cwd)?;
    let theme = theme(args.theme.as_deref(), &settings)?;
    let (scope, thread_id, trace_id) = crate::volk::runtime::load_design_input(&args.input)?;
    let reasoner = crate::reasoner::select::build(&design.reasoner, &settings)?;
    if let Some(notice) = crate::reasoner::select::offline_notice(&design.reasoner, &settings) {
        crate::console::note(notice);
    }
    let start = Start::Scope {
        scope: Box::new(scope),
        thread_id,
        trace_id,
        workspace: design.workspace(&cwd),
        max_cycles: design.max_cycles(&settings)?,
    };
    let mut options = options(&settings, design.context(&settings));
    options.reflection_config = Some(design.reflection_config(&cwd));
    options.lint_repairs = design.lint_repairs()?;
    workbench(launched, start, reasoner, theme, options)
}

pub fn open(args: OpenArgs) -> anyhow::Result<ExitCode> {
    let launched = Instant::now();
    let dir = &args.project_dir;
    let session_file = crate::project::Layout::new(dir).session();
    if !session_file.is_file() {
        return Err(BadInput::err(format!(
            "{}: not a volk project (no {}; start one with `volk design`)",
            dir.display(),
            session_file.display()
        )));
    }
    let settings = Settings::load(&[dir.as_path(), Path::new(".")])?;
    let theme = theme(args.theme.as_deref(), &settings)?;
    // The reasoner it was designed with, unless the flags say otherwise.
    let resumed =
        crate::volk::designed_with::resume_args(dir, &args.reasoner, settings.base_url.as_deref())?;
    let reasoner = crate::reasoner::select::build(&resumed, &settings)?;
    workbench(
        launched,
        Start::Open(dir.clone()),
        reasoner,
        theme,
        RunOptions {
            lint_repairs: args.lint_repairs,
            ..options(
                &settings,
                ContextRoot::configured(settings.context_root.clone()),
            )
        },
    )
}

/// The loop was ended by a signal.
#[derive(Debug, thiserror::Error)]
#[error("stopped by {}", .0.name())]
struct Stopped(Stop);

/// After a signal, with the terminal already restored: says where the draft is and
/// exits with 128 + the signal number.
fn stopped(stop: Stop, draft: Option<(Result<(), DraftError>, &Path)>) -> ExitCode {
    tracing::info!("workbench stopped by {}", stop.name());
    match draft {
        Some((Ok(()), path)) => {
            crate::console::note(&format!(
                "volk: stopped by {}; the draft is saved in {}",
                stop.name(),
                path.display()
            ));
        }
        Some((Err(e), _)) => {
            crate::console::note(&format!("volk: stopped by {}; {e}", stop.name()))
        }
        None => crate::console::note(&format!("volk: stopped by {}", stop.name())),
    }
    stop.exit_code()
}

/// Starts the opened session's runtime and shows it in the workbench: the header's
/// facts, the cycle a resumed session stands at with its costs, its reflection and its
/// packet. The runtime's events go to the returned receiver. The binary and the screen
/// tests' harness (`tests/support/live.rs`) both call it, so a snapshot shows the header
/// the binary draws. Call it inside a tokio runtime.
pub fn attach(
    app: &mut App,
    opened: &Opened,
    reasoner: SharedReasoner,
    options: RunOptions,
) -> Result<(SessionHandle, UnboundedReceiver<Event>), BadInput> {
    let overview = opened.overview()?;
    let (event_tx, events) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let session = crate::volk::runtime::start(opened, reasoner, options, event_tx)?;
    if overview.restored.is_some() {
        // The diff view of a resumed session compares with the cycle before.
        session.ask(crate::volk::protocol::Query::PreviousCycle);
    }
    app.read_only = opened.access.holder().map(str::to_string);
    app.info = SessionInfo {
        project_name: overview.project_name.clone(),
        project_dir: opened.project_dir.clone(),
        thread_id: overview.thread_id.clone(),
        max_cycles: overview.max_cycles,
        reasoner: std::mem::take(&mut app.info.reasoner),
        model: String::new(),
    };
    app.open_session(Restored {
        finalize: overview.finalize,
        cycle: overview.restored,
        costs: overview.costs,
        reflection: overview.reflection,
    });
    if let Some(packet) = overview.implement_packet {
        app.on_app_event(AppEvent::Loop(Event::Finalized { packet }));
    }
    Ok((session, events))
}

/// Starts the loop and the screen; returns when the person quits.
fn workbench(
    launched: Instant,
    start: Start,
    reasoner: SharedReasoner,
    theme: Theme,
    options: RunOptions,
) -> anyhow::Result<ExitCode> {
    crate::tui::highlight::warm_up();
    let rt = runtime()?;
    rt.block_on(async move {
        // The screen comes first: scaffolding a new project (git init, a virtual
        // environment) can take a moment, and the person should see volk at once.
        // Caught before the screen changes, so that no signal leaves it changed.
        let mut signals = Signals::install()?;
        let mut guard = TerminalGuard::enter()?;
        let mut app = App::new(
            SessionInfo {
                project_name: "starting…".into(),
                // The reasoner's own words for the header (`openai/gpt-4.1`).
                reasoner: reasoner.label(),
                ..SessionInfo::default()
            },
            theme,
        );
        view::render(&mut guard.terminal, &mut app)?;
        tracing::info!("first frame {:?} after start", launched.elapsed());
        // Claiming, locking, recovering and scaffolding touch the disk: off the
        // loop's thread, and a signal still stops it.
        let command = match &start {
            Start::Scope { .. } => "volk design",
            Start::Open(_) => "volk open",
        };
        let opening = tokio::task::spawn_blocking(move || crate::volk::open::open(start, command));
        let opened: Opened = tokio::select! {
            opened = opening => opened??,
            stop = signals.recv() => {
                drop(guard);
                return Ok(stopped(stop, None));
            }
        };
        let (session, events) = attach(&mut app, &opened, reasoner, options)?;
        let project_dir = opened.project_dir.clone();
        let draft_path = draft::draft_path(&project_dir);
        let (saved, notice) = draft::load_or_set_aside(&draft_path, app.read_only.is_none());
        if let Some(notice) = notice {
            app.warn(notice);
        }
        app.restore_draft(saved.clone());
        let (job_tx, jobs) = tokio::sync::mpsc::unbounded_channel::<String>();
        // A read-only workbench must not write the holder's draft.
        let store = app.read_only.is_none().then(|| {
            DraftStore::start(draft_path.clone(), saved, move |message| {
                let _ = job_tx.send(message);
            })
        });

        let input = runloop::spawn_input_reader();
        let channels = Channels {
            terminal: input,
            events,
            jobs,
            session,
        };
        // Held until the workbench closes; a reader holds nothing.
        let _access = opened.access;
        let result = tokio::select! {
            result = runloop::run(&mut guard.terminal, &mut app, channels, store.as_ref()) => result,
            stop = signals.recv() => Err(anyhow::Error::new(Stopped(stop))),
        };
        drop(guard);
        let flushed = match store {
            Some(store) => store.flush(),
            None => Ok(()),
        };
        if let Err(e) = &result
            && let Some(Stopped(stop)) = e.downcast_ref::<Stopped>()
        {
            return Ok(stopped(*stop, Some((flushed, draft_path.as_path()))));
        }
        let (exit, stats) = result?;
        tracing::info!(
            "workbench closed: {} frames, {} inputs, worst input-to-frame {:?}",
            stats.frames,
            stats.inputs,
            stats.worst_input_to_frame
        );
        flushed.map_err(|e| anyhow::anyhow!(e))?;
        if exit == Exit::InputClosed {
            tracing::info!("terminal input closed; the draft is saved");
        }
        if let Some(outcome) = app.model.outcome() {
            crate::console::line(&format!(
                "volk: the {} packet is {}",
                outcome.subject,
                outcome.packet_path.display()
            ))?;
        }
        crate::console::line(&format!("volk: project {}", project_dir.display()))?;
        Ok(ExitCode::SUCCESS)
    })
}
