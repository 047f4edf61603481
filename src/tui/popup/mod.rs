//! Windows over the workbench. Each module is one popup: its state, its keys (a
//! `BINDINGS` list and `on_key`) and its drawing. A popup takes every key while it is
//! open (keys it does not bind do nothing); `Handled::Close` closes it.

pub mod composer;
pub mod confirm;
pub mod diff;
pub mod error;
pub mod goto;
pub mod help;
pub mod history;
pub mod messages;
pub mod problems;
pub mod search;
pub mod trace;

use ratatui::Frame;
use ratatui::crossterm::event::{KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

use crate::tui::app::App;
use crate::tui::keymap::{Handled, Listed, listed};

/// The commands of a window that lists things: move the selection, act on it, close.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    Down,
    Up,
    Go,
    Close,
}

/// The commands of a one-line field: keep what is typed, go back, type, erase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Keep,
    Back,
    Type,
    Erase,
}

/// A window over the workbench; Esc closes it.
pub enum Popup {
    Help(help::Help),
    Composer(composer::Composer),
    Search(search::Search),
    Confirm(confirm::Confirm),
    Diff(Box<diff::DiffView>),
    History(history::History),
    Error(error::Failure),
    Problems(problems::ProblemList),
    Trace(trace::TraceList),
    Messages(messages::Messages),
    GoTo(goto::GoTo),
}

impl Popup {
    /// Acts on a key while the popup is taken out of the app (so it may change both).
    pub fn on_key(&mut self, key: KeyEvent, app: &mut App) -> Handled {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match self {
            // Only the composer has Ctrl keys (Ctrl-C is handled before any popup).
            Popup::Composer(_) => {}
            _ if ctrl => return Handled::Ignored,
            _ => {}
        }
        match self {
            Popup::Help(p) => p.on_key(key),
            Popup::Composer(p) => p.on_key(key, app),
            Popup::Search(p) => p.on_key(key, app),
            Popup::Confirm(p) => p.on_key(key, app),
            Popup::Diff(p) => p.on_key(key, app),
            Popup::History(p) => p.on_key(key, app),
            Popup::Error(p) => p.on_key(key, app),
            Popup::Problems(p) => p.on_key(key, app),
            Popup::Trace(p) => p.on_key(key, app),
            Popup::Messages(p) => p.on_key(key, app),
            Popup::GoTo(p) => p.on_key(key, app),
        }
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, app: &App) {
        match self {
            Popup::Help(p) => p.draw(frame, area, app),
            Popup::Composer(p) => p.draw(frame, area, app),
            Popup::Search(p) => p.draw(frame, area, app),
            Popup::Confirm(p) => p.draw(frame, area, app),
            Popup::Diff(p) => p.draw(frame, area, app),
            Popup::History(p) => p.draw(frame, area, app),
            Popup::Error(p) => p.draw(frame, area, app),
            Popup::Problems(p) => p.draw(frame, area, app),
            Popup::Trace(p) => p.draw(frame, area, app),
            Popup::Messages(p) => p.draw(frame, area, app),
            Popup::GoTo(p) => p.draw(frame, area, app),
        }
    }

    /// Every popup's key tables, in help order: beside [`Popup::bindings`], so a
    /// popup's keys reach the help window where they reach the hint bar.
    pub fn all_bindings() -> [Vec<&'static dyn Listed>; 15] {
        [
            listed(composer::BINDINGS),
            listed(search::BINDINGS),
            listed(goto::BINDINGS),
            listed(diff::BINDINGS),
            listed(diff::SEARCH_BINDINGS),
            listed(history::BINDINGS),
            listed(history::COMPARE_BINDINGS),
            listed(problems::BINDINGS),
            listed(trace::BINDINGS),
            listed(confirm::READY_BINDINGS),
            listed(confirm::LAST_CYCLE_BINDINGS),
            listed(confirm::QUIT_BINDINGS),
            listed(confirm::CANCEL_BINDINGS),
            listed(error::BINDINGS),
            listed(messages::BINDINGS),
        ]
    }

    /// The keys of this popup (for the hint bar).
    pub fn bindings(&self) -> Vec<&'static dyn Listed> {
        match self {
            Popup::Help(_) => listed(help::BINDINGS),
            Popup::Composer(_) => listed(composer::BINDINGS),
            Popup::Search(_) => listed(search::BINDINGS),
            Popup::Confirm(c) => c.bindings(),
            Popup::Diff(d) => d.bindings(),
            Popup::History(h) => h.bindings(),
            Popup::Error(_) => listed(error::BINDINGS),
            Popup::Problems(_) => listed(problems::BINDINGS),
            Popup::Trace(_) => listed(trace::BINDINGS),
            Popup::Messages(_) => listed(messages::BINDINGS),
            Popup::GoTo(_) => listed(goto::BINDINGS),
        }
    }
}

impl App {
    /// Gives a key to the open popup. It stays open unless it closes or opened
    /// another in its place.
    pub(crate) fn on_popup_key(&mut self, key: KeyEvent) -> Handled {
        let Some(mut popup) = self.popup.take() else {
            return Handled::Ignored;
        };
        let handled = popup.on_key(key, self);
        if handled != Handled::Close && self.popup.is_none() {
            self.popup = Some(popup);
        }
        handled
    }
}
