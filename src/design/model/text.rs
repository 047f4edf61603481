//! Small readers shared by the artifact parsers: lines with their byte offsets, and
//! the Markdown decoration a model puts before the words that matter.

/// One line of an artifact: its text without the line break and where it starts.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    pub text: &'a str,
    pub start: usize,
}

impl Line<'_> {
    /// Leading spaces, a tab counting as four.
    pub fn indent(&self) -> usize {
        self.text
            .chars()
            .take_while(|c| c.is_whitespace())
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum()
    }
}

/// The lines of `text` with their offsets; `\r\n` endings lose the `\r`.
pub fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    let mut start = 0;
    text.split_inclusive('\n').map(move |raw| {
        let line = Line {
            text: raw.trim_end_matches(['\n', '\r']),
            start,
        };
        start += raw.len();
        line
    })
}

/// True for a code fence line (```` ``` ```` or `~~~`, with or without a language).
pub fn is_fence(trimmed: &str) -> bool {
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

/// The byte offset in `line` where the content starts once list markers, heading
/// hashes, quote marks, table bars, check boxes and emphasis are skipped.
pub fn content_start(line: &str) -> usize {
    let bytes = line.as_bytes();
    let mut i = 0;
    loop {
        let before = i;
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        if i >= bytes.len() {
            return i;
        }
        match bytes[i] {
            c @ (b'#' | b'>' | b'|' | b'`') => {
                while i < bytes.len() && bytes[i] == c {
                    i += 1;
                }
            }
            b'*' if bytes.get(i + 1) == Some(&b'*') => i += 2,
            b'-' | b'*' | b'+' if bytes.get(i + 1).is_none_or(|b| *b == b' ') => i += 1,
            b'[' if matches!(line.get(i..i + 3), Some("[ ]" | "[x]" | "[X]")) => i += 3,
            b'0'..=b'9' => {
                let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                match bytes.get(i + digits) {
                    Some(b'.' | b')') if bytes.get(i + digits + 1).is_none_or(|b| *b == b' ') => {
                        i += digits + 1
                    }
                    _ => return i,
                }
            }
            _ => return i,
        }
        if i == before {
            return i;
        }
    }
}

/// Heading level of a Markdown heading line (`## x` is 2), else `None`.
pub fn heading_level(line: &str) -> Option<usize> {
    let trimmed = line.trim_start();
    let hashes = trimmed.bytes().take_while(|b| *b == b'#').count();
    (hashes > 0 && hashes <= 6 && trimmed[hashes..].starts_with(' ')).then_some(hashes)
}

/// Is `c` part of an identifier?
pub fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_offsets() {
        let text = "a\r\nbc\n\nd";
        let got: Vec<(&str, usize)> = lines(text).map(|l| (l.text, l.start)).collect();
        assert_eq!(got, [("a", 0), ("bc", 3), ("", 6), ("d", 7)]);
    }

    #[test]
    fn decoration_is_skipped() {
        for (line, rest) in [
            ("1. FR-01: x", "FR-01: x"),
            ("- **FR-01**: x", "FR-01**: x"),
            ("### ADR-001 — x", "ADR-001 — x"),
            ("| FR-2 | x |", "FR-2 | x |"),
            ("  * [ ] `FR-3`", "FR-3`"),
            ("12) NFR-1", "NFR-1"),
            ("2024 was", "2024 was"),
            ("-x", "-x"),
        ] {
            assert_eq!(&line[content_start(line)..], rest, "{line}");
        }
    }
}
