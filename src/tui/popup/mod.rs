//! Windows over the workbench. Each module is one popup: its state, its key tables
//! (`Binding<Command>`s) and its [`Window`] implementation (keys and drawing). A popup
//! takes every key while it is open (keys it does not bind do nothing);
//! `Handled::Close` closes it.
//!
//! A new popup is its module and one line in the `popups!` list below: the module
//! declaration, the `Popup` variant, the key and draw dispatch and the help's tables
//! all come from that line, so none can be forgotten.
//!
//! A popup sees the workbench through a narrow context (`crate::tui::ctx`): it reads a `View`
//! and asks for what it wants done; the workbench (`tui/app/popups.rs`) opens popups and
//! carries out what they ask.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

use crate::tui::ctx::{Ctx, View};
use crate::tui::keymap::{Handled, Listed};

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

/// What every popup does: take a key, draw itself, and name its keys.
pub trait Window {
    /// Every key table the popup has (all of them, in help order).
    fn tables() -> Vec<Vec<&'static dyn Listed>>
    where
        Self: Sized;

    /// The keys at hand, for the hint bar: by default its only table.
    fn bindings(&self) -> Vec<&'static dyn Listed>
    where
        Self: Sized,
    {
        Self::tables().concat()
    }

    /// Whether one of its bindings acts now, by the popup's state (the hint bar
    /// lists only those); by default every one does.
    fn acts(&self, _binding: &dyn Listed) -> bool {
        true
    }

    /// Acts on a key: changes the popup, and asks the workbench for the rest.
    fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled;

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View);
}

impl<T: Window> Window for Box<T> {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        T::tables()
    }

    fn bindings(&self) -> Vec<&'static dyn Listed> {
        (**self).bindings()
    }

    fn acts(&self, binding: &dyn Listed) -> bool {
        (**self).acts(binding)
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
        (**self).on_key(key, cx)
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        (**self).draw(frame, area, view)
    }
}

/// Declares the popup modules and the `Popup` enum with its dispatch, from one list
/// in help order.
macro_rules! popups {
    ($($module:ident: $variant:ident($ty:ty),)*) => {
        $(pub mod $module;)*

        /// A window over the workbench; Esc closes it.
        pub enum Popup {
            $($variant($ty),)*
        }

        impl Popup {
            /// Acts on a key: changes the popup, and asks the workbench for the rest.
            pub fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
                // Only the composer has Ctrl keys (Ctrl-C is handled before any popup).
                if key.modifiers.contains(KeyModifiers::CONTROL)
                    && !matches!(self, Popup::Composer(_))
                {
                    return Handled::Ignored;
                }
                match self {
                    $(Popup::$variant(p) => p.on_key(key, cx),)*
                }
            }

            pub fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
                match self {
                    $(Popup::$variant(p) => p.draw(frame, area, view),)*
                }
            }

            /// Whether one of its bindings acts now.
            pub fn acts(&self, binding: &dyn Listed) -> bool {
                match self {
                    $(Popup::$variant(p) => p.acts(binding),)*
                }
            }

            /// The keys of this popup (for the hint bar).
            pub fn bindings(&self) -> Vec<&'static dyn Listed> {
                match self {
                    $(Popup::$variant(p) => p.bindings(),)*
                }
            }

            /// Every popup's key tables, in help order.
            pub fn all_bindings() -> Vec<Vec<&'static dyn Listed>> {
                let mut all = Vec::new();
                $(all.extend(<$ty as Window>::tables());)*
                all
            }
        }
    };
}

popups! {
    composer: Composer(composer::Composer),
    search: Search(search::Search),
    goto: GoTo(goto::GoTo),
    diff: Diff(Box<diff::DiffView>),
    history: History(history::History),
    problems: Problems(problems::ProblemList),
    trace: Trace(trace::TraceList),
    confirm: Confirm(confirm::Confirm),
    error: Error(error::Failure),
    messages: Messages(messages::Messages),
    help: Help(help::Help),
}
