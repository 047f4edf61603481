//! The design loop: a pure state machine (`input -> effects`) and the runtime that
//! performs its effects.

pub mod cli;
pub(crate) mod conventions;
pub(crate) mod designed_with;
pub(crate) mod edit_guard;
pub(crate) mod headless;
pub(crate) mod journal;
pub(crate) mod ledger;
pub(crate) mod lint_step;
pub mod lock;
pub(crate) mod loop_args;
pub mod machine;
pub mod open;
pub(crate) mod patch_cycle;
pub mod plan_step;
pub(crate) mod progress;
pub(crate) mod prompts;
pub mod protocol;
pub(crate) mod queries;
pub(crate) mod ready;
pub(crate) mod recover;
pub mod review;
pub mod runtime;
pub mod session;
pub mod threads;
pub(crate) mod unparsed;
