//! The workbench on the real runtime, for screen tests: a session started the way
//! `volk design` starts one (`volk::volk::open::open`, then `volk::tui::cli::attach`),
//! against a scripted provider on 127.0.0.1. The runtime's
//! events are fed into the real `App` until the state a test wants is reached, and
//! the app's intents go back to the runtime as the run loop sends them, so a frame
//! drawn here has the header and status bar the binary draws.
//!
//! ```ignore
//! let server = Provider::repeating(DESIGN);
//! let mut live = Live::design(&server);
//! live.until("cycle 1 under review", |app| app.model.phase() == Phase::AwaitingReview { cycle: 1 });
//! insta::assert_snapshot!(live.screen(100, 30));
//! ```

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::KeyEvent;
use tokio::sync::mpsc::UnboundedReceiver;
use volk::config::Settings;
use volk::reasoner::SharedReasoner;
use volk::reasoner::select::ReasonerArgs;
use volk::tui::app::{App, SessionInfo};
use volk::tui::event::{AppEvent, Intent};
use volk::tui::theme::Theme;
use volk::volk::open::{Opened, Start};
use volk::volk::protocol::{ContextRoot, Event, RunOptions};
use volk::volk::runtime::SessionHandle;

use super::provider::Provider;

/// How long a state may take to be reached before the test fails.
const PATIENCE: Duration = Duration::from_secs(30);

/// A running session and the workbench showing it.
pub struct Live {
    pub app: App,
    pub project_dir: PathBuf,
    events: UnboundedReceiver<Event>,
    session: SessionHandle,
    /// What differs from run to run on screen, and what stands for it there.
    masks: Vec<(String, String)>,
    /// The thread, opened (its lock is held while the test runs).
    _opened: Opened,
    /// Kept for the runtime's tasks; dropped last.
    rt: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

impl Live {
    /// `volk design` of a one-requirement scope against `server` (OpenAI-compatible),
    /// with no design-compiler repair pass, in a workspace of its own.
    pub fn design(server: &Provider) -> Live {
        let dir = tempfile::tempdir().unwrap();
        let scope = dir.path().join("tasks.md");
        std::fs::write(&scope, "# A task CLI\n1. Add tasks\n").unwrap();
        // As `volk design tasks.md` reads it; the thread id is fixed (the binary's is a
        // fresh UUID) so that snapshots hold still.
        let (scope, _, trace_id) = volk::volk::runtime::load_design_input(&scope).unwrap();
        let thread_id = "thread-5f0c2a9e-live".to_string();
        let args = ReasonerArgs {
            reasoner: Some("openai".into()),
            model: Some("scripted".into()),
            base_url: Some(server.v1()),
            ..ReasonerArgs::default()
        };
        let reasoner = volk::reasoner::select::build(&args, &Settings::default()).unwrap();
        let start = Start::Scope {
            scope: Box::new(scope),
            thread_id,
            trace_id,
            workspace: dir.path().join("ws"),
            max_cycles: None,
        };
        let options = RunOptions {
            echo_stderr: false,
            context: ContextRoot::Off,
            reflection_config: None,
            max_tokens: None,
            plan_repairs: None,
            lint_repairs: Some(0),
        };
        // The temp dir and the provider's port, each masked by text of its length
        // so that wrapped lines break where they would.
        let temp = dir.path().display().to_string();
        let port = server
            .url
            .rsplit(':')
            .next()
            .unwrap_or_default()
            .to_string();
        let masks = vec![
            (
                temp.clone(),
                format!("/tmp/{}", "x".repeat(temp.len().saturating_sub(5))),
            ),
            (format!(":{port}/"), format!(":{}/", "0".repeat(port.len()))),
        ];
        let mut live = Live::open(start, reasoner, options, dir);
        live.masks = masks;
        live
    }

    /// The one place the runtime is opened, as `src/tui/cli.rs` opens it.
    fn open(
        start: Start,
        reasoner: SharedReasoner,
        options: RunOptions,
        dir: tempfile::TempDir,
    ) -> Live {
        volk::tui::highlight::warm_now();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let mut app = App::new(
            SessionInfo {
                reasoner: reasoner.label(),
                ..SessionInfo::default()
            },
            Theme::dark(),
        );
        let opened = volk::volk::open::open(start, "volk design").unwrap();
        let (session, events) = {
            let _entered = rt.enter();
            volk::tui::cli::attach(&mut app, &opened, reasoner, options).unwrap()
        };
        Live {
            app,
            project_dir: opened.project_dir.clone(),
            events,
            session,
            masks: Vec::new(),
            _opened: opened,
            rt,
            _dir: dir,
        }
    }

    /// Feeds the runtime's events into the app (sending its intents back) until
    /// `reached` holds; fails with the screen after 30 s. `what` names the state.
    pub fn until(&mut self, what: &str, reached: impl Fn(&App) -> bool) -> &mut Live {
        let deadline = Instant::now() + PATIENCE;
        while !reached(&self.app) {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = self.rt.block_on(async {
                tokio::time::timeout(left.min(Duration::from_millis(100)), self.events.recv()).await
            });
            match event {
                Ok(Some(event)) => self.app.on_app_event(AppEvent::Loop(event)),
                Ok(None) => panic!("the runtime stopped before {what}"),
                Err(_) => {}
            }
            self.forward();
            if Instant::now() >= deadline {
                let shot = self.screen(120, 30);
                panic!("waited {PATIENCE:?} for {what}; the screen shows:\n{shot}");
            }
        }
        self
    }

    /// A key, as the terminal gives it; its intents go to the runtime.
    pub fn key(&mut self, key: KeyEvent) -> &mut Live {
        self.app.on_key(key);
        self.forward();
        self
    }

    /// One frame at `width` x `height`, as text (the frame is prepared first, as
    /// the run loop's draw does). What differs from run to run is masked so that
    /// snapshots hold still: the last commit's id (git derives it from the time)
    /// reads `c0ffee1`, the temp dir `/tmp/xxx…` and the provider's port `00000`.
    pub fn screen(&mut self, width: u16, height: u16) -> String {
        let mut shot = super::screen::screen(&mut self.app, width, height);
        if let Some(id) = self.app.model.last_commit() {
            shot = shot.replace(id, "c0ffee1");
        }
        for (text, mask) in &self.masks {
            shot = shot.replace(text.as_str(), mask);
        }
        shot
    }

    /// Sends the app's intents to the runtime, as the run loop does (the editor and
    /// quitting are the loop's own and are not run here).
    fn forward(&mut self) {
        for intent in self.app.take_intents() {
            match intent {
                Intent::Act(action) => {
                    self.session.act(action);
                }
                Intent::Ask(query) => self.session.ask(query),
                Intent::Quit | Intent::EditArtifact { .. } | Intent::ResolveConflict { .. } => {}
            }
        }
    }
}
