//! The workbench: a full-screen terminal UI over the design loop.

pub mod cli;
