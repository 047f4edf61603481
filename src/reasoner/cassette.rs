//! Cassettes: a reasoner's calls recorded to a file and played back, so that demos
//! and bug reports are reproducible without a key or network.
//!
//! A cassette is JSON lines. The first line is the header with the format version;
//! each call starts with a `call` line (provider, model and the request, which never
//! holds a credential); each stream item follows as `{"t_ms": …, "event": …}` or
//! `{"t_ms": …, "error": "…"}`, where `t_ms` is the time since the call started.
//!
//! ```text
//! {"volk_cassette":1,"created":"2026-01-01T10:00:00Z"}
//! {"call":{"provider":"openai","model":"gpt-4.1","purpose":"design","cycle":1,"max_tokens":8000,"system":"…","prompt":"…"}}
//! {"t_ms":412,"event":{"type":"text","text":"ARCHITECTURE:\n"}}
//! {"t_ms":2210,"event":{"type":"finished","stop_reason":"stop"}}
//! ```

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::brief::Purpose;
use crate::fsutil::atomic_write;
use crate::reasoner::secret::ApiKey;
use crate::reasoner::{
    EventStream, Reasoner, ReasonerError, ReasonerRequest, SharedReasoner, StreamEvent,
};

/// The format version this volk writes and reads.
pub const VERSION: u32 = 1;

/// One recorded request. Credentials are never part of a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallHeader {
    pub provider: String,
    pub model: String,
    pub purpose: Purpose,
    pub cycle: u32,
    pub max_tokens: u32,
    pub system: String,
    pub prompt: String,
}

/// One line of a cassette.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum Line {
    Header {
        volk_cassette: u32,
        #[serde(default)]
        created: String,
    },
    Call {
        call: CallHeader,
    },
    Event {
        t_ms: u64,
        event: StreamEvent,
    },
    Error {
        t_ms: u64,
        error: String,
    },
}

/// A recorded item, as replayed.
#[derive(Debug, Clone, PartialEq)]
pub enum Recorded {
    Event(StreamEvent),
    Error(String),
}

/// One call of a cassette: its request and what the stream yielded, when.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCall {
    pub header: CallHeader,
    pub items: Vec<(Duration, Recorded)>,
}

/// A whole cassette, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Cassette {
    pub calls: Vec<RecordedCall>,
}

impl Cassette {
    /// Reads `path`; any unreadable or malformed line is refused with its number.
    pub fn load(path: &Path) -> Result<Cassette, ReasonerError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ReasonerError::Config(format!("{}: cannot read the cassette: {e}", path.display()))
        })?;
        Cassette::parse(&text).map_err(|(line, message)| ReasonerError::Cassette {
            path: path.display().to_string(),
            line,
            message,
        })
    }

    /// Parses cassette text; the error is `(line number, what is wrong)`.
    pub fn parse(text: &str) -> Result<Cassette, (usize, String)> {
        let mut calls: Vec<RecordedCall> = Vec::new();
        let mut seen_header = false;
        for (index, raw) in text.lines().enumerate() {
            let number = index + 1;
            if raw.trim().is_empty() {
                continue;
            }
            let line: Line = serde_json::from_str(raw).map_err(|e| {
                let what = if serde_json::from_str::<serde_json::Value>(raw).is_ok() {
                    "not a cassette line (expected a header, `call`, `event` or `error`)"
                        .to_string()
                } else {
                    format!("invalid JSON: {e}")
                };
                (number, what)
            })?;
            match line {
                Line::Header { volk_cassette, .. } => {
                    if seen_header {
                        return Err((number, "a second header line".into()));
                    }
                    if volk_cassette != VERSION {
                        return Err((
                            number,
                            format!(
                                "cassette format {volk_cassette} is not supported (this volk reads {VERSION})"
                            ),
                        ));
                    }
                    seen_header = true;
                }
                _ if !seen_header => {
                    return Err((
                        number,
                        "not a volk cassette: the first line must be the header `{\"volk_cassette\":1}`"
                            .into(),
                    ));
                }
                Line::Call { call } => calls.push(RecordedCall {
                    header: call,
                    items: Vec::new(),
                }),
                Line::Event { t_ms, event } => {
                    let call = calls
                        .last_mut()
                        .ok_or((number, "an event before any `call` line".to_string()))?;
                    call.items
                        .push((Duration::from_millis(t_ms), Recorded::Event(event)));
                }
                Line::Error { t_ms, error } => {
                    let call = calls
                        .last_mut()
                        .ok_or((number, "an error before any `call` line".to_string()))?;
                    call.items
                        .push((Duration::from_millis(t_ms), Recorded::Error(error)));
                }
            }
        }
        if !seen_header {
            return Err((1, "empty file: not a volk cassette".into()));
        }
        Ok(Cassette { calls })
    }
}

fn header_line() -> String {
    let line = Line::Header {
        volk_cassette: VERSION,
        created: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
    };
    serde_json::to_string(&line).unwrap_or_default()
}

/// The file being written and the lines it holds so far.
struct Tape {
    path: PathBuf,
    lines: Mutex<Vec<String>>,
    secret: Option<ApiKey>,
}

impl Tape {
    fn push(&self, line: &Line) {
        let Ok(mut text) = serde_json::to_string(line) else {
            return;
        };
        if let Some(secret) = &self.secret {
            text = secret.scrub(&text);
        }
        if let Ok(mut lines) = self.lines.lock() {
            lines.push(text);
        }
    }

    /// Rewrites the whole cassette atomically, so it is never seen half-written.
    fn save(&self) -> std::io::Result<()> {
        let mut text = match self.lines.lock() {
            Ok(lines) => lines.join("\n"),
            Err(_) => return Ok(()),
        };
        text.push('\n');
        atomic_write(&self.path, text.as_bytes())
    }

    fn save_logged(&self) {
        if let Err(e) = self.save() {
            tracing::warn!(path = %self.path.display(), error = %e, "cannot write the cassette");
        }
    }
}

/// Records every call of the wrapped reasoner into a cassette (`--record FILE`).
/// The file is created (or replaced) when the recorder is made and rewritten as
/// calls progress.
pub struct Recorder {
    inner: SharedReasoner,
    tape: Arc<Tape>,
}

impl Recorder {
    /// Creates the cassette at `path` with its header. `secret`, if given, is
    /// scrubbed from every line as a last line of defence.
    pub fn create(
        inner: SharedReasoner,
        path: &Path,
        secret: Option<ApiKey>,
    ) -> Result<Recorder, ReasonerError> {
        let tape = Arc::new(Tape {
            path: path.to_path_buf(),
            lines: Mutex::new(vec![header_line()]),
            secret,
        });
        tape.save().map_err(|e| {
            ReasonerError::Config(format!(
                "{}: cannot write the cassette: {e}",
                path.display()
            ))
        })?;
        Ok(Recorder { inner, tape })
    }
}

impl Reasoner for Recorder {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn label(&self) -> String {
        self.inner.label()
    }

    fn base_url(&self) -> Option<&str> {
        self.inner.base_url()
    }

    fn stream(&self, request: ReasonerRequest) -> EventStream {
        self.tape.push(&Line::Call {
            call: CallHeader {
                provider: self.inner.name().to_string(),
                model: self.inner.model().to_string(),
                purpose: request.purpose,
                cycle: request.brief.cycle,
                max_tokens: request.max_tokens,
                system: request.system.clone(),
                prompt: request.prompt.clone(),
            },
        });
        self.tape.save_logged();
        Box::pin(Recording {
            inner: self.inner.stream(request),
            tape: self.tape.clone(),
            started: None,
            last_save: Instant::now(),
            ended: false,
        })
    }
}

/// Time between two saves of a cassette while a call streams, so that a killed
/// process still leaves most of its recording behind.
const SAVE_EVERY: Duration = Duration::from_secs(1);

struct Recording {
    inner: EventStream,
    tape: Arc<Tape>,
    started: Option<Instant>,
    last_save: Instant,
    ended: bool,
}

impl Stream for Recording {
    type Item = Result<StreamEvent, ReasonerError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let started = *self.started.get_or_insert_with(Instant::now);
        let item = match self.inner.as_mut().poll_next(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(item) => item,
        };
        let t_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        match &item {
            Some(Ok(event)) => self.tape.push(&Line::Event {
                t_ms,
                event: event.clone(),
            }),
            Some(Err(error)) => self.tape.push(&Line::Error {
                t_ms,
                error: error.to_string(),
            }),
            None => {}
        }
        if item.is_none() || matches!(item, Some(Err(_))) {
            self.ended = true;
            self.tape.save_logged();
        } else if self.last_save.elapsed() >= SAVE_EVERY {
            self.last_save = Instant::now();
            self.tape.save_logged();
        }
        Poll::Ready(item)
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        if !self.ended {
            self.tape.save_logged();
        }
    }
}

/// Plays a cassette back through the [`Reasoner`] trait (`--reasoner replay:FILE`).
pub struct Replay {
    path: PathBuf,
    cassette: Cassette,
    /// 1.0 plays at recorded speed, 2.0 twice as fast, 0 without waiting.
    speed: f64,
    played: Mutex<Vec<bool>>,
    model: String,
}

impl Replay {
    pub fn load(path: &Path, speed: f64) -> Result<Replay, ReasonerError> {
        if !speed.is_finite() || speed < 0.0 {
            return Err(ReasonerError::Config(format!(
                "--replay-speed: {speed} is not a speed (use 0 for instant, 1 for recorded speed)"
            )));
        }
        let cassette = Cassette::load(path)?;
        let model = cassette
            .calls
            .first()
            .map(|c| c.header.model.clone())
            .unwrap_or_else(|| "cassette".to_string());
        let played = Mutex::new(vec![false; cassette.calls.len()]);
        Ok(Replay {
            path: path.to_path_buf(),
            cassette,
            speed,
            played,
            model,
        })
    }

    /// The first unplayed call for this purpose, preferring the same cycle.
    fn pick(&self, request: &ReasonerRequest) -> Result<RecordedCall, ReasonerError> {
        let mut played = self
            .played
            .lock()
            .map_err(|_| ReasonerError::Config("replay state poisoned".into()))?;
        let calls = &self.cassette.calls;
        let candidates = |same_cycle: bool| {
            (0..calls.len()).find(|&i| {
                !played[i]
                    && calls[i].header.purpose == request.purpose
                    && (!same_cycle || calls[i].header.cycle == request.brief.cycle)
            })
        };
        let Some(index) = candidates(true).or_else(|| candidates(false)) else {
            let purpose = serde_json::to_value(request.purpose)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            return Err(ReasonerError::Config(format!(
                "{}: no unplayed `{purpose}` call left ({} recorded in all)",
                self.path.display(),
                calls.len()
            )));
        };
        played[index] = true;
        Ok(calls[index].clone())
    }
}

impl Reasoner for Replay {
    fn name(&self) -> &str {
        "replay"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn stream(&self, request: ReasonerRequest) -> EventStream {
        let call = match self.pick(&request) {
            Ok(call) => call,
            Err(e) => return Box::pin(futures_util::stream::iter([Err(e)])),
        };
        let speed = self.speed;
        let start = Instant::now();
        Box::pin(
            futures_util::stream::iter(call.items).then(move |(at, item)| async move {
                if speed > 0.0 {
                    tokio::time::sleep_until(start + at.div_f64(speed)).await;
                }
                match item {
                    Recorded::Event(event) => Ok(event),
                    Recorded::Error(message) => Err(ReasonerError::Recorded(message)),
                }
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupt_lines_are_refused_with_their_number() {
        let good_header = r#"{"volk_cassette":1,"created":"x"}"#;
        let call = r#"{"call":{"provider":"p","model":"m","purpose":"design","cycle":1,"max_tokens":5,"system":"","prompt":"p"}}"#;
        let text = format!(
            "{good_header}\n{call}\n{{\"t_ms\":1,\"event\":{{\"type\":\"text\",\"text\":\"a\"}}}}\n{{broken\n"
        );
        assert_eq!(Cassette::parse(&text).unwrap_err().0, 4);
        let text = format!(
            "{good_header}\n{{\"t_ms\":1,\"event\":{{\"type\":\"text\",\"text\":\"a\"}}}}\n"
        );
        assert_eq!(Cassette::parse(&text).unwrap_err().0, 2);
        let err = Cassette::parse(r#"{"volk_cassette":9}"#).unwrap_err();
        assert_eq!(err.0, 1);
        assert!(err.1.contains("format 9"), "{}", err.1);
        assert!(Cassette::parse(call).unwrap_err().1.contains("header"));
        let text =
            format!("{good_header}\n{call}\n{{\"t_ms\":1,\"event\":{{\"type\":\"bogus\"}}}}\n");
        assert_eq!(Cassette::parse(&text).unwrap_err().0, 3);
    }

    #[test]
    fn a_negative_or_missing_speed_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        std::fs::write(&path, header_line()).unwrap();
        assert!(Replay::load(&path, -1.0).is_err());
        assert!(Replay::load(&path, f64::NAN).is_err());
        assert!(Replay::load(&path, 0.0).is_ok());
        let missing = Replay::load(&dir.path().join("nope.jsonl"), 1.0)
            .err()
            .unwrap()
            .to_string();
        assert!(missing.contains("nope.jsonl: cannot read"), "{missing}");
    }

    #[test]
    fn lines_round_trip() {
        let text = format!(
            "{}\n{}\n{}\n",
            header_line(),
            r#"{"call":{"provider":"p","model":"m","purpose":"update","cycle":2,"max_tokens":5,"system":"s","prompt":"p"}}"#,
            r#"{"t_ms":7,"error":"boom"}"#
        );
        let c = Cassette::parse(&text).unwrap();
        assert_eq!(c.calls.len(), 1);
        assert_eq!(c.calls[0].header.purpose, Purpose::Update);
        assert_eq!(
            c.calls[0].items,
            vec![(Duration::from_millis(7), Recorded::Error("boom".into()))]
        );
    }
}
