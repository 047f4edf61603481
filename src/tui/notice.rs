//! Notices: one line of news for the person, with a level. An info or a warning is
//! shown for at least [`SHOWN_FOR`] and until the next key after it; an error stays
//! until it is dismissed (Esc). Every notice is kept in a log the `M` window lists,
//! so a message that went by too fast can still be read.

use std::time::{Duration, Instant, SystemTime};

/// How long an info or a warning stays at the least.
pub const SHOWN_FOR: Duration = Duration::from_secs(6);

/// How many notices the log keeps (the oldest go first).
const LOG_LIMIT: usize = 500;

pub use crate::volk::protocol::Level;

/// A notice on screen.
#[derive(Debug, Clone)]
pub struct Notice {
    pub text: String,
    pub level: Level,
    posted: Instant,
    /// A key came after the notice was posted: once [`SHOWN_FOR`] has passed too,
    /// it goes.
    key_after: bool,
}

/// One line of the messages log.
#[derive(Debug, Clone)]
pub struct Logged {
    pub at: SystemTime,
    pub level: Level,
    pub text: String,
}

/// The notice on screen and every notice so far.
#[derive(Debug, Clone, Default)]
pub struct Notices {
    current: Option<Notice>,
    log: Vec<Logged>,
}

impl Notices {
    pub fn post(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        // The same words again (a key pressed twice) are one line in the log.
        let repeat = self
            .log
            .last()
            .is_some_and(|l| l.text == text && l.level == level);
        if !repeat {
            if self.log.len() == LOG_LIMIT {
                self.log.remove(0);
            }
            self.log.push(Logged {
                at: SystemTime::now(),
                level,
                text: text.clone(),
            });
        }
        self.current = Some(Notice {
            text,
            level,
            posted: Instant::now(),
            key_after: false,
        });
    }

    /// The latest notice's words, shown or not (the tests read it).
    pub fn as_deref(&self) -> Option<&str> {
        self.current.as_ref().map(|n| n.text.as_str())
    }

    pub fn is_some(&self) -> bool {
        self.current.is_some()
    }

    /// Takes the notice off the screen (it stays in the log).
    pub fn clear(&mut self) {
        self.current = None;
    }

    /// A key arrived: an info or warning posted before it may now expire.
    pub fn key_pressed(&mut self) {
        if let Some(n) = &mut self.current {
            n.key_after = true;
        }
    }

    /// The notice to draw at `now`, if any.
    pub fn shown(&self, now: Instant) -> Option<&Notice> {
        self.current.as_ref().filter(|n| !n.expired(now))
    }

    /// Drops an expired notice; true when one went (the screen must be drawn again).
    pub fn expire(&mut self, now: Instant) -> bool {
        if self.current.as_ref().is_some_and(|n| n.expired(now)) {
            self.current = None;
            return true;
        }
        false
    }

    /// When the notice on screen will go without another key, for the run loop's timer.
    pub fn deadline(&self) -> Option<Instant> {
        self.current
            .as_ref()
            .filter(|n| n.level != Level::Error && n.key_after)
            .map(|n| n.posted + SHOWN_FOR)
    }

    /// An error on screen, which Esc dismisses first.
    pub fn error_shown(&self) -> bool {
        self.current
            .as_ref()
            .is_some_and(|n| n.level == Level::Error)
    }

    pub fn log(&self) -> &[Logged] {
        &self.log
    }
}

impl Notice {
    fn expired(&self, now: Instant) -> bool {
        self.level != Level::Error
            && self.key_after
            && now.saturating_duration_since(self.posted) >= SHOWN_FOR
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_info_stays_six_seconds_and_until_the_next_key() {
        let mut n = Notices::default();
        n.post(Level::Info, "w: wrap on");
        let later = Instant::now() + Duration::from_secs(12);
        // No key yet: it stays however long.
        assert!(n.shown(later).is_some());
        assert_eq!(n.deadline(), None);
        n.key_pressed();
        assert!(
            n.shown(Instant::now()).is_some(),
            "a key before 6 s keeps it"
        );
        assert!(n.shown(later).is_none());
        assert!(n.deadline().is_some());
        assert!(n.expire(later));
        assert_eq!(n.log().len(), 1);
    }

    #[test]
    fn an_error_stays_until_dismissed_and_the_log_keeps_everything() {
        let mut n = Notices::default();
        n.post(Level::Info, "one");
        n.post(Level::Error, "HTTP 401");
        n.key_pressed();
        assert!(n.shown(Instant::now() + Duration::from_secs(60)).is_some());
        assert!(n.error_shown());
        n.clear();
        assert!(n.shown(Instant::now()).is_none());
        n.post(Level::Warning, "two");
        n.post(Level::Warning, "two");
        let texts: Vec<_> = n.log().iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["one", "HTTP 401", "two"]);
    }
}
