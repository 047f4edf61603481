//! Everything that can happen to the workbench (`AppEvent`) and everything it can ask
//! for (`Intent`). `AppEvent` mirrors the design loop's runtime events one to one, plus
//! the results of the workbench's own background jobs; widgets only ever produce
//! intents, never call services.

pub use crate::volk::protocol::Action;
/// The runtime's events, which the workbench receives unchanged.
pub use crate::volk::protocol::Event as LoopEvent;

/// Where the design loop stands: the core's own phase, drawn as it is.
pub use crate::volk::protocol::Phase;

/// What reaches the workbench: the loop's phase (projected for display), the loop's
/// other events unchanged, and the results of the workbench's own jobs.
#[derive(Debug, Clone)]
pub enum AppEvent {
    /// Everything else the design loop reports, as the runtime sent it.
    Loop(LoopEvent),
    /// A background job of the workbench failed (draft saving).
    JobFailed(String),
}

/// What the workbench asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    /// A decision for the design loop, in the core's own words.
    Act(Action),
    /// Hand the terminal to `$VISUAL`/`$EDITOR` on an artifact at a line.
    EditArtifact {
        section: crate::design::Section,
        line: usize,
    },
    /// Rewrite an artifact's file with a conflict resolved (`<`, `>`, `=`).
    ResolveConflict {
        section: crate::design::Section,
        text: String,
    },
    /// A question about the project, in the core's own words (history, a commit).
    Ask(crate::volk::protocol::Query),
    Quit,
}
