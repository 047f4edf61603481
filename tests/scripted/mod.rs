//! A scripted OpenAI-compatible provider on 127.0.0.1 for integration tests: request
//! `i` is answered with reply `i` (an answer streamed as chat chunks, a refusal such
//! as a 429, or paced thinking before the answer), and every prompt is kept.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// What the server answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// The answer, one chat chunk per line, all at once.
    Answer(String),
    /// An error status with `retry-after: <retry_after> seconds`.
    Refuse { status: u16, retry_after: u64 },
    /// `reasoning_content` chunks `pause_ms` apart (the first after a pause too), then
    /// the answer.
    Think {
        thoughts: Vec<String>,
        pause_ms: u64,
        answer: String,
    },
}

/// Answers request `i` with `replies[i]`; keeps each prompt.
pub struct Server {
    pub url: String,
    prompts: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// Each reply is an answer streamed at once.
    pub fn start(replies: Vec<String>) -> Server {
        Server::script(replies.into_iter().map(Reply::Answer).collect())
    }

    pub fn script(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let prompts = Arc::new(Mutex::new(Vec::new()));
        let seen = prompts.clone();
        std::thread::spawn(move || {
            let mut replies = replies.into_iter();
            for socket in listener.incoming() {
                let Ok(socket) = socket else { return };
                let mut reader = BufReader::new(socket.try_clone().unwrap());
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    let lower = line.to_ascii_lowercase();
                    if let Some(v) = lower.strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap();
                    }
                }
                let mut body = vec![0u8; length];
                reader.read_exact(&mut body).unwrap();
                let body: Value = serde_json::from_slice(&body).unwrap();
                let prompt = body["messages"].as_array().unwrap().last().unwrap()["content"]
                    .as_str()
                    .unwrap()
                    .to_string();
                seen.lock().unwrap().push(prompt);
                let mut out = socket;
                let (thoughts, pause, text) = match replies.next() {
                    None => {
                        let _ = out.write_all(
                            b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 2\r\nconnection: close\r\n\r\nno",
                        );
                        continue;
                    }
                    Some(Reply::Refuse {
                        status,
                        retry_after,
                    }) => {
                        let body = r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#;
                        let _ = out.write_all(
                            format!(
                                "HTTP/1.1 {status} Refused\r\ncontent-type: application/json\r\nretry-after: {retry_after}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                                body.len()
                            )
                            .as_bytes(),
                        );
                        continue;
                    }
                    Some(Reply::Answer(text)) => (Vec::new(), 0, text),
                    Some(Reply::Think {
                        thoughts,
                        pause_ms,
                        answer,
                    }) => (thoughts, pause_ms, answer),
                };
                // Each thought is its own event, written after its pause.
                let mut events: Vec<String> = thoughts
                    .iter()
                    .map(|t| {
                        let chunk = json!({"choices":[{"index":0,"delta":{"reasoning_content":t},"finish_reason":null}]});
                        format!("data: {chunk}\n\n")
                    })
                    .collect();
                let paced = events.len();
                let mut sse = String::new();
                for piece in text.split_inclusive('\n') {
                    let chunk = json!({"choices":[{"index":0,"delta":{"content":piece},"finish_reason":null}]});
                    sse.push_str(&format!("data: {chunk}\n\n"));
                }
                let done = json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]});
                sse.push_str(&format!("data: {done}\n\ndata: [DONE]\n\n"));
                events.push(sse);
                let length: usize = events.iter().map(String::len).sum();
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {length}\r\nconnection: close\r\n\r\n"
                );
                let _ = out.write_all(head.as_bytes());
                let _ = out.flush();
                for (i, event) in events.iter().enumerate() {
                    if i < paced {
                        std::thread::sleep(std::time::Duration::from_millis(pause));
                    }
                    if out.write_all(event.as_bytes()).is_err() || out.flush().is_err() {
                        break;
                    }
                }
            }
        });
        Server { url, prompts }
    }

    pub fn prompts(&self) -> Vec<String> {
        self.prompts.lock().unwrap().clone()
    }
}
