//! Whether a line of an answer opens a section, and which: the one place that knows
//! how models write a marker.
//!
//! Two forms are accepted:
//!
//! - the strict one the prompt asks for, `ARCHITECTURE:` (upper case, underscores,
//!   a colon), perhaps as a heading or in bold (`## API_SPEC:`, `**FILE_TREE**:`),
//!   with text after it on the same line;
//! - the habits models fall into, which must hold nothing else on the line: a heading
//!   or bold text naming the section in any case, with spaces or hyphens for the
//!   underscore, with or without a colon, perhaps numbered (`## Architecture`,
//!   `### 2. File tree:`, `**API spec**`, `## CLASS_DIAGRAM ##`).
//!
//! Without a heading or bold, only the strict form counts: a bare `Architecture` line
//! is prose. Each function works on a line that may be unfinished (`complete: false`),
//! so the streaming parser can ask whether a line might still become a marker.

/// What a line is, as far as its bytes tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recognised {
    /// It opens the section named by `words[word]`; its own text starts at byte
    /// `content` of the line (the rest of a strict marker's line, else the line's end).
    Marker { word: usize, content: usize },
    /// It is no marker, whatever follows.
    Not,
    /// The line is unfinished and may still become a marker.
    Undecided,
}

/// Recognises a marker for one of `words` (upper case, `_` between words) at the start
/// of `line` (which may end with its newline). With `complete`, the end of `line` is
/// the end of the line; without, more may follow.
pub fn recognise(line: &[u8], words: &[&str], complete: bool) -> Recognised {
    let mut decision = Recognised::Not;
    for (index, word) in words.iter().enumerate() {
        let mut cursor = Cursor {
            bytes: line,
            pos: 0,
            complete,
        };
        match cursor.marker(word.as_bytes()) {
            Ok(content) => {
                return Recognised::Marker {
                    word: index,
                    content,
                };
            }
            Err(Stop::Short) => decision = Recognised::Undecided,
            Err(Stop::No) => {}
        }
    }
    decision
}

/// Why a line is not (yet) a marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    No,
    /// The bytes ran out before they could tell.
    Short,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    complete: bool,
}

impl Cursor<'_> {
    fn rest(&self) -> &[u8] {
        &self.bytes[self.pos..]
    }

    /// The stop for running out of bytes where more were needed.
    fn short(&self) -> Stop {
        if self.complete { Stop::No } else { Stop::Short }
    }

    /// Consumes `literal` if the line continues with it.
    fn eat(&mut self, literal: &[u8]) -> Result<bool, Stop> {
        let rest = self.rest();
        let n = rest.len().min(literal.len());
        if rest[..n] != literal[..n] {
            return Ok(false);
        }
        if n < literal.len() {
            // Complete: the optional piece is simply not there.
            return if self.complete {
                Ok(false)
            } else {
                Err(Stop::Short)
            };
        }
        self.pos += n;
        Ok(true)
    }

    fn spaces(&mut self) -> usize {
        let n = self.rest().iter().take_while(|b| **b == b' ').count();
        self.pos += n;
        n
    }

    fn marker(&mut self, word: &[u8]) -> Result<usize, Stop> {
        if self.spaces() > 3 {
            return Err(Stop::No);
        }
        let heading = self.heading()?;
        let mut bold = self.eat(b"**")?;
        let numbered = (heading || bold) && self.ordinal()?;
        if numbered && !bold {
            bold = self.eat(b"**")?;
        }
        let exact = self.word(word, heading || bold)?;
        let mut closed = bold && self.eat(b"**")?;
        let colon = self.eat(b":")?;
        if bold && !closed {
            closed = self.eat(b"**")?;
        }
        if exact && colon && !numbered {
            return Ok(self.pos);
        }
        if !(heading || bold) || (bold && !closed) {
            return Err(Stop::No);
        }
        self.blank_to_end(heading)
    }

    /// Skips a heading's one to six `#`s and the spaces after them.
    fn heading(&mut self) -> Result<bool, Stop> {
        let hashes = self.rest().iter().take_while(|b| **b == b'#').count();
        if hashes == 0 {
            return Ok(false);
        }
        if hashes > 6 {
            return Err(Stop::No);
        }
        self.pos += hashes;
        match self.spaces() {
            0 if self.rest().is_empty() => Err(self.short()),
            0 => Err(Stop::No),
            _ => Ok(true),
        }
    }

    /// Skips a section number (`2.`, `2)`, `2`) and the spaces after it.
    fn ordinal(&mut self) -> Result<bool, Stop> {
        let digits = self
            .rest()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            return Ok(false);
        }
        if digits > 2 {
            return Err(Stop::No);
        }
        self.pos += digits;
        if matches!(self.rest().first(), Some(b'.' | b')')) {
            self.pos += 1;
        }
        match self.spaces() {
            0 if self.rest().is_empty() => Err(self.short()),
            0 => Err(Stop::No),
            _ => Ok(true),
        }
    }

    /// Consumes the section's word: exactly as the marker, or when `loose`, in any
    /// case with a space or hyphen for the underscore. `true` when written exactly.
    fn word(&mut self, word: &[u8], loose: bool) -> Result<bool, Stop> {
        let mut exact = true;
        for &want in word {
            let Some(&got) = self.rest().first() else {
                return Err(self.short());
            };
            let fits = if !loose {
                got == want
            } else if want == b'_' {
                matches!(got, b'_' | b' ' | b'-')
            } else {
                got.to_ascii_uppercase() == want
            };
            if !fits {
                return Err(Stop::No);
            }
            exact &= got == want;
            self.pos += 1;
        }
        Ok(exact)
    }

    /// The line holds nothing more than blanks (and a heading's closing `#`s).
    fn blank_to_end(&mut self, heading: bool) -> Result<usize, Stop> {
        let mut hashes_allowed = heading;
        loop {
            match self.rest().first() {
                None if self.complete => return Ok(self.pos),
                None => return Err(Stop::Short),
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.pos += 1,
                Some(b'#') if hashes_allowed => {
                    hashes_allowed = false;
                    self.pos += self.rest().iter().take_while(|b| **b == b'#').count();
                }
                Some(_) => return Err(Stop::No),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORDS: [&str; 5] = [
        "ARCHITECTURE",
        "REQUIREMENTS",
        "FILE_TREE",
        "API_SPEC",
        "CLASS_DIAGRAM",
    ];

    fn word_of(line: &str) -> Option<usize> {
        match recognise(line.as_bytes(), &WORDS, true) {
            Recognised::Marker { word, .. } => Some(word),
            _ => None,
        }
    }

    #[test]
    fn strict_markers_keep_the_text_after_them() {
        let line = b"API_SPEC: inline text\n";
        assert_eq!(
            recognise(line, &WORDS, true),
            Recognised::Marker {
                word: 3,
                content: 9
            }
        );
        assert_eq!(word_of("## ARCHITECTURE: x"), Some(0));
        assert_eq!(word_of("**FILE_TREE**: x"), Some(2));
        assert_eq!(word_of("**FILE_TREE:** x"), Some(2));
        assert_eq!(word_of("   REQUIREMENTS:"), Some(1));
    }

    #[test]
    fn headings_and_bold_in_any_case_alone_on_their_line() {
        for (line, word) in [
            ("## ARCHITECTURE", 0),
            ("## Architecture\n", 0),
            ("# architecture:", 0),
            ("###### Requirements ", 1),
            ("### 2. File tree", 2),
            ("## 3) File-Tree:", 2),
            ("**API spec**", 3),
            ("**Api Spec:**", 3),
            ("**API_SPEC**\r\n", 3),
            ("## **Class diagram**", 4),
            ("**4. API spec**", 3),
            ("## CLASS_DIAGRAM ##", 4),
        ] {
            assert_eq!(word_of(line), Some(word), "{line:?}");
        }
    }

    #[test]
    fn prose_is_not_a_marker() {
        for line in [
            "Architecture",
            "Architecture:",
            "ARCHITECTURE",
            "FILE TREE",
            "## Architecture overview",
            "## Architectures",
            "**Architecture**: the parts",
            "**Architecture",
            "####### Architecture",
            "#Architecture",
            "    ## Architecture",
            "## 123. Architecture",
            "- ## Architecture",
            "see the API_SPEC: below",
        ] {
            assert_eq!(word_of(line), None, "{line:?}");
        }
    }

    #[test]
    fn unfinished_lines_wait_only_while_they_could_still_be_markers() {
        let undecided = |s: &str| recognise(s.as_bytes(), &WORDS, false) == Recognised::Undecided;
        for prefix in [
            "",
            "#",
            "## ",
            "## Arch",
            "## 2",
            "**",
            "*",
            "## Architecture",
        ] {
            assert!(undecided(prefix), "{prefix:?}");
        }
        for prefix in ["## D", "**N", "Archi", "## Architecture x", "#x"] {
            assert_eq!(
                recognise(prefix.as_bytes(), &WORDS, false),
                Recognised::Not,
                "{prefix:?}"
            );
        }
    }
}
