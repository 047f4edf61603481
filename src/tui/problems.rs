//! The design compiler in the workbench: the diagnostics of the text on screen, kept
//! current as a cycle streams, and the jump from a finding (or a trace hit) to its
//! line. The compile runs in [`App::refresh_problems`], which the frame preparation
//! calls once per frame after the stream is synced, and only when some artifact's
//! lines changed since the last run; drawing only reads the result.

use std::time::{Duration, Instant};

use crate::design::lint::{Code, Diagnostic};
use crate::design::{PerSection, Section};
use crate::plan::Severity;

/// Errors and warnings of one artifact.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
}

impl Counts {
    pub fn is_empty(&self) -> bool {
        self.errors == 0 && self.warnings == 0
    }
}

/// The findings of the design on screen.
#[derive(Debug, Clone, Default)]
pub struct Problems {
    /// Errors first, then by artifact and position.
    pub diagnostics: Vec<Diagnostic>,
    counts: PerSection<Counts>,
    /// The documents' revisions the findings were computed from, and whether a
    /// call was streaming then (`None`: never).
    pub(crate) checked: Option<(PerSection<u64>, bool)>,
    /// How many times the compiler ran (for tests and the benchmark).
    pub runs: u64,
    /// When the last compile started and how long it took: a large design is
    /// compiled less often than every frame (see [`App::refresh_problems`]).
    pub(crate) last: Option<(Instant, Duration)>,
}

/// A design of at most this many lines (a compile of about 3 ms) is compiled on
/// every frame that brings new text. The gate is the size, not the time measured, so
/// what a small design shows never depends on the machine's load.
pub(crate) const LARGE: usize = 8_000;

/// A larger design waits until this many times its last compile's cost has passed,
/// so the compiler takes at most a fifth of the UI task however large the design.
pub(crate) const SPACING: u32 = 4;

impl Problems {
    pub fn counts(&self, section: Section) -> Counts {
        self.counts[section]
    }

    pub fn total(&self) -> Counts {
        self.counts
            .iter()
            .fold(Counts::default(), |a, (_, c)| Counts {
                errors: a.errors + c.errors,
                warnings: a.warnings + c.warnings,
            })
    }

    pub fn is_empty(&self) -> bool {
        self.diagnostics.is_empty()
    }

    pub(crate) fn set(&mut self, mut diagnostics: Vec<Diagnostic>) {
        diagnostics.sort_by_key(|d| {
            (
                d.severity != Severity::Error,
                d.artifact.index(),
                d.line,
                d.column,
            )
        });
        self.counts = PerSection::default();
        for d in &diagnostics {
            let c = &mut self.counts[d.artifact];
            match d.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
            }
        }
        self.diagnostics = diagnostics;
    }
}

/// Where a rule looks a name up: a finding of it means nothing until that section
/// has been written.
pub(crate) enum LooksUp {
    Nothing,
    Section(Section),
    /// Every other artifact (a requirement cited nowhere else, so far).
    Others,
}

pub(crate) fn looks_up(code: Code) -> LooksUp {
    match code {
        Code::UnknownRequirement => LooksUp::Section(Section::Requirements),
        Code::UnknownDecision => LooksUp::Section(Section::Architecture),
        Code::ModuleWithoutFile | Code::ModuleWithoutTest => LooksUp::Section(Section::FileTree),
        Code::FileWithoutApi | Code::ClassNotInApi | Code::DiagramContradictsApi => {
            LooksUp::Section(Section::ApiSpec)
        }
        Code::ClassNotInDiagram => LooksUp::Section(Section::ClassDiagram),
        Code::UntracedRequirement => LooksUp::Others,
        _ => LooksUp::Nothing,
    }
}
