//! The design loop: a pure state machine (`input -> effects`) and the runtime that
//! performs its effects.

pub mod cli;
pub mod journal;
pub mod machine;
pub mod patch_cycle;
pub mod plan_step;
pub mod prompts;
pub mod runtime;
pub mod session;
