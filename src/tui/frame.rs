//! Coalesces redraw requests: any number of requests within one frame interval give
//! one draw, so a stream of hundreds of chunks a second never draws per chunk. Input
//! from the person asks for an immediate draw instead: keys come at human speed, and
//! each should be on screen at once. The clock is passed in, so the scheduler is tested
//! without sleeping.

use std::time::Duration;

use tokio::time::Instant;

/// One frame at 60 Hz.
pub const FRAME: Duration = Duration::from_millis(16);

#[derive(Debug)]
pub struct FrameScheduler {
    interval: Duration,
    last_draw: Option<Instant>,
    pending: Pending,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    None,
    /// Draw at the next frame boundary.
    Frame,
    /// Draw now (the person pressed a key).
    Now,
}

impl FrameScheduler {
    pub fn new(interval: Duration) -> FrameScheduler {
        FrameScheduler {
            interval,
            last_draw: None,
            pending: Pending::None,
        }
    }

    /// Asks for a draw; cheap, call it as often as you like.
    pub fn request(&mut self) {
        if self.pending == Pending::None {
            self.pending = Pending::Frame;
        }
    }

    /// Asks for a draw as soon as possible (input from the person).
    pub fn request_now(&mut self) {
        self.pending = Pending::Now;
    }

    /// When the next draw should happen, if one was requested.
    pub fn deadline(&self, now: Instant) -> Option<Instant> {
        match (self.pending, self.last_draw) {
            (Pending::None, _) => None,
            (Pending::Now, _) | (Pending::Frame, None) => Some(now),
            (Pending::Frame, Some(last)) => Some((last + self.interval).max(now)),
        }
    }

    /// Records a draw made at `now`.
    pub fn drawn(&mut self, now: Instant) {
        self.pending = Pending::None;
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
    fn input_is_drawn_at_once() {
        let start = Instant::now();
        let mut s = FrameScheduler::new(FRAME);
        s.request();
        s.drawn(start);
        let soon = start + Duration::from_millis(1);
        s.request();
        s.request_now();
        s.request();
        assert_eq!(s.deadline(soon), Some(soon));
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
