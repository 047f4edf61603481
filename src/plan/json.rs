//! A strict JSON reader that remembers where every value sits in the source.
//!
//! `serde_json` reports positions only for syntax errors; the plan compiler must
//! point at the offending *value* of a well-formed document, so it reads the text
//! into this tree of byte-ranged nodes instead. Strings borrow from the source
//! unless they contain escapes, which keeps a 1,000-stage plan cheap to read.

use std::borrow::Cow;
use std::ops::Range;

/// Nesting deeper than this is refused instead of risking the stack.
const MAX_DEPTH: usize = 128;

/// One JSON value and the bytes of the source it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Node<'s> {
    pub span: Range<usize>,
    pub value: Value<'s>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value<'s> {
    Null,
    Bool(bool),
    /// The number exactly as written, already checked against the JSON grammar.
    Number(&'s str),
    String(Cow<'s, str>),
    Array(Vec<Node<'s>>),
    Object(Vec<Member<'s>>),
}

/// One `"key": value` pair of an object, in source order.
#[derive(Debug, Clone, PartialEq)]
pub struct Member<'s> {
    pub key: Cow<'s, str>,
    pub key_span: Range<usize>,
    pub value: Node<'s>,
}

impl Value<'_> {
    /// The JSON type name used in diagnostics ("expected a string, found an array").
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }
}

impl Node<'_> {
    /// Converts to a `serde_json::Value` (used for condition values, which are kept as JSON).
    pub fn to_json(&self) -> serde_json::Value {
        match &self.value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(raw) => raw
                .parse::<serde_json::Number>()
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Value::String(s) => serde_json::Value::String(s.to_string()),
            Value::Array(items) => {
                serde_json::Value::Array(items.iter().map(Node::to_json).collect())
            }
            Value::Object(members) => serde_json::Value::Object(
                members
                    .iter()
                    .map(|m| (m.key.to_string(), m.value.to_json()))
                    .collect(),
            ),
        }
    }
}

/// Why the text is not JSON, and the byte where reading stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SyntaxError {
    pub span: Range<usize>,
    pub message: String,
}

/// Reads one JSON document; anything but whitespace after it is an error.
pub fn parse(source: &str) -> Result<Node<'_>, SyntaxError> {
    let mut reader = Reader {
        src: source,
        bytes: source.as_bytes(),
        pos: 0,
    };
    reader.skip_ws();
    let node = reader.value(0)?;
    reader.skip_ws();
    if reader.pos < reader.bytes.len() {
        return Err(reader.error_here("unexpected text after the end of the JSON document"));
    }
    Ok(node)
}

struct Reader<'s> {
    src: &'s str,
    bytes: &'s [u8],
    pos: usize,
}

impl<'s> Reader<'s> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// The character at the current position, for "found `x`" in messages.
    fn found(&self) -> String {
        match self
            .src
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
        {
            Some(c) => format!("`{c}`"),
            None => "the end of the file".to_string(),
        }
    }

    fn error_here(&self, message: impl Into<String>) -> SyntaxError {
        let len = self
            .src
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
            .map_or(0, char::len_utf8);
        SyntaxError {
            span: self.pos..self.pos + len,
            message: message.into(),
        }
    }

    fn expected(&self, what: &str) -> SyntaxError {
        self.error_here(format!("expected {what}, found {}", self.found()))
    }

    fn value(&mut self, depth: usize) -> Result<Node<'s>, SyntaxError> {
        let start = self.pos;
        let value = match self.peek() {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Value::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => Value::Number(self.number()?),
            Some(b't') => self.literal("true", Value::Bool(true))?,
            Some(b'f') => self.literal("false", Value::Bool(false))?,
            Some(b'n') => self.literal("null", Value::Null)?,
            _ => return Err(self.expected("a JSON value")),
        };
        Ok(Node {
            span: start..self.pos,
            value,
        })
    }

    fn literal(&mut self, word: &str, value: Value<'s>) -> Result<Value<'s>, SyntaxError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.expected("a JSON value"))
        }
    }

    fn enter(&self, depth: usize) -> Result<usize, SyntaxError> {
        if depth >= MAX_DEPTH {
            Err(self.error_here(format!("nesting deeper than {MAX_DEPTH} levels")))
        } else {
            Ok(depth + 1)
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value<'s>, SyntaxError> {
        let depth = self.enter(depth)?;
        self.pos += 1; // `{`
        // Stages have up to seven keys: one allocation instead of growing 4 -> 8.
        let mut members = Vec::with_capacity(8);
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.expected("a quoted key"));
            }
            let key_start = self.pos;
            let key = self.string()?;
            let key_span = key_start..self.pos;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.expected("`:` after the key"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth)?;
            members.push(Member {
                key,
                key_span,
                value,
            });
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err(self.expected("`,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value<'s>, SyntaxError> {
        let depth = self.enter(depth)?;
        self.pos += 1; // `[`
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.expected("`,` or `]`")),
            }
        }
    }

    fn number(&mut self) -> Result<&'s str, SyntaxError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.expected("a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.expected("a digit after `.`"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.expected("a digit in the exponent"));
            }
            self.digits();
        }
        Ok(&self.src[start..self.pos])
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    /// Reads a string starting at its opening quote; borrows when there is no escape.
    fn string(&mut self) -> Result<Cow<'s, str>, SyntaxError> {
        self.pos += 1; // opening quote
        let start = self.pos;
        // Jump to the next quote or backslash; a control character before it is
        // an error, found by a second, vectorizable scan of that run.
        match memchr::memchr2(b'"', b'\\', &self.bytes[start..]) {
            None => {
                if let Some(bad) = self.bytes[start..].iter().position(|&b| b < 0x20) {
                    self.pos = start + bad;
                    return Err(self.error_here("control character inside a string (escape it)"));
                }
                self.pos = self.bytes.len();
                return Err(self.error_here("unterminated string"));
            }
            Some(n) => {
                if let Some(bad) = self.bytes[start..start + n].iter().position(|&b| b < 0x20) {
                    self.pos = start + bad;
                    return Err(self.error_here("control character inside a string (escape it)"));
                }
                self.pos = start + n;
                if self.bytes[self.pos] == b'"' {
                    let text = &self.src[start..self.pos];
                    self.pos += 1;
                    return Ok(Cow::Borrowed(text));
                }
            }
        }
        let mut owned = String::from(&self.src[start..self.pos]);
        loop {
            let run = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            owned.push_str(&self.src[run..self.pos]);
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(owned));
                }
                Some(b'\\') => self.escape(&mut owned)?,
                Some(_) => {
                    return Err(self.error_here("control character inside a string (escape it)"));
                }
                None => return Err(self.error_here("unterminated string")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), SyntaxError> {
        let backslash = self.pos;
        self.pos += 1;
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                let high = self.hex4()?;
                let c = if (0xD800..0xDC00).contains(&high) {
                    if !self.bytes[self.pos..].starts_with(b"\\u") {
                        return Err(self.lone_surrogate(backslash));
                    }
                    self.pos += 2;
                    let low = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return Err(self.lone_surrogate(backslash));
                    }
                    char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                } else {
                    char::from_u32(high)
                };
                out.push(c.ok_or_else(|| self.lone_surrogate(backslash))?);
                return Ok(());
            }
            _ => return Err(self.expected("an escape (`\\n`, `\\\"`, `\\u00e9`, ...)")),
        };
        self.pos += 1;
        out.push(c);
        Ok(())
    }

    fn lone_surrogate(&self, at: usize) -> SyntaxError {
        SyntaxError {
            span: at..self.pos,
            message: "`\\u` escape is an unpaired surrogate".to_string(),
        }
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let mut n = 0;
        for _ in 0..4 {
            let digit = match self.peek() {
                Some(b @ b'0'..=b'9') => b - b'0',
                Some(b @ b'a'..=b'f') => b - b'a' + 10,
                Some(b @ b'A'..=b'F') => b - b'A' + 10,
                _ => return Err(self.expected("four hex digits after `\\u`")),
            };
            n = n * 16 + u32::from(digit);
            self.pos += 1;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn spans_cover_values_and_keys() {
        let src = r#"{"a": [1, "x"], "b": null}"#;
        let root = parse(src).unwrap();
        let Value::Object(members) = &root.value else {
            panic!("not an object")
        };
        assert_eq!(&src[members[0].key_span.clone()], r#""a""#);
        assert_eq!(&src[members[0].value.span.clone()], r#"[1, "x"]"#);
        assert_eq!(&src[members[1].value.span.clone()], "null");
        assert_eq!(root.span, 0..src.len());
    }

    #[test]
    fn escapes_are_decoded() {
        let root = parse(r#""a\n\"\u00e9\ud83d\ude00""#).unwrap();
        assert_eq!(root.value, Value::String(Cow::Owned("a\n\"é😀".into())));
    }

    #[test]
    fn errors_point_at_the_offending_byte() {
        let cases = [
            ("{\"a\": 1,}", 8, "expected a quoted key"),
            ("[1 2]", 3, "expected `,` or `]`"),
            ("{\"a\" 1}", 5, "expected `:`"),
            ("\"abc", 4, "unterminated"),
            ("01", 1, "unexpected text"),
            ("-", 1, "expected a digit"),
            ("1.", 2, "after `.`"),
            ("tru", 0, "expected a JSON value"),
            ("\"\\ud800\"", 1, "unpaired surrogate"),
            ("\"a\u{1}\"", 2, "control character"),
            ("", 0, "found the end of the file"),
        ];
        for (src, at, text) in cases {
            let err = parse(src).unwrap_err();
            assert_eq!(err.span.start, at, "{src:?}: {err:?}");
            assert!(err.message.contains(text), "{src:?}: {}", err.message);
        }
    }

    #[test]
    fn deep_nesting_is_refused() {
        let src = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert!(parse(&src).unwrap_err().message.contains("nesting"));
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(&ok).is_ok());
    }

    fn arb_json() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<i64>().prop_map(|n| serde_json::json!(n)),
            (-1e6f64..1e6).prop_map(|n| serde_json::json!(n)),
            any::<String>().prop_map(serde_json::Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
                prop::collection::vec(("[a-z\"\\\\é]{0,6}", inner), 0..6)
                    .prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn agrees_with_serde_json(value in arb_json(), pretty in any::<bool>()) {
            let text = if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                serde_json::to_string(&value).unwrap()
            };
            let node = parse(&text).unwrap();
            let theirs: serde_json::Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(node.to_json(), theirs);
        }

        #[test]
        fn never_panics_and_agrees_on_validity(text in "[\\[\\]{}\",:0-9a-z\\\\ .eE+-]{0,24}") {
            let ours = parse(&text).is_ok();
            let theirs = serde_json::from_str::<serde_json::Value>(&text).is_ok();
            prop_assert_eq!(ours, theirs, "{:?}", text);
        }
    }
}
