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
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, Input, MatchKind};

use crate::design::marker::{Recognised, recognise};
use crate::design::{Artifacts, Section};

/// Below this many bytes of complete lines, looking at each line is cheaper than
/// starting a candidate search.
const BULK: usize = 4096;

/// Substrings that every line able to change the parse contains: a fence opener or
/// closer has three fence bytes in a row, a strict marker line has its word, and a
/// marker in another case is a heading (`# `) or bold (`**`).
static CANDIDATES: LazyLock<AhoCorasick> = LazyLock::new(|| {
    // Three bytes each, so the SIMD search keeps three-byte fingerprints; a heading or
    // bold line is found by the newline before it (the first line is looked at anyway).
    let mut patterns = vec![
        "```", "~~~", "\n# ", "\n##", "\n**", "\n #", "\n *", "  #", "  *",
    ];
    patterns.extend(Part::ALL.map(Part::marker));
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostFirst)
        .build(patterns)
        .unwrap_or_else(|_| unreachable!("fifteen short literal patterns always build"))
});

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
        if end - start >= BULK {
            self.scan_candidates(bytes, start, end);
        } else {
            self.scan_lines(bytes, start, end);
        }
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

    /// Looks only at the lines that contain a candidate substring; every other line is
    /// content whatever it says, and a SIMD multi-pattern search skips it at memory
    /// speed.
    fn scan_candidates(&mut self, bytes: &[u8], start: usize, end: usize) {
        let haystack = &bytes[..end];
        // The first line has no newline before it for the heading patterns to find.
        let first_end = memchr::memchr(b'\n', &bytes[start..end]).map_or(end, |i| start + i + 1);
        self.line(bytes, start, first_end);
        let mut pos = first_end;
        loop {
            // From the newline that ends the line before, so a heading right after a
            // line just looked at is found too.
            let from = if pos > start && bytes[pos - 1] == b'\n' {
                pos - 1
            } else {
                pos
            };
            let Some(hit) = CANDIDATES.find(Input::new(haystack).span(from..end)) else {
                break;
            };
            // A pattern that starts with the newline ending the line before.
            let at = if bytes[hit.start()] == b'\n' {
                hit.start() + 1
            } else {
                hit.start()
            };
            let line_start = memchr::memrchr(b'\n', &bytes[pos..at]).map_or(pos, |i| pos + i + 1);
            let from = hit.end().max(at);
            let line_end = memchr::memchr(b'\n', &bytes[from..end]).map_or(end, |i| from + i + 1);
            self.line(bytes, line_start, line_end);
            pos = line_end;
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

    /// Moves the text of every run in `text` (the buffer just scanned, all of it
    /// classified) into `out`, leaving the scanner ready for the next buffer.
    fn drain_into(&mut self, text: &str, out: &mut [String; PARTS]) {
        for (section, a, b) in self.runs.drain(..) {
            append_trimmed(&mut out[section.index()], &text[a..b]);
        }
        if let Some(section) = self.current
            && self.run_start < text.len()
        {
            append_trimmed(&mut out[section.index()], &text[self.run_start..]);
        }
        self.run_start = 0;
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

/// True when a line starting with `bytes` is content whatever follows: indented four
/// spaces or more, or its first visible byte starts no marker or fence. False also
/// when too few bytes have arrived to tell.
#[inline]
fn starts_plain(bytes: &[u8]) -> bool {
    let spaces = bytes.iter().take(4).take_while(|b| **b == b' ').count();
    spaces == 4 || bytes.get(spaces).is_some_and(|&b| !INTERESTING[b as usize])
}

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
    ///
    /// Inlined into callers for its first test: most deltas are a few bytes of plain
    /// lines, and for those the whole work is to check where lines start and append,
    /// so call overhead would be a large share of it.
    #[inline]
    pub fn feed(&mut self, chunk: &str) -> Option<Section> {
        if chunk.len() <= 16
            && let Some(into) = self.plain_delta(chunk)
        {
            return into.section();
        }
        self.feed_any(chunk).and_then(Part::section)
    }

    /// The fast path for a delta of at most 16 bytes that is plain text of the growing
    /// section: the line it continues (or starts) is plain and so is every line it
    /// starts. Then it is appended in one copy. `None` changes nothing, and the
    /// general path takes the delta.
    #[inline]
    fn plain_delta(&mut self, chunk: &str) -> Option<Part> {
        let bytes = chunk.as_bytes();
        let into = match self.line {
            LineState::Streaming { into, .. } => into,
            LineState::Start if self.held.is_empty() && starts_plain(bytes) => {
                self.scanner.current?
            }
            _ => return None,
        };
        let out = &mut self.out[into.index()];
        // An empty section drops leading white space: the general path does that.
        if out.is_empty() {
            return None;
        }
        let mut newlines = newline_mask(bytes);
        let mut last_start = None;
        while newlines != 0 {
            let start = newlines.trailing_zeros() as usize + 1;
            newlines &= newlines - 1;
            if start < bytes.len()
                && !starts_plain(&bytes[start..])
                && (newlines != 0 || !plain_prefix(&bytes[start..]))
            {
                if newlines != 0 {
                    return None;
                }
                // The last line might be a marker or fence, or too little of it has
                // come to tell: what precedes it is plain, and the line goes the
                // general way.
                out.push_str(&chunk[..start]);
                self.line = LineState::Start;
                self.feed_lines(&chunk[start..]);
                return self.scanner.current;
            }
            last_start = Some(start);
        }
        let base = out.len();
        out.push_str(chunk);
        self.line = match (last_start, self.line) {
            (Some(start), _) if start == bytes.len() => LineState::Start,
            (Some(start), _) => LineState::Streaming {
                into,
                from: base + start,
            },
            (None, LineState::Start) => LineState::Streaming { into, from: base },
            (None, line) => line,
        };
        Some(into)
    }

    fn feed_any(&mut self, chunk: &str) -> Option<Part> {
        if chunk.len() <= 32
            && let Some(into) = self.plain_line_continues(chunk)
        {
            return self.feed_plain(into, chunk);
        }
        if chunk.len() >= BULK {
            self.feed_bulk(chunk);
        } else {
            self.feed_lines(chunk);
        }
        self.scanner.current
    }

    /// The section a delta's text streams into without a closer look: the unfinished
    /// line is plain content, or a new line starts plainly (see [`starts_plain`]).
    #[inline]
    fn plain_line_continues(&self, chunk: &str) -> Option<Part> {
        match self.line {
            LineState::Streaming { into, .. } => Some(into),
            LineState::Start if self.held.is_empty() && starts_plain(chunk.as_bytes()) => {
                self.scanner.current
            }
            _ => None,
        }
    }

    /// The common case, kept lean: most deltas only extend a plain line of prose.
    fn feed_plain(&mut self, into: Part, mut rest: &str) -> Option<Part> {
        let out = &mut self.out[into.index()];
        if self.line == LineState::Start {
            self.line = LineState::Streaming {
                into,
                from: out.len(),
            };
        }
        loop {
            let Some(nl) = find_newline(rest) else {
                append_trimmed(out, rest);
                return Some(into);
            };
            append_trimmed(out, &rest[..=nl]);
            rest = &rest[nl + 1..];
            if starts_plain(rest.as_bytes()) {
                self.line = LineState::Streaming {
                    into,
                    from: out.len(),
                };
            } else {
                self.line = LineState::Start;
                self.feed_lines(rest);
                return self.scanner.current;
            }
        }
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

    /// A large piece: its complete lines go through the candidate search at once.
    fn feed_bulk(&mut self, chunk: &str) {
        let Some(first) = memchr::memchr(b'\n', chunk.as_bytes()) else {
            self.feed_lines(chunk);
            return;
        };
        self.feed_lines(&chunk[..=first]);
        let mut rest = &chunk[first + 1..];
        if let Some(last) = memchr::memrchr(b'\n', rest.as_bytes()) {
            take_lines(&mut self.scanner, &mut self.out, &rest[..=last]);
            rest = &rest[last + 1..];
        }
        self.feed_lines(rest);
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

/// Word-at-a-time constants for the newline searches below.
const ONES: u64 = u64::from_le_bytes([0x01; 8]);
const LOWS: u64 = u64::from_le_bytes([0x7f; 8]);
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
const NEWLINES: u64 = u64::from_le_bytes([b'\n'; 8]);

/// The newlines of a piece of at most 16 bytes as a bit mask (bit `i` for byte `i`),
/// read a word at a time rather than through a search routine's set-up.
#[inline]
fn newline_mask(bytes: &[u8]) -> u32 {
    // Exact per byte (no borrow crosses bytes): the high bit of each byte of the
    // result is set where the byte was a newline.
    let flags = |word: u64| {
        let x = word ^ NEWLINES;
        !(((x & LOWS) + LOWS) | x | LOWS)
    };
    // Gathers the eight high bits into the low byte.
    let gather = |flags: u64| ((flags >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
    let n = bytes.len();
    match (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        (Some(first), Some(last)) if n <= 16 => {
            gather(flags(u64::from_le_bytes(*first)))
                | gather(flags(u64::from_le_bytes(*last))) << (n - 8)
        }
        _ => bytes
            .iter()
            .take(16)
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .fold(0, |mask, (i, _)| mask | 1 << i),
    }
}

/// The first newline in a piece of a stream. Deltas are a few bytes, too short for a
/// SIMD search's dispatch and set-up to pay, so they are read a word at a time.
#[inline]
fn find_newline(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.len() > 32 {
        return memchr::memchr(b'\n', bytes);
    }
    let mut words = bytes.chunks_exact(8);
    let mut base = 0;
    for word in words.by_ref() {
        let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8])) ^ NEWLINES;
        // The lowest flagged byte is the first zero byte of `x`, the first newline.
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(base + zero.trailing_zeros() as usize / 8);
        }
        base += 8;
    }
    let rest = words.remainder();
    rest.iter().position(|b| *b == b'\n').map(|i| base + i)
}

/// Classifies `lines` (complete, or the input's last line) and moves their text into
/// the sections.
fn take_lines(scanner: &mut Scanner, out: &mut [String; PARTS], lines: &str) {
    scanner.scan(lines.as_bytes(), 0, lines.len());
    scanner.drain_into(lines, out);
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

    /// Both ways of finding marker and fence lines must agree line for line; small
    /// documents never reach the candidate search through the public API.
    fn scanned(text: &str, bulk: bool) -> (Vec<(Part, usize, usize)>, Option<Part>, usize) {
        let mut scanner = Scanner::default();
        if bulk {
            scanner.scan_candidates(text.as_bytes(), 0, text.len());
        } else {
            scanner.scan_lines(text.as_bytes(), 0, text.len());
        }
        (scanner.runs, scanner.current, scanner.run_start)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        #[test]
        fn candidate_search_equals_looking_at_every_line(
            lines in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("ARCHITECTURE:"),
                    proptest::strategy::Just("  ## REQUIREMENTS: x"),
                    proptest::strategy::Just("**FILE_TREE**:"),
                    proptest::strategy::Just("    API_SPEC:"),
                    proptest::strategy::Just("see CLASS_DIAGRAM: here"),
                    proptest::strategy::Just("```"),
                    proptest::strategy::Just("   ````rust"),
                    proptest::strategy::Just("~~~"),
                    proptest::strategy::Just("a ``` b"),
                    proptest::strategy::Just("`` ~~"),
                    proptest::strategy::Just("Component A"),
                    proptest::strategy::Just("## Architecture"),
                    proptest::strategy::Just("### 2. File tree:"),
                    proptest::strategy::Just("**Api spec**"),
                    proptest::strategy::Just("text ** bold # hash"),
                    proptest::strategy::Just("## Requirements notes"),
                    proptest::strategy::Just(""),
                ],
                0..60,
            ),
            trailing in proptest::bool::ANY,
        ) {
            let mut text = lines.join("\n");
            if trailing {
                text.push('\n');
            }
            proptest::prop_assert_eq!(scanned(&text, true), scanned(&text, false));
        }
    }

    proptest::proptest! {
        #[test]
        fn newline_mask_marks_every_newline(
            bytes in proptest::collection::vec(proptest::sample::select(b"a\n\x0b\x8a\xff".to_vec()), 0..=16)
        ) {
            let expected = bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .fold(0u32, |mask, (i, _)| mask | 1 << i);
            proptest::prop_assert_eq!(newline_mask(&bytes), expected);
        }

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

        #[test]
        fn word_search_finds_the_first_newline(text in "[a\n\u{e9}]{0,40}") {
            proptest::prop_assert_eq!(find_newline(&text), text.find('\n'));
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
