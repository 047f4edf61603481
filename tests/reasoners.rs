//! Reasoner providers against a real HTTP server on 127.0.0.1 that each test starts:
//! the server writes raw HTTP/1.1 and server-sent events from a script, records what
//! it was sent, and notices when the client goes away.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use volk::brief::{Brief, Purpose};
use volk::reasoner::anthropic::Anthropic;
use volk::reasoner::cassette::{Cassette, Recorder, Replay};
use volk::reasoner::http::{Endpoint, Timeouts};
use volk::reasoner::metrics::{Metered, Outcome};
use volk::reasoner::openai::OpenAi;
use volk::reasoner::retry::RetryPolicy;
use volk::reasoner::secret::ApiKey;
use volk::reasoner::{Reasoner, ReasonerError, ReasonerRequest, StreamEvent, Usage, collect};

const KEY: &str = "sk-volktest-9f8e7d6c5b4a39281706";

// ---------------------------------------------------------------- the server

#[derive(Clone)]
enum Step {
    /// Bytes written (and flushed) as one HTTP chunk.
    Write(Vec<u8>),
    Sleep(u64),
    /// Close the connection without finishing the body.
    Cut,
}

#[derive(Clone)]
struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    /// A streamed (chunked) body; otherwise `body` is sent with a length.
    steps: Option<Vec<Step>>,
    body: String,
}

fn sse(steps: Vec<Step>) -> Reply {
    Reply {
        status: 200,
        headers: vec![("content-type", "text/event-stream".into())],
        steps: Some(steps),
        body: String::new(),
    }
}

fn status(code: u16, body: &str, headers: Vec<(&'static str, String)>) -> Reply {
    Reply {
        status: code,
        headers,
        steps: None,
        body: body.to_string(),
    }
}

/// Splits `text` into writes of `size` bytes, regardless of lines or characters.
fn pieces(text: &str, size: usize) -> Vec<Step> {
    text.as_bytes()
        .chunks(size)
        .map(|c| Step::Write(c.to_vec()))
        .collect()
}

#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: HashMap<String, String>,
    body: serde_json::Value,
}

struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    client_left: Arc<AtomicBool>,
}

impl Server {
    async fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let client_left = Arc::new(AtomicBool::new(false));
        let (s, c) = (seen.clone(), client_left.clone());
        tokio::spawn(async move {
            let mut replies = replies.into_iter();
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let reply = replies
                    .next()
                    .unwrap_or_else(|| status(500, "no more scripted replies", vec![]));
                let (s, c) = (s.clone(), c.clone());
                tokio::spawn(async move { serve(socket, reply, s, c).await });
            }
        });
        Server {
            url,
            seen,
            client_left,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

async fn serve(
    mut socket: TcpStream,
    reply: Reply,
    seen: Arc<Mutex<Vec<Seen>>>,
    client_left: Arc<AtomicBool>,
) {
    socket.set_nodelay(true).unwrap();
    let mut buf = Vec::new();
    let mut tmp = [0u8; 4096];
    let head_end = loop {
        let n = socket.read(&mut tmp).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.lines();
    let request_line = lines.next().unwrap_or_default().to_string();
    let mut parts = request_line.split(' ');
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = socket.read(&mut tmp).await.unwrap_or(0);
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..]).unwrap_or(serde_json::Value::Null);
    seen.lock().unwrap().push(Seen {
        method,
        path,
        headers,
        body,
    });

    let mut head = format!(
        "HTTP/1.1 {} Scripted\r\nconnection: close\r\n",
        reply.status
    );
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let Some(steps) = reply.steps else {
        head.push_str(&format!(
            "content-type: application/json\r\ncontent-length: {}\r\n\r\n{}",
            reply.body.len(),
            reply.body
        ));
        let _ = socket.write_all(head.as_bytes()).await;
        return;
    };
    head.push_str("transfer-encoding: chunked\r\n\r\n");
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for step in steps {
        match step {
            Step::Write(bytes) => {
                let mut frame = format!("{:x}\r\n", bytes.len()).into_bytes();
                frame.extend_from_slice(&bytes);
                frame.extend_from_slice(b"\r\n");
                if socket.write_all(&frame).await.is_err() || socket.flush().await.is_err() {
                    client_left.store(true, Ordering::SeqCst);
                    return;
                }
            }
            Step::Sleep(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
            Step::Cut => return,
        }
    }
    let _ = socket.write_all(b"0\r\n\r\n").await;
}

// ---------------------------------------------------------------- helpers

fn endpoint(server: &Server, base: &str, key_variable: &str) -> Endpoint {
    Endpoint {
        base_url: format!("{}{base}", server.url),
        model: "test-model".into(),
        key: Some(ApiKey::new(key_variable, KEY)),
        key_variable: Some(key_variable.into()),
        timeouts: Timeouts {
            connect: Duration::from_secs(2),
            idle: Duration::from_secs(5),
            overall: Duration::from_secs(20),
        },
        retry: RetryPolicy {
            max_attempts: 5,
            base: Duration::from_millis(10),
            cap: Duration::from_millis(50),
        },
    }
}

fn openai(server: &Server) -> OpenAi {
    OpenAi::new("openai", endpoint(server, "/v1", "OPENAI_API_KEY")).unwrap()
}

fn anthropic(server: &Server) -> Anthropic {
    Anthropic::new(endpoint(server, "", "ANTHROPIC_API_KEY")).unwrap()
}

fn request() -> ReasonerRequest {
    ReasonerRequest {
        purpose: Purpose::Design,
        system: "You are the architect.".into(),
        prompt: "Design a task manager.".into(),
        max_tokens: 1234,
        brief: Arc::new(Brief {
            cycle: 1,
            ..Brief::default()
        }),
    }
}

/// One OpenAI chunk carrying `content`.
fn chunk(content: &str) -> String {
    format!(
        "data: {}\n\n",
        serde_json::json!({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":content},"finish_reason":null}]})
    )
}

fn finish_and_usage(prompt: u64, completion: u64) -> String {
    format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        serde_json::json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        serde_json::json!({"choices":[],"usage":{"prompt_tokens":prompt,"completion_tokens":completion,"total_tokens":prompt+completion}})
    )
}

fn anthropic_event(name: &str, data: serde_json::Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

const DESIGN: &str = "ARCHITECTURE:\nA CLI → a store. Ünïcödé ✓ and 🚀 survive.\n\nREQUIREMENTS:\nFR-01: add tasks\n\nFILE_TREE:\nsrc/\n\nAPI_SPEC:\nadd(name) -> Task\n\nCLASS_DIAGRAM:\nclassDiagram\n  Task\n";

// ---------------------------------------------------------------- OpenAI

#[tokio::test]
async fn openai_stream_split_mid_line_and_mid_character() {
    let mut body = String::from(": keep-alive\n\n");
    body.push_str(&format!(
        "data: {}\n\n",
        serde_json::json!({"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"Thinking about → tasks."}}]})
    ));
    body.push_str(&format!(
        "data: {}\n\n",
        serde_json::json!({"choices":[{"index":0,"delta":{"reasoning":" More."}}]})
    ));
    for piece in DESIGN.split_inclusive(' ') {
        body.push_str(&chunk(piece));
        body.push_str(": keep-alive\n\n");
    }
    body.push_str(&finish_and_usage(11, 22));
    // Seven-byte writes cut lines, JSON strings and multi-byte characters apart.
    let mut steps = pieces(&body, 7);
    steps.insert(3, Step::Sleep(20));
    let server = Server::start(vec![sse(steps)]).await;

    let got = collect(openai(&server).stream(request())).await.unwrap();
    assert_eq!(got.text, DESIGN);
    assert_eq!(got.thinking, "Thinking about → tasks. More.");
    assert_eq!(
        got.usage,
        Some(Usage {
            prompt_tokens: 11,
            completion_tokens: 22,
            ..Default::default()
        })
    );
    assert_eq!(got.stop_reason.as_deref(), Some("stop"));
    assert_eq!(
        volk::design::parser::parse(&got.text).api_spec,
        "add(name) -> Task"
    );

    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    let s = &seen[0];
    assert_eq!(s.method, "POST");
    assert_eq!(s.path, "/v1/chat/completions");
    assert_eq!(s.headers["authorization"], format!("Bearer {KEY}"));
    assert_eq!(s.headers["content-type"], "application/json");
    assert_eq!(s.body["model"], "test-model");
    assert_eq!(s.body["stream"], true);
    assert_eq!(s.body["stream_options"]["include_usage"], true);
    assert_eq!(s.body["max_tokens"], 1234);
    assert_eq!(s.body["messages"][0]["role"], "system");
    assert_eq!(s.body["messages"][0]["content"], "You are the architect.");
    assert_eq!(s.body["messages"][1]["role"], "user");
    assert_eq!(s.body["messages"][1]["content"], "Design a task manager.");
}

#[tokio::test]
async fn openai_usage_with_null_choices_and_no_done_marker() {
    // llama.cpp-style ending: a finish reason, usage with `choices: null`, no [DONE].
    let body = format!(
        "{}data: {}\n\ndata: {}\n\n",
        chunk("hello"),
        serde_json::json!({"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}),
        serde_json::json!({"choices":null,"usage":{"prompt_tokens":3,"completion_tokens":1}})
    );
    let server = Server::start(vec![sse(pieces(&body, 64))]).await;
    let got = collect(openai(&server).stream(request())).await.unwrap();
    assert_eq!(got.text, "hello");
    assert_eq!(got.stop_reason.as_deref(), Some("length"));
    assert_eq!(got.usage.unwrap().prompt_tokens, 3);
}

#[tokio::test]
async fn openai_error_object_in_the_stream_keeps_the_partial_text() {
    let body = format!(
        "{}{}data: {}\n\n",
        chunk("ARCHITECTURE:\n"),
        chunk("partial"),
        serde_json::json!({"error":{"message":"context length exceeded","type":"invalid_request_error"}})
    );
    let server = Server::start(vec![sse(pieces(&body, 50))]).await;
    let (error, partial) = collect(openai(&server).stream(request()))
        .await
        .unwrap_err();
    assert_eq!(partial.text, "ARCHITECTURE:\npartial");
    assert!(matches!(error, ReasonerError::Provider(_)), "{error:?}");
    assert!(error.to_string().contains("context length exceeded"));
    assert_eq!(server.seen().len(), 1);
}

/// The wait is measured on tokio's clock, paused once the first attempt has been
/// answered: the second request goes out exactly when the announced wait ends, not a
/// moment before, whatever the machine's load.
#[tokio::test]
async fn retries_429_honouring_retry_after_then_succeeds() {
    let ok = format!("{}{}", chunk("done"), finish_and_usage(1, 1));
    let server = Server::start(vec![
        status(
            429,
            r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
            vec![("retry-after", "1".into())],
        ),
        sse(pieces(&ok, 100)),
    ])
    .await;
    let mut stream = openai(&server).stream(request());
    // The wait is announced before it starts: the screen can count it down.
    let first = stream.next().await.unwrap().unwrap();
    let StreamEvent::Retrying(backoff) = first else {
        panic!("{first:?}");
    };
    assert_eq!((backoff.attempt, backoff.max_attempts), (2, 5));
    assert!(backoff.wait_ms >= 1000, "{backoff:?}");
    assert_eq!(backoff.reason, "HTTP 429");
    assert_eq!(server.seen().len(), 1);

    tokio::time::pause();
    let rest = tokio::spawn(collect(stream));
    // Lets any request that went out reach the server, without the paused clock
    // moving: the task never idles, so tokio does not advance the time itself.
    async fn settle() {
        for _ in 0..40 {
            std::thread::sleep(Duration::from_millis(2));
            for _ in 0..70 {
                tokio::task::yield_now().await;
            }
        }
    }
    settle().await;
    let wait = Duration::from_millis(backoff.wait_ms);
    tokio::time::advance(wait - Duration::from_millis(1)).await;
    settle().await;
    assert!(
        !rest.is_finished(),
        "the retry went out before its wait ended"
    );
    assert_eq!(server.seen().len(), 1, "asked again before the wait ended");
    tokio::time::advance(Duration::from_millis(1)).await;
    // The second attempt talks to the server on the real clock.
    tokio::time::resume();
    let got = tokio::time::timeout(Duration::from_secs(20), rest)
        .await
        .expect("the retry finished")
        .unwrap()
        .unwrap();
    assert_eq!(got.text, "done");
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn retries_500_and_a_cut_before_the_first_token_then_succeeds() {
    let ok = format!("{}{}", chunk("fine"), finish_and_usage(1, 1));
    let server = Server::start(vec![
        status(500, "internal error", vec![]),
        sse(vec![Step::Write(b": keep-alive\n\n".to_vec()), Step::Cut]),
        sse(pieces(&ok, 100)),
    ])
    .await;
    let got = collect(openai(&server).stream(request())).await.unwrap();
    assert_eq!(got.text, "fine");
    assert_eq!(server.seen().len(), 3);
}

#[tokio::test]
async fn gives_up_after_five_attempts() {
    let replies = (0..6)
        .map(|_| status(503, r#"{"error":{"message":"busy"}}"#, vec![]))
        .collect();
    let server = Server::start(replies).await;
    let (error, _) = collect(openai(&server).stream(request()))
        .await
        .unwrap_err();
    assert!(
        matches!(error, ReasonerError::GaveUp { attempts: 5, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("busy"), "{error}");
    assert_eq!(server.seen().len(), 5);
}

#[tokio::test]
async fn unauthorized_is_not_retried_and_never_shows_the_key() {
    // A server that quotes the key back, whole and masked.
    let body = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}. Masked: sk-volkt***1706.","type":"invalid_request_error","code":"invalid_api_key"}}}}"#
    );
    let server = Server::start(vec![status(401, &body, vec![])]).await;
    let (error, _) = collect(openai(&server).stream(request()))
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("401"), "{message}");
    assert!(message.contains("OPENAI_API_KEY"), "{message}");
    assert!(!message.contains(KEY), "{message}");
    assert!(!message.contains("1706"), "{message}");
    assert!(!format!("{error:?}").contains(KEY));
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn exhausted_quota_is_not_retried_and_says_what_to_do() {
    let server = Server::start(vec![status(
        429,
        r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
        vec![("retry-after", "1".into())],
    )])
    .await;
    let (error, _) = collect(openai(&server).stream(request()))
        .await
        .unwrap_err();
    assert!(matches!(error, ReasonerError::Quota(_)), "{error:?}");
    assert!(error.to_string().contains("add credit"), "{error}");
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn a_stream_cut_halfway_keeps_the_text_and_is_not_retried() {
    let mut steps = pieces(&format!("{}{}", chunk("ARCHITECTURE:\n"), chunk("half")), 9);
    steps.push(Step::Cut);
    let server = Server::start(vec![sse(steps)]).await;
    let (error, partial) = collect(openai(&server).stream(request()))
        .await
        .unwrap_err();
    assert_eq!(partial.text, "ARCHITECTURE:\nhalf");
    assert!(matches!(error, ReasonerError::Incomplete(_)), "{error:?}");
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn a_stall_past_the_idle_timeout_fails_fast() {
    let mut steps = pieces(&chunk("ARCHITECTURE:\n"), 100);
    steps.push(Step::Sleep(10_000));
    let server = Server::start(vec![sse(steps)]).await;
    let mut e = endpoint(&server, "/v1", "OPENAI_API_KEY");
    e.timeouts.idle = Duration::from_millis(300);
    let reasoner = OpenAi::new("openai", e).unwrap();
    let started = Instant::now();
    let (error, partial) = collect(reasoner.stream(request())).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(matches!(error, ReasonerError::Timeout(_)), "{error:?}");
    assert!(error.to_string().contains("idle"), "{error}");
    assert_eq!(partial.text, "ARCHITECTURE:\n");
}

#[tokio::test]
async fn the_overall_limit_stops_a_slow_stream() {
    let mut steps = Vec::new();
    for _ in 0..40 {
        steps.push(Step::Write(chunk("x").into_bytes()));
        steps.push(Step::Sleep(100));
    }
    let server = Server::start(vec![sse(steps)]).await;
    let mut e = endpoint(&server, "/v1", "OPENAI_API_KEY");
    e.timeouts.overall = Duration::from_millis(600);
    let reasoner = OpenAi::new("openai", e).unwrap();
    let started = Instant::now();
    let (error, partial) = collect(reasoner.stream(request())).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(error.to_string().contains("overall"), "{error}");
    assert!(!partial.text.is_empty());
}

#[tokio::test]
async fn dropping_the_stream_closes_the_connection() {
    let mut steps = Vec::new();
    for _ in 0..200 {
        steps.push(Step::Write(chunk("tick ").into_bytes()));
        steps.push(Step::Sleep(20));
    }
    let server = Server::start(vec![sse(steps)]).await;
    let mut stream = openai(&server).stream(request());
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(
        first,
        StreamEvent::Text {
            text: "tick ".into()
        }
    );
    drop(stream);
    let deadline = Instant::now() + Duration::from_secs(2);
    while !server.client_left.load(Ordering::SeqCst) {
        assert!(
            Instant::now() < deadline,
            "the server kept writing to a dropped call"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn connection_refused_is_retried_then_reported() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let e = Endpoint {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        ..endpoint(&Server::start(vec![]).await, "", "OPENAI_API_KEY")
    };
    let mut stream = OpenAi::new("openai", e).unwrap().stream(request());
    let mut announced = Vec::new();
    let error = loop {
        match stream.next().await.unwrap() {
            Ok(StreamEvent::Retrying(b)) => announced.push((b.attempt, b.reason)),
            Ok(other) => panic!("{other:?}"),
            Err(error) => break error,
        }
    };
    assert!(stream.next().await.is_none());
    let ReasonerError::GaveUp { attempts, last } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(*attempts, 5);
    assert!(matches!(**last, ReasonerError::Connect { .. }), "{last:?}");
    // Attempts 2 to 5 were each announced, with the cause in a few words.
    let numbers: Vec<u32> = announced.iter().map(|(n, _)| *n).collect();
    assert_eq!(numbers, [2, 3, 4, 5]);
    assert!(
        announced.iter().all(|(_, r)| r == "connection refused"),
        "{announced:?}"
    );
}

// ---------------------------------------------------------------- Anthropic

fn anthropic_body(text_parts: &[&str]) -> String {
    let mut body = anthropic_event(
        "message_start",
        serde_json::json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"usage":{"input_tokens":25,"output_tokens":1}}}),
    );
    body.push_str(&anthropic_event(
        "content_block_start",
        serde_json::json!({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}),
    ));
    body.push_str(&anthropic_event(
        "content_block_delta",
        serde_json::json!({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Weighing options."}}),
    ));
    body.push_str(&anthropic_event(
        "content_block_delta",
        serde_json::json!({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM"}}),
    ));
    body.push_str(&anthropic_event(
        "content_block_stop",
        serde_json::json!({"type":"content_block_stop","index":0}),
    ));
    body.push_str(&anthropic_event(
        "content_block_start",
        serde_json::json!({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}),
    ));
    body.push_str(&anthropic_event("ping", serde_json::json!({"type":"ping"})));
    for part in text_parts {
        body.push_str(&anthropic_event(
            "content_block_delta",
            serde_json::json!({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":part}}),
        ));
    }
    body
}

fn anthropic_end() -> String {
    let mut body = anthropic_event(
        "content_block_stop",
        serde_json::json!({"type":"content_block_stop","index":1}),
    );
    body.push_str(&anthropic_event(
        "brand_new_event",
        serde_json::json!({"type":"brand_new_event","what":"ignored"}),
    ));
    body.push_str(&anthropic_event(
        "message_delta",
        serde_json::json!({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":40}}),
    ));
    body.push_str(&anthropic_event(
        "message_stop",
        serde_json::json!({"type":"message_stop"}),
    ));
    body
}

#[tokio::test]
async fn anthropic_full_event_sequence() {
    let parts: Vec<&str> = DESIGN.split_inclusive('\n').collect();
    let body = format!("{}{}", anthropic_body(&parts), anthropic_end());
    let server = Server::start(vec![sse(pieces(&body, 5))]).await;
    let got = collect(anthropic(&server).stream(request())).await.unwrap();
    assert_eq!(got.text, DESIGN);
    assert_eq!(got.thinking, "Weighing options.");
    assert_eq!(
        got.usage,
        Some(Usage {
            prompt_tokens: 25,
            completion_tokens: 40,
            ..Default::default()
        })
    );
    assert_eq!(got.stop_reason.as_deref(), Some("end_turn"));

    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    let s = &seen[0];
    assert_eq!(s.path, "/v1/messages");
    assert_eq!(s.headers["x-api-key"], KEY);
    assert_eq!(s.headers["anthropic-version"], "2023-06-01");
    assert!(!s.headers.contains_key("authorization"));
    assert_eq!(s.body["stream"], true);
    assert_eq!(s.body["model"], "test-model");
    assert_eq!(s.body["max_tokens"], 1234);
    assert_eq!(s.body["system"], "You are the architect.");
    assert_eq!(s.body["messages"][0]["role"], "user");
    assert_eq!(s.body["messages"][0]["content"], "Design a task manager.");
}

#[tokio::test]
async fn anthropic_error_event_mid_stream() {
    let mut body = anthropic_body(&["ARCHITECTURE:\n", "so far"]);
    body.push_str(&anthropic_event(
        "error",
        serde_json::json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}),
    ));
    let server = Server::start(vec![sse(pieces(&body, 40))]).await;
    let (error, partial) = collect(anthropic(&server).stream(request()))
        .await
        .unwrap_err();
    assert_eq!(partial.text, "ARCHITECTURE:\nso far");
    assert!(error.to_string().contains("Overloaded"), "{error}");
    // Text had arrived: a silent retry would contradict what the person saw.
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn anthropic_529_is_retried() {
    let body = format!("{}{}", anthropic_body(&["ok"]), anthropic_end());
    let server = Server::start(vec![
        status(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            vec![],
        ),
        sse(pieces(&body, 200)),
    ])
    .await;
    let got = collect(anthropic(&server).stream(request())).await.unwrap();
    assert_eq!(got.text, "ok");
    assert_eq!(server.seen().len(), 2);
}

// ---------------------------------------------------------------- metrics

#[tokio::test]
async fn metered_stream_measures_time_to_first_token() {
    let mut steps = vec![Step::Sleep(150)];
    steps.extend(pieces(&chunk("first "), 100));
    steps.push(Step::Sleep(100));
    steps.extend(pieces(
        &format!("{}{}", chunk("second"), finish_and_usage(9, 30)),
        100,
    ));
    let server = Server::start(vec![sse(steps)]).await;
    let mut metered = Metered::new(openai(&server).stream(request()));
    let mut text = String::new();
    while let Some(item) = metered.next().await {
        if let StreamEvent::Text { text: t } = item.unwrap() {
            text.push_str(&t);
        }
    }
    let m = metered.finish();
    assert_eq!(text, "first second");
    assert_eq!(m.outcome, Outcome::Finished);
    assert!(m.ttft_ms.unwrap() >= 150, "{m:?}");
    assert!(m.elapsed_ms >= 250, "{m:?}");
    assert_eq!(
        m.usage,
        Some(Usage {
            prompt_tokens: 9,
            completion_tokens: 30,
            ..Default::default()
        })
    );
    let rate = m.tokens_per_second.unwrap();
    assert!(rate > 30.0 && rate < 400.0, "{rate}");
}

// ---------------------------------------------------------------- record and replay

#[tokio::test]
async fn record_then_replay_gives_the_same_events() {
    let mut steps = Vec::new();
    for piece in ["ARCHITECTURE:\n", "one ", "two\n"] {
        steps.extend(pieces(&chunk(piece), 100));
        steps.push(Step::Sleep(80));
    }
    steps.extend(pieces(&finish_and_usage(4, 5), 100));
    let server = Server::start(vec![sse(steps)]).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let recorder = Recorder::create(
        Arc::new(openai(&server)),
        &path,
        Some(ApiKey::new("OPENAI_API_KEY", KEY)),
    )
    .unwrap();
    assert_eq!(recorder.name(), "openai");
    let live: Vec<StreamEvent> = recorder
        .stream(request())
        .map(|e| e.unwrap())
        .collect()
        .await;
    drop(recorder);

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(KEY));
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["volk_cassette"], 1);
    assert_eq!(lines[1]["call"]["provider"], "openai");
    assert_eq!(lines[1]["call"]["prompt"], "Design a task manager.");
    assert_eq!(lines[1]["call"]["purpose"], "design");
    assert_eq!(lines.len(), 2 + live.len());
    let offsets: Vec<u64> = lines[2..]
        .iter()
        .map(|l| l["t_ms"].as_u64().unwrap())
        .collect();
    assert!(offsets.windows(2).all(|w| w[0] <= w[1]), "{offsets:?}");
    assert!(*offsets.last().unwrap() >= 200, "{offsets:?}");

    // Instant replay (its pace is checked on a paused clock, below).
    let replay = Replay::load(&path, 0.0).unwrap();
    assert_eq!(replay.model(), "test-model");
    let replayed: Vec<StreamEvent> = replay.stream(request()).map(|e| e.unwrap()).collect().await;
    assert_eq!(replayed, live);
    // The call has been played; a second one of the same purpose is an error.
    let again = collect(replay.stream(request())).await.unwrap_err().0;
    assert!(
        again.to_string().contains("no unplayed `design` call"),
        "{again}"
    );
}

/// The replay keeps the recorded pace, scaled by its speed. Recorded and replayed on
/// tokio's paused clock, so the durations are exact and no test waits on the wall
/// clock or fails on a loaded machine.
#[tokio::test(start_paused = true)]
async fn a_replay_keeps_the_recorded_pace_on_a_paused_clock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("paced.jsonl");
    let drafter = volk::reasoner::offline::OfflineDrafter::paced(Duration::from_millis(40), 64);
    let recorder = Recorder::create(Arc::new(drafter), &path, None).unwrap();
    let started = tokio::time::Instant::now();
    let live: Vec<StreamEvent> = recorder
        .stream(request())
        .map(|e| e.unwrap())
        .collect()
        .await;
    let recorded = started.elapsed();
    drop(recorder);
    assert!(live.len() > 3, "{live:?}");
    let last_ms = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()?["t_ms"].as_u64())
        .max()
        .unwrap();
    assert!(
        last_ms >= 40 && Duration::from_millis(last_ms) <= recorded,
        "{last_ms} ms of {recorded:?}"
    );

    let played_in = |speed: f64| {
        let path = path.clone();
        async move {
            let replay = Replay::load(&path, speed).unwrap();
            let started = tokio::time::Instant::now();
            let events: Vec<StreamEvent> =
                replay.stream(request()).map(|e| e.unwrap()).collect().await;
            (events, started.elapsed())
        }
    };
    let (events, instant) = played_in(0.0).await;
    assert_eq!(events, live);
    assert_eq!(instant, Duration::ZERO);
    let last = Duration::from_millis(last_ms);
    let (_, recorded_speed) = played_in(1.0).await;
    assert!(
        recorded_speed >= last && recorded_speed < last + Duration::from_millis(2),
        "{recorded_speed:?} for {last:?}"
    );
    let (_, four_times) = played_in(4.0).await;
    assert!(
        four_times >= last / 4 && four_times < last / 4 + Duration::from_millis(2),
        "{four_times:?} for {last:?} / 4"
    );
}

#[tokio::test]
async fn recorded_failures_replay_as_failures() {
    let mut steps = pieces(&chunk("half"), 100);
    steps.push(Step::Cut);
    let server = Server::start(vec![sse(steps)]).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.jsonl");
    let recorder = Recorder::create(Arc::new(openai(&server)), &path, None).unwrap();
    let live = collect(recorder.stream(request())).await.unwrap_err();
    let replay = Replay::load(&path, 0.0).unwrap();
    let replayed = collect(replay.stream(request())).await.unwrap_err();
    assert_eq!(replayed.1.text, live.1.text);
    assert!(matches!(replayed.0, ReasonerError::Recorded(_)));
    assert_eq!(
        replayed.0.to_string(),
        format!("recorded failure: {}", live.0)
    );
}

#[test]
fn a_corrupt_cassette_is_refused_with_its_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(
        &path,
        "{\"volk_cassette\":1}\n{\"call\":{\"provider\":\"p\",\"model\":\"m\",\"purpose\":\"design\",\"cycle\":1,\"max_tokens\":1,\"system\":\"\",\"prompt\":\"\"}}\n{\"t_ms\":3,\"event\":{\"type\":\"text\",\"text\":\"a\"}}\nnot json\n",
    )
    .unwrap();
    let args = volk::reasoner::select::ReasonerArgs {
        reasoner: Some(format!("replay:{}", path.display())),
        ..Default::default()
    };
    let err = volk::reasoner::select::build(&args, &volk::config::Settings::default())
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains(&format!("{}:4:", path.display())), "{err}");
    assert!(Cassette::load(&path).is_err());
}

// ---------------------------------------------------------------- the binary, end to end

const EXAMPLE_1: &str = include_str!("fixtures/packets/example1_scope.json");

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `volk run` in `dir` with `env` and nothing inherited that could steer it.
async fn volk_run(dir: &std::path::Path, args: &[String], env: &[(&str, &str)]) -> Ran {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_volk"));
    cmd.arg("run")
        .args(args)
        .current_dir(dir)
        .env("VOLK_LOG", dir.join("volk.log"))
        .env("VOLK_LOG_LEVEL", "debug")
        .env("VOLK_CONFIG_DIR", dir.join("no-user-config"))
        .env_remove("VOLK_REASONER")
        .env_remove("VOLK_MODEL")
        .env_remove("VOLK_BASE_URL")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("DEEPSEEK_API_KEY")
        .stdin(std::process::Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().await.unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Every file under `dir`, as bytes (git objects included, and `git log -p` of each
/// repository found, since objects are compressed).
fn everything_written(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n == ".git") {
                    let log = std::process::Command::new("git")
                        .arg("-C")
                        .arg(path.parent().unwrap())
                        .args(["log", "-p", "--all"])
                        .output()
                        .unwrap();
                    assert!(log.status.success());
                    out.push((format!("git log -p of {}", path.display()), log.stdout));
                }
                stack.push(path);
            } else {
                out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

const FULL_DESIGN: &str = "Here is the design.\n\n## ARCHITECTURE:\nA command-line front end over a SQLite store → simple, testable.\n\n## Open questions\n1. Time zones? Assumed local time.\n\n**REQUIREMENTS:**\nFR-01: Add tasks with name and due date.\nNFR-01: Response time < 200ms.\n\nFILE_TREE:\n```\nsrc/taskman/cli.py\nsrc/taskman/store.py\n```\n\nAPI_SPEC:\nadd_task(name: str, due: date) -> Task\n\nCLASS_DIAGRAM:\nclassDiagram\n  class Task\n  Store --> Task\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn volk_run_says_each_retry_on_stderr() {
    let mut body = String::new();
    for line in FULL_DESIGN.split_inclusive('\n') {
        body.push_str(&chunk(line));
    }
    body.push_str(&finish_and_usage(10, 10));
    let server = Server::start(vec![
        status(
            429,
            r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
            vec![("retry-after", "1".into())],
        ),
        sse(pieces(&body, 4096)),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let packet = dir.path().join("scope.json");
    std::fs::write(&packet, EXAMPLE_1).unwrap();
    let work = dir.path().join("work");
    let args: Vec<String> = [
        "--workspace",
        work.to_str().unwrap(),
        "--packet",
        packet.to_str().unwrap(),
        "--reasoner",
        "openai",
        "--base-url",
        &format!("{}/v1", server.url),
        "--model",
        "test-model",
        "--lint-repairs",
        "0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let ran = volk_run(dir.path(), &args, &[("OPENAI_API_KEY", KEY)]).await;
    assert_eq!(ran.code, 0, "stderr: {}", ran.stderr);
    assert!(
        ran.stderr
            .contains("[U:Ar] retrying in 1s (attempt 2/5): HTTP 429"),
        "{}",
        ran.stderr
    );
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn volk_run_against_a_local_openai_server_writes_the_streamed_design_and_never_the_key() {
    let mut body = String::new();
    for piece in FULL_DESIGN.split_inclusive(' ') {
        body.push_str(&chunk(piece));
    }
    body.push_str(": keep-alive\n\n");
    body.push_str(&finish_and_usage(321, 123));
    let server = Server::start(vec![sse(pieces(&body, 13))]).await;
    let dir = tempfile::tempdir().unwrap();
    let packet = dir.path().join("scope.json");
    std::fs::write(&packet, EXAMPLE_1).unwrap();
    let work = dir.path().join("work");
    let cassette = dir.path().join("session.jsonl");
    let args: Vec<String> = [
        "--workspace",
        work.to_str().unwrap(),
        "--packet",
        packet.to_str().unwrap(),
        "--reasoner",
        "openai",
        "--base-url",
        &format!("{}/v1", server.url),
        "--model",
        "test-model",
        "--record",
        cassette.to_str().unwrap(),
        // One scripted reply: this design's lint errors get no repair call.
        "--lint-repairs",
        "0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let ran = volk_run(dir.path(), &args, &[("OPENAI_API_KEY", KEY)]).await;
    assert_eq!(ran.code, 0, "stderr: {}", ran.stderr);

    // The artifacts are exactly what the streamed text parses into.
    let expected = volk::design::parser::parse(FULL_DESIGN);
    let out: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let project = work.join("taskman");
    for (section, text) in expected.iter() {
        assert!(!text.is_empty());
        assert_eq!(
            out["payload"][section.key()],
            text,
            "{section:?} in the packet"
        );
        let file = std::fs::read_to_string(project.join("design").join(section.file_name()))
            .unwrap_or_else(|e| panic!("{section:?}: {e}"));
        // As written: the class diagram inside a ```mermaid fence.
        assert_eq!(
            file,
            volk::design::write::file_body(section, text),
            "{section:?} on disk"
        );
    }

    // What was sent.
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].headers["authorization"], format!("Bearer {KEY}"));
    assert_eq!(seen[0].body["model"], "test-model");
    assert_eq!(seen[0].body["stream"], true);
    let prompt = seen[0].body["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        prompt.contains("Add tasks with name and due date"),
        "{prompt}"
    );

    // The key is nowhere: workspace, journal, session, git history, cassette, log, output.
    let written = everything_written(dir.path());
    assert!(written.iter().any(|(p, _)| p.ends_with("session.jsonl")));
    assert!(written.iter().any(|(p, _)| p.contains("journal")));
    for (path, bytes) in &written {
        assert!(!contains(bytes, KEY), "the key is in {path}");
        assert!(
            !contains(bytes, &KEY[KEY.len() - 8..]),
            "part of the key is in {path}"
        );
    }
    assert!(!ran.stdout.contains(KEY) && !ran.stderr.contains(KEY));

    // Replaying the cassette, with no key and no server, gives the same design.
    let again = tempfile::tempdir().unwrap();
    let work2 = again.path().join("work");
    let args: Vec<String> = [
        "--workspace",
        work2.to_str().unwrap(),
        "--packet",
        packet.to_str().unwrap(),
        "--reasoner",
        &format!("replay:{}", cassette.display()),
        "--replay-speed",
        "0",
        "--lint-repairs",
        "0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let replayed = volk_run(again.path(), &args, &[]).await;
    assert_eq!(replayed.code, 0, "stderr: {}", replayed.stderr);
    let out2: serde_json::Value = serde_json::from_str(&replayed.stdout).unwrap();
    for (section, text) in expected.iter() {
        assert_eq!(out2["payload"][section.key()], text, "{section:?} replayed");
    }
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn volk_run_without_a_key_names_the_variable_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let packet = dir.path().join("scope.json");
    std::fs::write(&packet, EXAMPLE_1).unwrap();
    let work = dir.path().join("work");
    let args: Vec<String> = [
        "--workspace",
        work.to_str().unwrap(),
        "--packet",
        packet.to_str().unwrap(),
        "--reasoner",
        "anthropic",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let ran = volk_run(dir.path(), &args, &[]).await;
    assert_eq!(ran.code, 2, "stderr: {}", ran.stderr);
    assert_eq!(
        ran.stderr.trim(),
        "volk: anthropic: no API key; set ANTHROPIC_API_KEY in the environment"
    );
    assert!(ran.stdout.is_empty());
    assert!(!work.exists());
}

#[tokio::test]
async fn volk_run_refuses_a_corrupt_cassette_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let packet = dir.path().join("scope.json");
    std::fs::write(&packet, EXAMPLE_1).unwrap();
    let cassette = dir.path().join("c.jsonl");
    std::fs::write(&cassette, "{\"volk_cassette\":1}\n{\"call\": 3}\n").unwrap();
    let args: Vec<String> = [
        "--workspace",
        dir.path().join("work").to_str().unwrap(),
        "--packet",
        packet.to_str().unwrap(),
        "--reasoner",
        &format!("replay:{}", cassette.display()),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let ran = volk_run(dir.path(), &args, &[]).await;
    assert_eq!(ran.code, 2, "stderr: {}", ran.stderr);
    assert!(
        ran.stderr
            .starts_with(&format!("volk: {}:2: ", cassette.display())),
        "{}",
        ran.stderr
    );
    assert_eq!(ran.stderr.trim().lines().count(), 1, "{}", ran.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn volk_run_with_a_refused_key_fails_without_showing_it() {
    let body = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}","type":"invalid_request_error","code":"invalid_api_key"}}}}"#
    );
    let server = Server::start(vec![status(401, &body, vec![])]).await;
    let dir = tempfile::tempdir().unwrap();
    let packet = dir.path().join("scope.json");
    std::fs::write(&packet, EXAMPLE_1).unwrap();
    let args: Vec<String> = [
        "--workspace",
        dir.path().join("work").to_str().unwrap(),
        "--packet",
        packet.to_str().unwrap(),
        "--reasoner",
        "openai",
        "--base-url",
        &format!("{}/v1", server.url),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let ran = volk_run(dir.path(), &args, &[("OPENAI_API_KEY", KEY)]).await;
    assert_ne!(ran.code, 0);
    assert!(ran.stderr.contains("OPENAI_API_KEY"), "{}", ran.stderr);
    assert_eq!(server.seen().len(), 1, "a 401 is not retried");
    for (path, bytes) in everything_written(dir.path()) {
        assert!(!contains(&bytes, KEY), "the key is in {path}");
    }
    assert!(!ran.stderr.contains(KEY) && !ran.stdout.contains(KEY));
}
