//! volk: an AI architect designs software, a person reviews it.
//!
//! The library holds everything; `main.rs` only parses the command line and dispatches.
//! The design loop (`volk`) is a pure state machine; the runtime and the terminal UI
//! perform the effects it returns.

pub mod brief;
#[cfg(feature = "bus")]
pub mod bus;
pub mod config;
pub(crate) mod confined;
pub mod console;
pub mod context;
pub mod cxp;
pub mod design;
pub mod echo;
pub mod error;
pub(crate) mod fsutil;
pub(crate) mod intake;
pub(crate) mod limits;
pub mod logging;
pub mod plan;
pub mod project;
pub mod reasoner;
pub mod redact;
pub mod reflection;
pub(crate) mod template;
pub mod trust;
pub mod tui;
pub mod volk;

pub use error::BadInput;
