//! An update answer read as it streams: the section parser splits it, each section's
//! complete lines go to its [`BlockReader`], and each block is applied to that
//! section of the current design the moment its `>>>>>>> REPLACE` line arrives. Fed
//! in chunks split anywhere, the outcome equals one pass over the whole answer.

use std::ops::Range;

use crate::design::edit::apply::{Applied, PatchText};
use crate::design::edit::block::{BlockReader, Body, Pending, Step, terminated};
use crate::design::edit::{EditBlock, Failure, REPLACE_MARKER, SEARCH_MARKER};
use crate::design::parser::SectionParser;
use crate::design::{Artifacts, PerSection, Section};

/// Byte ranges of each section (in [`Section::ALL`] order) that no block may change.
pub type Settled = PerSection<Vec<Range<usize>>>;

/// One block and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockOutcome {
    pub block: EditBlock,
    pub result: Result<Applied, Failure>,
}

/// What the answer did to one section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SectionChange {
    /// Left out (or only white space): the section stays as it was.
    Kept,
    /// Written whole: this is the new section.
    Whole(String),
    /// Edit blocks: `text` is the section with every block that applied.
    Patched {
        text: String,
        blocks: Vec<BlockOutcome>,
    },
}

impl SectionChange {
    /// The blocks that did not apply.
    pub fn failures(&self) -> impl Iterator<Item = &BlockOutcome> {
        let blocks: &[BlockOutcome] = match self {
            SectionChange::Patched { blocks, .. } => blocks,
            _ => &[],
        };
        blocks.iter().filter(|b| b.result.is_err())
    }
}

/// The whole answer, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchOutcome {
    pub sections: PerSection<SectionChange>,
}

impl PatchOutcome {
    pub fn get(&self, section: Section) -> &SectionChange {
        &self.sections[section]
    }

    /// The design after the answer: `base` with whole sections replaced and the blocks
    /// that applied applied.
    pub fn artifacts(&self, base: &Artifacts) -> Artifacts {
        let mut out = base.clone();
        for section in Section::ALL {
            match self.get(section) {
                SectionChange::Kept => {}
                SectionChange::Whole(text) | SectionChange::Patched { text, .. } => {
                    out.set(section, text.clone());
                }
            }
        }
        out
    }

    /// True when every block of every section applied.
    pub fn clean(&self) -> bool {
        self.sections
            .iter()
            .all(|(_, s)| s.failures().next().is_none())
    }
}

/// One section while the answer streams.
#[derive(Debug, Clone, Default)]
struct Live {
    reader: BlockReader,
    /// The section with the blocks applied so far (from the first block on).
    patch: Option<PatchText>,
    blocks: Vec<BlockOutcome>,
    /// Bytes of the parser's committed text already read as lines.
    consumed: usize,
}

/// What the workbench draws for a section while the answer streams.
#[derive(Debug)]
pub enum LiveView<'a> {
    /// Nothing for this section yet: the current text stands.
    Untouched,
    /// Whole text streams in: draw the parser's committed lines and tail.
    Whole,
    /// Edit blocks: the section with the changes so far, and the half-written block.
    Blocks {
        patch: Option<&'a PatchText>,
        pending: Option<Pending<'a>>,
        applied: usize,
        failed: usize,
    },
}

/// Put before a fence line inside an edit block on its way to the section parser, so
/// that a SEARCH holding a fence's first line (```` ```mermaid ````) does not open a
/// fence that would swallow the markers after it. [`BlockReader`] takes it off.
pub const FENCE_ESCAPE: char = '\u{E000}';

/// Where the raw answer stands against edit blocks, seen before the section parser.
#[derive(Debug, Clone, Default)]
struct Raw {
    inside: bool,
    /// Outside a block: the start of the current line (enough to spot a marker).
    head: String,
    /// Inside a block: the current line, held until its newline.
    held: String,
}

/// Reads an update answer against the design it revises.
#[derive(Debug, Clone)]
pub struct PatchStream {
    parser: SectionParser,
    base: Artifacts,
    settled: Settled,
    live: PerSection<Live>,
    raw: Raw,
}

fn is_fence_line(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

impl PatchStream {
    pub fn new(base: Artifacts) -> PatchStream {
        PatchStream::with_settled(base, Settled::default())
    }

    /// `settled` holds, per section, byte ranges of `base` no block may change.
    pub fn with_settled(base: Artifacts, settled: Settled) -> PatchStream {
        PatchStream {
            parser: SectionParser::new(),
            base,
            settled,
            live: Default::default(),
            raw: Raw::default(),
        }
    }

    /// Reads a whole answer in one pass.
    pub fn read(base: Artifacts, settled: Settled, text: &str) -> PatchOutcome {
        let mut stream = PatchStream::with_settled(base, settled);
        stream.feed(text);
        stream.finish()
    }

    /// Feeds the next piece of the answer; returns the section being written.
    pub fn feed(&mut self, chunk: &str) -> Option<Section> {
        let mut rest = chunk;
        while !rest.is_empty() {
            let newline = rest.find('\n');
            let (line, after) = match newline {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, ""),
            };
            if self.raw.inside {
                self.raw.held.push_str(line);
                if newline.is_some() {
                    let held = std::mem::take(&mut self.raw.held);
                    self.raw.inside = held.trim() != REPLACE_MARKER;
                    self.pass_held(&held);
                    self.parser.feed("\n");
                }
            } else {
                // Outside blocks text streams straight on; only a line's start is kept.
                if self.raw.head.len() < 64 {
                    let room = 64 - self.raw.head.len();
                    let mut cut = line.len().min(room);
                    while !line.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    self.raw.head.push_str(&line[..cut]);
                }
                self.parser
                    .feed(&rest[..newline.map_or(rest.len(), |i| i + 1)]);
                if newline.is_some() {
                    self.raw.inside = self.raw.head.trim() == SEARCH_MARKER;
                    self.raw.head.clear();
                }
            }
            rest = after;
        }
        for section in Section::ALL {
            self.pull(section);
        }
        self.parser.growing()
    }

    /// A complete line inside a block, escaped if it looks like a fence.
    fn pass_held(&mut self, line: &str) {
        if is_fence_line(line) {
            let mut escaped = String::with_capacity(line.len() + 3);
            escaped.push(FENCE_ESCAPE);
            escaped.push_str(line);
            self.parser.feed(&escaped);
        } else {
            self.parser.feed(line);
        }
    }

    /// The section being written, if any marker has been seen.
    pub fn growing(&self) -> Option<Section> {
        self.parser.growing()
    }

    /// The parser underneath, for whole sections streaming as today.
    pub fn parser(&self) -> &SectionParser {
        &self.parser
    }

    /// The design being revised.
    pub fn base(&self) -> &Artifacts {
        &self.base
    }

    /// The settled ranges blocks may not touch.
    pub fn settled(&self) -> &Settled {
        &self.settled
    }

    pub fn view(&self, section: Section) -> LiveView<'_> {
        let live = &self.live[section];
        match live.reader.body() {
            Body::Empty => LiveView::Untouched,
            Body::Whole => LiveView::Whole,
            Body::Blocks => LiveView::Blocks {
                patch: live.patch.as_ref(),
                pending: live.reader.pending(),
                applied: live.blocks.iter().filter(|b| b.result.is_ok()).count(),
                failed: live.blocks.iter().filter(|b| b.result.is_err()).count(),
            },
        }
    }

    /// How many blocks of `section` are complete so far.
    pub fn blocks(&self, section: Section) -> usize {
        self.live[section].blocks.len()
    }

    /// The first line the last applied block of `section` wrote.
    pub fn last_applied(&self, section: Section) -> Option<usize> {
        self.live[section]
            .blocks
            .iter()
            .rev()
            .find_map(|b| b.result.as_ref().ok().map(|a| a.at))
    }

    /// Reads the complete lines `section` gained since the last call.
    fn pull(&mut self, section: Section) {
        let committed = self.parser.committed(section);
        let from = self.live[section].consumed;
        if committed.len() <= from {
            return;
        }
        let fresh = &committed[from..];
        let Some(last_newline) = fresh.rfind('\n') else {
            return;
        };
        let complete = &fresh[..last_newline];
        self.live[section].consumed = from + last_newline + 1;
        for line in complete.split('\n') {
            step(
                &mut self.live[section],
                line,
                self.base.get(section),
                &self.settled[section],
            );
        }
    }

    /// Ends the answer. A block still open at the end fails as unterminated.
    pub fn finish(mut self) -> PatchOutcome {
        let held = std::mem::take(&mut self.raw.held);
        if !held.is_empty() {
            self.pass_held(&held);
        }
        let parser = std::mem::take(&mut self.parser);
        let finished = parser.finish();
        let sections = PerSection::from_fn(|section| {
            let text = finished.get(section);
            let live = &mut self.live[section];
            if let Some(rest) = text.get(live.consumed..)
                && !rest.is_empty()
            {
                for line in rest.split('\n') {
                    step(live, line, self.base.get(section), &self.settled[section]);
                }
            }
            match live.reader.body() {
                Body::Empty => SectionChange::Kept,
                // A whole section never keeps an escape (one that quoted a block).
                Body::Whole => SectionChange::Whole(text.replace(FENCE_ESCAPE, "")),
                Body::Blocks => {
                    if let Some(pending) = live.reader.pending() {
                        live.blocks.push(BlockOutcome {
                            block: EditBlock {
                                search: terminated(pending.search),
                                replace: pending.replace.map(terminated).unwrap_or_default(),
                            },
                            result: Err(Failure::Unterminated),
                        });
                    }
                    let patched = match &live.patch {
                        Some(patch) => patch.text(),
                        None => self.base.get(section).to_string(),
                    };
                    SectionChange::Patched {
                        text: patched.trim().to_string(),
                        blocks: std::mem::take(&mut live.blocks),
                    }
                }
            }
        });
        PatchOutcome { sections }
    }
}

/// One complete line of a section.
fn step(live: &mut Live, line: &str, base: &str, settled: &[Range<usize>]) {
    match live.reader.line(line) {
        Step::Nothing => {}
        Step::Complete(block) => {
            let patch = live
                .patch
                .get_or_insert_with(|| PatchText::with_settled(base, settled));
            let result = patch.apply(&block);
            live.blocks.push(BlockOutcome { block, result });
        }
        Step::BecameWhole => {
            live.patch = None;
            live.blocks.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Artifacts {
        Artifacts {
            architecture: "# Arch\n\n## Open questions\n\n1. Schema?".into(),
            requirements: "FR-01: add".into(),
            file_tree: "src/\n  a.py".into(),
            api_spec: "Module: a\n  add_task(name: str, due: str) -> int".into(),
            class_diagram: "classDiagram\n  class A".into(),
        }
    }

    const ANSWER: &str = "API_SPEC:\n<<<<<<< SEARCH\n  add_task(name: str, due: str) -> int\n=======\n  add_task(name: str, due: date, priority: int = 0) -> int\n>>>>>>> REPLACE\n\nREQUIREMENTS:\nFR-01: add\nFR-02: list\n";

    #[test]
    fn left_out_sections_stay_patched_ones_change_whole_ones_replace() {
        let out = PatchStream::read(base(), Settled::default(), ANSWER);
        assert_eq!(out.get(Section::Architecture), &SectionChange::Kept);
        assert_eq!(
            out.get(Section::Requirements),
            &SectionChange::Whole("FR-01: add\nFR-02: list".into())
        );
        let design = out.artifacts(&base());
        assert_eq!(
            design.api_spec,
            "Module: a\n  add_task(name: str, due: date, priority: int = 0) -> int"
        );
        assert_eq!(design.class_diagram, base().class_diagram);
        assert!(out.clean());
    }

    #[test]
    fn a_block_applies_when_its_replace_line_arrives_and_a_half_block_is_pending() {
        let mut stream = PatchStream::new(base());
        let cut = ANSWER.find(">>>>>>> REPLACE").unwrap();
        stream.feed(&ANSWER[..cut]);
        match stream.view(Section::ApiSpec) {
            LiveView::Blocks {
                patch: None,
                pending: Some(p),
                ..
            } => assert_eq!(p.replace.map(<[String]>::len), Some(1)),
            other => panic!("{other:?}"),
        }
        stream.feed(">>>>>>> REPLACE\n");
        match stream.view(Section::ApiSpec) {
            LiveView::Blocks {
                patch: Some(p),
                pending: None,
                applied: 1,
                ..
            } => assert!(p.text().contains("priority")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_unterminated_block_fails_and_is_never_applied() {
        let text = "FILE_TREE:\n<<<<<<< SEARCH\n  a.py\n=======\n  b.py\n";
        let out = PatchStream::read(base(), Settled::default(), text);
        let failures: Vec<_> = out.get(Section::FileTree).failures().collect();
        assert_eq!(failures[0].result, Err(Failure::Unterminated));
        assert_eq!(out.artifacts(&base()).file_tree, base().file_tree);
    }
}

#[cfg(test)]
mod fence_tests {
    use super::*;

    /// A block whose SEARCH holds a fence's first line must not open a fence in the
    /// section parser: the markers after it still start their sections.
    #[test]
    fn a_fence_line_inside_a_block_does_not_swallow_the_next_section() {
        let base = Artifacts {
            class_diagram: "```mermaid\nclassDiagram\n  A --> B\n```".into(),
            api_spec: "run() -> str".into(),
            ..Artifacts::default()
        };
        let answer = "CLASS_DIAGRAM:\n<<<<<<< SEARCH\n```mermaid\nclassDiagram\n=======\n```mermaid\nclassDiagram\n  class C\n>>>>>>> REPLACE\n\nAPI_SPEC:\n<<<<<<< SEARCH\nrun() -> str\n=======\nrun() -> int\n>>>>>>> REPLACE\n";
        for cut in 0..answer.len() {
            if !answer.is_char_boundary(cut) {
                continue;
            }
            let mut stream = PatchStream::new(base.clone());
            stream.feed(&answer[..cut]);
            stream.feed(&answer[cut..]);
            let design = stream.finish().artifacts(&base);
            assert_eq!(
                design.class_diagram, "```mermaid\nclassDiagram\n  class C\n  A --> B\n```",
                "cut at {cut}"
            );
            assert_eq!(design.api_spec, "run() -> int", "cut at {cut}");
        }
    }
}
