//! The reasoner: whatever turns a prompt into streamed text. HTTP providers, the
//! offline drafter and cassette replay all implement [`Reasoner`], so the design loop,
//! the section parser and the workbench see one stream shape whatever the source.

pub mod anthropic;
pub mod cassette;
pub mod http;
pub mod metrics;
pub mod offline;
pub mod openai;
pub mod retry;
pub mod secret;
pub mod select;
pub mod sse;

use std::pin::Pin;
use std::sync::Arc;

use futures_util::Stream;
use serde::{Deserialize, Serialize};

use crate::brief::{Brief, Purpose};

/// One call to a reasoner.
#[derive(Debug, Clone)]
pub struct ReasonerRequest {
    pub purpose: Purpose,
    pub system: String,
    pub prompt: String,
    pub max_tokens: u32,
    pub brief: Arc<Brief>,
}

/// Token counts reported by the provider for one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Prompt tokens the provider read from its prompt cache (OpenAI
    /// `prompt_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens`);
    /// counted in `prompt_tokens` too.
    #[serde(default)]
    pub cached_prompt_tokens: u64,
}

/// What a reasoner stream yields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// Answer text, in order; concatenated it is the whole response.
    Text {
        text: String,
    },
    /// Model reasoning sent separately (DeepSeek `reasoning_content`, Anthropic
    /// thinking); shown to the person, never parsed into artifacts.
    Thinking {
        text: String,
    },
    Usage {
        usage: Usage,
    },
    /// An attempt failed before any text and the call waits before the next one; no
    /// text of the failed attempt was handed out.
    Retrying(retry::Backoff),
    /// The provider said the response is complete.
    Finished {
        stop_reason: Option<String>,
    },
}

/// Errors of a reasoner call. Messages never contain a credential.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReasonerError {
    #[error("no API key: set {variable} in the environment")]
    MissingKey { variable: String },
    #[error("could not connect to {url}: {message}")]
    Connect { url: String, message: String },
    #[error("HTTP {status} from {url}: {message}")]
    Http {
        status: u16,
        url: String,
        message: String,
    },
    #[error("the provider reported an error: {0}")]
    Provider(String),
    #[error("timed out: {0}")]
    Timeout(String),
    #[error("unexpected response: {0}")]
    Protocol(String),
    #[error("{path}:{line}: {message}")]
    Cassette {
        path: String,
        line: usize,
        message: String,
    },
    #[error("cancelled")]
    Cancelled,
    #[error("{0}")]
    Config(String),
    /// The account is out of quota or over its spending limit; not retried.
    #[error("out of quota: {0}")]
    Quota(String),
    /// The response broke off before the provider marked it complete; the text
    /// received so far has already been streamed.
    #[error("the response was cut short: {0}")]
    Incomplete(String),
    /// Every attempt failed; `last` is the final failure.
    #[error("gave up after {attempts} attempts: {last}")]
    GaveUp {
        attempts: u32,
        last: Box<ReasonerError>,
    },
    /// A failure recorded in a cassette, replayed as it happened.
    #[error("recorded failure: {0}")]
    Recorded(String),
}

impl ReasonerError {
    /// The same error with every message passed through `f` (used to scrub keys).
    pub fn map_messages(self, f: &dyn Fn(&str) -> String) -> ReasonerError {
        use ReasonerError as E;
        match self {
            E::MissingKey { variable } => E::MissingKey { variable },
            E::Connect { url, message } => E::Connect {
                url: f(&url),
                message: f(&message),
            },
            E::Http {
                status,
                url,
                message,
            } => E::Http {
                status,
                url: f(&url),
                message: f(&message),
            },
            E::Provider(m) => E::Provider(f(&m)),
            E::Timeout(m) => E::Timeout(f(&m)),
            E::Protocol(m) => E::Protocol(f(&m)),
            E::Cassette {
                path,
                line,
                message,
            } => E::Cassette {
                path,
                line,
                message: f(&message),
            },
            E::Cancelled => E::Cancelled,
            E::Config(m) => E::Config(f(&m)),
            E::Quota(m) => E::Quota(f(&m)),
            E::Incomplete(m) => E::Incomplete(f(&m)),
            E::GaveUp { attempts, last } => E::GaveUp {
                attempts,
                last: Box::new(last.map_messages(f)),
            },
            E::Recorded(m) => E::Recorded(f(&m)),
        }
    }
}

/// The stream of one call. Dropping it cancels the call at once.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, ReasonerError>> + Send>>;

/// Anything that answers a prompt with streamed text.
pub trait Reasoner: Send + Sync {
    /// Short provider name (`offline`, `openai`, `anthropic`, `replay`).
    fn name(&self) -> &str;
    /// The model that answers, as shown in the header.
    fn model(&self) -> &str;
    /// What the header calls this reasoner: `openai/gpt-4.1`, or words a person reads
    /// when no model answers at all.
    fn label(&self) -> String {
        format!("{}/{}", self.name(), self.model())
    }
    /// Where an HTTP provider is reached (recorded in the session; never a key).
    fn base_url(&self) -> Option<&str> {
        None
    }
    /// Starts the call. Errors before the first event arrive as the first item.
    fn stream(&self, request: ReasonerRequest) -> EventStream;
}

pub type SharedReasoner = Arc<dyn Reasoner>;

/// Collects a whole stream into its text, thinking and usage; used by headless runs
/// and tests that do not need the live view.
pub async fn collect(mut stream: EventStream) -> Result<Collected, (ReasonerError, Collected)> {
    use futures_util::StreamExt;
    let mut out = Collected::default();
    while let Some(item) = stream.next().await {
        match item {
            Ok(StreamEvent::Text { text }) => out.text.push_str(&text),
            Ok(StreamEvent::Thinking { text }) => out.thinking.push_str(&text),
            Ok(StreamEvent::Usage { usage }) => out.usage = Some(usage),
            Ok(StreamEvent::Finished { stop_reason }) => out.stop_reason = stop_reason,
            Ok(StreamEvent::Retrying(_)) => {}
            Err(e) => return Err((e, out)),
        }
    }
    Ok(out)
}

/// The whole of one reasoner response.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Collected {
    pub text: String,
    pub thinking: String,
    pub usage: Option<Usage>,
    pub stop_reason: Option<String>,
}
