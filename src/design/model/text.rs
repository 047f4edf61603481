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
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |nl| start + nl);
        let line = Line {
            text: text[start..end].trim_end_matches('\r'),
            start,
        };
        start = end + 1;
        Some(line)
    })
}

/// The lines of `text` that contain `needle` (which holds no line break), as
/// [`lines`] gives them, found by one pass of a substring search over the whole
/// text instead of a search per line.
#[cfg(test)]
pub fn lines_containing<'a>(text: &'a str, needle: &'a str) -> impl Iterator<Item = Line<'a>> {
    let bytes = text.as_bytes();
    let mut next_line = 0;
    memchr::memmem::find_iter(bytes, needle.as_bytes()).filter_map(move |hit| {
        if hit < next_line {
            return None;
        }
        let start = memchr::memrchr(b'\n', &bytes[..hit]).map_or(0, |nl| nl + 1);
        let end = memchr::memchr(b'\n', &bytes[hit..]).map_or(bytes.len(), |nl| hit + nl);
        next_line = end + 1;
        Some(Line {
            text: text[start..end].trim_end_matches('\r'),
            start,
        })
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
    fn lines_containing_a_needle_are_the_lines_that_do() {
        for text in [
            "",
            "FR-1",
            "a\nFR-1 FR-2\r\n\nxFR-3\nno\nADR-1",
            "R-\nR-\r\r\n",
        ] {
            let want: Vec<(&str, usize)> = lines(text)
                .filter(|l| l.text.contains("R-"))
                .map(|l| (l.text, l.start))
                .collect();
            let got: Vec<(&str, usize)> = lines_containing(text, "R-")
                .map(|l| (l.text, l.start))
                .collect();
            assert_eq!(got, want, "{text:?}");
        }
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
