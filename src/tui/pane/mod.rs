//! The workbench's panes. Each module owns one region: its keys (a `BINDINGS` list
//! and the `on_key` that acts on them) and its drawing (from `&App`).

pub mod diagram;
pub mod finish;
pub mod plan;
pub mod review;
pub mod summary;
pub mod tabs;
pub mod thinking;
pub mod viewer;
pub mod workbench;
