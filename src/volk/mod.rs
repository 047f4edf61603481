//! The design loop: a pure state machine (`input -> effects`) and the runtime that
//! performs its effects.

pub mod cli;
