//! What a client may ask about the project while a session runs.

#[allow(unused_imports)] // for the doc links
use crate::volk::protocol::Event;

/// What can be asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// The project's commits, newest first: answered with [`Event::History`].
    History,
    /// The artifacts of commit `id`: answered with [`Event::OldCycle`].
    Commit {
        id: String,
        short_id: String,
        summary: String,
    },
    /// The cycle before the newest commit: answered with [`Event::PreviousCycle`]
    /// (nothing when there is none).
    PreviousCycle,
    /// One artifact as `design/` holds it now (after a hand edit in `$EDITOR`):
    /// answered with [`Event::Artifact`].
    Artifact(crate::design::Section),
}
