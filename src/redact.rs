//! Redaction of a key in every form volk can recognise. A server may echo the key it
//! received (literally, base64 of `Bearer KEY` from an `Authorization` header, or
//! percent-encoded from a query string), and a model may be coaxed into streaming it
//! back inside the design; everything volk writes goes through a [`Redactor`] first.
//!
//! Three layers use it: the reasoner stream is scrubbed as it arrives
//! ([`Redacting`], which holds back a short tail so that a key split across chunks is
//! still caught), error messages are scrubbed where they are built, and the process-wide
//! registry ([`register`], [`scrub_bytes`]) is applied by the file writers, the log and
//! `main`'s error line as a last line of defence.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::task::{Context, Poll};

use aho_corasick::{AhoCorasick, MatchKind};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use futures_util::Stream;

use crate::reasoner::{
    EventStream, Reasoner, ReasonerError, ReasonerRequest, SharedReasoner, StreamEvent,
};

/// What replaces every recognised form of a key.
pub const REDACTED: &str = "[redacted]";

/// Keys shorter than this are only matched literally: their encoded fragments would be
/// too short to tell apart from ordinary text.
const MIN_ENCODED_KEY: usize = 8;

/// Values shorter than this are not searched for at all. No provider issues such a key
/// (a placeholder like `OPENAI_API_KEY=x` for a local server is the usual case), and
/// scrubbing every `x` out of what volk writes corrupted its own JSON files.
const MIN_KEY: usize = 6;

/// Encoded fragments shorter than this are not searched for (see [`MIN_ENCODED_KEY`]).
const MIN_FRAGMENT: usize = 8;

/// Finds and replaces the forms of a set of keys.
#[derive(Debug, Clone)]
pub struct Redactor {
    matcher: Option<AhoCorasick>,
    /// Length in bytes of the longest form; a stream holds back one byte less.
    longest: usize,
}

impl Redactor {
    /// A redactor that finds nothing.
    pub fn none() -> Redactor {
        Redactor {
            matcher: None,
            longest: 0,
        }
    }

    /// A redactor for every form of every key in `keys` (blank keys, and values too short
    /// to be a key, are ignored: see [`MIN_KEY`]).
    pub fn for_keys<S: AsRef<str>>(keys: &[S]) -> Redactor {
        let mut needles: Vec<String> = keys
            .iter()
            .map(|k| k.as_ref().trim())
            .filter(|k| k.len() >= MIN_KEY)
            .flat_map(forms)
            .collect();
        needles.sort();
        needles.dedup();
        let longest = needles.iter().map(String::len).max().unwrap_or(0);
        let matcher = if needles.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&needles)
                .ok()
        };
        Redactor { matcher, longest }
    }

    pub fn is_empty(&self) -> bool {
        self.matcher.is_none()
    }

    /// `text` with every form replaced by [`REDACTED`]; borrowed when nothing matched.
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let Some(matcher) = &self.matcher else {
            return Cow::Borrowed(text);
        };
        if !matcher.is_match(text) {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        matcher.replace_all_with(text, &mut out, |_, _, dst| {
            dst.push_str(REDACTED);
            true
        });
        Cow::Owned(out)
    }

    /// [`Redactor::scrub`] over raw bytes (files volk writes).
    pub fn scrub_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let Some(matcher) = &self.matcher else {
            return Cow::Borrowed(bytes);
        };
        if !matcher.is_match(bytes) {
            return Cow::Borrowed(bytes);
        }
        let mut out = Vec::with_capacity(bytes.len());
        matcher.replace_all_with_bytes(bytes, &mut out, |_, _, dst| {
            dst.extend_from_slice(REDACTED.as_bytes());
            true
        });
        Cow::Owned(out)
    }
}

/// Every form of `key` that volk searches for.
pub fn forms(key: &str) -> Vec<String> {
    let mut out = vec![key.to_string()];
    if key.len() < MIN_ENCODED_KEY {
        return out;
    }
    let bytes = key.as_bytes();
    let bearer = format!("Bearer {key}");
    for engine in [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD] {
        out.push(engine.encode(bytes));
        out.push(engine.encode(bearer.as_bytes()));
    }
    // The key inside any longer base64 text (`user:KEY`, `Bearer KEY`, a JSON blob):
    // for each of the three alignments, the characters that depend on key bytes only.
    for offset in 0..3usize {
        let mut padded = vec![0u8; offset];
        padded.extend_from_slice(bytes);
        let start = (8 * offset).div_ceil(6);
        let end = (8 * (offset + bytes.len())) / 6;
        for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
            let encoded = engine.encode(&padded);
            if let Some(core) = encoded.get(start..end)
                && core.len() >= MIN_FRAGMENT
            {
                out.push(core.to_string());
            }
        }
    }
    // Percent-encoded: the usual form (only what must be escaped) and every byte, in
    // both cases of hex digit; then plain hex.
    const COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');
    for set in [COMPONENT, percent_encoding::NON_ALPHANUMERIC] {
        let encoded = percent_encoding::utf8_percent_encode(key, set).to_string();
        out.push(encoded.clone());
        out.push(lower_escapes(&encoded));
    }
    let every: String = bytes.iter().map(|b| format!("%{b:02X}")).collect();
    out.push(lower_escapes(&every));
    out.push(every);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    out.push(hex.to_uppercase());
    out.push(hex);
    // As a JSON string body (a key holding `/` or `"` is escaped there).
    if let Ok(json) = serde_json::to_string(key)
        && let Some(inner) = json.get(1..json.len().saturating_sub(1))
    {
        out.push(inner.to_string());
    }
    out
}

/// `%2D` → `%2d`: the same escapes with lower-case hex digits.
fn lower_escapes(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut hex_left = 0;
    for c in encoded.chars() {
        if c == '%' {
            hex_left = 2;
            out.push(c);
        } else if hex_left > 0 {
            hex_left -= 1;
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The keys of this process, for the writers that scrub everything as a last resort.
static ACTIVE: RwLock<Option<Arc<Redactor>>> = RwLock::new(None);
static KEYS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Adds `key` to the keys every writer of this process scrubs.
pub fn register(key: &str) {
    let Ok(mut keys) = KEYS.write() else {
        return;
    };
    if key.trim().is_empty() || keys.iter().any(|k| k == key) {
        return;
    }
    keys.push(key.to_string());
    let redactor = Arc::new(Redactor::for_keys(&keys));
    if let Ok(mut active) = ACTIVE.write() {
        *active = Some(redactor);
    }
}

/// The redactor of every registered key.
pub fn active() -> Option<Arc<Redactor>> {
    ACTIVE.read().ok().and_then(|a| a.clone())
}

/// `bytes` scrubbed of every registered key.
pub fn scrub_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    match active() {
        Some(r) => match r.scrub_bytes(bytes) {
            Cow::Borrowed(_) => Cow::Borrowed(bytes),
            Cow::Owned(v) => Cow::Owned(v),
        },
        None => Cow::Borrowed(bytes),
    }
}

/// `text` scrubbed of every registered key.
pub fn scrub_text(text: &str) -> Cow<'_, str> {
    match active() {
        Some(r) => match r.scrub(text) {
            Cow::Borrowed(_) => Cow::Borrowed(text),
            Cow::Owned(v) => Cow::Owned(v),
        },
        None => Cow::Borrowed(text),
    }
}

/// Scrubs a text that arrives in pieces: a key split across two pieces is still found,
/// because the last `longest - 1` bytes are held back until more text (or the end) comes.
#[derive(Debug)]
pub struct StreamScrubber {
    redactor: Arc<Redactor>,
    pending: String,
}

impl StreamScrubber {
    pub fn new(redactor: Arc<Redactor>) -> StreamScrubber {
        StreamScrubber {
            redactor,
            pending: String::new(),
        }
    }

    /// Takes the next piece; returns the scrubbed text that is now safe to pass on.
    pub fn push(&mut self, piece: &str) -> String {
        self.pending.push_str(piece);
        let Some(matcher) = &self.redactor.matcher else {
            return std::mem::take(&mut self.pending);
        };
        let hold = self.redactor.longest.saturating_sub(1);
        let mut cut = self.pending.len().saturating_sub(hold);
        while !self.pending.is_char_boundary(cut) {
            cut -= 1;
        }
        // Any form not yet complete starts at or after `cut`; a complete one that
        // starts before it is replaced whole, moving the cut to its end.
        let mut out = String::with_capacity(cut + REDACTED.len());
        let mut done = 0;
        for found in matcher.find_iter(self.pending.as_str()) {
            if found.start() >= cut {
                break;
            }
            out.push_str(&self.pending[done..found.start()]);
            out.push_str(REDACTED);
            done = found.end();
            cut = cut.max(found.end());
        }
        out.push_str(&self.pending[done..cut]);
        self.pending.drain(..cut);
        out
    }

    /// The held-back tail, scrubbed: call at the end of the text.
    pub fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.pending);
        self.redactor.scrub(&rest).into_owned()
    }
}

/// A reasoner whose answer, thinking and errors are scrubbed of the key before anything
/// else in volk (the design loop, the cassette recorder, the screen) sees them.
pub struct Redacting {
    inner: SharedReasoner,
    redactor: Arc<Redactor>,
}

impl Redacting {
    pub fn wrap(inner: SharedReasoner, redactor: Arc<Redactor>) -> SharedReasoner {
        if redactor.is_empty() {
            return inner;
        }
        Arc::new(Redacting { inner, redactor })
    }
}

impl Reasoner for Redacting {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn label(&self) -> String {
        self.inner.label()
    }

    fn base_url(&self) -> Option<&str> {
        self.inner.base_url()
    }

    fn stream(&self, request: ReasonerRequest) -> EventStream {
        Box::pin(RedactedStream {
            inner: Some(self.inner.stream(request)),
            text: StreamScrubber::new(self.redactor.clone()),
            thinking: StreamScrubber::new(self.redactor.clone()),
            redactor: self.redactor.clone(),
            ready: VecDeque::new(),
        })
    }
}

struct RedactedStream {
    /// `None` once the inner stream ended.
    inner: Option<EventStream>,
    text: StreamScrubber,
    thinking: StreamScrubber,
    redactor: Arc<Redactor>,
    ready: VecDeque<Result<StreamEvent, ReasonerError>>,
}

impl RedactedStream {
    /// Queues whatever text is still held back.
    fn flush(&mut self) {
        let text = self.text.finish();
        if !text.is_empty() {
            self.ready.push_back(Ok(StreamEvent::Text { text }));
        }
        let text = self.thinking.finish();
        if !text.is_empty() {
            self.ready.push_back(Ok(StreamEvent::Thinking { text }));
        }
    }

    fn take(&mut self, item: Result<StreamEvent, ReasonerError>) {
        match item {
            Ok(StreamEvent::Text { text }) => {
                let text = self.text.push(&text);
                if !text.is_empty() {
                    self.ready.push_back(Ok(StreamEvent::Text { text }));
                }
            }
            Ok(StreamEvent::Thinking { text }) => {
                let text = self.thinking.push(&text);
                if !text.is_empty() {
                    self.ready.push_back(Ok(StreamEvent::Thinking { text }));
                }
            }
            Ok(event @ StreamEvent::Usage { .. }) => self.ready.push_back(Ok(event)),
            Ok(StreamEvent::Retrying(mut backoff)) => {
                backoff.reason = self.redactor.scrub(&backoff.reason).into_owned();
                self.ready.push_back(Ok(StreamEvent::Retrying(backoff)));
            }
            Ok(event @ StreamEvent::Finished { .. }) => {
                self.flush();
                self.ready.push_back(Ok(event));
            }
            Err(error) => {
                self.flush();
                let redactor = self.redactor.clone();
                self.ready
                    .push_back(Err(error.map_messages(&|m| redactor.scrub(m).into_owned())));
            }
        }
    }
}

impl Stream for RedactedStream {
    type Item = Result<StreamEvent, ReasonerError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Poll::Ready(Some(item));
            }
            let Some(inner) = self.inner.as_mut() else {
                return Poll::Ready(None);
            };
            match inner.as_mut().poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(item)) => self.take(item),
                Poll::Ready(None) => {
                    self.inner = None;
                    self.flush();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placeholder_too_short_to_be_a_key_is_not_scrubbed_from_json() {
        let redactor = Redactor::for_keys(&["x"]);
        assert!(redactor.is_empty());
        let json = r#"{"thread":"x1","cycle":1}"#;
        assert_eq!(redactor.scrub(json), json);
        assert!(!Redactor::for_keys(&["sk-abcdef"]).is_empty());
    }

    const KEY: &str = "sk-test-9fK2mQ7xLp4Vz8Rt";

    fn redactor() -> Arc<Redactor> {
        Arc::new(Redactor::for_keys(&[KEY]))
    }

    fn assert_clean(text: &str) {
        for form in forms(KEY) {
            assert!(!text.contains(&form), "{form:?} left in {text:?}");
        }
        assert!(!text.contains("9fK2mQ7xLp4Vz8Rt"), "{text}");
    }

    #[test]
    fn every_form_is_replaced() {
        let r = redactor();
        let b64 = STANDARD.encode(KEY);
        let bearer = STANDARD.encode(format!("Bearer {KEY}"));
        let basic = STANDARD.encode(format!("user:{KEY}"));
        let pct: String = KEY.bytes().map(|b| format!("%{b:02x}")).collect();
        let text = format!("a {KEY} b {b64} c {bearer} d {basic} e {pct} f");
        let out = r.scrub(&text);
        assert_clean(&out);
        assert!(!out.contains(&basic), "{out}");
        assert!(out.starts_with("a [redacted] b "), "{out}");
    }

    #[test]
    fn other_text_is_borrowed() {
        let r = redactor();
        assert!(matches!(r.scrub("no secret here"), Cow::Borrowed(_)));
        assert!(matches!(r.scrub_bytes(b"no secret here"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_key_split_across_pieces_is_caught_at_every_split() {
        let text = format!("before {KEY} middle {} after", STANDARD.encode(KEY));
        for split in 1..text.len() {
            let mut s = StreamScrubber::new(redactor());
            let mut out = s.push(&text[..split]);
            out.push_str(&s.push(&text[split..]));
            out.push_str(&s.finish());
            assert_clean(&out);
            assert_eq!(out, "before [redacted] middle [redacted] after");
        }
    }

    #[test]
    fn one_byte_pieces_keep_multibyte_text_whole() {
        let text = format!("é→{KEY}ü");
        let mut s = StreamScrubber::new(redactor());
        let mut out = String::new();
        for c in text.chars() {
            out.push_str(&s.push(&c.to_string()));
        }
        out.push_str(&s.finish());
        assert_eq!(out, "é→[redacted]ü");
    }

    #[test]
    fn short_keys_only_match_literally() {
        assert_eq!(forms("abc"), vec!["abc".to_string()]);
        assert!(Redactor::for_keys(&[" "]).is_empty());
    }
}
