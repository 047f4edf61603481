//! OpenAI-compatible chat completions, streamed: OpenAI itself, DeepSeek, Ollama,
//! vLLM and llama.cpp's server all speak it, so a base URL is all that differs.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;

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

#[derive(Deserialize)]
struct Chunk<'a> {
    /// Absent, `null` or `[]` on the final usage chunk, depending on the server.
    #[serde(borrow, default)]
    choices: Option<Choices<'a>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

/// The `choices` list. Servers stream one choice per chunk, so the first is kept
/// inline and a chunk costs no allocation for the list itself.
#[derive(Default)]
struct Choices<'a> {
    first: Option<Choice<'a>>,
    more: Vec<Choice<'a>>,
}

impl<'a> IntoIterator for Choices<'a> {
    type Item = Choice<'a>;
    type IntoIter =
        std::iter::Chain<std::option::IntoIter<Choice<'a>>, std::vec::IntoIter<Choice<'a>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.first.into_iter().chain(self.more)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Choices<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct List<'a>(std::marker::PhantomData<Choices<'a>>);

        impl<'de: 'a, 'a> serde::de::Visitor<'de> for List<'a> {
            type Value = Choices<'a>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of choices")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Choices<'a>, A::Error> {
                let mut choices = Choices {
                    first: seq.next_element()?,
                    more: Vec::new(),
                };
                if choices.first.is_some() {
                    while let Some(choice) = seq.next_element()? {
                        choices.more.push(choice);
                    }
                }
                Ok(choices)
            }
        }

        deserializer.deserialize_seq(List(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(borrow, default)]
    delta: Option<Delta<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    /// DeepSeek's reasoning models.
    #[serde(borrow, default)]
    reasoning_content: Option<Cow<'a, str>>,
    /// Ollama (and some vLLM builds).
    #[serde(borrow, default)]
    reasoning: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
}

/// Decodes `chat.completion.chunk` events.
#[derive(Debug, Default)]
pub struct ChatDecoder {
    finish_reason: Option<String>,
}

impl Decoder for ChatDecoder {
    fn event(&mut self, event: &Event<'_>, out: &mut Vec<StreamEvent>) -> Result<Flow, Failure> {
        let data = event.data.trim();
        if data == "[DONE]" {
            out.push(StreamEvent::Finished {
                stop_reason: self.finish_reason.take(),
            });
            return Ok(Flow::Done);
        }
        if data.is_empty() {
            return Ok(Flow::More);
        }
        let chunk: Chunk<'_> = serde_json::from_str(data).map_err(|e| {
            Failure::fatal(ReasonerError::Protocol(format!(
                "a chunk is not valid JSON ({e}): {}",
                data.chars().take(120).collect::<String>()
            )))
        })?;
        if let Some(error) = chunk.error {
            let detail = ProviderError::from_value(&serde_json::json!({ "error": error }));
            let failure = ReasonerError::Provider(detail.describe());
            return Err(if detail.is_transient() {
                Failure::transient(failure)
            } else {
                Failure::fatal(failure)
            });
        }
        for choice in chunk.choices.into_iter().flatten() {
            if let Some(delta) = choice.delta {
                for thinking in [delta.reasoning_content, delta.reasoning]
                    .into_iter()
                    .flatten()
                {
                    if !thinking.is_empty() {
                        out.push(StreamEvent::Thinking {
                            text: thinking.into_owned(),
                        });
                    }
                }
                if let Some(text) = delta.content
                    && !text.is_empty()
                {
                    out.push(StreamEvent::Text {
                        text: text.into_owned(),
                    });
                }
            }
            if let Some(reason) = choice.finish_reason {
                self.finish_reason = Some(reason.into_owned());
            }
        }
        if let Some(usage) = chunk.usage {
            out.push(StreamEvent::Usage {
                usage: Usage {
                    prompt_tokens: usage.prompt_tokens.unwrap_or(0),
                    completion_tokens: usage.completion_tokens.unwrap_or(0),
                },
            });
        }
        Ok(Flow::More)
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
                        completion_tokens: 7
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

    #[test]
    fn end_without_finish_is_a_cut() {
        let mut d = ChatDecoder::default();
        let mut out = Vec::new();
        assert!(d.end(&mut out).is_err());
    }

    #[test]
    fn body_has_the_expected_fields() {
        let req = ReasonerRequest {
            purpose: crate::reasoner::Purpose::Design,
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
