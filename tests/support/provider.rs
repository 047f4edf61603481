//! A model provider on 127.0.0.1 for the integration tests: every request is read
//! whole (head and body), kept, and answered by a replier the test gives, so a test
//! can script each answer, a failure, or an echo of what it was sent. The helpers
//! below build OpenAI chat-completions streams, the shape volk's `openai` reasoner
//! reads.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request line and headers, then the body, as text.
    pub raw: String,
    /// The body parsed as JSON (`Null` when it is not JSON).
    pub body: Value,
}

impl Request {
    /// The user messages of a chat request, concatenated: the prompt.
    pub fn prompt(&self) -> String {
        self.body["messages"]
            .as_array()
            .map(|messages| {
                messages
                    .iter()
                    .filter(|m| m["role"] == "user")
                    .filter_map(|m| m["content"].as_str())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Answers request number `n` (from 0): the whole HTTP response, head and body.
pub type Replier = Arc<dyn Fn(usize, &Request) -> Vec<u8> + Send + Sync>;

/// A piece of a response that takes its time: bytes, or a pause before the next.
#[derive(Debug, Clone)]
pub enum Piece {
    Bytes(Vec<u8>),
    Pause(Duration),
}

/// Answers request number `n` with pieces written in order, pauses honoured (a model
/// that thinks for seconds before it writes).
pub type PacedReplier = Arc<dyn Fn(usize, &Request) -> Vec<Piece> + Send + Sync>;

pub struct Provider {
    /// `http://127.0.0.1:PORT`; OpenAI clients add `/v1` (see [`Provider::v1`]).
    pub url: String,
    hits: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Provider {
    /// A server that answers every request with `reply`, each on its own thread.
    pub fn start(reply: Replier) -> Provider {
        Provider::paced(Arc::new(move |n, request| {
            vec![Piece::Bytes(reply(n, request))]
        }))
    }

    /// A server whose answers may pause between their pieces.
    pub fn paced(reply: PacedReplier) -> Provider {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let hits = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (h, r) = (hits.clone(), requests.clone());
        std::thread::spawn(move || {
            for socket in listener.incoming() {
                let Ok(socket) = socket else { return };
                let n = h.fetch_add(1, Ordering::SeqCst);
                let (r, reply) = (r.clone(), reply.clone());
                std::thread::spawn(move || serve(socket, n, &reply, &r));
            }
        });
        Provider {
            url,
            hits,
            requests,
        }
    }

    /// Streams `answers[n]` for request `n`, and a 400 once they are used up.
    pub fn scripted(answers: Vec<String>) -> Provider {
        Provider::start(Arc::new(move |n, _| match answers.get(n) {
            Some(answer) => openai_stream(answer, 37),
            None => status(400, r#"{"error":{"message":"no scripted answer left"}}"#),
        }))
    }

    /// Streams `answer` to every request.
    pub fn repeating(answer: &str) -> Provider {
        let answer = answer.to_string();
        Provider::start(Arc::new(move |_, _| openai_stream(&answer, 7)))
    }

    /// The base URL an OpenAI-compatible client is given.
    pub fn v1(&self) -> String {
        format!("{}/v1", self.url)
    }

    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// The prompt of every request, in order.
    pub fn prompts(&self) -> Vec<String> {
        self.requests().iter().map(Request::prompt).collect()
    }
}

fn serve(mut socket: TcpStream, n: usize, reply: &PacedReplier, requests: &Mutex<Vec<Request>>) {
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        let Ok(read) = socket.read(&mut tmp) else {
            return;
        };
        if read == 0 {
            return;
        }
        buf.extend_from_slice(&tmp[..read]);
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let length: usize = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        match socket.read(&mut tmp) {
            Ok(0) | Err(_) => break,
            Ok(read) => buf.extend_from_slice(&tmp[..read]),
        }
    }
    let request = Request {
        raw: String::from_utf8_lossy(&buf).to_string(),
        body: serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null),
    };
    requests.lock().unwrap().push(request.clone());
    for piece in reply(n, &request) {
        let bytes = match piece {
            Piece::Pause(pause) => {
                std::thread::sleep(pause);
                continue;
            }
            Piece::Bytes(bytes) => bytes,
        };
        // Small writes, so that the client sees the body in many pieces.
        for piece in bytes.chunks(7) {
            if socket.write_all(piece).is_err() {
                return;
            }
            let _ = socket.flush();
        }
    }
}

/// One OpenAI stream event carrying `content`.
pub fn sse_chunk(content: &str) -> String {
    let chunk = json!({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":content},"finish_reason":null}]});
    format!("data: {chunk}\n\n")
}

/// The end of an OpenAI stream: the finish reason, then `[DONE]`.
pub fn sse_end() -> String {
    let end = json!({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]});
    format!("data: {end}\n\ndata: [DONE]\n\n")
}

/// One OpenAI stream event carrying `reasoning` as thinking (`reasoning_content`).
pub fn sse_thinking(reasoning: &str) -> String {
    let chunk = json!({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":reasoning},"finish_reason":null}]});
    format!("data: {chunk}\n\n")
}

/// The head of a 200 event stream whose body is written later, in pieces; the
/// connection's close ends it.
pub fn stream_head() -> Vec<u8> {
    b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: text/event-stream\r\n\r\n".to_vec()
}

/// A 200 response streaming `answer` in events of `piece` characters.
pub fn openai_stream(answer: &str, piece: usize) -> Vec<u8> {
    let chars: Vec<char> = answer.chars().collect();
    let mut events: String = chars
        .chunks(piece.max(1))
        .map(|p| sse_chunk(&p.iter().collect::<String>()))
        .collect();
    events.push_str(&sse_end());
    response("200 OK", "text/event-stream", &[], &events)
}

/// A 200 response streaming `answer`, then the provider's usage as OpenAI reports
/// it (`prompt_tokens_details.cached_tokens` for input read from its cache).
pub fn openai_stream_with_usage(
    answer: &str,
    prompt: u64,
    completion: u64,
    cached: u64,
) -> Vec<u8> {
    let mut events: String = sse_chunk(answer);
    let usage = json!({"id":"c","object":"chat.completion.chunk","choices":[],
        "usage":{"prompt_tokens":prompt,"completion_tokens":completion,
            "prompt_tokens_details":{"cached_tokens":cached}}});
    events.push_str(&format!("data: {usage}\n\n"));
    events.push_str(&sse_end());
    response("200 OK", "text/event-stream", &[], &events)
}

/// An error status with a JSON body.
pub fn status(code: u16, body: &str) -> Vec<u8> {
    let reason = match code {
        400 => "Bad Request",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Error",
    };
    response(&format!("{code} {reason}"), "application/json", &[], body)
}

/// A whole HTTP/1.1 response that closes the connection.
pub fn response(status: &str, content_type: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut head = format!(
        "HTTP/1.1 {status}\r\nconnection: close\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}
