//! `E`: the artifact on the current tab in the person's own editor (`$VISUAL`, else
//! `$EDITOR`, else `vi`) at the cursor line. The terminal is handed over (main screen,
//! cooked mode, the input reader paused so it steals no keystroke) and taken back
//! after; the edit is then a hand edit like any other, committed and merged by the loop.

use std::io;
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// While set, the terminal input reader does not read: the editor owns the keyboard.
pub static INPUT_PAUSED: AtomicBool = AtomicBool::new(false);

/// Longer than the input reader's poll, so it has seen [`INPUT_PAUSED`] before the
/// editor starts.
const READER_SETTLE: Duration = Duration::from_millis(150);

/// The editor command line as the person configured it.
pub fn editor_command() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string())
}

/// Runs the editor on `path` at `line` with the terminal handed over; blocks until it
/// exits. The caller redraws the whole screen afterwards.
pub fn hand_over(path: &Path, line: usize) -> io::Result<ExitStatus> {
    INPUT_PAUSED.store(true, Ordering::SeqCst);
    std::thread::sleep(READER_SETTLE);
    crate::tui::terminal::suspend();
    // Through the shell, so `EDITOR="code -w"` works as it does for git.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{} \"$@\"", editor_command()))
        .arg("volk-editor")
        .arg(format!("+{line}"))
        .arg(path)
        .status();
    let resumed = crate::tui::terminal::resume();
    INPUT_PAUSED.store(false, Ordering::SeqCst);
    resumed?;
    status
}
