//! Splits a reasoner's response into the five sections, incrementally.
//!
//! An update answer may end with a sixth part, `CHANGES:`, the architect's account of
//! what it changed and why ([`crate::design::changes`]). It is found by the same rules
//! as the artifact markers, so it never leaks into the class diagram, and it is never
//! an artifact: [`Reply::changes`] carries it, [`Artifacts`] never does.
//!
//! A section starts at a marker line (`ARCHITECTURE:` and friends, also written as a
//! Markdown heading or in bold, in any case: [`crate::design::marker`]) and runs to
//! the next marker. Markers inside code fences
//! are content. Fed in chunks split anywhere, the parser gives exactly what one pass over
//! the whole text gives; the workbench uses [`SectionParser::growing`] to fill tabs live.

use std::borrow::Cow;

use crate::design::marker::{Recognised, recognise};
use crate::design::{Artifacts, Section};

/// The marker word of the architect's list of changes, without the colon.
pub const CHANGES_MARKER: &str = "CHANGES";

/// What a marker line opens: one of the five artifacts, or the list of changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Artifact(Section),
    Changes,
}

/// The five artifacts and the list of changes.
const PARTS: usize = 6;

impl Part {
    const ALL: [Part; PARTS] = [
        Part::Artifact(Section::Architecture),
        Part::Artifact(Section::Requirements),
        Part::Artifact(Section::FileTree),
        Part::Artifact(Section::ApiSpec),
        Part::Artifact(Section::ClassDiagram),
        Part::Changes,
    ];

    #[inline]
    fn index(self) -> usize {
        match self {
            Part::Artifact(section) => section.index(),
            Part::Changes => PARTS - 1,
        }
    }

    fn marker(self) -> &'static str {
        match self {
            Part::Artifact(section) => section.marker(),
            Part::Changes => CHANGES_MARKER,
        }
    }

    #[inline]
    fn section(self) -> Option<Section> {
        match self {
            Part::Artifact(section) => Some(section),
            Part::Changes => None,
        }
    }
}

/// A whole answer: the artifacts, and the list of changes when the answer had one
/// (`None`: no `CHANGES:` marker at all, which differs from an empty list).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub artifacts: Artifacts,
    pub changes: Option<String>,
}

/// Classifies lines and records where each section's text lies: runs of bytes between
/// markers. Text is never copied here, so the caller decides whether to borrow it
/// ([`sections`]) or move it into owned strings as it streams ([`SectionParser`]).
#[derive(Debug, Default, Clone)]
struct Scanner {
    /// Closed runs `(section, start, end)` in input order.
    runs: Vec<(Part, usize, usize)>,
    current: Option<Part>,
    /// Whether a `CHANGES:` marker was seen.
    changes_seen: bool,
    /// Where the current section's open run starts.
    run_start: usize,
    fence: Option<Fence>,
}

impl Scanner {
    /// Classifies the lines of `bytes[start..end]`. Every line but the last ends with a
    /// newline; the last one may not, when it ends the input.
    fn scan(&mut self, bytes: &[u8], start: usize, end: usize) {
        self.scan_lines(bytes, start, end);
    }

    /// Looks at every line: cheapest for the few lines a streamed delta completes.
    fn scan_lines(&mut self, bytes: &[u8], start: usize, end: usize) {
        let mut line_start = start;
        for nl in memchr::memchr_iter(b'\n', &bytes[start..end]) {
            let line_end = start + nl + 1;
            self.line(bytes, line_start, line_end);
            line_start = line_end;
        }
        if line_start < end {
            self.line(bytes, line_start, end);
        }
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
        if let Some((part, rest)) = marker(line) {
            self.close(start);
            self.changes_seen |= part == Part::Changes;
            self.current = Some(part);
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

    /// The trimmed sections of `text`, once every line of it has been classified.
    /// Every run starts and ends next to an ASCII byte, so slicing `text` at them is
    /// always on a character boundary.
    fn sections(self, text: &str) -> Sections<'_> {
        let parts = Part::ALL.map(|section| {
            let mut ranges: Vec<(usize, usize)> = self
                .runs
                .iter()
                .filter(|(s, _, _)| *s == section)
                .map(|&(_, a, b)| (a, b))
                .collect();
            if self.current == Some(section) && text.len() > self.run_start {
                ranges.push((self.run_start, text.len()));
            }
            trim_ranges(text, &mut ranges);
            match ranges.as_slice() {
                [] => Cow::Borrowed(""),
                &[(a, b)] => Cow::Borrowed(&text[a..b]),
                several => Cow::Owned(several.iter().map(|&(a, b)| &text[a..b]).collect()),
            }
        });
        Sections {
            parts,
            changes_seen: self.changes_seen,
        }
    }
}

/// Appends to a section, dropping white space while the section is still empty, so the
/// streamed result is trimmed at the front exactly as the joined text would be.
#[inline]
fn append_trimmed(out: &mut String, piece: &str) {
    if out.is_empty() {
        out.push_str(piece.trim_start());
    } else {
        out.push_str(piece);
    }
}

/// The five sections of a response, borrowed from it where a section is one stretch of
/// text (always, unless a model repeats a marker). Callers that only inspect the
/// sections pay no copy; [`Sections::into_artifacts`] makes them owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sections<'a> {
    parts: [Cow<'a, str>; PARTS],
    changes_seen: bool,
}

impl Sections<'_> {
    pub fn get(&self, section: Section) -> &str {
        &self.parts[section.index()]
    }

    /// The `CHANGES:` list, when the answer had that marker.
    pub fn changes(&self) -> Option<&str> {
        self.changes_seen
            .then(|| &*self.parts[Part::Changes.index()])
    }

    pub fn into_artifacts(self) -> Artifacts {
        self.into_reply().artifacts
    }

    pub fn into_reply(self) -> Reply {
        let changes_seen = self.changes_seen;
        let [a, b, c, d, e, changes] = self.parts.map(Cow::into_owned);
        Reply {
            artifacts: Artifacts::from([a, b, c, d, e]),
            changes: changes_seen.then_some(changes),
        }
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

/// True when a line that begins with `prefix` (its newline not yet come) is content
/// whatever follows: it can no longer turn out to be a fence line or a marker line.
/// A held line is released to stream as soon as this holds, usually after a few
/// bytes ("Client", "## Design", "**Note**" are settled by their second or third).
fn plain_prefix(prefix: &[u8]) -> bool {
    let Some(body) = strip_indent(prefix, 3) else {
        return true;
    };
    let Some(&first) = body.first() else {
        return false;
    };
    if first == b'`' || first == b'~' {
        // A fence line starts with three of them; fewer, then something else, is
        // neither a fence nor a marker.
        let run = body.iter().take_while(|b| **b == first).count();
        return run < 3 && run < body.len();
    }
    !could_be_marker(body)
}

/// Whether `body` (a line without its indent, perhaps unfinished) is the start of
/// something [`marker`] accepts.
fn could_be_marker(body: &[u8]) -> bool {
    recognise(body, &Part::ALL.map(Part::marker), false) != Recognised::Not
}

/// Incremental section parser. Text arrives as `&str` (as reasoner deltas do) or as
/// raw bytes split anywhere, even inside a character ([`SectionParser::feed_bytes`]).
///
/// Each byte is copied once, into its section: a line whose first visible byte cannot
/// start a marker or fence streams straight there, and only the few lines that might
/// (and text before the first marker) wait in a line buffer for their newline. So
/// memory is the size of the result, and [`SectionParser::committed`] and
/// [`SectionParser::tail`] cost nothing.
#[derive(Debug, Default, Clone)]
pub struct SectionParser {
    scanner: Scanner,
    /// Each section's text so far, leading white space dropped.
    out: [String; PARTS],
    line: LineState,
    /// The unfinished line while it is held: up to three spaces while `Start`, the
    /// whole line while `Held`.
    held: String,
    /// The first bytes of a character split across byte chunks.
    carry: Vec<u8>,
}

/// Where the unfinished last line is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum LineState {
    /// Its first visible byte has not arrived yet; its indent is in `held`.
    #[default]
    Start,
    /// It might be a marker or fence (or precedes any marker): it waits in `held`.
    Held,
    /// Plain content of the growing section, streaming into it from this offset.
    Streaming { into: Part, from: usize },
}

impl SectionParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next piece of text; returns the section that is growing afterwards.
    pub fn feed(&mut self, chunk: &str) -> Option<Section> {
        self.feed_any(chunk).and_then(Part::section)
    }

    fn feed_any(&mut self, chunk: &str) -> Option<Part> {
        self.feed_lines(chunk);
        self.scanner.current
    }

    /// Moves a delta into place line by line, deciding each line's fate from its
    /// first visible byte.
    fn feed_lines(&mut self, mut rest: &str) {
        while !rest.is_empty() {
            match self.line {
                LineState::Streaming { into, .. } => {
                    let out = &mut self.out[into.index()];
                    match find_newline(rest) {
                        Some(nl) => {
                            append_trimmed(out, &rest[..=nl]);
                            rest = &rest[nl + 1..];
                            self.line = LineState::Start;
                        }
                        None => {
                            append_trimmed(out, rest);
                            return;
                        }
                    }
                }
                LineState::Held => match find_newline(rest) {
                    Some(nl) => {
                        self.held.push_str(&rest[..=nl]);
                        take_line(&mut self.scanner, &mut self.out, &self.held);
                        self.held.clear();
                        rest = &rest[nl + 1..];
                        self.line = LineState::Start;
                    }
                    None => {
                        self.held.push_str(rest);
                        self.release_held();
                        return;
                    }
                },
                LineState::Start => {
                    let room = 4 - self.held.len();
                    let spaces = match rest.as_bytes() {
                        [b' ', ..] => rest.bytes().take(room).take_while(|b| *b == b' ').count(),
                        _ => 0,
                    };
                    let Some(&first) = rest.as_bytes().get(spaces) else {
                        self.held.push_str(rest);
                        return;
                    };
                    let plain = spaces == room || !INTERESTING[first as usize];
                    self.line = match self.scanner.current {
                        Some(current) if plain => {
                            let out = &mut self.out[current.index()];
                            let from = out.len();
                            if !self.held.is_empty() {
                                append_trimmed(out, &self.held);
                                self.held.clear();
                            }
                            LineState::Streaming {
                                into: current,
                                from,
                            }
                        }
                        _ => LineState::Held,
                    };
                }
            }
        }
    }

    /// Lets a held line stream once it is known to be plain content of a section.
    fn release_held(&mut self) {
        if let Some(into) = self.scanner.current
            && plain_prefix(self.held.as_bytes())
        {
            let out = &mut self.out[into.index()];
            let from = out.len();
            append_trimmed(out, &self.held);
            self.held.clear();
            self.line = LineState::Streaming { into, from };
        }
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
        self.growing()
    }

    /// The section receiving text now, if any marker has been seen (`None` too while
    /// the list of changes is written).
    pub fn growing(&self) -> Option<Section> {
        self.scanner.current.and_then(Part::section)
    }

    /// Complete lines of `section` so far; leading white space is dropped (as in the
    /// finished section), trailing white space is not yet.
    pub fn committed(&self, section: Section) -> &str {
        let text = &self.out[section.index()];
        match self.line {
            LineState::Streaming { into, from } if into == Part::Artifact(section) => &text[..from],
            _ => text,
        }
    }

    /// The unfinished last line (drawn live as a tail by the workbench).
    pub fn tail(&self) -> &str {
        match self.line {
            LineState::Streaming { into, from } => &self.out[into.index()][from..],
            _ => &self.held,
        }
    }

    /// Ends the input and returns the trimmed sections.
    pub fn finish(self) -> Artifacts {
        self.finish_reply().artifacts
    }

    /// Ends the input and returns the trimmed sections and the list of changes.
    pub fn finish_reply(mut self) -> Reply {
        if !self.carry.is_empty() {
            // The stream ended inside a character.
            self.feed("\u{FFFD}");
        }
        // A last line without a newline may still be a marker; a streaming one is
        // already in place.
        if !self.held.is_empty() {
            take_line(&mut self.scanner, &mut self.out, &self.held);
        }
        for text in &mut self.out {
            text.truncate(text.trim_end().len());
        }
        let [a, b, c, d, e, changes] = self.out;
        Reply {
            artifacts: Artifacts::from([a, b, c, d, e]),
            changes: self.scanner.changes_seen.then_some(changes),
        }
    }
}

/// The first newline in a piece of a stream.
fn find_newline(text: &str) -> Option<usize> {
    memchr::memchr(b'\n', text.as_bytes())
}

/// [`take_lines`] for a single line.
fn take_line(scanner: &mut Scanner, out: &mut [String; PARTS], line: &str) {
    scanner.line(line.as_bytes(), 0, line.len());
    // A single line closes no run of its own: a marker at its start closes at 0.
    debug_assert!(scanner.runs.is_empty());
    if let Some(section) = scanner.current
        && scanner.run_start < line.len()
    {
        append_trimmed(&mut out[section.index()], &line[scanner.run_start..]);
    }
    scanner.run_start = 0;
}

/// Finds the five sections of a whole response in one pass, without copying it.
pub fn sections(text: &str) -> Sections<'_> {
    let mut scanner = Scanner::default();
    scanner.scan(text.as_bytes(), 0, text.len());
    scanner.sections(text)
}

/// Parses a whole response in one pass into owned artifacts.
pub fn parse(text: &str) -> Artifacts {
    sections(text).into_artifacts()
}

/// Parses a whole response into the artifacts and the architect's list of changes.
pub fn parse_reply(text: &str) -> Reply {
    sections(text).into_reply()
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

/// The section a marker line opens (see [`crate::design::marker`] for the forms
/// accepted) and the bytes after the marker.
fn marker(line: &[u8]) -> Option<(Part, &[u8])> {
    match recognise(line, &Part::ALL.map(Part::marker), true) {
        Recognised::Marker { word, content } => Some((Part::ALL[word], &line[content..])),
        Recognised::Not | Recognised::Undecided => None,
    }
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
    fn headings_in_any_case_without_colon_are_markers() {
        let text = "Sure, here is the design.\n\n## ARCHITECTURE\nx\n### Requirements\n\
            1. FR-01: y\n**File tree:**\nsrc/\n## 4. API spec\nrun()\n# Class Diagram #\n\
            classDiagram\n## Architecture notes\n";
        let a = parse(text);
        assert_eq!(a.architecture, "x");
        assert_eq!(a.requirements, "1. FR-01: y");
        assert_eq!(a.file_tree, "src/");
        assert_eq!(a.api_spec, "run()");
        assert_eq!(a.class_diagram, "classDiagram\n## Architecture notes");
        let mut p = SectionParser::new();
        for chunk in text.as_bytes().chunks(2) {
            p.feed_bytes(chunk);
        }
        assert_eq!(p.finish(), a);
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
    }

    proptest::proptest! {
        /// Once `plain_prefix` releases a line, no ending of it is a marker or a
        /// fence line, inside a fence or not: streaming it early changes nothing.
        #[test]
        fn a_released_line_never_turns_special(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "ARCHITECTURE", "ARCH", "FILE_TREE", "FILE_", "API_SPEC", "CLASS_DIAGRAM",
                "REQUIREMENTS", "**", "*", ":", "#", "##", " ", "   ", "`", "```", "~", "x", "C",
                "Architecture", "arch", "File tree", "file-", "api spec", "1.", "2) ", "\r",
            ]), 0..7),
            cut in 0usize..64,
        ) {
            let text = pieces.concat();
            let cut = cut % (text.len() + 1);
            if plain_prefix(&text.as_bytes()[..cut]) {
                let line = format!("{text}\n");
                for fence in [None, Some(Fence { byte: b'`', len: 3 }), Some(Fence { byte: b'~', len: 4 })] {
                    let mut scanner = Scanner { current: Some(Part::Artifact(Section::ApiSpec)), fence, ..Scanner::default() };
                    scanner.line(line.as_bytes(), 0, line.len());
                    proptest::prop_assert_eq!(scanner.fence, fence, "{:?} cut at {}", text, cut);
                    proptest::prop_assert_eq!(scanner.current, Some(Part::Artifact(Section::ApiSpec)));
                    proptest::prop_assert_eq!(scanner.run_start, 0);
                }
            }
        }
    }

    #[test]
    fn changes_end_the_class_diagram_and_are_no_artifact() {
        let text = format!("{SYNTHETIC}\nCHANGES:\n- Q1.1 api_spec: added run()\n");
        let reply = parse_reply(&text);
        assert_eq!(reply.artifacts, parse(SYNTHETIC));
        assert_eq!(
            reply.changes.as_deref(),
            Some("- Q1.1 api_spec: added run()")
        );
        assert_eq!(parse_reply(SYNTHETIC).changes, None);
        // An empty list is a list: the architect said nothing changed.
        assert_eq!(
            parse_reply("ARCHITECTURE:\nx\n## CHANGES:\n")
                .changes
                .as_deref(),
            Some("")
        );
        // Inside a fence it is content.
        let fenced = parse_reply("ARCHITECTURE:\n```\nCHANGES:\n```\n");
        assert_eq!(fenced.changes, None);
        let mut p = SectionParser::new();
        for chunk in text.as_bytes().chunks(5) {
            p.feed_bytes(chunk);
        }
        assert_eq!(p.growing(), None, "the list of changes grows no tab");
        assert_eq!(p.finish_reply(), reply);
    }

    #[test]
    fn committed_text_streams_into_its_section() {
        let mut p = SectionParser::new();
        p.feed("intro\nAPI_SPEC:  \n\n  run() -> None\n  stop(");
        assert_eq!(p.committed(Section::ApiSpec), "run() -> None\n");
        assert_eq!(p.tail(), "  stop(");
        assert_eq!(p.committed(Section::Architecture), "");
        p.feed(") -> None\n\n");
        assert_eq!(p.finish().api_spec, "run() -> None\n  stop() -> None");
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
