//! Splits a reasoner's response into the five sections, incrementally.
//!
//! A section starts at a marker line (`ARCHITECTURE:` and friends, also written as a
//! Markdown heading or in bold) and runs to the next marker. Markers inside code fences
//! are content. Fed in chunks split anywhere, the parser gives exactly what one pass over
//! the whole text gives; the workbench uses [`SectionParser::growing`] to fill tabs live.

use crate::design::{Artifacts, Section};

/// Where each section's text lies in the input: runs of bytes between markers.
/// Lines are classified as they complete; text between two markers is never copied
/// until someone asks for it, so the parser costs one newline scan and a first-byte
/// check per line.
#[derive(Debug, Default, Clone)]
struct Scanner {
    /// Closed runs `(section, start, end)` in input order.
    runs: Vec<(Section, usize, usize)>,
    current: Option<Section>,
    /// Where the current section's open run starts.
    run_start: usize,
    fence: Option<Fence>,
}

impl Scanner {
    /// Classifies the lines completed by the newlines in `bytes[from..]`, the first
    /// of which starts at `line_start`; returns where the unfinished last line starts.
    fn scan(&mut self, bytes: &[u8], mut line_start: usize, from: usize) -> usize {
        for nl in memchr::memchr_iter(b'\n', &bytes[from..]) {
            let end = from + nl + 1;
            self.line(bytes, line_start, end);
            line_start = end;
        }
        line_start
    }

    fn line(&mut self, bytes: &[u8], start: usize, end: usize) {
        let line = &bytes[start..end];
        // Markers and fences may be indented by up to three spaces; most lines are
        // dismissed by their first visible byte.
        let indent = line.iter().take(4).take_while(|b| **b == b' ').count();
        let Some(&first) = line.get(indent) else {
            return;
        };
        if indent > 3 || !INTERESTING[first as usize] {
            return;
        }
        if let Some(fence) = self.fence {
            if first == fence.byte && closes_fence(line, fence) {
                self.fence = None;
            }
            return;
        }
        if let Some(fence) = opens_fence(line) {
            self.fence = Some(fence);
            return;
        }
        if let Some((section, rest)) = marker(line) {
            self.close(start);
            self.current = Some(section);
            self.run_start = end - rest.len();
        }
    }

    fn close(&mut self, at: usize) {
        if let Some(section) = self.current
            && at > self.run_start
        {
            self.runs.push((section, self.run_start, at));
        }
    }

    /// The byte ranges of `section` up to `upto`, in order.
    fn ranges(&self, section: Section, upto: usize) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = self
            .runs
            .iter()
            .filter(|(s, _, _)| *s == section)
            .map(|&(_, a, b)| (a, b))
            .collect();
        if self.current == Some(section) && upto > self.run_start {
            out.push((self.run_start, upto));
        }
        out
    }

    /// Treats `text[tail..]` as a last line and returns the trimmed sections. Every run
    /// starts and ends next to an ASCII byte, so slicing `text` at them is always on a
    /// character boundary and nothing is validated twice.
    fn finish_text(mut self, text: &str, tail: usize) -> Artifacts {
        if tail < text.len() {
            self.line(text.as_bytes(), tail, text.len());
        }
        let mut out = Artifacts::default();
        for section in Section::ALL {
            let mut ranges = self.ranges(section, text.len());
            trim_ranges(text, &mut ranges);
            let mut joined = String::with_capacity(ranges.iter().map(|(a, b)| b - a).sum());
            for (a, b) in ranges {
                joined.push_str(&text[a..b]);
            }
            out.set(section, joined);
        }
        out
    }
}

/// Trims whitespace (as `str::trim` would on the joined text) off the front of the
/// first ranges and the back of the last ones, so the join copies only what stays.
fn trim_ranges(text: &str, ranges: &mut Vec<(usize, usize)>) {
    let mut first = 0;
    while first < ranges.len() {
        let (a, b) = ranges[first];
        let kept = text[a..b].trim_start().len();
        if kept > 0 {
            ranges[first].0 = b - kept;
            break;
        }
        first += 1;
    }
    ranges.drain(..first);
    while let Some(&(a, b)) = ranges.last() {
        let kept = text[a..b].trim_end().len();
        if kept > 0 {
            if let Some(last) = ranges.last_mut() {
                last.1 = a + kept;
            }
            break;
        }
        ranges.pop();
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fence {
    byte: u8,
    len: usize,
}

/// Bytes a marker or fence line can start with (after up to three spaces).
const INTERESTING: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b"#*ARFC`~";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// Incremental section parser. Text arrives as `&str` (as reasoner deltas do) or as
/// raw bytes split anywhere, even inside a character ([`SectionParser::feed_bytes`]).
#[derive(Debug, Default, Clone)]
pub struct SectionParser {
    /// Everything fed so far.
    input: String,
    /// Start of the unfinished last line.
    tail: usize,
    scanner: Scanner,
    /// The first bytes of a character split across byte chunks.
    carry: Vec<u8>,
}

impl SectionParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next piece of text; returns the section that is growing afterwards.
    pub fn feed(&mut self, chunk: &str) -> Option<Section> {
        let from = self.input.len();
        self.input.push_str(chunk);
        self.tail = self.scanner.scan(self.input.as_bytes(), self.tail, from);
        self.scanner.current
    }

    /// Feeds raw bytes: a character split across chunks is completed by the next one;
    /// invalid bytes become U+FFFD.
    pub fn feed_bytes(&mut self, chunk: &[u8]) -> Option<Section> {
        let owned;
        let mut bytes = chunk;
        if !self.carry.is_empty() {
            let mut joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(chunk);
            owned = joined;
            bytes = &owned;
        }
        loop {
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    self.feed(text);
                    break;
                }
                Err(e) => {
                    let (valid, rest) = bytes.split_at(e.valid_up_to());
                    self.feed(std::str::from_utf8(valid).unwrap_or_default());
                    match e.error_len() {
                        // Incomplete at the end: wait for the rest of the character.
                        None => {
                            self.carry.extend_from_slice(rest);
                            break;
                        }
                        Some(bad) => {
                            self.feed("\u{FFFD}");
                            bytes = &rest[bad..];
                        }
                    }
                }
            }
        }
        self.scanner.current
    }

    /// The section receiving text now, if any marker has been seen.
    pub fn growing(&self) -> Option<Section> {
        self.scanner.current
    }

    /// Complete lines of `section` so far, untrimmed.
    pub fn committed(&self, section: Section) -> String {
        let mut out = String::new();
        for (a, b) in self.scanner.ranges(section, self.tail) {
            out.push_str(&self.input[a..b]);
        }
        out
    }

    /// The unfinished last line (drawn live as a tail by the workbench).
    pub fn tail(&self) -> &str {
        &self.input[self.tail..]
    }

    /// Ends the input and returns the trimmed sections.
    pub fn finish(mut self) -> Artifacts {
        if !self.carry.is_empty() {
            // The stream ended inside a character.
            self.feed("\u{FFFD}");
        }
        self.scanner.finish_text(&self.input, self.tail)
    }
}

/// Parses a whole response in one pass, without copying it.
pub fn parse(text: &str) -> Artifacts {
    let mut scanner = Scanner::default();
    let tail = scanner.scan(text.as_bytes(), 0, 0);
    scanner.finish_text(text, tail)
}

fn strip_indent(line: &[u8], max: usize) -> Option<&[u8]> {
    let n = line.iter().take_while(|b| **b == b' ').count();
    (n <= max).then(|| &line[n..])
}

fn opens_fence(line: &[u8]) -> Option<Fence> {
    let body = strip_indent(line, 3)?;
    let byte = *body.first()?;
    if byte != b'`' && byte != b'~' {
        return None;
    }
    let len = body.iter().take_while(|b| **b == byte).count();
    if len < 3 {
        return None;
    }
    // A backtick fence's info string may not contain backticks.
    if byte == b'`' && body[len..].contains(&b'`') {
        return None;
    }
    Some(Fence { byte, len })
}

fn closes_fence(line: &[u8], fence: Fence) -> bool {
    let Some(body) = strip_indent(line, 3) else {
        return false;
    };
    let len = body.iter().take_while(|b| **b == fence.byte).count();
    len >= fence.len && body[len..].iter().all(|b| b.is_ascii_whitespace())
}

/// Recognises `MARKER:`, `## MARKER:`, `**MARKER:**`, `**MARKER**:` at the start of a
/// line and returns the section and the bytes after the marker.
fn marker(line: &[u8]) -> Option<(Section, &[u8])> {
    let mut rest = strip_indent(line, 3)?;
    let hashes = rest.iter().take_while(|b| **b == b'#').count();
    if hashes > 0 {
        if hashes > 6 {
            return None;
        }
        rest = &rest[hashes..];
        let spaces = rest.iter().take_while(|b| **b == b' ').count();
        if spaces == 0 {
            return None;
        }
        rest = &rest[spaces..];
    }
    let bold = rest.starts_with(b"**");
    if bold {
        rest = &rest[2..];
    }
    let first = *rest.first()?;
    if !matches!(first, b'A' | b'R' | b'F' | b'C') {
        return None;
    }
    let section = Section::ALL
        .into_iter()
        .find(|s| rest.starts_with(s.marker().as_bytes()))?;
    rest = &rest[section.marker().len()..];
    if bold && rest.starts_with(b"**:") {
        rest = &rest[3..];
    } else if rest.first() == Some(&b':') {
        rest = &rest[1..];
        if bold && rest.starts_with(b"**") {
            rest = &rest[2..];
        }
    } else {
        return None;
    }
    Some((section, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYNTHETIC: &str = "ARCHITECTURE:\nComponent A handles X.\nComponent B handles Y.\n\n\
        REQUIREMENTS:\nFUNCTIONAL:\n1. FR-01: The system must do X.\n\n\
        FILE_TREE:\nsrc/\n├── app/\n│   └── main.py\ntests/\n└── test_main.py\n\n\
        API_SPEC:\nModule: src/app/main.py\nFunctions:\n  run() -> None\n\n\
        CLASS_DIAGRAM:\nclassDiagram\n  App --> Runner\n";

    #[test]
    fn well_formed_response_fills_all_five() {
        let a = parse(SYNTHETIC);
        assert_eq!(
            a.architecture,
            "Component A handles X.\nComponent B handles Y."
        );
        assert_eq!(
            a.requirements,
            "FUNCTIONAL:\n1. FR-01: The system must do X."
        );
        assert!(a.file_tree.starts_with("src/\n├── app/"));
        assert_eq!(
            a.api_spec,
            "Module: src/app/main.py\nFunctions:\n  run() -> None"
        );
        assert_eq!(a.class_diagram, "classDiagram\n  App --> Runner");
    }

    #[test]
    fn missing_marker_leaves_section_empty() {
        let text = SYNTHETIC.replace("FILE_TREE:", "FILE TREE");
        let a = parse(&text);
        assert_eq!(a.file_tree, "");
        assert!(a.requirements.contains("FILE TREE"));
    }

    #[test]
    fn no_markers_means_all_empty() {
        assert!(parse("just some prose\nwith lines\n").is_empty());
    }

    #[test]
    fn headings_and_bold_are_markers() {
        let a = parse("## ARCHITECTURE:\nx\n**API_SPEC:**\ny\n**FILE_TREE**:\nz\n");
        assert_eq!(a.architecture, "x");
        assert_eq!(a.api_spec, "y");
        assert_eq!(a.file_tree, "z");
    }

    #[test]
    fn markers_inside_fences_are_content() {
        let a = parse("ARCHITECTURE:\n```\nREQUIREMENTS:\n```\nafter\n");
        assert_eq!(a.architecture, "```\nREQUIREMENTS:\n```\nafter");
        assert_eq!(a.requirements, "");
    }

    #[test]
    fn marker_mid_line_is_not_a_marker() {
        let a = parse("ARCHITECTURE:\nsee the API_SPEC: below\n");
        assert_eq!(a.architecture, "see the API_SPEC: below");
        assert_eq!(a.api_spec, "");
    }

    #[test]
    fn chunked_feed_equals_one_pass_and_reports_growth() {
        let bytes = SYNTHETIC.as_bytes();
        let mut p = SectionParser::new();
        let mut seen = Vec::new();
        for chunk in bytes.chunks(3) {
            if let Some(s) = p.feed_bytes(chunk)
                && seen.last() != Some(&s)
            {
                seen.push(s);
            }
        }
        assert_eq!(p.finish(), parse(SYNTHETIC));
        assert_eq!(seen, Section::ALL.to_vec());
    }
}
