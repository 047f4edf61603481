//! The workbench: a full-screen terminal UI over the design loop.
//!
//! `app` holds the state and turns input into intents; each pane (`pane/`) and popup
//! (`popup/`) owns its keys, its bindings and its drawing (a popup through a narrow
//! context; `app/popups.rs` opens popups and does what they ask); `keymap` writes the help
//! and the hint bar from those bindings; `stream` and `layout` get the state ready for
//! a frame, `view` draws it from `&App`; `runloop` wires terminal input, design-loop
//! events and background jobs together; `cli` starts it all for `volk demo`,
//! `volk design` and `volk open`.

pub(crate) mod activity;
pub mod app;
pub(crate) mod backdrop;
pub mod cli;
pub mod components;
pub(crate) mod conflict;
pub mod ctx;
pub mod diagram;
pub mod diff;
pub mod document;
pub(crate) mod draft;
pub(crate) mod editor;
pub mod event;
pub(crate) mod frame;
pub mod highlight;
pub mod keymap;
pub(crate) mod layout;
pub(crate) mod loop_events;
pub(crate) mod markdown;
pub mod model;
pub(crate) mod notice;
pub(crate) mod pane;
pub(crate) mod patch_view;
pub mod popup;
pub(crate) mod problems;
pub mod runloop;
pub mod scene;
pub(crate) mod signals;
pub(crate) mod stream;
pub mod tab;
pub(crate) mod terminal;
pub mod test_keys;
pub mod theme;
pub(crate) mod threads;
pub(crate) mod timeline;
pub(crate) mod trace;
pub mod view;
pub(crate) mod widgets;
pub(crate) mod wrap;
