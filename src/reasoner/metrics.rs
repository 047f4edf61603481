//! Call metrics: time to first token, tokens per second and usage, measured on the
//! stream itself so that every provider (replay and offline included) is measured
//! the same way. The loop's runtime wraps each call's stream in [`Metered`], shows
//! [`Metered::snapshot`] in the status bar while it runs, and writes the final
//! [`CallMetrics`] into the decision journal.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::Stream;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::reasoner::{EventStream, ReasonerError, StreamEvent, Usage};

/// Roughly four bytes of English text per token; used only when the provider sent
/// no usage.
pub const BYTES_PER_TOKEN: u64 = 4;

/// How a metered call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Still streaming (only seen in snapshots).
    Running,
    /// The provider marked the answer complete.
    Finished,
    /// The stream ended with an error.
    Failed,
    /// The stream ended without the provider's end mark, or was dropped early.
    Unfinished,
}

/// The measurements of one call, as written to the journal (durations in ms).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallMetrics {
    pub outcome: Outcome,
    /// From the first poll of the stream to the first text or thinking.
    pub ttft_ms: Option<u64>,
    /// From the first poll to the end (or to now, in a snapshot).
    pub elapsed_ms: u64,
    /// Completion tokens per second of generation (after the first token).
    pub tokens_per_second: Option<f64>,
    /// What the provider reported, if it did.
    pub usage: Option<Usage>,
    /// Completion tokens: reported, else estimated from the bytes received.
    pub completion_tokens: u64,
    /// True when `completion_tokens` is an estimate.
    pub estimated: bool,
    pub text_bytes: u64,
    pub thinking_bytes: u64,
    pub stop_reason: Option<String>,
}

impl CallMetrics {
    /// Status-bar form, e.g. `ttft 0.42s · 38.1 tok/s · 1200→830 tok`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if let Some(ms) = self.ttft_ms {
            parts.push(format!("ttft {:.2}s", ms as f64 / 1000.0));
        }
        if let Some(rate) = self.tokens_per_second {
            parts.push(format!("{rate:.1} tok/s"));
        }
        match self.usage {
            Some(u) => parts.push(format!("{}→{} tok", u.prompt_tokens, u.completion_tokens)),
            None => parts.push(format!("~{} tok", self.completion_tokens)),
        }
        parts.join(" · ")
    }
}

/// Wraps a call's stream; passes every item through unchanged and measures it.
pub struct Metered {
    inner: EventStream,
    started: Option<Instant>,
    first_token: Option<Instant>,
    ended: Option<Instant>,
    outcome: Outcome,
    usage: Option<Usage>,
    text_bytes: u64,
    thinking_bytes: u64,
    stop_reason: Option<String>,
}

impl Metered {
    pub fn new(inner: EventStream) -> Metered {
        Metered {
            inner,
            started: None,
            first_token: None,
            ended: None,
            outcome: Outcome::Running,
            usage: None,
            text_bytes: 0,
            thinking_bytes: 0,
            stop_reason: None,
        }
    }

    /// The metrics so far; callable at any time (the status bar polls it).
    pub fn snapshot(&self) -> CallMetrics {
        let now = Instant::now();
        let started = self.started.unwrap_or(now);
        let end = self.ended.unwrap_or(now);
        let (completion_tokens, estimated) = match self.usage {
            Some(u) if u.completion_tokens > 0 => (u.completion_tokens, false),
            _ => (
                (self.text_bytes + self.thinking_bytes).div_ceil(BYTES_PER_TOKEN),
                true,
            ),
        };
        let tokens_per_second = self.first_token.and_then(|first| {
            let generating = end.saturating_duration_since(first);
            (generating >= Duration::from_millis(1) && completion_tokens > 0)
                .then(|| completion_tokens as f64 / generating.as_secs_f64())
        });
        CallMetrics {
            outcome: self.outcome,
            ttft_ms: self.first_token.map(|t| millis(t - started)),
            elapsed_ms: millis(end.saturating_duration_since(started)),
            tokens_per_second,
            usage: self.usage,
            completion_tokens,
            estimated,
            text_bytes: self.text_bytes,
            thinking_bytes: self.thinking_bytes,
            stop_reason: self.stop_reason.clone(),
        }
    }

    /// The final metrics. If the stream was not read to its end, the call counts as
    /// unfinished (the person cancelled it).
    pub fn finish(mut self) -> CallMetrics {
        if self.outcome == Outcome::Running {
            self.outcome = Outcome::Unfinished;
            self.ended = Some(Instant::now());
        }
        self.snapshot()
    }

    fn observe(&mut self, item: &Option<Result<StreamEvent, ReasonerError>>) {
        let now = Instant::now();
        match item {
            Some(Ok(StreamEvent::Text { text })) => {
                self.first_token.get_or_insert(now);
                self.text_bytes += text.len() as u64;
            }
            Some(Ok(StreamEvent::Thinking { text })) => {
                self.first_token.get_or_insert(now);
                self.thinking_bytes += text.len() as u64;
            }
            Some(Ok(StreamEvent::Usage { usage })) => self.usage = Some(*usage),
            Some(Ok(StreamEvent::Retrying(_))) => {}
            Some(Ok(StreamEvent::Finished { stop_reason })) => {
                self.stop_reason = stop_reason.clone();
                self.outcome = Outcome::Finished;
            }
            Some(Err(_)) => {
                self.outcome = Outcome::Failed;
                self.ended = Some(now);
            }
            None => {
                if self.outcome == Outcome::Running {
                    self.outcome = Outcome::Unfinished;
                }
                self.ended.get_or_insert(now);
            }
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Stream for Metered {
    type Item = Result<StreamEvent, ReasonerError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.started.is_none() {
            self.started = Some(Instant::now());
        }
        let item = match self.inner.as_mut().poll_next(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(item) => item,
        };
        self.observe(&item);
        Poll::Ready(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    fn paced(events: Vec<(u64, Result<StreamEvent, ReasonerError>)>) -> EventStream {
        Box::pin(
            futures_util::stream::iter(events).then(|(ms, e)| async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                e
            }),
        )
    }

    /// On a paused clock: the figures are exact whatever the machine's load.
    #[tokio::test(start_paused = true)]
    async fn measures_ttft_rate_and_usage() {
        let mut m = Metered::new(paced(vec![
            (
                50,
                Ok(StreamEvent::Text {
                    text: "abcd".into(),
                }),
            ),
            (
                100,
                Ok(StreamEvent::Text {
                    text: "efgh".into(),
                }),
            ),
            (
                0,
                Ok(StreamEvent::Usage {
                    usage: Usage {
                        prompt_tokens: 10,
                        completion_tokens: 50,
                        cached_prompt_tokens: 0,
                    },
                }),
            ),
            (
                0,
                Ok(StreamEvent::Finished {
                    stop_reason: Some("stop".into()),
                }),
            ),
        ]));
        while m.next().await.is_some() {}
        let metrics = m.finish();
        assert_eq!(metrics.outcome, Outcome::Finished);
        let ttft = metrics.ttft_ms.unwrap();
        assert!((50..90).contains(&ttft), "{ttft}");
        assert!(
            (150..250).contains(&metrics.elapsed_ms),
            "{}",
            metrics.elapsed_ms
        );
        assert_eq!(metrics.completion_tokens, 50);
        assert!(!metrics.estimated);
        // 50 tokens over the ~100 ms between the first token and the end.
        let rate = metrics.tokens_per_second.unwrap();
        assert!((250.0..=500.0).contains(&rate), "{rate}");
        assert!(
            metrics.summary().contains("10→50 tok"),
            "{}",
            metrics.summary()
        );
    }

    #[tokio::test]
    async fn estimates_without_usage_and_marks_failures() {
        let mut m = Metered::new(paced(vec![
            (
                30,
                Ok(StreamEvent::Text {
                    text: "x".repeat(400),
                }),
            ),
            (10, Err(ReasonerError::Incomplete("cut".into()))),
        ]));
        while m.next().await.is_some() {}
        let metrics = m.finish();
        assert_eq!(metrics.outcome, Outcome::Failed);
        assert_eq!(metrics.completion_tokens, 100);
        assert!(metrics.estimated);
        let json = serde_json::to_value(&metrics).unwrap();
        assert_eq!(json["outcome"], "failed");
        assert!(json["ttft_ms"].as_u64().unwrap() >= 30);
    }

    #[tokio::test]
    async fn dropped_early_is_unfinished() {
        let mut m = Metered::new(paced(vec![
            (10, Ok(StreamEvent::Text { text: "a".into() })),
            (10, Ok(StreamEvent::Text { text: "b".into() })),
        ]));
        m.next().await;
        assert_eq!(m.snapshot().outcome, Outcome::Running);
        assert_eq!(m.finish().outcome, Outcome::Unfinished);
    }
}
