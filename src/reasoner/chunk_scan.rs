//! The common shape of an OpenAI-compatible stream chunk, read in one tight pass.
//!
//! Every token of an answer arrives as a small JSON document of the same shape: an
//! object of scalars (`id`, `model`, `created`, …) and a `choices` list whose entries
//! hold a `delta` of strings. A general JSON reader spends most of its time per key and
//! per value on documents this small; this scanner knows the shape. It accepts only
//! documents that are valid JSON and that it fully understands, and answers `None` for
//! anything else (a `usage` or `error` object, a nested value it would have to skip, a
//! `\u` escape, malformed text), which the general decoder then reads, with its error
//! messages.
//!
//! Two tiers make it fast:
//! - Within one answer the chunks differ only in their strings: the text, and on some
//!   servers an id or OpenAI's random `obfuscation` padding. The last chunk read in
//!   full becomes a [`Template`]: its bytes with the string values cut out. A chunk
//!   that repeats those bytes around strings of its own has, by JSON's grammar, the
//!   same structure, so only its strings need reading.
//! - Otherwise the chunk is read in full ([`Scan`]), and strings are searched eight
//!   bytes at a time (see [`stop`]): a library search routine pays tens of
//!   instructions to set up for each call, more than a whole key costs here.

use crate::reasoner::StreamEvent;

/// Reads chunks of the common shape, remembering the last one's layout.
#[derive(Debug, Default)]
pub struct ChunkScanner {
    template: Template,
}

impl ChunkScanner {
    /// Decodes `data` if it has the common shape: pushes the choices' thinking and
    /// text to `out` and records a finish reason. `None` leaves `out` and `finish` as
    /// they were.
    pub fn decode(
        &mut self,
        data: &str,
        out: &mut Vec<StreamEvent>,
        finish: &mut Option<String>,
    ) -> Option<()> {
        if let Some([first, second, content]) = self.template.read(data) {
            super::openai::push_delta([first, second], content, out);
            return Some(());
        }
        let before = out.len();
        let mut scan = Scan {
            text: data,
            bytes: data.as_bytes(),
            at: 0,
            layout: Layout::default(),
        };
        let mut reason = None;
        if scan.chunk(out, &mut reason).is_none() {
            out.truncate(before);
            return None;
        }
        if reason.is_some() {
            *finish = reason;
        } else if scan.layout.choices == 1 && !scan.layout.repeated {
            self.template.learn(data, &scan.layout.holes);
        }
        Some(())
    }
}

/// Which string of a delta a string value is, in the order [`push_delta`] takes them;
/// `Other` is any other string value (an id, a model, a role).
///
/// [`push_delta`]: super::openai::push_delta
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    ReasoningContent = 0,
    Reasoning = 1,
    Content = 2,
    Other = 3,
}

/// A string value's contents, between its quotes, and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hole {
    start: usize,
    end: usize,
    role: Role,
}

/// What a full read noted for the template: every string value, how many choices there
/// were, and whether a key the scanner reads came twice in one object. A template is
/// learned only from a chunk of one choice whose keys are unique, so that its strings
/// all belong to one delta and none is overridden by a later `null` the template would
/// not see.
#[derive(Debug, Default)]
struct Layout {
    holes: Vec<Hole>,
    choices: usize,
    repeated: bool,
}

impl Layout {
    /// Notes one more sighting of key number `key` in an object whose sightings are
    /// `seen`.
    fn sighted(&mut self, seen: &mut u8, key: u8) {
        self.repeated |= *seen & key != 0;
        *seen |= key;
    }
}

/// The last fully read chunk of one choice and no finish reason, with the places of
/// its string values.
#[derive(Debug, Default)]
struct Template {
    text: String,
    holes: Vec<Hole>,
}

impl Template {
    fn learn(&mut self, data: &str, holes: &[Hole]) {
        self.text.clear();
        self.text.push_str(data);
        self.holes.clear();
        self.holes.extend_from_slice(holes);
    }

    /// The delta's strings, if `data` is the template's bytes with other strings in
    /// its holes. Every string is checked as a full read would; the bytes between
    /// them are the template's own, already known to be valid and to mean the same.
    fn read(&self, data: &str) -> Option<[Option<String>; 3]> {
        if self.text.is_empty() {
            return None;
        }
        let known = self.text.as_bytes();
        let bytes = data.as_bytes();
        let mut strings = [None, None, None];
        let (mut from, mut at) = (0, 0);
        for hole in &self.holes {
            let same = &known[from..hole.start];
            if bytes.get(at..at + same.len())? != same {
                return None;
            }
            let start = at + same.len();
            let end = match hole.role {
                Role::Other => {
                    // Most such strings (the id, the model) repeat the template's:
                    // those are known to be valid and are only compared.
                    let old = &known[hole.start..hole.end];
                    let end = start + old.len();
                    if bytes.get(start..end) == Some(old) && bytes.get(end) == Some(&b'"') {
                        end
                    } else {
                        string_end(bytes, start)?
                    }
                }
                role => {
                    let (end, text) = read_string(data, start)?;
                    strings[role as usize] = Some(text);
                    end
                }
            };
            (from, at) = (hole.end, end);
        }
        (bytes.get(at..)? == &known[from..]).then_some(strings)
    }
}

/// The character a one-letter escape stands for; `\u` is not handled here.
fn unescape(letter: u8) -> Option<char> {
    Some(match letter {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'n' => '\n',
        b't' => '\t',
        b'r' => '\r',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        _ => return None,
    })
}

const ONES: u64 = u64::from_le_bytes([1; 8]);
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// Where, from `at` on, the first byte that ends a plain run inside a JSON string lies:
/// a quote, a backslash or a control character (which JSON forbids unescaped).
///
/// Eight bytes are tested at once. For each of the three tests the lowest flagged
/// byte is exact (a borrow can only raise false flags above a true one), so the
/// lowest flag of their union is the first stop.
#[inline]
fn stop(bytes: &[u8], mut at: usize) -> Option<usize> {
    while let Some(word) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(word.try_into().ok()?);
        let quote = word ^ (ONES * u64::from(b'"'));
        let slash = word ^ (ONES * u64::from(b'\\'));
        let flags = (quote.wrapping_sub(ONES) & !quote)
            | (slash.wrapping_sub(ONES) & !slash)
            | (word.wrapping_sub(ONES * 0x20) & !word);
        let flags = flags & HIGHS;
        if flags != 0 {
            return Some(at + flags.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let tail = bytes.get(at..)?;
    let found = tail
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    Some(at + found)
}

/// Where the string whose contents start at `start` ends (its closing quote), having
/// checked it: no control character, only one-letter escapes.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    loop {
        let end = stop(bytes, at)?;
        match bytes[end] {
            b'"' => return Some(end),
            b'\\' => {
                unescape(*bytes.get(end + 1)?)?;
                at = end + 2;
            }
            _ => return None,
        }
    }
}

/// Reads and checks the string whose contents start at `start`, unescaping as it
/// goes: where it ends (its closing quote), and its text.
fn read_string(text: &str, start: usize) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let mut end = stop(bytes, start)?;
    if bytes[end] == b'"' {
        return Some((end, text.get(start..end)?.to_owned()));
    }
    // The rest of the chunk bounds the text (unescaping only shortens), and little of
    // a chunk follows its text: one allocation, a few bytes too large.
    let mut out = String::with_capacity(bytes.len() - start);
    let mut run = start;
    loop {
        match bytes[end] {
            b'"' => {
                out.push_str(text.get(run..end)?);
                return Some((end, out));
            }
            b'\\' => {
                out.push_str(text.get(run..end)?);
                out.push(unescape(*bytes.get(end + 1)?)?);
                run = end + 2;
            }
            _ => return None,
        }
        end = stop(bytes, run)?;
    }
}

/// A full read of one chunk.
struct Scan<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    layout: Layout,
}

impl<'a> Scan<'a> {
    fn chunk(&mut self, out: &mut Vec<StreamEvent>, reason: &mut Option<String>) -> Option<()> {
        let mut seen = 0;
        self.object(|scan, key| match key {
            b"choices" => {
                scan.layout.sighted(&mut seen, 1);
                scan.choices(out, reason)
            }
            // OpenAI sends `"usage":null` in every chunk but the last.
            b"usage" if scan.null() => Some(()),
            b"usage" | b"error" => None,
            _ => scan.scalar(),
        })?;
        self.space();
        (self.at == self.bytes.len()).then_some(())
    }

    fn choices(&mut self, out: &mut Vec<StreamEvent>, reason: &mut Option<String>) -> Option<()> {
        if self.null() {
            return Some(());
        }
        self.expect(b'[')?;
        if self.peek()? == b']' {
            self.at += 1;
            return Some(());
        }
        loop {
            self.layout.choices += 1;
            let mut seen = 0;
            self.object(|scan, key| match key {
                b"delta" => {
                    scan.layout.sighted(&mut seen, 1);
                    scan.delta(out)
                }
                b"finish_reason" => {
                    scan.layout.sighted(&mut seen, 2);
                    if !scan.null() {
                        *reason = Some(scan.string(Role::Other)?);
                    }
                    Some(())
                }
                _ => scan.scalar(),
            })?;
            if !self.another(b']')? {
                return Some(());
            }
        }
    }

    fn delta(&mut self, out: &mut Vec<StreamEvent>) -> Option<()> {
        if self.null() {
            return Some(());
        }
        let mut thinking = [None, None];
        let mut content = None;
        let mut seen = 0;
        self.object(|scan, key| {
            let (slot, role) = match key {
                b"reasoning_content" => (&mut thinking[0], Role::ReasoningContent),
                b"reasoning" => (&mut thinking[1], Role::Reasoning),
                b"content" => (&mut content, Role::Content),
                _ => return scan.scalar(),
            };
            scan.layout.sighted(&mut seen, 1 << role as u8);
            *slot = if scan.null() {
                None
            } else {
                Some(scan.string(role)?)
            };
            Some(())
        })?;
        super::openai::push_delta(thinking, content, out);
        Some(())
    }

    /// An object whose keys have no escapes; `member` reads each value.
    #[inline]
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.expect(b'{')?;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            self.expect(b'"')?;
            let start = self.at;
            let end = stop(self.bytes, start)?;
            if self.bytes[end] != b'"' {
                return None;
            }
            self.at = end + 1;
            self.expect(b':')?;
            member(self, &self.bytes[start..end])?;
            if !self.another(b'}')? {
                return Some(());
            }
        }
    }

    /// After an item of a list or object: `true` past a comma (another item follows),
    /// `false` past the `close` bracket, `None` for anything else.
    fn another(&mut self, close: u8) -> Option<bool> {
        let byte = self.peek()?;
        self.at += 1;
        match byte {
            b',' => Some(true),
            _ if byte == close => Some(false),
            _ => None,
        }
    }

    /// A string value, unescaped; `\u` escapes are left to the general decoder.
    fn string(&mut self, role: Role) -> Option<String> {
        self.expect(b'"')?;
        let start = self.at;
        let (end, text) = read_string(self.text, start)?;
        self.passed(start, end, role);
        Some(text)
    }

    /// Reads past a string value, checked.
    fn skip_string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        let start = self.at;
        let end = string_end(self.bytes, start)?;
        self.passed(start, end, Role::Other);
        Some(())
    }

    /// Moves past a string value whose contents end at `end`, noting it for the
    /// template.
    fn passed(&mut self, start: usize, end: usize, role: Role) {
        self.at = end + 1;
        self.layout.holes.push(Hole { start, end, role });
    }

    /// Skips a string, number, `true`, `false` or `null`; a list or object is not
    /// skipped here.
    fn scalar(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.skip_string(),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// A number, checked against JSON's grammar.
    fn number(&mut self) -> Option<()> {
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at)? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.at) {
                self.at += 1;
            }
            self.some_digits()?;
        }
        Some(())
    }

    fn digits(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
    }

    fn some_digits(&mut self) -> Option<()> {
        let start = self.at;
        self.digits();
        (self.at > start).then_some(())
    }

    fn word(&mut self, word: &[u8]) -> Option<()> {
        self.bytes[self.at..]
            .starts_with(word)
            .then(|| self.at += word.len())
    }

    /// Consumes a `null` if one comes next.
    fn null(&mut self) -> bool {
        self.peek() == Some(b'n') && self.word(b"null").is_some()
    }

    fn space(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after any white space. Compact JSON has none, so the common case
    /// is one comparison.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.at)?;
        if byte > b' ' {
            return Some(byte);
        }
        self.space();
        self.bytes.get(self.at).copied()
    }

    #[inline]
    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(data: &str) -> Option<Vec<StreamEvent>> {
        let mut out = Vec::new();
        let mut finish = None;
        ChunkScanner::default()
            .decode(data, &mut out, &mut finish)
            .map(|()| out)
    }

    #[test]
    fn reads_the_common_shape() {
        let data = r#"{"id":"c-1","object":"chat.completion.chunk","created":17,"model":"m","system_fingerprint":null,"choices":[{"index":0,"delta":{"role":"assistant","content":"a\"b\n\u00e9"},"logprobs":null,"finish_reason":null}]}"#;
        // `\u00e9` is left to the general decoder.
        assert_eq!(scan(data), None);
        let data = data.replace(r"\u00e9", "é");
        assert_eq!(
            scan(&data),
            Some(vec![StreamEvent::Text {
                text: "a\"b\né".into()
            }])
        );
    }

    #[test]
    fn leaves_everything_else_to_the_general_decoder() {
        for data in [
            r#"{"choices":[],"usage":{"prompt_tokens":1}}"#,
            r#"{"error":{"message":"x"}}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"t"}]}}]}"#,
            r#"{"choices":[{"delta":{"content":"a"}}]} x"#,
            r#"{"choices":[{"delta":{"content":"a\x"}}]}"#,
            r#"{"choices":[{"delta":{"content":7}}]}"#,
            r#"{"n":01,"choices":[]}"#,
            r#"{"n":1.,"choices":[]}"#,
            r#"{"choices":[{"delta":{"content":"a"}},]}"#,
            "{\"choices\":[{\"delta\":{\"content\":\"a\tb\"}}]}",
            r#"{"k\"ey":1}"#,
            r#"{"usage":{},"choices":[]}"#,
        ] {
            assert_eq!(scan(data), None, "{data}");
        }
    }

    fn text(text: &str) -> StreamEvent {
        StreamEvent::Text { text: text.into() }
    }

    #[test]
    fn usage_null_is_the_common_shape() {
        assert_eq!(
            scan(r#"{"choices":[{"delta":{"content":"a"}}],"usage":null}"#),
            Some(vec![text("a")])
        );
    }

    #[test]
    fn a_learned_layout_reads_the_next_chunks_strings() {
        let chunk = |id: &str, content: &str, pad: &str| {
            format!(
                r#"{{"id":"{id}","choices":[{{"index":0,"delta":{{"content":"{content}"}},"finish_reason":null}}],"usage":null,"obfuscation":"{pad}"}}"#
            )
        };
        let mut scanner = ChunkScanner::default();
        let mut finish = None;
        let mut read = |data: &str, scanner: &mut ChunkScanner| {
            let mut out = Vec::new();
            scanner.decode(data, &mut out, &mut finish).map(|()| out)
        };
        assert_eq!(
            read(&chunk("c1", "one", "x"), &mut scanner),
            Some(vec![text("one")])
        );
        assert!(!scanner.template.text.is_empty());
        // Other strings of other lengths, escapes included: read from the template.
        let next = chunk("c22", r#"two \"2\"\n"#, "");
        assert!(scanner.template.read(&next).is_some());
        assert_eq!(read(&next, &mut scanner), Some(vec![text("two \"2\"\n")]));
        // An empty text says nothing.
        assert_eq!(read(&chunk("c1", "", "pad"), &mut scanner), Some(vec![]));
        // Strings a full read refuses are refused through the template too.
        for bad in [r"\u00e9", r"\x", "a\tb", r"a\"] {
            let data = chunk("c1", bad, "x");
            assert_eq!(scanner.template.read(&data), None, "{data}");
            assert_eq!(read(&data, &mut scanner), None, "{data}");
        }
        // A different layout is read in full and becomes the template.
        let thinking = r#"{"id":"c1","choices":[{"index":0,"delta":{"reasoning_content":"hm","content":null},"finish_reason":null}]}"#;
        assert_eq!(
            read(thinking, &mut scanner),
            Some(vec![StreamEvent::Thinking { text: "hm".into() }])
        );
        assert_eq!(scanner.template.text, thinking);
        // A key read twice in one object is never learned: a later `null` for it, or a
        // second delta, is not in the template's holes.
        for twice in [
            r#"{"choices":[{"delta":{"content":"a","content":null}}]}"#,
            r#"{"choices":[{"delta":{"content":"a"},"delta":{"content":"b"}}]}"#,
        ] {
            let mut fresh = ChunkScanner::default();
            assert!(read(twice, &mut fresh).is_some());
            assert!(fresh.template.text.is_empty(), "{twice}");
        }
        // A finish reason is never learned: the next chunk must report its own.
        let last = r#"{"id":"c1","choices":[{"index":0,"delta":{"reasoning_content":"hm","content":null},"finish_reason":"stop"}]}"#;
        assert_eq!(
            read(last, &mut scanner),
            Some(vec![StreamEvent::Thinking { text: "hm".into() }])
        );
        assert_eq!(scanner.template.text, thinking);
    }
}
