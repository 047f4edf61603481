//! Edit blocks: how an update cycle changes a section without writing it again.
//!
//! Under a section's marker the architect writes either the whole new section or
//! SEARCH/REPLACE blocks:
//!
//! ```text
//! API_SPEC:
//! <<<<<<< SEARCH
//!   add_task(name: str, due: str) -> int
//! =======
//!   add_task(name: str, due: date, priority: int = 0) -> int
//! >>>>>>> REPLACE
//! ```
//!
//! [`block`] reads blocks line by line as they stream, [`apply`] applies one block to a
//! section (pure, with typed failures), and [`stream`] ties both to the section parser
//! so a block changes the design the moment its `>>>>>>> REPLACE` line arrives.

pub mod apply;
pub(crate) mod block;
pub(crate) mod repair;
pub mod stream;
pub(crate) mod write;

use serde::{Deserialize, Serialize};

/// The three marker lines of an edit block (compared after trimming white space).
pub const SEARCH_MARKER: &str = "<<<<<<< SEARCH";
pub const DIVIDER: &str = "=======";
pub const REPLACE_MARKER: &str = ">>>>>>> REPLACE";

/// One complete edit block: find `search` in the section, put `replace` there.
/// Both are whole lines, each ending with a newline (a missing last one is allowed),
/// so an empty side has no lines and `"\n"` is one blank line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditBlock {
    pub search: String,
    pub replace: String,
}

impl EditBlock {
    pub fn new(search: impl Into<String>, replace: impl Into<String>) -> EditBlock {
        EditBlock {
            search: search.into(),
            replace: replace.into(),
        }
    }

    /// The block as the architect writes it, ending with a newline.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(self.search.len() + self.replace.len() + 48);
        out.push_str(SEARCH_MARKER);
        out.push('\n');
        let side = |out: &mut String, text: &str| {
            out.push_str(text);
            if !text.is_empty() && !text.ends_with('\n') {
                out.push('\n');
            }
        };
        side(&mut out, &self.search);
        out.push_str(DIVIDER);
        out.push('\n');
        side(&mut out, &self.replace);
        out.push_str(REPLACE_MARKER);
        out.push('\n');
        out
    }
}

/// Why a block did not apply. The reason text goes back to the architect in the
/// repair request and into the journal, so it says what to do differently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Failure {
    #[error("no match: the SEARCH text is not in the section")]
    NoMatch,
    #[error("ambiguous: the SEARCH text matches {matches} places; include more lines")]
    Ambiguous { matches: usize },
    /// The SEARCH text lies in settled text, which no cycle may change.
    #[error("settled")]
    Settled,
    /// The answer ended before the block's `>>>>>>> REPLACE` line.
    #[error("unterminated: the block has no `>>>>>>> REPLACE` line")]
    Unterminated,
}

impl Failure {
    /// The short code the journal records (`no_match`, `ambiguous`, `settled`, …).
    pub fn code(&self) -> &'static str {
        match self {
            Failure::NoMatch => "no_match",
            Failure::Ambiguous { .. } => "ambiguous",
            Failure::Settled => "settled",
            Failure::Unterminated => "unterminated",
        }
    }
}
