//! Execution plans: model, kinds, compiler and diagnostics.

pub mod cli;
