//! The workbench: a full-screen terminal UI over the design loop.
//!
//! `app` holds the state and turns input into intents; each pane (`pane/`) and popup
//! (`popup/`) owns its keys, its bindings and its drawing; `keymap` writes the help
//! and the hint bar from those bindings; `stream` and `layout` get the state ready for
//! a frame, `view` draws it from `&App`; `runloop` wires terminal input, design-loop
//! events and background jobs together; `cli` starts it all for `volk demo`,
//! `volk design` and `volk open`.

pub mod activity;
pub mod app;
pub mod backdrop;
pub mod cli;
pub mod components;
pub mod conflict;
pub mod diagram;
pub mod diff;
pub mod document;
pub mod draft;
pub mod editor;
pub mod event;
pub mod frame;
pub mod highlight;
pub mod keymap;
pub mod layout;
pub mod loop_events;
pub mod markdown;
pub mod notice;
pub mod pane;
pub mod patch_view;
pub mod popup;
pub mod problems;
pub mod runloop;
pub mod signals;
pub mod stream;
pub mod tab;
pub mod terminal;
pub mod test_keys;
pub mod theme;
pub mod threads;
pub mod timeline;
pub mod trace;
pub mod view;
pub mod widgets;
pub mod wrap;
