//! Printing that outlives its reader.
//!
//! Rust ignores SIGPIPE, so once the reader of a pipe is gone every write fails: `println!`
//! panics (mid-step, in `volk run`) and `writeln!(..)?` ends the command with
//! "volk: Broken pipe". What volk prints reports work that is already on disk (a commit, an
//! outbox packet, a store update) or is only read by a person, so a vanished reader is not a
//! failure: volk stops printing to that stream and finishes with the exit status the work
//! earned. Any other write error still reaches the caller.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout's reader has gone; later writes are dropped without a system call.
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);

/// Standard output for command results: a broken pipe swallows the rest of the output.
pub struct Stdout(io::StdoutLock<'static>);

/// The process's standard output, locked for one command's output.
pub fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

/// Writes one line of command output (a broken pipe ends the output, quietly).
pub fn line(text: &str) -> io::Result<()> {
    writeln!(stdout(), "{text}")
}

/// Writes one line to stderr: progress and notices, which never fail a command.
pub fn note(text: &str) {
    let text = crate::redact::scrub_text(text);
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

/// Writes text to stderr as it is (no newline added), ignoring a closed stderr.
pub fn note_raw(text: &str) {
    let text = crate::redact::scrub_text(text);
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
}

fn gone_or(result: io::Result<()>) -> io::Result<()> {
    match result {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            STDOUT_GONE.store(true, Ordering::Relaxed);
            Ok(())
        }
        other => other,
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if STDOUT_GONE.load(Ordering::Relaxed) {
            return Ok(buf.len());
        }
        gone_or(self.0.write_all(buf)).map(|()| buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if STDOUT_GONE.load(Ordering::Relaxed) {
            return Ok(());
        }
        gone_or(self.0.flush())
    }
}

impl Drop for Stdout {
    /// Flushes here so that a broken pipe is absorbed now, not reported by the exit flush.
    fn drop(&mut self) {
        let _ = self.flush();
    }
}
