//! The HTTP machinery every streaming provider shares: the client, timeouts, the
//! retry loop and the mapping of failures to [`ReasonerError`]. A provider only says
//! how to build its request and how to turn one server-sent event into stream events
//! (its [`Wire`] and [`Decoder`]).
//!
//! The call is a pull-driven state machine inside the returned stream: nothing runs
//! until the stream is polled, and dropping the stream drops the in-flight request
//! with it, which closes the connection at once.

use std::collections::VecDeque;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use futures_util::{Stream, StreamExt};
use tokio::time::Instant;

use crate::reasoner::retry::{
    Backoff, Retry, RetryPolicy, cause, retry_after, status_is_transient,
};
use crate::reasoner::secret::ApiKey;
use crate::reasoner::sse::{Event, Framer};
use crate::reasoner::{EventStream, ReasonerError, ReasonerRequest, StreamEvent};

/// How long to wait for each stage of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Establishing the TCP (and TLS) connection.
    pub connect: Duration,
    /// Silence allowed between two chunks of the response (and before its headers).
    pub idle: Duration,
    /// The whole call, retries and their waits included.
    pub overall: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            idle: Duration::from_secs(120),
            overall: Duration::from_secs(900),
        }
    }
}

/// Where and as whom a provider calls.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// Base URL without the operation path, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    pub model: String,
    pub key: Option<ApiKey>,
    /// The variable that holds (or should hold) the key, named in hints.
    pub key_variable: Option<String>,
    pub timeouts: Timeouts,
    pub retry: RetryPolicy,
}

impl Endpoint {
    /// `base_url` joined with `path` with exactly one slash between them; the path goes
    /// before a query the base URL carries (`…/v1/chat/completions?api-version=…`).
    pub fn url(&self, path: &str) -> String {
        let (base, query) = match self.base_url.split_once('?') {
            Some((base, query)) => (base, Some(query)),
            None => (self.base_url.as_str(), None),
        };
        let mut url = format!(
            "{}/{}",
            base.trim_end_matches('/'),
            path.trim_start_matches('/')
        );
        if let Some(query) = query {
            url.push('?');
            url.push_str(query);
        }
        url
    }
}

/// Installs the `ring` crypto provider once; reqwest is built without one.
fn install_crypto_provider() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        // Another part of the process may have installed one first; that one is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A client with the connect timeout set. Idle and overall limits are enforced per
/// call, because they must also cover waiting between retries.
pub fn client(timeouts: &Timeouts) -> Result<reqwest::Client, ReasonerError> {
    install_crypto_provider();
    reqwest::Client::builder()
        .connect_timeout(timeouts.connect)
        .user_agent(concat!("volk/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| ReasonerError::Config(format!("cannot build the HTTP client: {e}")))
}

/// A failure inside a call, with whether it may be retried.
#[derive(Debug)]
pub struct Failure {
    pub error: ReasonerError,
    pub retry: Retry,
}

impl Failure {
    pub fn fatal(error: ReasonerError) -> Failure {
        Failure {
            error,
            retry: Retry::Never,
        }
    }

    pub fn transient(error: ReasonerError) -> Failure {
        Failure {
            error,
            retry: Retry::After(None),
        }
    }
}

/// What the decoder wants after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    More,
    /// The provider marked the response complete; later bytes are ignored.
    Done,
}

/// Turns a provider's server-sent events into stream events.
pub trait Decoder: Send + 'static {
    fn event(&mut self, event: &Event<'_>, out: &mut Vec<StreamEvent>) -> Result<Flow, Failure>;
    /// The body ended without the provider's end marker: complete or cut?
    fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), Failure>;
}

/// A provider's request shape and decoder.
pub trait Wire: Send + Sync + 'static {
    type Decoder: Decoder;
    fn endpoint(&self) -> &Endpoint;
    fn client(&self) -> &reqwest::Client;
    /// The full URL of the streaming operation.
    fn url(&self) -> String;
    /// The request, headers (key included) and JSON body.
    fn build(&self, request: &ReasonerRequest) -> reqwest::RequestBuilder;
    fn decoder(&self) -> Self::Decoder;
}

/// The response body as it arrives from the network.
type Body = std::pin::Pin<Box<dyn Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>;

enum Phase<D> {
    /// About to send (first attempt or a retry).
    Connect,
    /// Waiting before the next attempt (announced to the caller first).
    Backoff(Duration),
    Streaming {
        body: Body,
        framer: Framer,
        decoder: D,
    },
    Done,
}

struct Call<W: Wire> {
    wire: Arc<W>,
    request: ReasonerRequest,
    attempt: u32,
    deadline: Option<Instant>,
    /// Text or thinking has been handed out: from now on nothing is retried.
    content_seen: bool,
    pending: VecDeque<StreamEvent>,
    /// Reused for what each event decodes to, so an event costs no list.
    decoded: Vec<StreamEvent>,
    phase: Phase<W::Decoder>,
}

/// Starts a call through `wire`. Nothing happens until the stream is polled.
pub fn stream<W: Wire>(wire: Arc<W>, request: ReasonerRequest) -> EventStream {
    let call = Call {
        wire,
        request,
        attempt: 0,
        deadline: None,
        content_seen: false,
        pending: VecDeque::new(),
        decoded: Vec::new(),
        phase: Phase::Connect,
    };
    Box::pin(futures_util::stream::unfold(call, |mut call| async move {
        let item = call.next().await?;
        Some((item, call))
    }))
}

impl<W: Wire> Call<W> {
    async fn next(&mut self) -> Option<Result<StreamEvent, ReasonerError>> {
        let wire = self.wire.clone();
        let endpoint = wire.endpoint();
        let deadline = *self
            .deadline
            .get_or_insert_with(|| Instant::now() + endpoint.timeouts.overall);
        loop {
            if let Some(event) = self.pending.pop_front() {
                if matches!(
                    event,
                    StreamEvent::Text { .. } | StreamEvent::Thinking { .. }
                ) {
                    self.content_seen = true;
                }
                return Some(Ok(event));
            }
            let phase = std::mem::replace(&mut self.phase, Phase::Done);
            let step = match phase {
                Phase::Done => return None,
                Phase::Connect => self.connect(endpoint, deadline).await,
                Phase::Backoff(wait) => {
                    tokio::time::sleep(wait).await;
                    Ok(Phase::Connect)
                }
                Phase::Streaming {
                    mut body,
                    mut framer,
                    mut decoder,
                } => {
                    let mut out = std::mem::take(&mut self.decoded);
                    let step = read_event(
                        &mut body,
                        &mut framer,
                        &mut decoder,
                        &mut out,
                        endpoint,
                        deadline,
                    )
                    .await
                    .map(|flow| match flow {
                        Flow::More => Phase::Streaming {
                            body,
                            framer,
                            decoder,
                        },
                        Flow::Done => Phase::Done,
                    });
                    self.pending.extend(out.drain(..));
                    self.decoded = out;
                    step
                }
            };
            match step {
                Ok(next) => self.phase = next,
                Err(failure) => match self.retry_wait(failure, endpoint, deadline) {
                    Ok(backoff) => {
                        // Nothing of a failed attempt reaches the caller but the news
                        // that it failed and how long the next one waits.
                        self.pending.clear();
                        self.phase = Phase::Backoff(Duration::from_millis(backoff.wait_ms));
                        return Some(Ok(StreamEvent::Retrying(backoff)));
                    }
                    Err(error) => {
                        self.pending.clear();
                        return Some(Err(scrub(error, endpoint.key.as_ref())));
                    }
                },
            }
        }
    }

    /// The wait before the next attempt, or the error to report.
    fn retry_wait(
        &self,
        failure: Failure,
        endpoint: &Endpoint,
        deadline: Instant,
    ) -> Result<Backoff, ReasonerError> {
        let Retry::After(server) = failure.retry else {
            return Err(failure.error);
        };
        if self.content_seen {
            return Err(failure.error);
        }
        if self.attempt >= endpoint.retry.max_attempts {
            return Err(gave_up(self.attempt, failure.error));
        }
        let wait = endpoint.retry.wait(self.attempt, server);
        if Instant::now() + wait >= deadline {
            tracing::warn!(
                wait_ms = wait.as_millis() as u64,
                "no retry: the wait would pass the overall limit"
            );
            return Err(gave_up(self.attempt, failure.error));
        }
        let error = scrub(failure.error, endpoint.key.as_ref());
        let wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
        tracing::warn!(
            attempt = self.attempt,
            wait_ms,
            error = %error,
            "reasoner call failed, retrying"
        );
        Ok(Backoff {
            attempt: self.attempt + 1,
            max_attempts: endpoint.retry.max_attempts,
            wait_ms,
            reason: cause(&error),
        })
    }

    async fn connect(
        &mut self,
        endpoint: &Endpoint,
        deadline: Instant,
    ) -> Result<Phase<W::Decoder>, Failure> {
        self.attempt += 1;
        let url = self.wire.url();
        tracing::debug!(%url, model = %endpoint.model, attempt = self.attempt, "reasoner call");
        let send = self.wire.build(&self.request).send();
        let (limit, reason) = limit(endpoint, deadline);
        let response = match tokio::time::timeout_at(limit, send).await {
            Err(_) => {
                return Err(Failure::fatal(ReasonerError::Timeout(format!(
                    "no response from {url} {}",
                    reason.reason(endpoint)
                ))));
            }
            Ok(Err(e)) => return Err(transport_failure(&url, &e)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if status.is_success() {
            return Ok(Phase::Streaming {
                body: Box::pin(response.bytes_stream()),
                framer: Framer::new(),
                decoder: self.wire.decoder(),
            });
        }
        let server_wait = retry_after(response.headers(), SystemTime::now());
        let body = read_error_body(response, self::limit(endpoint, deadline).0).await;
        Err(status_failure(
            status.as_u16(),
            &url,
            &body,
            server_wait,
            endpoint,
        ))
    }
}

/// Reads until the next event is complete and decodes it into `out`. The idle limit
/// applies to each network read.
async fn read_event<D: Decoder>(
    body: &mut Body,
    framer: &mut Framer,
    decoder: &mut D,
    out: &mut Vec<StreamEvent>,
    endpoint: &Endpoint,
    deadline: Instant,
) -> Result<Flow, Failure> {
    loop {
        match framer.next_event() {
            Ok(Some(event)) => return decoder.event(&event, out),
            Ok(None) => {}
            Err(e) => {
                return Err(Failure::fatal(ReasonerError::Protocol(format!(
                    "unreadable event stream: {e}"
                ))));
            }
        }
        let (limit, reason) = limit(endpoint, deadline);
        match tokio::time::timeout_at(limit, body.next()).await {
            Err(_) => {
                return Err(Failure::fatal(ReasonerError::Timeout(format!(
                    "the response stopped {}",
                    reason.reason(endpoint)
                ))));
            }
            Ok(None) => return decoder.end(out).map(|()| Flow::Done),
            Ok(Some(Ok(bytes))) => framer.push(&bytes),
            Ok(Some(Err(e))) => {
                return Err(Failure::transient(ReasonerError::Incomplete(format!(
                    "the connection broke: {}",
                    chain(&e)
                ))));
            }
        }
    }
}

/// Which limit ends the current wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    Idle,
    Overall,
}

impl Limit {
    /// The phrase that explains a timeout; built only when one happens, since a
    /// limit is taken for every network read.
    fn reason(self, endpoint: &Endpoint) -> String {
        match self {
            Limit::Idle => format!(
                "for {}s (idle timeout)",
                endpoint.timeouts.idle.as_secs_f64()
            ),
            Limit::Overall => format!(
                "at the overall limit of {}s",
                endpoint.timeouts.overall.as_secs_f64()
            ),
        }
    }
}

/// The earlier of the idle limit and the overall deadline, and which one it is.
fn limit(endpoint: &Endpoint, deadline: Instant) -> (Instant, Limit) {
    let idle = Instant::now() + endpoint.timeouts.idle;
    if idle < deadline {
        (idle, Limit::Idle)
    } else {
        (deadline, Limit::Overall)
    }
}

fn gave_up(attempts: u32, error: ReasonerError) -> ReasonerError {
    if attempts <= 1 {
        return error;
    }
    ReasonerError::GaveUp {
        attempts,
        last: Box::new(error),
    }
}

/// A send error: connection failures are transient, anything else is not.
fn transport_failure(url: &str, error: &reqwest::Error) -> Failure {
    let message = chain(error);
    if error.is_connect() || error.is_request() || error.is_body() {
        Failure::transient(ReasonerError::Connect {
            url: url.to_string(),
            message,
        })
    } else if error.is_timeout() {
        Failure::transient(ReasonerError::Timeout(format!(
            "connecting to {url}: {message}"
        )))
    } else {
        Failure::fatal(ReasonerError::Connect {
            url: url.to_string(),
            message,
        })
    }
}

/// What actually went wrong, on one line: reqwest's own message only repeats the URL,
/// so the causes beneath it are used, without hyper's generic "client error" layer.
fn chain(error: &dyn std::error::Error) -> String {
    let mut causes: Vec<String> = Vec::new();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !text.starts_with("client error") && !causes.iter().any(|c| c.contains(&text)) {
            causes.push(text);
        }
        source = cause.source();
    }
    if causes.is_empty() {
        error.to_string()
    } else {
        causes.join(": ")
    }
}

/// At most this much of an error body is read.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

async fn read_error_body(response: reqwest::Response, limit: Instant) -> String {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while body.len() < ERROR_BODY_LIMIT {
        match tokio::time::timeout_at(limit, chunks.next()).await {
            Ok(Some(Ok(bytes))) => body.extend_from_slice(&bytes),
            _ => break,
        }
    }
    // Scrubbed whole before it is cut, so no part of a key survives at the cut.
    let mut body = crate::redact::scrub_bytes(&body).into_owned();
    body.truncate(ERROR_BODY_LIMIT);
    String::from_utf8_lossy(&body).into_owned()
}

/// The interesting parts of a provider's JSON error, whatever its dialect.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ProviderError {
    pub message: String,
    /// `type` and `code` fields joined, e.g. `insufficient_quota`.
    pub kind: String,
}

impl ProviderError {
    /// Reads `{"error": {"message", "type", "code"}}` (OpenAI, Anthropic inside
    /// `{"type": "error", ...}`), `{"error": "text"}` (Ollama) or plain text.
    pub fn parse(body: &str) -> ProviderError {
        let trimmed = body.trim();
        let Ok(value) = serde_json::from_str::<serde_json::Value>(trimmed) else {
            return ProviderError {
                message: one_line(trimmed, 300),
                kind: String::new(),
            };
        };
        Self::from_value(&value)
    }

    pub fn from_value(value: &serde_json::Value) -> ProviderError {
        let error = value.get("error").unwrap_or(value);
        if let Some(text) = error.as_str() {
            return ProviderError {
                message: one_line(text, 300),
                kind: String::new(),
            };
        }
        let field = |name: &str| error.get(name).and_then(|v| v.as_str()).unwrap_or("");
        let mut kind = field("type").to_string();
        let code = field("code");
        if !code.is_empty() && code != kind {
            if !kind.is_empty() {
                kind.push('/');
            }
            kind.push_str(code);
        }
        let message = match field("message") {
            "" => one_line(&value.to_string(), 300),
            m => one_line(m, 300),
        };
        ProviderError { message, kind }
    }

    /// The account has run out of money or quota: waiting does not help.
    pub fn is_quota(&self) -> bool {
        [
            "insufficient_quota",
            "enforced_spend_limit_reached",
            "billing_hard_limit_reached",
        ]
        .iter()
        .any(|k| self.kind.contains(k) || self.message.contains(k))
    }

    /// Overload or server trouble reported inside a 200 response.
    pub fn is_transient(&self) -> bool {
        [
            "overloaded_error",
            "api_error",
            "rate_limit_error",
            "server_error",
            "rate_limit_exceeded",
        ]
        .iter()
        .any(|k| self.kind.contains(k))
    }

    /// `message (kind)`, or the message alone.
    pub fn describe(&self) -> String {
        if self.kind.is_empty() {
            self.message.clone()
        } else {
            format!("{} ({})", self.message, self.kind)
        }
    }
}

/// Collapses whitespace and cuts at `max` characters, after scrubbing every registered
/// key: a key cut in half at `max` would no longer be recognised.
fn one_line(text: &str, max: usize) -> String {
    let text = crate::redact::scrub_text(text);
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= max {
        return joined;
    }
    let mut cut: String = joined.chars().take(max).collect();
    cut.push('…');
    cut
}

/// Maps a non-2xx response to an error that says what to do.
fn status_failure(
    status: u16,
    url: &str,
    body: &str,
    server_wait: Option<Duration>,
    endpoint: &Endpoint,
) -> Failure {
    let detail = ProviderError::parse(body);
    let variable = endpoint
        .key_variable
        .as_deref()
        .unwrap_or("the key variable");
    if detail.is_quota() {
        return Failure::fatal(ReasonerError::Quota(format!(
            "{}: the account has no quota left; add credit or raise its spending limit, then run again",
            detail.describe()
        )));
    }
    let http = |message: String| ReasonerError::Http {
        status,
        url: url.to_string(),
        message,
    };
    let described = detail.describe();
    match status {
        401 => {
            let hint = if endpoint.key.is_some() {
                format!("the provider refused the key in {variable}; check it")
            } else {
                format!("no key was sent; set {variable}")
            };
            Failure::fatal(http(format!("{hint} ({described})")))
        }
        403 => Failure::fatal(http(format!(
            "this key may not use model {} here ({described})",
            endpoint.model
        ))),
        404 => Failure::fatal(http(format!(
            "not found; check --base-url ({}) and --model ({}) ({described})",
            endpoint.base_url, endpoint.model
        ))),
        s if status_is_transient(s) => Failure {
            error: http(described),
            retry: Retry::After(server_wait),
        },
        _ => Failure::fatal(http(format!("the request was refused ({described})"))),
    }
}

/// Removes the key from every message of `error`.
fn scrub(error: ReasonerError, key: Option<&ApiKey>) -> ReasonerError {
    match key {
        Some(key) => error.map_messages(&|m| key.scrub(m)),
        None => error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(key: bool) -> Endpoint {
        Endpoint {
            base_url: "http://127.0.0.1:1/v1".into(),
            model: "m".into(),
            key: key.then(|| ApiKey::new("OPENAI_API_KEY", "sk-abcdefghijklmnop")),
            key_variable: Some("OPENAI_API_KEY".into()),
            timeouts: Timeouts::default(),
            retry: RetryPolicy::default(),
        }
    }

    #[test]
    fn an_error_body_is_scrubbed_before_it_is_cut() {
        let key = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        crate::redact::register(key);
        // The key straddles the 300-character cut.
        let body = format!("{} {key} tail", "x".repeat(280));
        let message = ProviderError::parse(&body).message;
        assert!(!message.contains(&key[..12]), "{message}");
    }

    #[test]
    fn provider_error_dialects() {
        let openai = ProviderError::parse(
            r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
        );
        assert!(openai.is_quota());
        let anthropic = ProviderError::parse(
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert_eq!(anthropic.message, "Overloaded");
        assert!(anthropic.is_transient());
        let ollama = ProviderError::parse(r#"{"error":"model 'x' not found"}"#);
        assert_eq!(ollama.message, "model 'x' not found");
        let text = ProviderError::parse("Bad Gateway\n");
        assert_eq!(text.message, "Bad Gateway");
    }

    #[test]
    fn status_mapping_says_what_to_do() {
        let f = status_failure(401, "u", "{}", None, &endpoint(true));
        assert_eq!(f.retry, Retry::Never);
        assert!(
            f.error.to_string().contains("OPENAI_API_KEY"),
            "{}",
            f.error
        );
        let f = status_failure(401, "u", "{}", None, &endpoint(false));
        assert!(f.error.to_string().contains("set OPENAI_API_KEY"));
        let f = status_failure(
            429,
            "u",
            "{}",
            Some(Duration::from_secs(2)),
            &endpoint(true),
        );
        assert_eq!(f.retry, Retry::After(Some(Duration::from_secs(2))));
        let f = status_failure(
            429,
            "u",
            r#"{"error":{"code":"insufficient_quota","message":"quota"}}"#,
            None,
            &endpoint(true),
        );
        assert_eq!(f.retry, Retry::Never);
        assert!(matches!(f.error, ReasonerError::Quota(_)));
        let f = status_failure(529, "u", "", None, &endpoint(true));
        assert_eq!(f.retry, Retry::After(None));
        let f = status_failure(404, "u", "", None, &endpoint(true));
        assert!(f.error.to_string().contains("--model (m)"), "{}", f.error);
    }

    #[test]
    fn urls_join_with_one_slash() {
        let mut e = endpoint(false);
        assert_eq!(
            e.url("chat/completions"),
            "http://127.0.0.1:1/v1/chat/completions"
        );
        e.base_url.push('/');
        assert_eq!(
            e.url("/chat/completions"),
            "http://127.0.0.1:1/v1/chat/completions"
        );
        let mut q = endpoint(false);
        q.base_url = "http://127.0.0.1:1/v1/?api-key=abc".into();
        assert_eq!(
            q.url("chat/completions"),
            "http://127.0.0.1:1/v1/chat/completions?api-key=abc"
        );
    }
}
