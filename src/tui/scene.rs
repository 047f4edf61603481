//! Workbench states for the unit tests, the integration tests and the benchmarks,
//! built the way the binary reaches them: the runtime's events in the order it sends
//! them, then the person's keys. One builder instead of a `reviewing()` per test file,
//! and no state a test makes up by writing fields the binary never writes.

use ratatui::crossterm::event::KeyEvent;

use crate::design::{Artifacts, Section};
use crate::tui::app::{App, SessionInfo};
use crate::tui::event::{AppEvent, LoopEvent, Phase};
use crate::tui::model::Restored;
use crate::tui::theme::Theme;
use crate::volk::review::ReviewState;

pub struct Scene {
    app: App,
}

impl Scene {
    /// A workbench that has heard nothing yet (dark theme).
    pub fn new(info: SessionInfo) -> Scene {
        Scene {
            app: App::new(info, Theme::dark()),
        }
    }

    /// A session as `volk open` found it on disk: cycle `cycle` with `artifacts`,
    /// and the cycle before when there was one.
    pub fn opened(
        mut self,
        cycle: u32,
        artifacts: Artifacts,
        previous: Option<Artifacts>,
    ) -> Scene {
        self.app.open_session(Restored {
            finalize: Default::default(),
            cycle: Some((cycle, artifacts, previous)),
            costs: Vec::new(),
            reflection: None,
        });
        self
    }

    /// Any event of the runtime.
    pub fn event(mut self, event: LoopEvent) -> Scene {
        self.app.on_app_event(AppEvent::Loop(event));
        self
    }

    pub fn phase(self, phase: Phase) -> Scene {
        self.event(LoopEvent::Phase(phase))
    }

    pub fn designing(self, cycle: u32) -> Scene {
        self.phase(Phase::Designing { cycle })
    }

    /// Cycle `cycle` written, `changed` the sections it changed.
    pub fn cycle(self, cycle: u32, artifacts: Artifacts, changed: &[Section]) -> Scene {
        self.event(LoopEvent::CycleReady {
            cycle,
            artifacts,
            changed: changed.to_vec(),
        })
    }

    /// Cycle `cycle` written, every section new (a first design).
    pub fn first_cycle(self, cycle: u32, artifacts: Artifacts) -> Scene {
        self.cycle(cycle, artifacts, &Section::ALL)
    }

    pub fn committed(self, cycle: u32, short_id: &str) -> Scene {
        self.event(LoopEvent::Committed {
            cycle,
            short_id: short_id.into(),
        })
    }

    pub fn awaiting_review(self, cycle: u32) -> Scene {
        self.phase(Phase::AwaitingReview { cycle })
    }

    /// The review state (threads, settled parts) as the loop reports it.
    pub fn review(self, state: ReviewState) -> Scene {
        self.event(LoopEvent::Review(Box::new(state)))
    }

    /// The person presses `keys`, in order.
    pub fn keys(mut self, keys: &[KeyEvent]) -> Scene {
        for key in keys {
            self.app.on_key(*key);
        }
        self
    }

    /// The person types `text` key by key.
    pub fn typed(mut self, text: &str) -> Scene {
        crate::tui::test_keys::typed(&mut self.app, text);
        self
    }

    pub fn app(self) -> App {
        self.app
    }
}

/// Goes on from a workbench a test drove itself (a stream fed delta by delta).
impl From<App> for Scene {
    fn from(app: App) -> Scene {
        Scene { app }
    }
}
