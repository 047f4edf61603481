//! Server-sent events, framed at the byte level by the WHATWG "event stream
//! interpretation" rules.
//!
//! A provider streams its answer as thousands of small events, so framing is on the
//! path of every token. The framer therefore works on raw bytes: it finds line ends
//! with `memchr`, keeps one growing buffer for what has arrived but is not yet a whole
//! line, and reuses its field buffers from event to event, so a line costs no
//! allocation. Events are lent out (borrowing those buffers) rather than built, and
//! the usual event, a single `data:` line, is lent straight from the read buffer
//! without being copied at all.
//!
//! Bytes are decoded as UTF-8 (invalid sequences become U+FFFD) one field value at a
//! time. Line ends and field names are ASCII and never part of a multi-byte sequence,
//! so this gives the same text as decoding the whole stream first, and a character
//! split across two network reads is simply joined in the buffer.

use std::borrow::Cow;
use std::ops::Range;
use std::time::Duration;

use memchr::{memchr, memchr2};

/// The longest line, and the largest event, accepted. An answer arrives as many small
/// events, so anything near this is a broken or hostile server, and refusing it keeps
/// memory bounded.
pub const MAX_EVENT_BYTES: usize = 16 << 20;

/// Why the stream cannot be framed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("an event stream line or event is larger than {limit} bytes")]
    TooLarge { limit: usize },
}

/// One dispatched event. It borrows the framer until the next call to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event<'a> {
    /// The `event:` field, or `message` when the event named none.
    pub kind: Cow<'a, str>,
    /// The `data:` lines joined with `\n`.
    pub data: Cow<'a, str>,
    /// The last `id:` seen on the stream so far (it carries over between events).
    pub id: Cow<'a, str>,
}

impl<'a> Event<'a> {
    /// An event as a decoder sees it; for decoders' own tests.
    pub fn new(kind: &'a str, data: &'a str) -> Event<'a> {
        Event {
            kind: Cow::Borrowed(kind),
            data: Cow::Borrowed(data),
            id: Cow::Borrowed(""),
        }
    }
}

/// Where the next unread byte stands relative to line structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Position {
    /// Nothing read yet: a byte order mark may come first and is dropped.
    #[default]
    StreamStart,
    /// Just after a `\r`: a `\n` here belongs to that line end.
    AfterCr,
    /// Anywhere else.
    Line,
}

/// The fields of the event being built, plus the stream-wide state.
#[derive(Debug, Default)]
struct Fields {
    /// Every `data:` value so far, each followed by `\n`.
    data: Vec<u8>,
    kind: Vec<u8>,
    /// The last event ID buffer: not reset between events.
    id: Vec<u8>,
    retry: Option<Duration>,
}

impl Fields {
    /// Applies one non-blank line.
    fn apply(&mut self, line: &[u8]) -> Result<(), FrameError> {
        let Some((name, value)) = field(line) else {
            return Ok(());
        };
        match name {
            b"data" => {
                if self.data.len() + value.len() >= MAX_EVENT_BYTES {
                    return Err(FrameError::TooLarge {
                        limit: MAX_EVENT_BYTES,
                    });
                }
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"event" => {
                self.kind.clear();
                self.kind.extend_from_slice(value);
            }
            // An ID with a NUL could not be sent back in `Last-Event-ID`.
            b"id" if memchr(0, value).is_none() => {
                self.id.clear();
                self.id.extend_from_slice(value);
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Only digits, so the one failure is a number too large to matter.
                if let Some(ms) = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse::<u64>().ok())
                {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// A non-blank line's field name and value (one space after the colon dropped), or
/// `None` for a comment such as `: keep-alive`.
fn field(line: &[u8]) -> Option<(&[u8], &[u8])> {
    match memchr(b':', line) {
        Some(0) => None,
        Some(colon) => {
            let value = &line[colon + 1..];
            Some((&line[..colon], value.strip_prefix(b" ").unwrap_or(value)))
        }
        None => Some((line, &[][..])),
    }
}

/// Splits a byte stream into events. Feed it with [`Framer::push`], then call
/// [`Framer::next_event`] until it returns `None`; bytes may be cut anywhere.
///
/// At the end of the stream whatever follows the last blank line is an incomplete
/// event and is dropped, as the standard says.
#[derive(Debug, Default)]
pub struct Framer {
    /// Received bytes; those before `start` are already read.
    buf: Vec<u8>,
    start: usize,
    /// How many bytes after `start` are known to hold no line end, so a long line
    /// arriving in many pieces is searched once, not once per piece.
    searched: usize,
    position: Position,
    fields: Fields,
    /// Where in `buf` the value of the event's only `data:` line so far lies. It is
    /// copied into `fields.data` only if a second one comes.
    lone_data: Option<Range<usize>>,
    /// The last event returned borrowed `fields`; they are reset on the next call.
    lent: bool,
}

impl Framer {
    pub fn new() -> Framer {
        Framer::default()
    }

    /// Appends bytes as they arrived from the network.
    pub fn push(&mut self, chunk: &[u8]) {
        self.release();
        // Keep only the unread tail (at most a part of one line in normal use) and
        // the pending lone data line.
        let keep = self
            .lone_data
            .as_ref()
            .map_or(self.start, |data| data.start.min(self.start));
        if keep > 0 {
            self.buf.drain(..keep);
            self.start -= keep;
            if let Some(data) = &mut self.lone_data {
                *data = data.start - keep..data.end - keep;
            }
        }
        self.buf.extend_from_slice(chunk);
    }

    /// Ends the loan of the last event returned: its fields are cleared for the next.
    fn release(&mut self) {
        if self.lent {
            self.fields.data.clear();
            self.fields.kind.clear();
            self.lone_data = None;
            self.lent = false;
        }
    }

    /// Moves a pending lone data line into `fields.data`, before a second one joins it.
    fn keep_lone_data(&mut self) {
        if let Some(data) = self.lone_data.take() {
            self.fields.data.extend_from_slice(&self.buf[data]);
            self.fields.data.push(b'\n');
        }
    }

    /// The reconnection time the server asked for with `retry:`, if any.
    pub fn retry(&self) -> Option<Duration> {
        self.fields.retry
    }

    /// The next complete event among the bytes pushed so far.
    pub fn next_event(&mut self) -> Result<Option<Event<'_>>, FrameError> {
        self.release();
        loop {
            let rest = &self.buf[self.start..];
            if self.position == Position::AfterCr {
                match rest.first() {
                    None => return Ok(None),
                    Some(b'\n') => self.start += 1,
                    Some(_) => {}
                }
                self.position = Position::Line;
                continue;
            }
            let Some(found) = memchr2(b'\n', b'\r', &rest[self.searched..]) else {
                self.searched = rest.len();
                if rest.len() > MAX_EVENT_BYTES {
                    return Err(FrameError::TooLarge {
                        limit: MAX_EVENT_BYTES,
                    });
                }
                return Ok(None);
            };
            let end = self.searched + found;
            let mut line = self.start..self.start + end;
            if self.position == Position::StreamStart && rest.starts_with("\u{feff}".as_bytes()) {
                line.start = (line.start + 3).min(line.end);
            }
            self.position = if rest[end] == b'\r' {
                Position::AfterCr
            } else {
                Position::Line
            };
            self.start += end + 1;
            self.searched = 0;
            if !line.is_empty() {
                match field(&self.buf[line.clone()]) {
                    Some((b"data", value))
                        if self.lone_data.is_none()
                            && self.fields.data.is_empty()
                            && value.len() < MAX_EVENT_BYTES =>
                    {
                        self.lone_data = Some(line.end - value.len()..line.end);
                    }
                    _ => {
                        self.keep_lone_data();
                        self.fields.apply(&self.buf[line])?;
                    }
                }
                continue;
            }
            // A blank line dispatches the event, unless it has no data at all.
            let data = match &self.lone_data {
                Some(data) => &self.buf[data.clone()],
                None if self.fields.data.is_empty() => {
                    self.fields.kind.clear();
                    continue;
                }
                None => &self.fields.data[..self.fields.data.len() - 1],
            };
            self.lent = true;
            let fields = &self.fields;
            let kind = if fields.kind.is_empty() {
                Cow::Borrowed("message")
            } else {
                text(&fields.kind)
            };
            return Ok(Some(Event {
                kind,
                data: text(data),
                id: text(&fields.id),
            }));
        }
    }
}

/// The bytes as text, invalid sequences replaced. Checking first is several times
/// faster than `from_utf8_lossy` on the valid text that nearly every event holds, and
/// `simdutf8` checks 32 bytes at a time where the standard library, once it meets a
/// non-ASCII character, goes byte by byte.
fn text(bytes: &[u8]) -> Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(valid) => Cow::Borrowed(valid),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An event with its fields owned, to compare across framers.
    type Owned = (String, String, String);

    fn drain(framer: &mut Framer, into: &mut Vec<Owned>) {
        while let Some(e) = framer.next_event().unwrap() {
            into.push((e.kind.into_owned(), e.data.into_owned(), e.id.into_owned()));
        }
    }

    fn frame_pieces(pieces: &[&[u8]]) -> Vec<Owned> {
        let mut framer = Framer::new();
        let mut out = Vec::new();
        for piece in pieces {
            framer.push(piece);
            drain(&mut framer, &mut out);
        }
        out
    }

    fn frame(stream: &[u8]) -> Vec<Owned> {
        frame_pieces(&[stream])
    }

    fn ev(kind: &str, data: &str, id: &str) -> Owned {
        (kind.into(), data.into(), id.into())
    }

    #[test]
    fn data_lines_join_with_newlines() {
        assert_eq!(
            frame(b"data: one\ndata:two\ndata\ndata:  three\n\n"),
            vec![ev("message", "one\ntwo\n\n three", "")]
        );
    }

    #[test]
    fn only_one_space_after_the_colon_is_dropped() {
        assert_eq!(
            frame(b"data:  x \n\ndata:\tx\n\n"),
            vec![ev("message", " x ", ""), ev("message", "\tx", "")]
        );
    }

    #[test]
    fn every_line_end_style_and_mixtures() {
        let expected = vec![ev("message", "a\nb", ""), ev("message", "c", "")];
        assert_eq!(frame(b"data: a\ndata: b\n\ndata: c\n\n"), expected);
        assert_eq!(
            frame(b"data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n"),
            expected
        );
        assert_eq!(frame(b"data: a\rdata: b\r\rdata: c\r\r"), expected);
        assert_eq!(frame(b"data: a\r\ndata: b\r\rdata: c\n\r\n"), expected);
    }

    #[test]
    fn a_cr_lf_split_between_reads_is_one_line_end() {
        let pieces: [&[u8]; 4] = [b"data: a\r", b"\n", b"\r", b"\ndata: b\r\n\r\n"];
        assert_eq!(
            frame_pieces(&pieces),
            vec![ev("message", "a", ""), ev("message", "b", "")]
        );
    }

    #[test]
    fn an_event_is_dispatched_as_soon_as_its_blank_line_arrives() {
        let mut framer = Framer::new();
        let mut out = Vec::new();
        framer.push(b"data: a\r");
        drain(&mut framer, &mut out);
        assert!(out.is_empty());
        // A bare `\r` ends the blank line: no need to wait for a possible `\n`.
        framer.push(b"\r");
        drain(&mut framer, &mut out);
        assert_eq!(out, vec![ev("message", "a", "")]);
    }

    #[test]
    fn event_names_apply_to_one_event_only() {
        assert_eq!(
            frame(b"event: ping\ndata: {}\n\ndata: x\n\nevent:\ndata: y\n\n"),
            vec![
                ev("ping", "{}", ""),
                ev("message", "x", ""),
                ev("message", "y", "")
            ]
        );
    }

    #[test]
    fn ids_carry_over_and_ids_with_nul_are_ignored() {
        assert_eq!(
            frame(b"id: 7\ndata: a\n\ndata: b\n\nid: 8\0\ndata: c\n\nid\ndata: d\n\n"),
            vec![
                ev("message", "a", "7"),
                ev("message", "b", "7"),
                ev("message", "c", "7"),
                ev("message", "d", ""),
            ]
        );
    }

    #[test]
    fn retry_takes_digits_only() {
        let mut framer = Framer::new();
        framer.push(b"retry: 1500\n\nretry: 2x\n\nretry:\n\nretry: -1\n\n");
        assert!(framer.next_event().unwrap().is_none());
        assert_eq!(framer.retry(), Some(Duration::from_millis(1500)));
        framer.push(b"retry:99999999999999999999999\n\nretry:20\n");
        assert!(framer.next_event().unwrap().is_none());
        assert_eq!(framer.retry(), Some(Duration::from_millis(20)));
    }

    #[test]
    fn comments_unknown_fields_and_empty_events_dispatch_nothing() {
        assert_eq!(
            frame(b": keep-alive\n\n:\n\nfoo: bar\n\nevent: x\n\ndata: z\n\n"),
            vec![ev("message", "z", "")],
            "an event name without data must not leak into the next event"
        );
    }

    #[test]
    fn an_empty_data_line_is_still_an_event() {
        assert_eq!(frame(b"data\n\ndata:\n\n"), vec![ev("message", "", ""); 2]);
    }

    #[test]
    fn field_names_are_exact() {
        assert_eq!(
            frame(b"Data: a\ndata : b\n data: c\ndata: d\n\n"),
            vec![ev("message", "d", "")]
        );
    }

    #[test]
    fn a_byte_order_mark_is_dropped_at_the_start_only() {
        assert_eq!(
            frame("\u{feff}data: a\n\n".as_bytes()),
            vec![ev("message", "a", "")]
        );
        // Split inside the mark itself.
        let bom = "\u{feff}".as_bytes();
        let pieces: [&[u8]; 3] = [&bom[..1], &bom[1..], b"data: a\n\n"];
        assert_eq!(frame_pieces(&pieces), vec![ev("message", "a", "")]);
        // A second mark, or one later, is part of the text: `\u{feff}data` is not `data`.
        assert!(frame("\u{feff}\u{feff}data: a\n\n".as_bytes()).is_empty());
        assert_eq!(
            frame("data: a\n\n\u{feff}data: b\n\ndata: \u{feff}c\n\n".as_bytes()),
            vec![ev("message", "a", ""), ev("message", "\u{feff}c", "")]
        );
    }

    #[test]
    fn characters_split_between_reads_are_joined() {
        let text = "data: → ✓ é\n\n".as_bytes();
        let mut framer = Framer::new();
        let mut out = Vec::new();
        for byte in text {
            framer.push(std::slice::from_ref(byte));
            drain(&mut framer, &mut out);
        }
        assert_eq!(out, vec![ev("message", "→ ✓ é", "")]);
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        assert_eq!(
            frame(b"data: a\xffb\xe2\x86\n\n"),
            vec![ev("message", "a\u{fffd}b\u{fffd}", "")]
        );
    }

    #[test]
    fn an_unfinished_event_at_the_end_is_dropped() {
        assert_eq!(frame(b"data: a\n\ndata: b\n"), vec![ev("message", "a", "")]);
        assert_eq!(frame(b"data: a\n\ndata: b"), vec![ev("message", "a", "")]);
    }

    #[test]
    fn oversized_lines_and_events_are_refused() {
        let mut framer = Framer::new();
        framer.push(&vec![b'x'; MAX_EVENT_BYTES + 1]);
        assert_eq!(
            framer.next_event(),
            Err(FrameError::TooLarge {
                limit: MAX_EVENT_BYTES
            })
        );
        let mut framer = Framer::new();
        let line = format!("data: {}\n", "y".repeat(1 << 20));
        let mut failed = false;
        for _ in 0..17 {
            framer.push(line.as_bytes());
            if framer.next_event().is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed);
    }

    #[test]
    fn a_long_line_in_many_pieces_is_searched_once() {
        let mut framer = Framer::new();
        framer.push(b"data: ");
        for _ in 0..10_000 {
            framer.push(b"abcdefgh");
            assert!(framer.next_event().unwrap().is_none());
            assert_eq!(framer.searched, framer.buf.len() - framer.start);
        }
        framer.push(b"\n\n");
        let event = framer.next_event().unwrap().unwrap();
        assert_eq!(event.data.len(), 80_000);
    }

    #[test]
    fn buffers_are_reused_between_events() {
        let mut framer = Framer::new();
        for _ in 0..3 {
            framer.push(b"event: e\ndata: 0123456789\n\n");
            assert!(framer.next_event().unwrap().is_some());
        }
        let (data, kind, buf) = (
            framer.fields.data.as_ptr(),
            framer.fields.kind.as_ptr(),
            framer.buf.as_ptr(),
        );
        for _ in 0..100 {
            framer.push(b"event: e\ndata: 0123456789\n\n");
            assert_eq!(framer.next_event().unwrap().unwrap().data, "0123456789");
        }
        assert_eq!(framer.fields.data.as_ptr(), data);
        assert_eq!(framer.fields.kind.as_ptr(), kind);
        assert_eq!(framer.buf.as_ptr(), buf);
    }

    /// The standard's algorithm written plainly, as an oracle: decode the whole
    /// stream, drop one leading BOM, split it into complete lines, interpret them.
    fn reference(bytes: &[u8]) -> Vec<Owned> {
        let decoded = String::from_utf8_lossy(bytes);
        let mut rest = decoded.strip_prefix('\u{feff}').unwrap_or(&decoded);
        let (mut data, mut kind, mut id) = (String::new(), String::new(), String::new());
        let mut events = Vec::new();
        while let Some(end) = rest.find(['\r', '\n']) {
            let line = &rest[..end];
            rest = &rest[end
                + if rest[end..].starts_with("\r\n") {
                    2
                } else {
                    1
                }..];
            if line.is_empty() {
                if !data.is_empty() {
                    data.pop();
                    let name = if kind.is_empty() { "message" } else { &kind };
                    events.push((name.to_string(), data.clone(), id.clone()));
                }
                data.clear();
                kind.clear();
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (name, value) = match line.split_once(':') {
                Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
                None => (line, ""),
            };
            match name {
                "data" => {
                    data.push_str(value);
                    data.push('\n');
                }
                "event" => kind = value.to_string(),
                "id" if !value.contains('\0') => id = value.to_string(),
                _ => {}
            }
        }
        events
    }

    /// Streams built from the pieces where the rules differ: line ends of each kind,
    /// colons and spaces, field names, comments, a BOM and multi-byte characters.
    fn stream() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop::sample::select(vec![
            "\n",
            "\r",
            "\r\n",
            "\n\n",
            "\r\n\r\n",
            ":",
            ": ",
            " ",
            "data",
            "data: ",
            "event: ",
            "id: ",
            "id:\0",
            "retry: 30",
            "ping",
            ": keep-alive",
            "x",
            "{\"a\":1}",
            "→",
            "é",
            "\u{feff}",
            "\u{fffd}",
        ]);
        // Besides text, a stray byte and a cut-off character, which are not UTF-8.
        let bytes = prop_oneof![
            8 => piece.prop_map(|p| p.as_bytes().to_vec()),
            1 => prop::sample::select(vec![vec![0xff], vec![0xe2, 0x86]]),
        ];
        prop::collection::vec(bytes, 0..60).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn any_split_gives_the_events_the_standard_gives(
            bytes in stream(),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
        ) {
            let whole = frame(&bytes);
            prop_assert_eq!(&whole, &reference(&bytes));
            let mut at: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
            at.sort_unstable();
            let mut pieces = Vec::new();
            let mut from = 0;
            for cut in at {
                pieces.push(&bytes[from..cut]);
                from = cut;
            }
            pieces.push(&bytes[from..]);
            prop_assert_eq!(&frame_pieces(&pieces), &whole);
            let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
            prop_assert_eq!(&frame_pieces(&bytewise), &whole);
        }

        #[test]
        fn arbitrary_bytes_follow_the_standard_and_split_alike(
            bytes in prop::collection::vec(any::<u8>(), 0..300),
            cut in any::<prop::sample::Index>(),
        ) {
            let whole = frame(&bytes);
            prop_assert_eq!(&whole, &reference(&bytes));
            let cut = cut.index(bytes.len() + 1);
            prop_assert_eq!(frame_pieces(&[&bytes[..cut], &bytes[cut..]]), whole);
        }
    }
}
