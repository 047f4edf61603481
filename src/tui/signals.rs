//! Termination signals while the workbench runs. The default action of SIGTERM, SIGHUP,
//! SIGQUIT and SIGINT would kill volk with the terminal still raw, on the alternate
//! screen, cursor hidden and mouse reporting on; instead the workbench is asked to stop,
//! restores the terminal, saves the draft and exits with 128 + the signal number, as a
//! shell reports a process killed by that signal.

use std::process::ExitCode;

/// A signal that ends the workbench.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Hangup,
    Interrupt,
    Quit,
    Terminate,
}

impl Stop {
    /// The POSIX number (the same on every Unix for these four).
    pub fn number(self) -> u8 {
        match self {
            Stop::Hangup => 1,
            Stop::Interrupt => 2,
            Stop::Quit => 3,
            Stop::Terminate => 15,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Stop::Hangup => "SIGHUP",
            Stop::Interrupt => "SIGINT",
            Stop::Quit => "SIGQUIT",
            Stop::Terminate => "SIGTERM",
        }
    }

    /// 128 + the signal number.
    pub fn exit_code(self) -> ExitCode {
        ExitCode::from(128 + self.number())
    }
}

/// The four signals, caught from the moment this is made until it is dropped.
pub struct Signals {
    #[cfg(unix)]
    streams: [(Stop, tokio::signal::unix::Signal); 4],
}

impl Signals {
    /// Installs the handlers (inside a tokio runtime).
    pub fn install() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                streams: [
                    (Stop::Hangup, signal(SignalKind::hangup())?),
                    (Stop::Interrupt, signal(SignalKind::interrupt())?),
                    (Stop::Quit, signal(SignalKind::quit())?),
                    (Stop::Terminate, signal(SignalKind::terminate())?),
                ],
            })
        }
        #[cfg(not(unix))]
        {
            Ok(Signals {})
        }
    }

    /// Waits for the next of the four signals.
    pub async fn recv(&mut self) -> Stop {
        #[cfg(unix)]
        {
            let [(a, sa), (b, sb), (c, sc), (d, sd)] = &mut self.streams;
            tokio::select! {
                _ = sa.recv() => *a,
                _ = sb.recv() => *b,
                _ = sc.recv() => *c,
                _ = sd.recv() => *d,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            Stop::Interrupt
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_128_plus_the_number() {
        assert_eq!(Stop::Terminate.number(), 15);
        assert_eq!(Stop::Hangup.number(), 1);
        assert_eq!(Stop::Quit.number(), 3);
        assert_eq!(Stop::Interrupt.number(), 2);
        assert_eq!(Stop::Quit.name(), "SIGQUIT");
    }
}
