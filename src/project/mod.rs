//! The project a design lives in: its directory layout and name, scaffold and git
//! history.

pub mod claim;
pub mod git;
pub mod history;
pub mod layout;
pub mod scaffold;
pub mod slug;

pub use layout::Layout;
