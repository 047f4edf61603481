//! Reads one section's text, line by line as it streams, into edit blocks, and decides
//! what the section is: nothing, only edit blocks, or a whole new section.

use crate::design::edit::{DIVIDER, EditBlock, REPLACE_MARKER, SEARCH_MARKER};

/// What a section's text has turned out to be so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// Only white space so far: the section is kept as it is.
    Empty,
    /// Edit blocks and nothing else (white space and fence lines around them aside).
    Blocks,
    /// Any other text: the section is replaced whole.
    Whole,
}

/// Where the reader is inside a block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum Inside {
    #[default]
    Between,
    Search {
        search: Vec<String>,
    },
    Replace {
        search: Vec<String>,
        replace: Vec<String>,
    },
}

/// What one line did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Nothing,
    /// A block's `>>>>>>> REPLACE` line arrived: apply it now.
    Complete(EditBlock),
    /// The section turned out to be whole text: blocks applied so far are void.
    BecameWhole,
}

/// The half-written block, as the workbench shows it while it streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending<'a> {
    pub search: &'a [String],
    /// `None` until the `=======` line.
    pub replace: Option<&'a [String]>,
}

/// Incremental reader of one section's lines.
#[derive(Debug, Clone)]
pub struct BlockReader {
    body: Body,
    inside: Inside,
}

impl Default for BlockReader {
    fn default() -> Self {
        BlockReader {
            body: Body::Empty,
            inside: Inside::Between,
        }
    }
}

fn is(line: &str, marker: &str) -> bool {
    line.trim() == marker
}

/// A fence line around blocks (aider's models often wrap blocks in one): neither
/// content nor a block.
fn is_fence(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("```") || t.starts_with("~~~")
}

/// Lines as block text: each one ending with a newline.
pub fn terminated(lines: &[String]) -> String {
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

impl BlockReader {
    pub fn body(&self) -> Body {
        self.body
    }

    /// Takes one complete line (without its newline).
    pub fn line(&mut self, line: &str) -> Step {
        if self.body == Body::Whole {
            return Step::Nothing;
        }
        let line = line
            .strip_prefix(crate::design::edit::stream::FENCE_ESCAPE)
            .unwrap_or(line);
        match &mut self.inside {
            Inside::Between => {
                if is(line, SEARCH_MARKER) {
                    self.body = Body::Blocks;
                    self.inside = Inside::Search { search: Vec::new() };
                    Step::Nothing
                } else if line.trim().is_empty() || is_fence(line) {
                    // A fence may wrap edit blocks or open a whole fenced section (a
                    // class diagram): the lines inside tell.
                    Step::Nothing
                } else {
                    self.body = Body::Whole;
                    self.inside = Inside::Between;
                    Step::BecameWhole
                }
            }
            Inside::Search { search } => {
                if is(line, DIVIDER) {
                    let search = std::mem::take(search);
                    self.inside = Inside::Replace {
                        search,
                        replace: Vec::new(),
                    };
                } else {
                    search.push(line.to_string());
                }
                Step::Nothing
            }
            Inside::Replace { search, replace } => {
                if is(line, REPLACE_MARKER) {
                    let block = EditBlock {
                        search: terminated(search),
                        replace: terminated(replace),
                    };
                    self.inside = Inside::Between;
                    Step::Complete(block)
                } else {
                    replace.push(line.to_string());
                    Step::Nothing
                }
            }
        }
    }

    /// The block being written, if one is open.
    pub fn pending(&self) -> Option<Pending<'_>> {
        match &self.inside {
            Inside::Between => None,
            Inside::Search { search } => Some(Pending {
                search,
                replace: None,
            }),
            Inside::Replace { search, replace } => Some(Pending {
                search,
                replace: Some(replace),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (BlockReader, Vec<Step>) {
        let mut r = BlockReader::default();
        let steps = text.lines().map(|l| r.line(l)).collect();
        (r, steps)
    }

    #[test]
    fn blocks_complete_on_their_replace_line() {
        let (r, steps) = read(
            "<<<<<<< SEARCH\na\nb\n=======\nc\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n=======\nd\n",
        );
        assert_eq!(steps[5], Step::Complete(EditBlock::new("a\nb\n", "c\n")));
        assert_eq!(r.body(), Body::Blocks);
        let pending = r.pending().unwrap();
        assert!(pending.search.is_empty());
        assert_eq!(pending.replace.unwrap(), ["d".to_string()]);
    }

    #[test]
    fn other_text_makes_the_section_whole() {
        let (r, steps) = read("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\nA note\n");
        assert_eq!(steps[5], Step::BecameWhole);
        assert_eq!(r.body(), Body::Whole);
        let (r, _) = read("classDiagram\n  class A\n");
        assert_eq!(r.body(), Body::Whole);
    }

    #[test]
    fn white_space_only_is_empty_and_fenced_blocks_are_blocks() {
        assert_eq!(read("\n  \n").0.body(), Body::Empty);
        let (r, steps) = read("```text\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n");
        assert_eq!(r.body(), Body::Blocks);
        assert_eq!(steps[5], Step::Complete(EditBlock::new("a\n", "b\n")));
        let (r, _) = read("```mermaid\nclassDiagram\n```\n");
        assert_eq!(r.body(), Body::Whole);
    }
}
