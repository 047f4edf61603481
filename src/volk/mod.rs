//! The design loop: a pure state machine (`input -> effects`) and the runtime that
//! performs its effects.

pub mod cli;
pub mod conventions;
pub mod designed_with;
pub mod edit_guard;
pub mod headless;
pub mod journal;
pub mod ledger;
pub mod lint_step;
pub mod lock;
pub mod loop_args;
pub mod machine;
pub mod open;
pub mod patch_cycle;
pub mod plan_step;
pub mod progress;
pub mod prompts;
pub mod protocol;
pub mod queries;
pub mod ready;
pub mod recover;
pub mod review;
pub mod runtime;
pub mod session;
pub mod threads;
pub mod unparsed;
