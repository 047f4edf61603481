//! What the design compiler reports: a stable code per rule, its severity, and the
//! artifact, line and column it points at.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::design::{Artifacts, Section};
use crate::plan::Severity;
use crate::plan::diagnostic::{LineIndex, rule_codes};
use crate::plan::render::Finding;

rule_codes! {
    #[doc = "One rule of the design compiler. A `D0nn` id never changes meaning: the repair prompt, the reviewer and scripts rely on it."]
    DiagramSyntax = "D001", Error, "the class diagram parses as a Mermaid classDiagram";
    EmptyArtifact = "D002", Error, "every artifact is present and not empty";
    DuplicateRequirement = "D010", Error, "each requirement id is defined once";
    UnknownRequirement = "D011", Error, "cited requirement ids are defined in the requirements";
    UntracedRequirement = "D012", Warning, "every functional requirement is cited by another artifact";
    UnknownDecision = "D013", Error, "cited ADR ids are defined in the architecture";
    ModuleWithoutFile = "D020", Error, "every API module has a file in the file tree";
    FileWithoutApi = "D021", Warning, "every source file in the tree has an entry in the API spec";
    ModuleWithoutTest = "D022", Warning, "every source module has a test file in the tree";
    PathOutsideProject = "D023", Error, "every file tree path stays inside the project (no absolute path, no `~`, no `..` above the root)";
    ClassNotInApi = "D030", Error, "every class in the diagram is defined in the API spec";
    ClassNotInDiagram = "D031", Warning, "every API class appears in the class diagram";
    DiagramContradictsApi = "D032", Warning, "diagram members and relationships agree with the API spec";
    UnspecifiedType = "D033", Warning, "every type an API signature or diagram member uses is specified in the design or is the language's own";
    RouteMismatch = "D034", Warning, "the OpenAPI `paths:` and the routes the API spec's handlers bind agree";
    UnassumedQuestion = "D040", Warning, "every open question states the answer assumed meanwhile";
    UnresolvedConflict = "D050", Error, "no conflict between a reviewer's edit and the architect's revision is left unresolved";
}

impl Code {
    pub fn from_id(id: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.id() == id)
    }

    /// The artifacts besides the finding's own that a fix may rightly change: a class
    /// drawn but not specified (D030) is fixed as often in the API spec as in the
    /// diagram, an undefined id (D011) in the requirements. A repair pass of the design
    /// compiler asks for these too, so it never refuses the natural fix.
    pub fn fixed_in(self) -> &'static [Section] {
        use Section::*;
        match self {
            Code::DiagramSyntax | Code::EmptyArtifact | Code::UnassumedQuestion => &[],
            Code::UnresolvedConflict | Code::PathOutsideProject | Code::RouteMismatch => &[],
            Code::DuplicateRequirement | Code::UnknownRequirement | Code::UntracedRequirement => {
                &[Requirements, Architecture, ApiSpec]
            }
            Code::UnknownDecision => &[Architecture],
            Code::ModuleWithoutFile | Code::FileWithoutApi | Code::ModuleWithoutTest => {
                &[FileTree, ApiSpec]
            }
            Code::ClassNotInApi
            | Code::ClassNotInDiagram
            | Code::DiagramContradictsApi
            | Code::UnspecifiedType => &[ApiSpec, ClassDiagram],
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = String::deserialize(d)?;
        Code::from_id(&id).ok_or_else(|| serde::de::Error::custom(format!("unknown code {id}")))
    }
}

/// One finding. The serialized form is the contract of `volk lint --format json` and
/// of `design_review.payload.diagnostics`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    pub artifact: Section,
    /// The artifact's file (`design/api_spec.md`, or the path `volk lint` read).
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// Byte range in the artifact's text.
    #[serde(skip)]
    pub span: Range<usize>,
    /// Extra lines under the snippet ("first defined on line 3").
    #[serde(skip)]
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(
        code: Code,
        section: Section,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: code.severity(),
            code,
            message: message.into(),
            artifact: section,
            file: format!("design/{}", section.file_name()),
            line: 0,
            column: 0,
            span,
            notes: Vec::new(),
        }
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `error[D011] design/api_spec.md:12:5: …`, for logs and the repair prompt.
    pub fn one_line(&self) -> String {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        format!(
            "{severity}[{}] {}:{}:{}: {}",
            self.code, self.file, self.line, self.column, self.message
        )
    }
}

impl Finding for Diagnostic {
    fn severity(&self) -> Severity {
        self.severity
    }

    fn code_id(&self) -> &'static str {
        self.code.id()
    }

    fn rule(&self) -> &'static str {
        self.code.title()
    }

    fn message(&self) -> &str {
        &self.message
    }

    fn primary(&self) -> Range<usize> {
        self.span.clone()
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn one_line(&self) -> String {
        Diagnostic::one_line(self)
    }
}

/// Fills in line and column from the spans, one line index per artifact.
pub fn locate(artifacts: &Artifacts, diags: &mut [Diagnostic]) {
    for section in Section::ALL {
        if !diags.iter().any(|d| d.artifact == section) {
            continue;
        }
        let index = LineIndex::new(artifacts.get(section));
        for d in diags.iter_mut().filter(|d| d.artifact == section) {
            (d.line, d.column) = index.locate(d.span.start);
        }
    }
}
