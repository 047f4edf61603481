//! SSE decoding plus section parsing of a 1 MB response delivered as 20,000
//! OpenAI-style events: the path every streamed token takes before it reaches a tab
//! (the network reads are given; each is pushed into the framer, every event it
//! completes is decoded and its text fed to the section parser, as `http` does).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use volk::design::parser::SectionParser;
use volk::reasoner::StreamEvent;
use volk::reasoner::http::Decoder;
use volk::reasoner::openai::ChatDecoder;
use volk::reasoner::sse::Framer;

const EVENTS: usize = 20_000;
const RESPONSE_BYTES: usize = 1 << 20;

/// A design response of just over 1 MiB: five sections of realistic lines.
fn response() -> String {
    let mut text = String::with_capacity(RESPONSE_BYTES + 1024);
    let sections = [
        "ARCHITECTURE:",
        "REQUIREMENTS:",
        "FILE_TREE:",
        "API_SPEC:",
        "CLASS_DIAGRAM:",
    ];
    let mut i = 0;
    while text.len() < RESPONSE_BYTES {
        if i % 2000 == 0 {
            text.push_str(sections[(i / 2000) % 5]);
            text.push('\n');
        }
        text.push_str(&format!(
            "- FR-{i:04}: the task store keeps \"item {i}\" with its due date → ✓\n"
        ));
        i += 1;
    }
    text
}

/// How a server wraps each piece of text.
#[derive(Clone, Copy)]
enum Shape {
    /// The fields every OpenAI-compatible server sends (vLLM, llama.cpp, DeepSeek).
    Lean,
    /// What api.openai.com sends: more metadata, `"usage":null` in every chunk, and an
    /// `obfuscation` string of random length, so no two chunks have the same layout
    /// of bytes.
    OpenAi,
}

/// The response cut into `EVENTS` pieces (on character boundaries), each wrapped in
/// a `chat.completion.chunk` event; then the usage chunk and `[DONE]`.
fn events(text: &str, shape: Shape) -> Vec<Vec<u8>> {
    let per = text.len() / EVENTS;
    let mut out = Vec::with_capacity(EVENTS + 2);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + per.max(1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let piece = &text[start..end];
        let chunk = match shape {
            Shape::Lean => serde_json::json!({
                "id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m",
                "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]
            }),
            Shape::OpenAi => serde_json::json!({
                "id": "chatcmpl-CXk2Rz0aQe5tV9hYbL3mN7pW1sJdF", "object": "chat.completion.chunk",
                "created": 1_764_489_600, "model": "gpt-4.1-2025-04-14", "service_tier": "default",
                "system_fingerprint": "fp_3f58d112f7",
                "choices": [{"index": 0, "delta": {"content": piece}, "logprobs": null, "finish_reason": null}],
                "usage": null, "obfuscation": &"Zq8xY2kLw0pR4vT7"[..1 + out.len() % 16]
            }),
        };
        out.push(format!("data: {chunk}\n\n").into_bytes());
        start = end;
    }
    out.push(b"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n".to_vec());
    out
}

/// The same pieces as plain-text events (`data:` lines, no JSON), to measure the SSE
/// framing apart from the provider's JSON.
fn text_events(text: &str) -> Vec<Vec<u8>> {
    let per = text.len() / EVENTS;
    let mut out = Vec::with_capacity(EVENTS);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + per.max(1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let mut event = String::new();
        for line in text[start..end].split('\n') {
            event.push_str("data: ");
            event.push_str(line);
            event.push('\n');
        }
        event.push('\n');
        out.push(event.into_bytes());
        start = end;
    }
    out
}

/// Frames the reads and hands each event's data to `each`; the bytes of data seen.
fn frame(chunks: &[Vec<u8>], mut each: impl FnMut(&str)) -> usize {
    let mut framer = Framer::new();
    let mut total = 0;
    for chunk in chunks {
        framer.push(chunk);
        while let Ok(Some(event)) = framer.next_event() {
            total += event.data.len();
            each(&event.data);
        }
    }
    total
}

fn frame_and_parse(chunks: &[Vec<u8>]) -> usize {
    let mut parser = SectionParser::new();
    let total = frame(chunks, |data| {
        parser.feed(data);
    });
    black_box(parser.finish());
    total
}

fn frame_only(chunks: &[Vec<u8>]) -> usize {
    frame(chunks, |_| {})
}

/// Regroups the events into network reads of `size` bytes.
fn reads(events: &[Vec<u8>], size: usize) -> Vec<Vec<u8>> {
    events.concat().chunks(size).map(<[u8]>::to_vec).collect()
}

fn decode_and_parse(chunks: &[Vec<u8>]) -> usize {
    let mut framer = Framer::new();
    let mut decoder = ChatDecoder::default();
    let mut parser = SectionParser::new();
    let mut out = Vec::new();
    let mut total = 0;
    for chunk in chunks {
        framer.push(chunk);
        while let Ok(Some(event)) = framer.next_event() {
            out.clear();
            if decoder.event(&event, &mut out).is_err() {
                return total;
            }
            for item in out.drain(..) {
                if let StreamEvent::Text { text } = item {
                    total += text.len();
                    parser.feed(&text);
                }
            }
        }
    }
    black_box(parser.finish());
    total
}

fn benches(c: &mut Criterion) {
    let text = response();
    let per_event = events(&text, Shape::Lean);
    let openai = events(&text, Shape::OpenAi);
    assert_eq!(decode_and_parse(&openai), text.len());
    assert_eq!(decode_and_parse(&per_event), text.len());
    let mut group = c.benchmark_group("reasoner_sse");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(20);
    group.bench_function("openai_1MB_20k_events_one_read_each", |b| {
        b.iter(|| decode_and_parse(black_box(&per_event)))
    });
    group.bench_function("openai_1MB_20k_events_api_openai_com_shape", |b| {
        b.iter(|| decode_and_parse(black_box(&openai)))
    });
    group.bench_function(
        "openai_1MB_20k_events_api_openai_com_shape_framing_only",
        |b| b.iter(|| frame_only(black_box(&openai))),
    );
    // The same wire bytes framed but not decoded: what the JSON chunks cost on top.
    group.bench_function("openai_1MB_20k_events_framing_only", |b| {
        b.iter(|| frame_only(black_box(&per_event)))
    });
    let big_reads = reads(&per_event, 16 * 1024);
    assert_eq!(decode_and_parse(&big_reads), text.len());
    group.bench_function("openai_1MB_20k_events_16KiB_reads", |b| {
        b.iter(|| decode_and_parse(black_box(&big_reads)))
    });
    let plain = text_events(&text);
    assert_eq!(frame_and_parse(&plain), text.len());
    group.bench_function("plain_text_1MB_20k_events_framing_only", |b| {
        b.iter(|| frame_and_parse(black_box(&plain)))
    });
    group.bench_function("section_parse_only_20k_pieces", |b| {
        let pieces: Vec<&str> = {
            let per = text.len() / EVENTS;
            let mut v = Vec::new();
            let mut start = 0;
            while start < text.len() {
                let mut end = (start + per).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                v.push(&text[start..end]);
                start = end;
            }
            v
        };
        b.iter(|| {
            let mut parser = SectionParser::new();
            for p in &pieces {
                parser.feed(p);
            }
            black_box(parser.finish())
        })
    });
    group.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
