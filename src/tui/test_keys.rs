//! Key presses by name, for the unit tests, the integration tests and the benchmarks
//! (one copy instead of one per test file).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::tui::app::App;

/// A key without modifiers.
pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// A character key.
pub fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}

/// Ctrl and a character.
pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

/// Types `text` key by key.
pub fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        app.on_key(ch(c));
    }
}
