//! Anthropic's Messages API, streamed (`POST {base_url}/v1/messages`).

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;

use crate::reasoner::http::{self, Decoder, Endpoint, Failure, Flow, ProviderError, Wire};
use crate::reasoner::sse::Event;
use crate::reasoner::{EventStream, Reasoner, ReasonerError, ReasonerRequest, StreamEvent, Usage};

/// The API version volk speaks.
pub const API_VERSION: &str = "2023-06-01";

#[derive(Clone)]
pub struct Anthropic {
    inner: Arc<Inner>,
}

struct Inner {
    endpoint: Endpoint,
    client: reqwest::Client,
}

impl Anthropic {
    pub fn new(endpoint: Endpoint) -> Result<Anthropic, ReasonerError> {
        let client = http::client(&endpoint.timeouts)?;
        Ok(Anthropic {
            inner: Arc::new(Inner { endpoint, client }),
        })
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.inner.endpoint
    }
}

impl Reasoner for Anthropic {
    fn name(&self) -> &str {
        "anthropic"
    }

    fn model(&self) -> &str {
        &self.inner.endpoint.model
    }

    fn base_url(&self) -> Option<&str> {
        Some(&self.inner.endpoint.base_url)
    }

    fn stream(&self, request: ReasonerRequest) -> EventStream {
        http::stream(self.inner.clone(), request)
    }
}

impl Wire for Inner {
    type Decoder = MessagesDecoder;

    fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Accepts a base URL with or without the trailing `/v1`.
    fn url(&self) -> String {
        if self
            .endpoint
            .base_url
            .trim_end_matches('/')
            .ends_with("/v1")
        {
            self.endpoint.url("messages")
        } else {
            self.endpoint.url("v1/messages")
        }
    }

    fn build(&self, request: &ReasonerRequest) -> reqwest::RequestBuilder {
        let mut builder = self
            .client
            .post(self.url())
            .header("anthropic-version", API_VERSION)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .json(&body(&self.endpoint.model, request));
        if let Some(value) = self.endpoint.key.as_ref().and_then(|k| k.header("")) {
            builder = builder.header("x-api-key", value);
        }
        builder
    }

    fn decoder(&self) -> MessagesDecoder {
        MessagesDecoder::default()
    }
}

/// The JSON body: a system prompt and one user message, streamed. An update prompt
/// starts with text that stays the same from call to call (the instructions, then
/// the current design); that prefix is its own block marked for Anthropic's prompt
/// cache, so a repair or the next call of the cycle reads it from the cache.
pub fn body(model: &str, request: &ReasonerRequest) -> serde_json::Value {
    let content = match request.prompt.find(crate::brief::REVISION_HEADING) {
        Some(at) if at > 0 => serde_json::json!([
            {"type": "text", "text": &request.prompt[..at], "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": &request.prompt[at..]},
        ]),
        _ => serde_json::Value::String(request.prompt.clone()),
    };
    let mut body = serde_json::json!({
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": [{"role": "user", "content": content}],
        "stream": true,
    });
    if !request.system.is_empty() {
        body["system"] = serde_json::Value::String(request.system.clone());
    }
    body
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Cow<'a, str>,
    #[serde(default)]
    message: Option<MessageStart>,
    #[serde(borrow, default)]
    content_block: Option<Block<'a>>,
    #[serde(borrow, default)]
    delta: Option<Block<'a>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct MessageStart {
    #[serde(default)]
    usage: Option<WireUsage>,
}

/// A content block, a block delta or a message delta: the fields volk reads.
#[derive(Deserialize)]
struct Block<'a> {
    /// A plain `Cow` (not in an `Option`) so that serde borrows it from the event.
    #[serde(rename = "type", borrow, default)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    stop_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
struct WireUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
}

impl WireUsage {
    /// Prompt tokens including the cached ones, which Anthropic counts apart.
    fn prompt(&self) -> Option<u64> {
        let parts = [
            self.input_tokens,
            self.cache_creation_input_tokens,
            self.cache_read_input_tokens,
        ];
        parts
            .iter()
            .any(Option::is_some)
            .then(|| parts.iter().flatten().sum())
    }
}

/// Decodes the Messages event sequence.
#[derive(Debug, Default)]
pub struct MessagesDecoder {
    usage: Usage,
    stop_reason: Option<String>,
}

impl Decoder for MessagesDecoder {
    fn event(&mut self, event: &Event<'_>, out: &mut Vec<StreamEvent>) -> Result<Flow, Failure> {
        let envelope: Envelope<'_> = serde_json::from_str(&event.data).map_err(|e| {
            Failure::fatal(ReasonerError::Protocol(format!(
                "a `{}` event is not valid JSON ({e}): {}",
                event.kind,
                event.data.chars().take(120).collect::<String>()
            )))
        })?;
        // The `event:` line and the `type` field agree; the field is authoritative
        // because some proxies drop event names.
        let kind = if envelope.kind.is_empty() {
            event.kind.as_ref()
        } else {
            envelope.kind.as_ref()
        };
        match kind {
            "message_start" => {
                if let Some(usage) = envelope.message.and_then(|m| m.usage) {
                    self.absorb(&usage);
                }
            }
            "content_block_start" => {
                if let Some(block) = envelope.content_block {
                    push_block(block, out);
                }
            }
            "content_block_delta" => {
                if let Some(delta) = envelope.delta {
                    push_block(delta, out);
                }
            }
            "message_delta" => {
                if let Some(reason) = envelope.delta.and_then(|d| d.stop_reason) {
                    self.stop_reason = Some(reason.into_owned());
                }
                if let Some(usage) = envelope.usage {
                    self.absorb(&usage);
                    out.push(StreamEvent::Usage { usage: self.usage });
                }
            }
            "message_stop" => {
                out.push(StreamEvent::Finished {
                    stop_reason: self.stop_reason.take(),
                });
                return Ok(Flow::Done);
            }
            "error" => {
                let detail = ProviderError::from_value(&serde_json::json!({
                    "error": envelope.error.unwrap_or_default()
                }));
                let error = ReasonerError::Provider(detail.describe());
                return Err(if detail.is_transient() {
                    Failure::transient(error)
                } else {
                    Failure::fatal(error)
                });
            }
            // `ping`, `content_block_stop` and event types added later.
            _ => {}
        }
        Ok(Flow::More)
    }

    fn end(&mut self, _out: &mut Vec<StreamEvent>) -> Result<(), Failure> {
        Err(Failure::transient(ReasonerError::Incomplete(
            "the stream ended before `message_stop`".into(),
        )))
    }
}

impl MessagesDecoder {
    fn absorb(&mut self, usage: &WireUsage) {
        if let Some(prompt) = usage.prompt() {
            self.usage.prompt_tokens = prompt;
        }
        if let Some(cached) = usage.cache_read_input_tokens {
            self.usage.cached_prompt_tokens = cached;
        }
        if let Some(output) = usage.output_tokens {
            self.usage.completion_tokens = output;
        }
    }
}

/// Text and thinking of a block start or delta; signatures and tool input are
/// not shown.
fn push_block(block: Block<'_>, out: &mut Vec<StreamEvent>) {
    match block.kind.as_ref() {
        "text" | "text_delta" => {
            if let Some(text) = block.text.filter(|t| !t.is_empty()) {
                out.push(StreamEvent::Text {
                    text: text.into_owned(),
                });
            }
        }
        "thinking" | "thinking_delta" => {
            if let Some(text) = block.thinking.filter(|t| !t.is_empty()) {
                out.push(StreamEvent::Thinking {
                    text: text.into_owned(),
                });
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(events: &[(&str, &str)]) -> (Vec<StreamEvent>, Option<Failure>) {
        let mut d = MessagesDecoder::default();
        let mut out = Vec::new();
        for (name, data) in events {
            match d.event(&Event::new(name, data), &mut out) {
                Ok(Flow::Done) => return (out, None),
                Ok(Flow::More) => {}
                Err(f) => return (out, Some(f)),
            }
        }
        let end = d.end(&mut out).err();
        (out, end)
    }

    #[test]
    fn full_sequence() {
        let (out, failure) = run(&[
            (
                "message_start",
                r#"{"type":"message_start","message":{"id":"m","usage":{"input_tokens":10,"cache_read_input_tokens":2,"output_tokens":1}}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"let me see"}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"abc"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ),
            ("ping", r#"{"type":"ping"}"#),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello"}}"#,
            ),
            ("future_event", r#"{"type":"future_event","x":1}"#),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":15}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ]);
        assert!(failure.is_none());
        assert_eq!(
            out,
            vec![
                StreamEvent::Thinking {
                    text: "let me see".into()
                },
                StreamEvent::Text {
                    text: "Hello".into()
                },
                StreamEvent::Usage {
                    usage: Usage {
                        prompt_tokens: 12,
                        completion_tokens: 15,
                        cached_prompt_tokens: 2,
                    }
                },
                StreamEvent::Finished {
                    stop_reason: Some("end_turn".into())
                },
            ]
        );
    }

    #[test]
    fn base_url_with_or_without_v1() {
        for base in ["https://api.anthropic.com", "https://proxy.test/v1/"] {
            let endpoint = Endpoint {
                base_url: base.into(),
                model: "m".into(),
                key: None,
                key_variable: None,
                timeouts: http::Timeouts::default(),
                retry: crate::reasoner::retry::RetryPolicy::default(),
            };
            let a = Anthropic::new(endpoint).unwrap();
            assert!(a.inner.url().ends_with("/v1/messages"), "{}", a.inner.url());
            assert!(!a.inner.url().contains("v1/v1"));
        }
    }

    #[test]
    fn error_event_after_200() {
        let (_, failure) = run(&[(
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )]);
        let failure = failure.unwrap();
        assert!(failure.error.to_string().contains("Overloaded"));
        assert_eq!(failure.retry, crate::reasoner::retry::Retry::After(None));
    }

    #[test]
    fn missing_message_stop_is_a_cut() {
        let (_, failure) = run(&[(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}"#,
        )]);
        assert!(matches!(
            failure.unwrap().error,
            ReasonerError::Incomplete(_)
        ));
    }
}
