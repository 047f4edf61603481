//! A scripted OpenAI-compatible provider on 127.0.0.1 for integration tests: request
//! `i` is answered with reply `i` streamed as chat chunks, and every prompt is kept.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// Answers request `i` with `replies[i]` as a stream of chat chunks; keeps each prompt.
pub struct Server {
    pub url: String,
    prompts: Arc<Mutex<Vec<String>>>,
}

impl Server {
    pub fn start(replies: Vec<String>) -> Server {
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
                let Some(text) = replies.next() else {
                    let _ = out.write_all(
                        b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 2\r\nconnection: close\r\n\r\nno",
                    );
                    continue;
                };
                let mut sse = String::new();
                for piece in text.split_inclusive('\n') {
                    let chunk = json!({"choices":[{"index":0,"delta":{"content":piece},"finish_reason":null}]});
                    sse.push_str(&format!("data: {chunk}\n\n"));
                }
                let done = json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]});
                sse.push_str(&format!("data: {done}\n\ndata: [DONE]\n\n"));
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    sse.len()
                );
                let _ = out.write_all(head.as_bytes());
                let _ = out.write_all(sse.as_bytes());
                let _ = out.flush();
            }
        });
        Server { url, prompts }
    }

    pub fn prompts(&self) -> Vec<String> {
        self.prompts.lock().unwrap().clone()
    }
}
