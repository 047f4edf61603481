//! The workbench: a full-screen terminal UI over the design loop.
//!
//! `app` holds the state and turns input into intents; `view` draws it; `runloop`
//! wires terminal input, design-loop events and background jobs together; `cli` starts
//! it all for `volk demo`, `volk design` and `volk open`.

pub mod activity;
pub mod app;
pub mod cli;
pub mod diff;
pub mod document;
pub mod draft;
pub mod editor;
pub mod event;
pub mod frame;
pub mod highlight;
pub mod keys;
pub mod markdown;
pub mod patch_view;
pub mod runloop;
pub mod session;
pub mod signals;
pub mod terminal;
pub mod theme;
pub mod threads;
pub mod timeline;
pub mod view;
pub mod wrap;
