//! The common shape of an OpenAI-compatible stream chunk, read in one tight pass.
//!
//! Every token of an answer arrives as a small JSON document of the same shape: an
//! object of scalars (`id`, `model`, `created`, …) and a `choices` list whose entries
//! hold a `delta` of strings. A general JSON reader spends most of its time per key and
//! per value on documents this small; this scanner knows the shape and reads it in a
//! few hundred instructions. It accepts only documents that are valid JSON and that it
//! fully understands, and answers `None` for anything else (a `usage` or `error`
//! member, a nested value it would have to skip, a `\u` escape, malformed text), which
//! the general decoder then reads, with its error messages.

use crate::reasoner::StreamEvent;

/// Decodes `data` if it has the common shape: pushes the choices' thinking and text to
/// `out` and records a finish reason. `None` leaves `out` and `finish` as they were.
pub fn decode(data: &str, out: &mut Vec<StreamEvent>, finish: &mut Option<String>) -> Option<()> {
    let before = out.len();
    let mut scan = Scan {
        text: data,
        bytes: data.as_bytes(),
        at: 0,
    };
    let mut reason = None;
    if scan.chunk(out, &mut reason).is_none() {
        out.truncate(before);
        return None;
    }
    if reason.is_some() {
        *finish = reason;
    }
    Some(())
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

struct Scan<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    fn chunk(&mut self, out: &mut Vec<StreamEvent>, reason: &mut Option<String>) -> Option<()> {
        self.object(|scan, key| match key {
            b"choices" => scan.choices(out, reason),
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
            self.object(|scan, key| match key {
                b"delta" => scan.delta(out),
                b"finish_reason" => {
                    if !scan.null() {
                        *reason = Some(scan.string()?);
                    }
                    Some(())
                }
                _ => scan.scalar(),
            })?;
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn delta(&mut self, out: &mut Vec<StreamEvent>) -> Option<()> {
        if self.null() {
            return Some(());
        }
        let mut thinking = [None, None];
        let mut content = None;
        self.object(|scan, key| {
            let slot = match key {
                b"reasoning_content" => &mut thinking[0],
                b"reasoning" => &mut thinking[1],
                b"content" => &mut content,
                _ => return scan.scalar(),
            };
            *slot = if scan.null() {
                None
            } else {
                Some(scan.string()?)
            };
            Some(())
        })?;
        super::openai::push_delta(thinking, content, out);
        Some(())
    }

    /// An object whose keys have no escapes; `member` reads each value.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &[u8]) -> Option<()>) -> Option<()> {
        self.expect(b'{')?;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            self.expect(b'"')?;
            let start = self.at;
            let len = memchr::memchr2(b'"', b'\\', &self.bytes[start..])?;
            let key = &self.bytes[start..start + len];
            if self.bytes[start + len] != b'"' || key.iter().any(|b| *b < 0x20) {
                return None;
            }
            self.at = start + len + 1;
            self.expect(b':')?;
            member(self, key)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string value, unescaped; `\u` escapes are left to the general decoder.
    fn string(&mut self) -> Option<String> {
        let (start, end, escaped) = self.string_span()?;
        let raw = &self.text[start..end];
        if !escaped {
            return Some(raw.to_owned());
        }
        let mut text = String::with_capacity(raw.len());
        let mut rest = raw;
        while let Some(slash) = memchr::memchr(b'\\', rest.as_bytes()) {
            text.push_str(&rest[..slash]);
            text.push(unescape(rest.as_bytes()[slash + 1])?);
            rest = &rest[slash + 2..];
        }
        text.push_str(rest);
        Some(text)
    }

    /// Reads past a string and returns where its contents lie and whether they hold
    /// escapes, having checked them: no control character, only one-letter escapes.
    fn string_span(&mut self) -> Option<(usize, usize, bool)> {
        self.expect(b'"')?;
        let start = self.at;
        let mut escaped = false;
        loop {
            let run = self.at;
            let len = memchr::memchr2(b'"', b'\\', &self.bytes[run..])?;
            if self.bytes[run..run + len].iter().any(|b| *b < 0x20) {
                return None;
            }
            self.at = run + len;
            if self.bytes[self.at] == b'"' {
                self.at += 1;
                return Some((start, self.at - 1, escaped));
            }
            unescape(*self.bytes.get(self.at + 1)?)?;
            escaped = true;
            self.at += 2;
        }
    }

    /// Skips a string, number, `true`, `false` or `null`; a list or object is not
    /// skipped here.
    fn scalar(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string_span().map(drop),
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

    fn peek(&mut self) -> Option<u8> {
        self.space();
        self.bytes.get(self.at).copied()
    }

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
        decode(data, &mut out, &mut finish).map(|()| out)
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
        ] {
            assert_eq!(scan(data), None, "{data}");
        }
    }
}
