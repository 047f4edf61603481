//! The vocabulary of the design loop, below the machine, the runtime and every client:
//! what a person or a packet decides ([`Action`]), what a client may ask ([`Query`]),
//! what the runtime reports ([`Event`]), where the thread stands ([`Phase`]) and
//! what the person may do there ([`Offers`]). The
//! workbench sends these and draws these; `volk run` prints them. Nothing here does
//! anything: it is the seam's words, kept in one place so no side restates them.

mod action;
mod event;
mod level;
mod offers;
mod options;
mod phase;
mod query;

pub use action::{Action, Notice};
pub use event::Event;
pub use level::Level;
pub use offers::Offers;
pub use options::{ContextRoot, RunOptions};
pub use phase::{FinalizeReason, Phase};
pub use query::Query;
