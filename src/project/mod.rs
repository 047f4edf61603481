//! The project a design lives in: its directory layout and name, scaffold and git
//! history.

pub(crate) mod claim;
pub mod git;
pub(crate) mod history;
pub(crate) mod layout;
pub(crate) mod scaffold;
pub(crate) mod slug;

pub use layout::Layout;
