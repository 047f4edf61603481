//! What is still open when the reviewer answers READY: the design compiler's errors,
//! edit conflicts left in the artifacts (D050), and threads the architect has not
//! addressed. A conflict stops READY unless forced; the rest travels with the
//! `implement` packet and the reflection prompt, and the person is told before
//! finalizing, so nothing broken is shipped without a word.

use serde_json::{Value, json};

use crate::design::lint::Diagnostic;
use crate::design::merge::conflict_lines;
use crate::volk::review::UNRESOLVED_CONFLICT;
use crate::volk::session::Session;
use crate::volk::threads::{Thread, ThreadStatus};

/// An edit conflict left in an artifact's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenConflict {
    /// The file in `design/` (`requirements.md`).
    pub file: String,
    /// 1-based line of the conflict's opening marker in that file.
    pub line: usize,
}

/// What READY would finalize unresolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenItems {
    /// Design-compiler errors other than conflicts.
    pub errors: usize,
    pub conflicts: Vec<OpenConflict>,
    /// Threads still waiting for the architect (open or unaddressed), by id.
    pub unaddressed: Vec<String>,
    /// Questions written in the workbench but not sent (the workbench counts them).
    pub drafts: usize,
}

impl OpenItems {
    /// Gathers what the session's design leaves open.
    pub fn gather(session: &Session) -> OpenItems {
        let linted = crate::volk::lint_step::check(&session.artifacts);
        OpenItems::of(&linted.diagnostics, &session.review.threads, 0)
    }

    /// What is open given the design compiler's findings on the design as written
    /// (D050 marks each conflict left), the threads, and the unsent draft questions.
    pub fn of(diagnostics: &[Diagnostic], threads: &[Thread], drafts: usize) -> OpenItems {
        let conflict = |d: &&Diagnostic| d.code.id() == UNRESOLVED_CONFLICT;
        OpenItems {
            errors: diagnostics
                .iter()
                .filter(|d| d.is_error() && !conflict(d))
                .count(),
            conflicts: diagnostics
                .iter()
                .filter(conflict)
                .map(|d| OpenConflict {
                    file: d.artifact.file_name().to_string(),
                    line: d.line,
                })
                .collect(),
            unaddressed: open_threads(threads).iter().map(|t| t.id.clone()).collect(),
            drafts,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.errors == 0
            && self.conflicts.is_empty()
            && self.unaddressed.is_empty()
            && self.drafts == 0
    }

    /// `2 errors · 1 unresolved edit conflict (D050) · 6 unaddressed threads`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.errors > 0 {
            parts.push(counted(self.errors, "error", "errors"));
        }
        if !self.conflicts.is_empty() {
            parts.push(format!(
                "{} ({UNRESOLVED_CONFLICT})",
                counted(
                    self.conflicts.len(),
                    "unresolved edit conflict",
                    "unresolved edit conflicts"
                )
            ));
        }
        if !self.unaddressed.is_empty() {
            parts.push(counted(
                self.unaddressed.len(),
                "unaddressed thread",
                "unaddressed threads",
            ));
        }
        if self.drafts > 0 {
            parts.push(counted(
                self.drafts,
                "unsent draft question",
                "unsent draft questions",
            ));
        }
        parts.join(" · ")
    }

    /// The journal's record of what READY left open.
    pub fn detail(&self) -> Value {
        json!({
            "errors": self.errors,
            "conflicts": self.conflicts.iter().map(|c| json!({ "file": c.file, "line": c.line })).collect::<Vec<_>>(),
            "unaddressed_threads": self.unaddressed,
        })
    }
}

/// The conflicts left in the files of `design/` as they are now (a hand edit may
/// have added or resolved some): lines are those of the files. An unreadable file
/// has none.
pub fn conflicts_on_disk(project_dir: &std::path::Path) -> Vec<OpenConflict> {
    let dir = project_dir.join("design");
    let mut out = Vec::new();
    for section in crate::design::Section::ALL {
        let file = section.file_name();
        let Ok(text) = std::fs::read_to_string(dir.join(file)) else {
            continue;
        };
        for line in conflict_lines(&text) {
            out.push(OpenConflict {
                file: file.to_string(),
                line,
            });
        }
    }
    out
}

fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The threads still waiting for the architect, in the order they were asked.
pub fn open_threads(threads: &[Thread]) -> Vec<Thread> {
    threads
        .iter()
        .filter(|t| matches!(t.status, ThreadStatus::Open | ThreadStatus::Unaddressed))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_each_kind_once_with_its_count() {
        let open = OpenItems {
            errors: 2,
            conflicts: vec![OpenConflict {
                file: "requirements.md".into(),
                line: 3,
            }],
            unaddressed: (1..=6).map(|i| format!("Q1.{i}")).collect(),
            drafts: 0,
        };
        assert_eq!(
            open.summary(),
            "2 errors · 1 unresolved edit conflict (D050) · 6 unaddressed threads"
        );
        assert!(OpenItems::default().is_empty());
        assert_eq!(OpenItems::default().summary(), "");
    }
}
