//! Monorepo context: the existing code a design should reuse.

pub mod cli;
