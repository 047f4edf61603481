//! The design loop: a pure state machine (`input -> effects`) and the runtime that
//! performs its effects.

pub mod cli;
pub mod designed_with;
pub mod journal;
pub mod lint_step;
pub mod loop_args;
pub mod machine;
pub mod plan_step;
pub mod prompts;
pub mod queries;
pub mod review;
pub mod runtime;
pub mod session;
pub mod threads;
