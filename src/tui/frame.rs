//! Coalesces redraw requests: any number of requests within one frame interval give
//! one draw, so a stream of hundreds of chunks a second never draws per chunk, while a
//! keystroke is drawn at the next frame boundary (at most one interval away). The
//! clock is passed in, so the scheduler is tested without sleeping.

use std::time::Duration;

use tokio::time::Instant;

/// One frame at 60 Hz.
pub const FRAME: Duration = Duration::from_millis(16);

#[derive(Debug)]
pub struct FrameScheduler {
    interval: Duration,
    last_draw: Option<Instant>,
    pending: bool,
}

impl FrameScheduler {
    pub fn new(interval: Duration) -> FrameScheduler {
        FrameScheduler {
            interval,
            last_draw: None,
            pending: false,
        }
    }

    /// Asks for a draw; cheap, call it as often as you like.
    pub fn request(&mut self) {
        self.pending = true;
    }

    /// When the next draw should happen, if one was requested.
    pub fn deadline(&self, now: Instant) -> Option<Instant> {
        if !self.pending {
            return None;
        }
        Some(match self.last_draw {
            Some(last) => (last + self.interval).max(now),
            None => now,
        })
    }

    /// Records a draw made at `now`.
    pub fn drawn(&mut self, now: Instant) {
        self.pending = false;
        self.last_draw = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_requests_in_one_interval_give_one_draw() {
        let start = Instant::now();
        let mut s = FrameScheduler::new(FRAME);
        assert_eq!(s.deadline(start), None);
        s.request();
        assert_eq!(s.deadline(start), Some(start));
        s.drawn(start);
        let mut draws = 0;
        // 500 requests a second for 160 ms.
        for step in 1..=80u64 {
            let now = start + Duration::from_millis(2 * step);
            s.request();
            if s.deadline(now).is_some_and(|d| d <= now) {
                s.drawn(now);
                draws += 1;
            }
        }
        assert!((9..=10).contains(&draws), "{draws} draws");
    }

    #[test]
    fn a_request_waits_at_most_one_interval() {
        let start = Instant::now();
        let mut s = FrameScheduler::new(FRAME);
        s.request();
        s.drawn(start);
        let soon = start + Duration::from_millis(1);
        s.request();
        assert_eq!(s.deadline(soon), Some(start + FRAME));
        let later = start + Duration::from_millis(100);
        assert_eq!(s.deadline(later), Some(later));
    }
}
