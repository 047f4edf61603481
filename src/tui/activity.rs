//! The activity line: what the running reasoner call is doing, in words, so that no
//! wait looks like a hang. A model that thinks first sends nothing visible for many
//! seconds (the thinking pane is collapsed by default), and a rate-limited call
//! waits out its backoff in silence; the line says which it is and for how long.
//!
//! Pure: the state is fed the core's stream events with the time they arrived, and
//! the line is computed from that state and `now`. The run loop redraws it every
//! second while a call runs.

use std::time::{Duration, Instant};

use crate::reasoner::StreamEvent;
use crate::reasoner::metrics::BYTES_PER_TOKEN;
use crate::reasoner::retry::Backoff;

/// How long a stream may stay silent before the line says so instead of a rate.
pub const STALL: Duration = Duration::from_secs(5);

/// What the line says stops the call.
pub const CANCEL_HINT: &str = "x cancel";

/// Where the running call stands. One stage at a time: a call waits, maybe backs off
/// and waits again, maybe thinks, then writes.
#[derive(Debug, Clone, PartialEq)]
enum Stage {
    /// The request is out and nothing has come back; `after` is the backoff this
    /// attempt followed, if it is a retry.
    Waiting { after: Option<Backoff> },
    /// Waiting out a backoff that ends at `until`.
    BackingOff { backoff: Backoff, until: Instant },
    /// Only thinking has arrived, since `since`.
    Thinking { since: Instant },
    /// Answer text is arriving.
    Writing,
}

/// One reasoner call, as the activity line sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Activity {
    started: Instant,
    stage: Stage,
    /// The first text or thinking (as the call metrics in the journal count it).
    first_token: Option<Instant>,
    /// The last text or thinking: a stream silent for [`STALL`] is a stall.
    last_data: Option<Instant>,
    /// Text and thinking bytes so far: the token estimate until the provider reports.
    bytes: u64,
    /// Completion tokens the provider reported, if it did.
    reported: Option<u64>,
}

impl Activity {
    /// A call that started at `now`.
    pub fn new(now: Instant) -> Activity {
        Activity {
            started: now,
            stage: Stage::Waiting { after: None },
            first_token: None,
            last_data: None,
            bytes: 0,
            reported: None,
        }
    }

    /// Takes in one event of the call's stream, arrived at `now`.
    pub fn observe(&mut self, event: &StreamEvent, now: Instant) {
        match event {
            StreamEvent::Thinking { text } => {
                self.token(text, now);
                if !matches!(self.stage, Stage::Thinking { .. } | Stage::Writing) {
                    self.stage = Stage::Thinking { since: now };
                }
            }
            StreamEvent::Text { text } => {
                self.token(text, now);
                self.stage = Stage::Writing;
            }
            StreamEvent::Usage { usage } if usage.completion_tokens > 0 => {
                self.reported = Some(usage.completion_tokens);
            }
            StreamEvent::Retrying(backoff) => self.backing_off(backoff, now),
            StreamEvent::Usage { .. } | StreamEvent::Finished { .. } => {}
        }
    }

    /// The call failed an attempt and waits before the next one.
    fn backing_off(&mut self, backoff: &Backoff, now: Instant) {
        self.stage = Stage::BackingOff {
            backoff: backoff.clone(),
            until: now + Duration::from_millis(backoff.wait_ms),
        };
    }

    fn token(&mut self, text: &str, now: Instant) {
        self.first_token.get_or_insert(now);
        self.last_data = Some(now);
        self.bytes += text.len() as u64;
    }

    /// Tokens so far: reported, else estimated from the bytes received.
    fn tokens(&self) -> u64 {
        self.reported
            .unwrap_or_else(|| self.bytes.div_ceil(BYTES_PER_TOKEN))
    }

    /// The line for `now` in at most `width` columns. `writing` names what the answer
    /// text is filling (`streaming Architecture`, `reflecting`).
    pub fn line(&self, now: Instant, width: usize, writing: &str) -> String {
        let mut parts = vec![Part::new(Rank::Headline, self.headline(now, writing))];
        if let Some(first) = self.first_token {
            parts.push(Part::new(
                Rank::FirstToken,
                format!(
                    "first token {}",
                    tenths(first.saturating_duration_since(self.started))
                ),
            ));
            let generating = now.saturating_duration_since(first);
            let tokens = self.tokens();
            let silent = self
                .last_data
                .map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
            if silent >= STALL {
                // A rate decaying over a stall would hide it; say it.
                parts.push(Part::new(
                    Rank::Cancel,
                    format!("no data for {}", clock(silent)),
                ));
            } else if generating >= Duration::from_secs(1) && tokens > 0 {
                let rate = tokens as f64 / generating.as_secs_f64();
                parts.push(Part::new(Rank::Rate, format!("{rate:.0} tok/s")));
            }
            parts.push(Part::new(Rank::Tokens, format!("{} tok", count(tokens))));
        }
        parts.push(Part::new(
            Rank::Elapsed,
            format!(
                "elapsed {}",
                clock(now.saturating_duration_since(self.started))
            ),
        ));
        parts.push(Part::new(Rank::Cancel, CANCEL_HINT.to_string()));
        fit(parts, width)
    }

    fn headline(&self, now: Instant, writing: &str) -> String {
        match &self.stage {
            Stage::Waiting { after: None } => "waiting for the reasoner…".into(),
            Stage::Waiting { after: Some(b) } => format!(
                "waiting for the reasoner… (attempt {}/{} after {})",
                b.attempt, b.max_attempts, b.reason
            ),
            Stage::BackingOff { backoff: b, until } => format!(
                "retrying in {} (attempt {}/{}): {}",
                clock(ceil_secs(until.saturating_duration_since(now))),
                b.attempt,
                b.max_attempts,
                b.reason
            ),
            Stage::Thinking { since } => {
                format!("thinking… {}", clock(now.saturating_duration_since(*since)))
            }
            Stage::Writing => writing.to_string(),
        }
    }

    /// Called on each redraw tick: a backoff whose wait is over becomes a wait for
    /// the next attempt's answer.
    pub fn settle(&mut self, now: Instant) {
        if let Stage::BackingOff { backoff, until } = &self.stage
            && now >= *until
        {
            self.stage = Stage::Waiting {
                after: Some(backoff.clone()),
            };
        }
    }
}

/// The activity of the call running now, if any, and which call that is: the
/// workbench feeds it every runtime event about calls, and a piece of an older call
/// (a cancelled one still draining) changes nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Running {
    call: u64,
    activity: Option<Activity>,
}

impl Running {
    /// The runtime sent call `call` at `now`.
    pub fn started(&mut self, call: u64, now: Instant) {
        if call >= self.call {
            self.call = call;
            self.activity = Some(Activity::new(now));
        }
    }

    /// An event of call `call`'s stream. Only the call whose start was seen is
    /// timed: the runtime announces every call before its first event.
    pub fn delta(&mut self, call: u64, event: &StreamEvent, now: Instant) {
        if call != self.call {
            return;
        }
        if let StreamEvent::Finished { .. } = event {
            self.activity = None;
            return;
        }
        if let Some(activity) = &mut self.activity {
            activity.observe(event, now);
        }
    }

    /// The call ended (it failed, was cancelled, or the loop moved on).
    pub fn ended(&mut self) {
        self.activity = None;
    }

    /// Each redraw tick.
    pub fn tick(&mut self, now: Instant) {
        if let Some(activity) = &mut self.activity {
            activity.settle(now);
        }
    }

    pub fn activity(&self) -> Option<&Activity> {
        self.activity.as_ref()
    }
}

/// Which parts go first when the line is too long: the lowest rank is dropped first;
/// the headline is never dropped, only cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    FirstToken,
    Tokens,
    Elapsed,
    Rate,
    Cancel,
    Headline,
}

struct Part {
    rank: Rank,
    text: String,
}

impl Part {
    fn new(rank: Rank, text: String) -> Part {
        Part { rank, text }
    }
}

const SEPARATOR: &str = " · ";

/// Joins the parts, dropping the least useful ones until the line fits `width`.
fn fit(mut parts: Vec<Part>, width: usize) -> String {
    let length = |parts: &[Part]| {
        parts.iter().map(|p| p.text.chars().count()).sum::<usize>()
            + SEPARATOR.chars().count() * parts.len().saturating_sub(1)
    };
    while length(&parts) > width {
        let Some(weakest) = parts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.rank != Rank::Headline)
            .min_by_key(|(_, p)| p.rank)
            .map(|(i, _)| i)
        else {
            break;
        };
        parts.remove(weakest);
    }
    let line = parts
        .iter()
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join(SEPARATOR);
    if line.chars().count() <= width {
        return line;
    }
    let mut cut: String = line.chars().take(width.saturating_sub(1)).collect();
    if width > 0 {
        cut.push('…');
    }
    cut
}

/// A wait shown in whole seconds, rounded up: `retrying in 2s` right after a
/// `retry-after: 2`, and never `retrying in 0s` while it still waits.
fn ceil_secs(d: Duration) -> Duration {
    Duration::from_secs(d.as_millis().div_ceil(1000) as u64)
}

/// `12s`, `1m05s`, `1h02m`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

/// `0.8s` below ten seconds, whole seconds above.
fn tenths(d: Duration) -> String {
    if d < Duration::from_secs(10) {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        clock(d)
    }
}

/// `830`, `2.4k`, `24k`.
fn count(tokens: u64) -> String {
    match tokens {
        0..1000 => tokens.to_string(),
        1000..10_000 => format!("{:.1}k", tokens as f64 / 1000.0),
        _ => format!("{}k", tokens / 1000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reasoner::Usage;

    fn at(t0: Instant, ms: u64) -> Instant {
        t0 + Duration::from_millis(ms)
    }

    fn thinking(text: &str) -> StreamEvent {
        StreamEvent::Thinking { text: text.into() }
    }

    fn text(text: &str) -> StreamEvent {
        StreamEvent::Text { text: text.into() }
    }

    fn retrying(attempt: u32, wait_ms: u64) -> StreamEvent {
        StreamEvent::Retrying(Backoff {
            attempt,
            max_attempts: 5,
            wait_ms,
            reason: "HTTP 429".into(),
        })
    }

    const WIDE: usize = 200;

    #[test]
    fn a_call_waits_with_its_elapsed_time_and_the_cancel_key() {
        let t0 = Instant::now();
        let a = Activity::new(t0);
        assert_eq!(
            a.line(at(t0, 3_400), WIDE, "streaming Architecture"),
            "waiting for the reasoner… · elapsed 3s · x cancel"
        );
    }

    #[test]
    fn a_stream_silent_for_five_seconds_says_so_instead_of_a_rate() {
        let t0 = Instant::now();
        let mut a = Activity::new(t0);
        a.observe(&text("ARCHITECTURE:\nA CLI over a store.\n"), at(t0, 1_000));
        a.observe(&text("More text of the answer.\n"), at(t0, 3_000));
        let flowing = a.line(at(t0, 4_000), WIDE, "streaming Architecture");
        assert!(flowing.contains("tok/s"), "{flowing}");
        let stalled = a.line(at(t0, 48_000), WIDE, "streaming Architecture");
        assert!(stalled.contains("no data for 45s"), "{stalled}");
        assert!(!stalled.contains("tok/s"), "{stalled}");
        // It survives a narrow line.
        let narrow = a.line(at(t0, 48_000), 60, "streaming Architecture");
        assert!(narrow.contains("no data for 45s"), "{narrow}");
    }

    #[test]
    fn thinking_counts_its_own_seconds() {
        let t0 = Instant::now();
        let mut a = Activity::new(t0);
        a.observe(&thinking("Let me consider"), at(t0, 2_000));
        a.observe(&thinking(" the storage first."), at(t0, 9_000));
        let line = a.line(at(t0, 14_200), WIDE, "streaming Architecture");
        assert!(
            line.starts_with("thinking… 12s · first token 2.0s"),
            "{line}"
        );
        assert!(line.ends_with("elapsed 14s · x cancel"), "{line}");
    }

    #[test]
    fn a_backoff_counts_down_with_attempt_and_reason_then_waits_again() {
        let t0 = Instant::now();
        let mut a = Activity::new(t0);
        a.observe(&retrying(2, 4_000), at(t0, 300));
        assert_eq!(
            a.line(at(t0, 300), WIDE, "x"),
            "retrying in 4s (attempt 2/5): HTTP 429 · elapsed 0s · x cancel"
        );
        assert!(
            a.line(at(t0, 2_500), WIDE, "x")
                .starts_with("retrying in 2s (attempt 2/5)")
        );
        // Between 4.0 and 4.3 s: never `retrying in 0s` while it still waits.
        assert!(
            a.line(at(t0, 4_200), WIDE, "x")
                .starts_with("retrying in 1s")
        );
        a.settle(at(t0, 4_400));
        assert!(
            a.line(at(t0, 4_400), WIDE, "x")
                .starts_with("waiting for the reasoner… (attempt 2/5 after HTTP 429)"),
        );
        // A second failure shows the next attempt.
        a.observe(&retrying(3, 2_000), at(t0, 5_000));
        assert!(
            a.line(at(t0, 5_000), WIDE, "x")
                .starts_with("retrying in 2s (attempt 3/5)")
        );
    }

    #[test]
    fn flowing_text_shows_first_token_rate_and_count() {
        let t0 = Instant::now();
        let mut a = Activity::new(t0);
        a.observe(&text("ARCHITECTURE:\n"), at(t0, 800));
        // 9,600 bytes: 2,400 estimated tokens.
        a.observe(&text(&"x".repeat(9_586)), at(t0, 52_000));
        let line = a.line(at(t0, 55_345), WIDE, "streaming Architecture");
        assert_eq!(
            line,
            "streaming Architecture · first token 0.8s · 44 tok/s · 2.4k tok · elapsed 55s · x cancel"
        );
        // The provider's own count replaces the estimate.
        a.observe(
            &StreamEvent::Usage {
                usage: Usage {
                    prompt_tokens: 900,
                    completion_tokens: 3_100,
                    cached_prompt_tokens: 0,
                },
            },
            at(t0, 55_345),
        );
        assert!(a.line(at(t0, 55_345), WIDE, "s").contains("3.1k tok"));
    }

    #[test]
    fn thinking_after_text_keeps_the_writing_line() {
        let t0 = Instant::now();
        let mut a = Activity::new(t0);
        a.observe(&thinking("hmm"), at(t0, 100));
        a.observe(&text("ARCHITECTURE:\n"), at(t0, 5_000));
        a.observe(&thinking("more"), at(t0, 6_000));
        assert!(
            a.line(at(t0, 7_000), WIDE, "streaming X")
                .starts_with("streaming X")
        );
    }

    #[test]
    fn narrow_lines_drop_the_least_useful_parts_first() {
        let t0 = Instant::now();
        let mut a = Activity::new(t0);
        a.observe(&text(&"x".repeat(9_600)), at(t0, 800));
        // Still flowing (no stall): the last piece came a moment ago.
        a.observe(&text(""), at(t0, 64_000));
        let now = at(t0, 65_000);
        let label = "streaming Class diagram";
        let full = a.line(now, WIDE, label);
        assert_eq!(
            full,
            "streaming Class diagram · first token 0.8s · 37 tok/s · 2.4k tok · elapsed 1m05s · x cancel"
        );
        // A line exactly as wide as the room is kept whole (`·` is one column).
        assert_eq!(a.line(now, full.chars().count(), label), full);
        for width in [80, 72, 60, 40, 30, 20, 5, 0] {
            let line = a.line(now, width, label);
            assert!(line.chars().count() <= width, "{width}: {line}");
        }
        assert_eq!(
            a.line(now, 80, label),
            "streaming Class diagram · 37 tok/s · 2.4k tok · elapsed 1m05s · x cancel"
        );
        assert_eq!(
            a.line(now, 60, label),
            "streaming Class diagram · 37 tok/s · x cancel"
        );
        assert_eq!(a.line(now, 30, label), "streaming Class diagram");
        assert_eq!(a.line(now, 20, label), "streaming Class dia…");
    }

    #[test]
    fn a_retry_fits_at_sixty_columns_with_its_cancel_key() {
        let t0 = Instant::now();
        let mut a = Activity::new(t0);
        a.observe(&retrying(2, 2_000), t0);
        assert_eq!(
            a.line(t0, 60, "x"),
            "retrying in 2s (attempt 2/5): HTTP 429 · x cancel"
        );
    }

    #[test]
    fn only_the_newest_call_counts() {
        let t0 = Instant::now();
        let mut r = Running::default();
        r.started(2, t0);
        r.delta(1, &text("late piece of a cancelled call"), at(t0, 100));
        let a = r.activity().unwrap();
        assert!(
            a.line(at(t0, 200), WIDE, "s")
                .starts_with("waiting for the reasoner")
        );
        r.delta(2, &retrying(2, 1_000), at(t0, 300));
        r.tick(at(t0, 1_400));
        assert!(
            r.activity()
                .unwrap()
                .line(at(t0, 1_400), WIDE, "s")
                .contains("(attempt 2/5 after HTTP 429)")
        );
        r.delta(
            2,
            &StreamEvent::Finished { stop_reason: None },
            at(t0, 2_000),
        );
        assert!(r.activity().is_none());
        // Pieces of a call whose start was not seen are not timed.
        r.delta(3, &text("ARCHITECTURE:\n"), at(t0, 3_000));
        assert!(r.activity().is_none());
        r.started(3, at(t0, 3_000));
        r.delta(3, &text("ARCHITECTURE:\n"), at(t0, 3_800));
        let line = r
            .activity()
            .unwrap()
            .line(at(t0, 4_000), WIDE, "streaming Architecture");
        assert!(line.contains("first token 0.8s"), "{line}");
        r.ended();
        assert!(r.activity().is_none());
        // A start older than the newest call is stale too.
        r.started(2, at(t0, 4_000));
        assert!(r.activity().is_none());
    }

    #[test]
    fn formats() {
        assert_eq!(clock(Duration::from_secs(0)), "0s");
        assert_eq!(clock(Duration::from_secs(59)), "59s");
        assert_eq!(clock(Duration::from_secs(65)), "1m05s");
        assert_eq!(clock(Duration::from_secs(3_720)), "1h02m");
        assert_eq!(tenths(Duration::from_millis(840)), "0.8s");
        assert_eq!(tenths(Duration::from_secs(12)), "12s");
        assert_eq!(count(830), "830");
        assert_eq!(count(2_400), "2.4k");
        assert_eq!(count(24_400), "24k");
        assert_eq!(ceil_secs(Duration::from_millis(1)), Duration::from_secs(1));
        assert_eq!(ceil_secs(Duration::ZERO), Duration::ZERO);
    }
}
