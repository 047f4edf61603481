//! Reflection questions: config, store, selection, the Stop hook and the MCP tools.

pub mod cli;
