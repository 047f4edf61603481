//! The project a design lives in: its directory name, scaffold and git history.

pub mod claim;
pub mod git;
pub mod scaffold;
pub mod slug;
