//! OpenAI-compatible chat completions, streamed: OpenAI itself, DeepSeek, Ollama,
//! vLLM and llama.cpp's server all speak it, so a base URL is all that differs.

use std::sync::Arc;

use jiter::{Jiter, Peek};

use crate::reasoner::http::{self, Decoder, Endpoint, Failure, Flow, ProviderError, Wire};
use crate::reasoner::sse::Event;
use crate::reasoner::{EventStream, Reasoner, ReasonerError, ReasonerRequest, StreamEvent, Usage};

/// A provider speaking `POST {base_url}/chat/completions`.
#[derive(Clone)]
pub struct OpenAi {
    inner: Arc<Inner>,
}

struct Inner {
    /// `openai`, `deepseek`, `ollama`: the preset it was built from.
    name: String,
    endpoint: Endpoint,
    client: reqwest::Client,
}

impl OpenAi {
    pub fn new(name: impl Into<String>, endpoint: Endpoint) -> Result<OpenAi, ReasonerError> {
        let client = http::client(&endpoint.timeouts)?;
        Ok(OpenAi {
            inner: Arc::new(Inner {
                name: name.into(),
                endpoint,
                client,
            }),
        })
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.inner.endpoint
    }
}

impl Reasoner for OpenAi {
    fn name(&self) -> &str {
        &self.inner.name
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
    type Decoder = ChatDecoder;

    fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    fn client(&self) -> &reqwest::Client {
        &self.client
    }

    fn url(&self) -> String {
        self.endpoint.url("chat/completions")
    }

    fn build(&self, request: &ReasonerRequest) -> reqwest::RequestBuilder {
        let mut builder = self
            .client
            .post(self.url())
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .json(&body(&self.endpoint.model, request));
        if let Some(value) = self.endpoint.key.as_ref().and_then(|k| k.header("Bearer ")) {
            builder = builder.header(reqwest::header::AUTHORIZATION, value);
        }
        builder
    }

    fn decoder(&self) -> ChatDecoder {
        ChatDecoder::default()
    }
}

/// The JSON body: system and user message, streaming with a final usage chunk.
pub fn body(model: &str, request: &ReasonerRequest) -> serde_json::Value {
    let mut messages = Vec::with_capacity(2);
    if !request.system.is_empty() {
        messages.push(serde_json::json!({"role": "system", "content": request.system}));
    }
    messages.push(serde_json::json!({"role": "user", "content": request.prompt}));
    serde_json::json!({
        "model": model,
        "messages": messages,
        "max_tokens": request.max_tokens,
        "stream": true,
        "stream_options": {"include_usage": true},
    })
}

/// Decodes `chat.completion.chunk` events.
///
/// One small JSON document arrives per token. A pull parser reads each: it borrows its
/// strings, skips what volk does not read and names the field when a chunk is
/// malformed. It is one reader for every shape (text, usage, errors), and it decodes a
/// 1 MiB answer in a few milliseconds, some thousand times faster than any model writes.
#[derive(Debug, Default)]
pub struct ChatDecoder {
    finish_reason: Option<String>,
    /// Where the parser unescapes strings, kept from chunk to chunk: nearly every
    /// chunk of prose has a quote or a newline to unescape.
    tape: Vec<u8>,
}

/// The chunk fields volk reads; a key is classified at once so that its borrow of
/// the parser ends before the value is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Choices,
    Usage,
    Error,
    Delta,
    FinishReason,
    Content,
    ReasoningContent,
    Reasoning,
    PromptTokens,
    CompletionTokens,
    PromptTokensDetails,
    CachedTokens,
    Other,
}

impl Key {
    /// Keys are compared as bytes: every key volk reads is ASCII, so a key that is
    /// not valid UTF-8 is simply another key, and no key pays for a validation.
    fn of(key: &[u8]) -> Key {
        match key {
            b"choices" => Key::Choices,
            b"usage" => Key::Usage,
            b"error" => Key::Error,
            b"delta" => Key::Delta,
            b"finish_reason" => Key::FinishReason,
            b"content" => Key::Content,
            b"reasoning_content" => Key::ReasoningContent,
            b"reasoning" => Key::Reasoning,
            b"prompt_tokens" => Key::PromptTokens,
            b"completion_tokens" => Key::CompletionTokens,
            b"prompt_tokens_details" => Key::PromptTokensDetails,
            b"cached_tokens" => Key::CachedTokens,
            _ => Key::Other,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Key::Choices => "choices",
            Key::Usage => "usage",
            Key::Error => "error",
            Key::Delta => "delta",
            Key::FinishReason => "finish_reason",
            Key::Content => "content",
            Key::ReasoningContent => "reasoning_content",
            Key::Reasoning => "reasoning",
            Key::PromptTokens => "prompt_tokens",
            Key::CompletionTokens => "completion_tokens",
            Key::PromptTokensDetails => "prompt_tokens_details",
            Key::CachedTokens => "cached_tokens",
            Key::Other => "?",
        }
    }
}

/// The keys of the object the parser has just entered, one at a time.
fn first_key(j: &mut Jiter<'_>, what: &str) -> Result<Option<Key>, Failure> {
    match j.peek().map_err(syntax)? {
        Peek::Object => Ok(j.next_object_bytes().map_err(syntax)?.map(Key::of)),
        other => Err(mistyped(what, other, "an object")),
    }
}

fn next_key(j: &mut Jiter<'_>) -> Result<Option<Key>, Failure> {
    Ok(j.next_key_bytes().map_err(syntax)?.map(Key::of))
}

fn syntax(error: jiter::JiterError) -> Failure {
    protocol(format!("a chunk is not valid JSON ({error})"))
}

fn protocol(message: String) -> Failure {
    Failure::fatal(ReasonerError::Protocol(message))
}

fn mistyped(what: &str, found: Peek, expected: &str) -> Failure {
    let found = match found {
        Peek::Null => "null",
        Peek::True | Peek::False => "a boolean",
        Peek::String => "a string",
        Peek::Array => "a list",
        Peek::Object => "an object",
        _ => "a number",
    };
    protocol(format!(
        "a chunk's `{what}` is {found}, expected {expected}"
    ))
}

/// True when the next value is `null` (and consumes it): absent and `null` fields
/// mean the same to every server.
fn null(j: &mut Jiter<'_>) -> Result<bool, Failure> {
    if j.peek().map_err(syntax)? == Peek::Null {
        j.known_null().map_err(syntax)?;
        return Ok(true);
    }
    Ok(false)
}

fn string(j: &mut Jiter<'_>, key: Key) -> Result<Option<String>, Failure> {
    match j.peek().map_err(syntax)? {
        Peek::Null => j.known_null().map(|()| None).map_err(syntax),
        Peek::String => Ok(Some(j.known_str().map_err(syntax)?.to_owned())),
        other => Err(mistyped(key.name(), other, "a string")),
    }
}

fn count(j: &mut Jiter<'_>, key: Key) -> Result<u64, Failure> {
    let peek = j.peek().map_err(syntax)?;
    if peek == Peek::Null {
        j.known_null().map_err(syntax)?;
        return Ok(0);
    }
    if !peek.is_num() {
        return Err(mistyped(key.name(), peek, "a count"));
    }
    let raw = j.known_number_bytes(peek).map_err(syntax)?;
    std::str::from_utf8(raw)
        .ok()
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            protocol(format!(
                "a chunk's `{}` is {}, expected a count",
                key.name(),
                String::from_utf8_lossy(raw)
            ))
        })
}

impl ChatDecoder {
    fn chunk(
        &mut self,
        j: &mut Jiter<'_>,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), Failure> {
        let mut usage = None;
        let mut key = first_key(j, "chunk")?;
        while let Some(k) = key {
            match k {
                Key::Choices => self.choices(j, out)?,
                Key::Usage => usage = self.usage(j)?,
                Key::Error => {
                    let start = j.current_index();
                    j.next_skip().map_err(syntax)?;
                    let raw = data[start..j.current_index()].trim();
                    if raw != "null" {
                        return Err(provider_error(raw));
                    }
                }
                _ => j.next_skip().map_err(syntax)?,
            }
            key = next_key(j)?;
        }
        j.finish().map_err(syntax)?;
        if let Some(usage) = usage {
            out.push(StreamEvent::Usage { usage });
        }
        Ok(())
    }

    fn choices(&mut self, j: &mut Jiter<'_>, out: &mut Vec<StreamEvent>) -> Result<(), Failure> {
        // Absent, `null` or `[]` on the final usage chunk, depending on the server.
        if null(j)? {
            return Ok(());
        }
        let mut next = match j.peek().map_err(syntax)? {
            Peek::Array => j.known_array().map_err(syntax)?,
            other => return Err(mistyped("choices", other, "a list")),
        };
        while next.is_some() {
            self.choice(j, out)?;
            next = j.array_step().map_err(syntax)?;
        }
        Ok(())
    }

    fn choice(&mut self, j: &mut Jiter<'_>, out: &mut Vec<StreamEvent>) -> Result<(), Failure> {
        let mut key = first_key(j, "choices[]")?;
        while let Some(k) = key {
            match k {
                Key::Delta => delta(j, out)?,
                Key::FinishReason => {
                    if let Some(reason) = string(j, k)? {
                        self.finish_reason = Some(reason);
                    }
                }
                _ => j.next_skip().map_err(syntax)?,
            }
            key = next_key(j)?;
        }
        Ok(())
    }

    fn usage(&mut self, j: &mut Jiter<'_>) -> Result<Option<Usage>, Failure> {
        if null(j)? {
            return Ok(None);
        }
        let mut usage = Usage::default();
        let mut key = first_key(j, "usage")?;
        while let Some(k) = key {
            match k {
                Key::PromptTokens => usage.prompt_tokens = count(j, k)?,
                Key::CompletionTokens => usage.completion_tokens = count(j, k)?,
                Key::PromptTokensDetails => usage.cached_prompt_tokens = cached(j)?,
                _ => j.next_skip().map_err(syntax)?,
            }
            key = next_key(j)?;
        }
        Ok(Some(usage))
    }
}

/// `usage.prompt_tokens_details`: the prompt tokens read from the provider's cache
/// (0 when the object is null or says nothing of them).
fn cached(j: &mut Jiter<'_>) -> Result<u64, Failure> {
    if null(j)? {
        return Ok(0);
    }
    let mut cached = 0;
    let mut key = first_key(j, "prompt_tokens_details")?;
    while let Some(k) = key {
        match k {
            Key::CachedTokens => cached = count(j, k)?,
            _ => j.next_skip().map_err(syntax)?,
        }
        key = next_key(j)?;
    }
    Ok(cached)
}

/// A choice's delta: DeepSeek's `reasoning_content`, Ollama's `reasoning`, the text.
fn delta(j: &mut Jiter<'_>, out: &mut Vec<StreamEvent>) -> Result<(), Failure> {
    if null(j)? {
        return Ok(());
    }
    let mut thinking = [None, None];
    let mut content = None;
    let mut key = first_key(j, "delta")?;
    while let Some(k) = key {
        match k {
            Key::ReasoningContent => thinking[0] = string(j, k)?,
            Key::Reasoning => thinking[1] = string(j, k)?,
            Key::Content => content = string(j, k)?,
            _ => j.next_skip().map_err(syntax)?,
        }
        key = next_key(j)?;
    }
    push_delta(thinking, content, out);
    Ok(())
}

/// What one delta says, in the order volk reports it: thinking (`reasoning_content`,
/// then `reasoning`) before the answer text, whatever the key order; empty strings
/// say nothing.
fn push_delta(thinking: [Option<String>; 2], content: Option<String>, out: &mut Vec<StreamEvent>) {
    for text in thinking.into_iter().flatten().filter(|t| !t.is_empty()) {
        out.push(StreamEvent::Thinking { text });
    }
    if let Some(text) = content.filter(|t| !t.is_empty()) {
        out.push(StreamEvent::Text { text });
    }
}

/// An `error` object in a chunk: the provider's own words, and whether to retry.
fn provider_error(raw: &str) -> Failure {
    let error: serde_json::Value = serde_json::from_str(raw).unwrap_or_default();
    let detail = ProviderError::from_value(&serde_json::json!({ "error": error }));
    let failure = ReasonerError::Provider(detail.describe());
    if detail.is_transient() {
        Failure::transient(failure)
    } else {
        Failure::fatal(failure)
    }
}

impl Decoder for ChatDecoder {
    fn event(&mut self, event: &Event<'_>, out: &mut Vec<StreamEvent>) -> Result<Flow, Failure> {
        // JSON's own white space only: `str::trim` would also drop Unicode spaces that
        // make the chunk invalid JSON.
        let data = event
            .data
            .trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
        if data == "[DONE]" {
            out.push(StreamEvent::Finished {
                stop_reason: self.finish_reason.take(),
            });
            return Ok(Flow::Done);
        }
        if data.is_empty() {
            return Ok(Flow::More);
        }
        let before = out.len();
        let mut chunk = Jiter::with_tape(data.as_bytes(), std::mem::take(&mut self.tape));
        let result = self.chunk(&mut chunk, data, out);
        self.tape = chunk.into_tape();
        match result {
            Ok(()) => Ok(Flow::More),
            Err(mut failure) => {
                out.truncate(before);
                if let ReasonerError::Protocol(message) = &mut failure.error {
                    message.push_str(": ");
                    message.extend(data.chars().take(120));
                }
                Err(failure)
            }
        }
    }

    fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), Failure> {
        // Servers that omit `[DONE]` still send a finish reason; without either the
        // stream was cut.
        match self.finish_reason.take() {
            Some(reason) => {
                out.push(StreamEvent::Finished {
                    stop_reason: Some(reason),
                });
                Ok(())
            }
            None => Err(Failure::transient(ReasonerError::Incomplete(
                "the stream ended before the provider marked the answer complete".into(),
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(decoder: &mut ChatDecoder, data: &str) -> (Result<Flow, Failure>, Vec<StreamEvent>) {
        let mut out = Vec::new();
        (decoder.event(&Event::new("message", data), &mut out), out)
    }

    #[test]
    fn content_reasoning_usage_and_done() {
        let mut d = ChatDecoder::default();
        let (_, out) = feed(
            &mut d,
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"hmm"}}]}"#,
        );
        assert_eq!(out, vec![StreamEvent::Thinking { text: "hmm".into() }]);
        let (_, out) = feed(
            &mut d,
            r#"{"choices":[{"index":0,"delta":{"reasoning":"ok","content":"A\"B"}}]}"#,
        );
        assert_eq!(
            out,
            vec![
                StreamEvent::Thinking { text: "ok".into() },
                StreamEvent::Text {
                    text: "A\"B".into()
                }
            ]
        );
        let (_, out) = feed(
            &mut d,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        );
        assert!(out.is_empty());
        for usage_chunk in [
            r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7}}"#,
            r#"{"choices":null,"usage":{"prompt_tokens":5,"completion_tokens":7}}"#,
        ] {
            let (_, out) = feed(&mut d, usage_chunk);
            assert_eq!(
                out,
                vec![StreamEvent::Usage {
                    usage: Usage {
                        prompt_tokens: 5,
                        completion_tokens: 7,
                        cached_prompt_tokens: 0,
                    }
                }]
            );
        }
        let (flow, out) = feed(&mut d, "[DONE]");
        assert_eq!(flow.unwrap(), Flow::Done);
        assert_eq!(
            out,
            vec![StreamEvent::Finished {
                stop_reason: Some("stop".into())
            }]
        );
    }

    #[test]
    fn every_choice_of_a_chunk_in_order() {
        let mut d = ChatDecoder::default();
        let (_, out) = feed(
            &mut d,
            r#"{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}},{"index":2,"delta":{"content":"c"}}]}"#,
        );
        let texts: Vec<StreamEvent> = ["a", "b", "c"]
            .map(|t| StreamEvent::Text { text: t.into() })
            .into();
        assert_eq!(out, texts);
        let (result, _) = feed(&mut d, r#"{"choices":{"index":0}}"#);
        assert!(result.is_err(), "choices must be a list");
    }

    #[test]
    fn error_object_in_the_body() {
        let mut d = ChatDecoder::default();
        let (result, _) = feed(
            &mut d,
            r#"{"error":{"message":"model overloaded","type":"server_error"}}"#,
        );
        let failure = result.unwrap_err();
        assert!(failure.error.to_string().contains("model overloaded"));
        assert_eq!(failure.retry, crate::reasoner::retry::Retry::After(None));
    }

    /// What the decoder must make of a chunk, read the slow, obvious way.
    fn reference(chunk: &serde_json::Value) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        for choice in chunk["choices"].as_array().into_iter().flatten() {
            let delta = &choice["delta"];
            for key in ["reasoning_content", "reasoning"] {
                if let Some(text) = delta[key].as_str().filter(|t| !t.is_empty()) {
                    out.push(StreamEvent::Thinking { text: text.into() });
                }
            }
            if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
                out.push(StreamEvent::Text { text: text.into() });
            }
        }
        if chunk["usage"].is_object() {
            out.push(StreamEvent::Usage {
                usage: Usage {
                    prompt_tokens: chunk["usage"]["prompt_tokens"].as_u64().unwrap_or(0),
                    completion_tokens: chunk["usage"]["completion_tokens"].as_u64().unwrap_or(0),
                    cached_prompt_tokens: chunk["usage"]["prompt_tokens_details"]["cached_tokens"]
                        .as_u64()
                        .unwrap_or(0),
                },
            });
        }
        out
    }

    fn arb_text() -> impl proptest::strategy::Strategy<Value = Option<String>> {
        proptest::option::of("(\\PC|[\"\\\\\n\t/\u{7f}\u{2028}])*")
    }

    fn arb_chunk() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let delta = (arb_text(), arb_text(), arb_text(), any::<bool>()).prop_map(
            |(content, thinking, reasoning, role)| {
                let mut delta = serde_json::Map::new();
                if role {
                    delta.insert("role".into(), "assistant".into());
                }
                for (key, text) in [
                    ("reasoning", reasoning),
                    ("content", content),
                    ("reasoning_content", thinking),
                ] {
                    if let Some(text) = text {
                        delta.insert(key.into(), text.into());
                    }
                }
                serde_json::Value::Object(delta)
            },
        );
        let choice = (delta, proptest::option::of("[a-z_]{1,8}")).prop_map(|(delta, finish)| {
            serde_json::json!({"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish})
        });
        (
            proptest::collection::vec(choice, 0..3),
            any::<bool>(),
            proptest::option::of((0u64..1 << 40, 0u64..1 << 40)),
        )
            .prop_map(|(choices, null_choices, usage)| {
                let mut chunk = serde_json::json!({
                    "id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 1,
                    "model": "m", "system_fingerprint": null,
                    "choices": if null_choices && choices.is_empty() {
                        serde_json::Value::Null
                    } else {
                        serde_json::Value::from(choices)
                    },
                });
                if let Some((prompt, completion)) = usage {
                    chunk["usage"] =
                        serde_json::json!({"prompt_tokens": prompt, "completion_tokens": completion});
                    if prompt % 3 == 0 {
                        chunk["usage"]["prompt_tokens_details"] =
                            serde_json::json!({"cached_tokens": prompt / 3, "audio_tokens": 0});
                    }
                }
                chunk
            })
    }

    proptest::proptest! {
        #[test]
        fn decodes_what_a_plain_json_reading_finds(chunk in arb_chunk(), pretty in proptest::bool::ANY) {
            let data = if pretty {
                serde_json::to_string_pretty(&chunk).unwrap()
            } else {
                serde_json::to_string(&chunk).unwrap()
            };
            let mut decoder = ChatDecoder::default();
            let (flow, out) = feed(&mut decoder, &data);
            proptest::prop_assert_eq!(flow.unwrap(), Flow::More);
            proptest::prop_assert_eq!(&out, &reference(&chunk));
        }
    }

    /// Every string value in `value` (not the keys) replaced by `text`, in a rota of
    /// its characters so that no two come out the same.
    fn restring(value: &serde_json::Value, text: &str, turn: &mut usize) -> serde_json::Value {
        use serde_json::Value;
        match value {
            Value::String(_) => {
                *turn += 1;
                let chars: Vec<char> = text.chars().collect();
                let cut = if chars.is_empty() {
                    0
                } else {
                    *turn % chars.len()
                };
                Value::String(chars[cut..].iter().chain(&chars[..cut]).collect())
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| restring(v, text, turn)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), restring(v, text, turn)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn serialize(chunk: &serde_json::Value, pretty: bool) -> String {
        if pretty {
            serde_json::to_string_pretty(chunk).unwrap()
        } else {
            serde_json::to_string(chunk).unwrap()
        }
    }

    proptest::proptest! {
        /// A stream repeats one layout with new strings: one decoder reads each as a
        /// plain JSON reading of it alone does, and ends with the last finish reason sent.
        #[test]
        fn a_stream_of_one_layout_decodes_chunk_by_chunk(
            base in arb_chunk(),
            texts in proptest::collection::vec("(\\PC|[\"\\\\\n\t/\u{7f}])*", 1..6),
            pretty in proptest::bool::ANY,
        ) {
            let mut decoder = ChatDecoder::default();
            let mut finish = None;
            for (i, text) in texts.iter().enumerate() {
                let chunk = if i == 0 { base.clone() } else { restring(&base, text, &mut 0) };
                let (flow, out) = feed(&mut decoder, &serialize(&chunk, pretty));
                proptest::prop_assert_eq!(flow.unwrap(), Flow::More);
                proptest::prop_assert_eq!(&out, &reference(&chunk));
                for choice in chunk["choices"].as_array().into_iter().flatten() {
                    if let Some(reason) = choice["finish_reason"].as_str() {
                        finish = Some(reason.to_owned());
                    }
                }
            }
            let (flow, out) = feed(&mut decoder, "[DONE]");
            proptest::prop_assert_eq!(flow.unwrap(), Flow::Done);
            proptest::prop_assert_eq!(out, vec![StreamEvent::Finished { stop_reason: finish }]);
        }

        /// One byte of a chunk changed, after its unchanged self was read by the same
        /// decoder: it is read as a plain JSON reading does, or refused when that
        /// reading does.
        #[test]
        fn a_changed_byte_is_read_right_or_refused(
            base in arb_chunk(),
            at in proptest::prelude::any::<proptest::sample::Index>(),
            byte in proptest::sample::select(b"\"\\{}[],: \n0-1.eEtnul/xa".to_vec()),
            insert in proptest::bool::ANY,
            pretty in proptest::bool::ANY,
        ) {
            let data = serialize(&base, pretty);
            let mut decoder = ChatDecoder::default();
            let (flow, _) = feed(&mut decoder, &data);
            proptest::prop_assert_eq!(flow.unwrap(), Flow::More);
            // Only ASCII bytes are replaced, so the text stays UTF-8.
            let ascii: Vec<usize> = (0..data.len()).filter(|&i| data.as_bytes()[i].is_ascii()).collect();
            let i = ascii[at.index(ascii.len())];
            let mut bytes = data.into_bytes();
            if insert {
                bytes.insert(i, byte);
            } else {
                bytes[i] = byte;
            }
            let changed = String::from_utf8(bytes).unwrap();
            let (result, out) = feed(&mut decoder, &changed);
            match serde_json::from_str::<serde_json::Value>(changed.trim()) {
                Ok(value) if value.is_object() && result.is_ok() => {
                    proptest::prop_assert_eq!(out, reference(&value), "{}", changed);
                }
                Ok(_) => {}
                Err(_) => {
                    proptest::prop_assert!(result.is_err(), "accepted {}", changed);
                    proptest::prop_assert!(out.is_empty());
                }
            }
        }
    }

    #[test]
    fn malformed_and_mistyped_chunks_are_refused_with_nothing_emitted() {
        for data in [
            r#"{"choices":[{"delta":{"content":"a"}}]"#,
            r#"{"choices":[{"delta":{"content":"a"}}]} trailing"#,
            r#"{"choices":[{"delta":{"content":7}}]}"#,
            r#"{"choices":[{"delta":"a"}]}"#,
            r#"{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":1.5}}"#,
            r#"{"choices":[{"delta":{"content":"a\x"}}]}"#,
            r#"["not", "an", "object"]"#,
        ] {
            let mut d = ChatDecoder::default();
            let (result, out) = feed(&mut d, data);
            let failure = result.expect_err(data);
            assert!(out.is_empty(), "{data}");
            assert!(
                failure.error.to_string().contains("chunk"),
                "{data}: {}",
                failure.error
            );
        }
        // An error object after text still fails the chunk, and drops the text.
        let mut d = ChatDecoder::default();
        let (result, out) = feed(
            &mut d,
            r#"{"choices":[{"delta":{"content":"a"}}],"error":{"message":"quota","type":"insufficient_quota"}}"#,
        );
        assert!(result.unwrap_err().error.to_string().contains("quota"));
        assert!(out.is_empty());
    }

    #[test]
    fn end_without_finish_is_a_cut() {
        let mut d = ChatDecoder::default();
        let mut out = Vec::new();
        assert!(d.end(&mut out).is_err());
    }

    #[test]
    fn body_has_the_expected_fields() {
        let req = ReasonerRequest {
            purpose: crate::brief::Purpose::Design,
            system: "sys".into(),
            prompt: "user".into(),
            max_tokens: 42,
            brief: Arc::default(),
        };
        let b = body("m", &req);
        assert_eq!(b["messages"][0]["role"], "system");
        assert_eq!(b["messages"][1]["content"], "user");
        assert_eq!(b["stream_options"]["include_usage"], true);
        assert_eq!(b["max_tokens"], 42);
    }
}
