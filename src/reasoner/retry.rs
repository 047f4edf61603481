//! When to try a failed call again and how long to wait first.
//!
//! Only failures that happen before the first token are retried: after that the
//! person has already seen text, and a silent second answer would not match it.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};

use crate::reasoner::ReasonerError;

/// Exponential backoff with jitter, bounded in attempts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in total, the first included.
    pub max_attempts: u32,
    /// Wait before the second attempt; doubled for each further one.
    pub base: Duration,
    /// No computed wait exceeds this (a server's `retry-after` may).
    pub cap: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            base: Duration::from_secs(1),
            cap: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The wait after failed attempt number `attempt` (1-based): half of the doubled
    /// base is fixed, the other half random, so that many clients do not retry in step.
    /// A server's `retry-after` is the minimum.
    pub fn wait(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let exponent = attempt.saturating_sub(1).min(16);
        let full = self.base.saturating_mul(1u32 << exponent).min(self.cap);
        let half = full / 2;
        let jitter = half.mul_f64(fastrand::f64());
        let backoff = half + jitter;
        match retry_after {
            Some(server) => backoff.max(server),
            None => backoff,
        }
    }
}

/// Whether a failure may be retried, and the server's requested minimum wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    Never,
    After(Option<Duration>),
}

/// A wait before another attempt, as the stream announces it: without it a backoff
/// looks like a hung call (a 429 with `retry-after` can mean many silent seconds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backoff {
    /// The attempt that follows the wait (1-based: the first retry is attempt 2).
    pub attempt: u32,
    /// Attempts allowed in total, the first included.
    pub max_attempts: u32,
    /// How long the call waits before that attempt.
    pub wait_ms: u64,
    /// Why the last attempt failed, in a few words (`HTTP 429`, `connection refused`).
    pub reason: String,
}

/// `retrying in 2s (attempt 2/5): HTTP 429`, the wait rounded up to whole seconds.
impl std::fmt::Display for Backoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "retrying in {}s (attempt {}/{}): {}",
            self.wait_ms.div_ceil(1000),
            self.attempt,
            self.max_attempts,
            self.reason
        )
    }
}

/// Longest cause a [`Backoff`] carries; the screen has one line for it.
const CAUSE_MAX: usize = 48;

/// The few words that say why an attempt failed, for a status line: the status code
/// of an HTTP failure, the innermost cause of a network one.
pub fn cause(error: &ReasonerError) -> String {
    let text = match error {
        ReasonerError::Http { status, .. } => return format!("HTTP {status}"),
        ReasonerError::Timeout(_) => return "timeout".into(),
        ReasonerError::GaveUp { last, .. } => return cause(last),
        ReasonerError::Connect { message, .. } | ReasonerError::Incomplete(message) => {
            innermost(message)
        }
        other => other.to_string(),
    };
    shorten(&text)
}

/// `tcp connect error: Connection refused (os error 111)` -> `connection refused`.
fn innermost(message: &str) -> String {
    let last = message.rsplit(": ").next().unwrap_or(message).trim();
    let last = match last.rfind(" (os error") {
        Some(at) => &last[..at],
        None => last,
    };
    let mut chars = last.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => message.to_string(),
    }
}

fn shorten(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= CAUSE_MAX {
        return line;
    }
    let mut cut: String = line.chars().take(CAUSE_MAX - 1).collect();
    cut.push('…');
    cut
}

/// HTTP statuses worth another attempt: timeouts, rate limits, server errors,
/// Anthropic's 529 (overloaded).
pub fn status_is_transient(status: u16) -> bool {
    matches!(status, 408 | 409 | 425 | 429) || (500..=599).contains(&status)
}

/// Reads `retry-after-ms`, then `retry-after` (seconds or an HTTP date).
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = headers.get("retry-after")?.to_str().ok()?.trim();
    parse_retry_after(value, now)
}

/// `retry-after` is either delta-seconds or an HTTP date; a date in the past means
/// "now".
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(parse_retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(
            parse_retry_after("0.5", now),
            Some(Duration::from_millis(500))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(20));
        assert_eq!(
            parse_retry_after(&later, now),
            Some(Duration::from_secs(20))
        );
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(20));
        assert_eq!(parse_retry_after(&earlier, now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-1", now), None);
    }

    #[test]
    fn retry_after_ms_header_wins() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", "10".parse().unwrap());
        headers.insert("retry-after-ms", "250".parse().unwrap());
        assert_eq!(
            retry_after(&headers, SystemTime::now()),
            Some(Duration::from_millis(250))
        );
    }

    #[test]
    fn backoff_doubles_within_jitter_and_respects_the_server() {
        let p = RetryPolicy {
            max_attempts: 5,
            base: Duration::from_millis(100),
            cap: Duration::from_millis(1000),
        };
        for _ in 0..50 {
            let w1 = p.wait(1, None);
            assert!(w1 >= Duration::from_millis(50) && w1 <= Duration::from_millis(100));
            let w3 = p.wait(3, None);
            assert!(w3 >= Duration::from_millis(200) && w3 <= Duration::from_millis(400));
            let capped = p.wait(10, None);
            assert!(capped <= Duration::from_millis(1000));
            let server = p.wait(1, Some(Duration::from_secs(2)));
            assert_eq!(server, Duration::from_secs(2));
        }
    }

    #[test]
    fn causes_are_a_few_words() {
        let http = ReasonerError::Http {
            status: 429,
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
            message: "Rate limit reached (requests/rate_limit_exceeded)".into(),
        };
        assert_eq!(cause(&http), "HTTP 429");
        let refused = ReasonerError::Connect {
            url: "http://127.0.0.1:1/v1".into(),
            message: "tcp connect error: Connection refused (os error 111)".into(),
        };
        assert_eq!(cause(&refused), "connection refused");
        let reset = ReasonerError::Incomplete(
            "the connection broke: error reading a body from connection: Connection reset by peer (os error 104)"
                .into(),
        );
        assert_eq!(cause(&reset), "connection reset by peer");
        let gave_up = ReasonerError::GaveUp {
            attempts: 5,
            last: Box::new(http),
        };
        assert_eq!(cause(&gave_up), "HTTP 429");
        assert_eq!(cause(&ReasonerError::Timeout("x".into())), "timeout");
        let long = ReasonerError::Provider("Overloaded ".repeat(20));
        let short = cause(&long);
        assert_eq!(short.chars().count(), CAUSE_MAX);
        assert!(short.ends_with('…'), "{short}");
    }

    #[test]
    fn transient_statuses() {
        for s in [429, 500, 502, 503, 529] {
            assert!(status_is_transient(s), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!status_is_transient(s), "{s}");
        }
    }
}
