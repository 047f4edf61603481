//! The design model: what the five artifacts say, read from their text with the place
//! of every item, so rules can check one artifact against another and point at the
//! line. Reading never fails: a loosely written artifact yields what can be
//! recognised.

pub mod api;
pub mod ids;
pub mod mermaid;
pub mod names;
pub mod text;
pub mod tree;

use std::ops::Range;

use crate::design::questions::open_question_items;
use crate::design::{Artifacts, Section};

pub use api::{ApiClass, ApiModule, ApiSpec, Signature};
pub use ids::{Id, IdAt, IdKind};
pub use mermaid::{ClassDiagram, DiagramClass, Member, MemberKind, Relation, RelationKind};
pub use tree::{FileTree, TreeEntry};

use text::{content_start, heading_level, lines, lines_containing};

/// A requirement as the requirements artifact defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub id: Id,
    /// The id as written (`FR-1`).
    pub written: String,
    /// The rest of the line.
    pub text: String,
    pub span: Range<usize>,
}

/// An ADR as the architecture defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub id: Id,
    pub title: String,
    pub span: Range<usize>,
}

/// An id used anywhere other than where it is defined; the text at `span` is the id
/// as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Citation {
    pub id: Id,
    pub section: Section,
    pub span: Range<usize>,
}

/// A component of the architecture: a bold or leading name, and the modules it cites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    pub name: String,
    pub modules: Vec<String>,
    pub span: Range<usize>,
}

/// One of the architect's open questions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenQuestion {
    pub text: String,
    /// The architect wrote the answer it goes on with ("Assumed: …").
    pub assumed: bool,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DesignModel {
    pub requirements: Vec<Requirement>,
    pub decisions: Vec<Decision>,
    pub citations: Vec<Citation>,
    pub components: Vec<Component>,
    pub questions: Vec<OpenQuestion>,
    pub tree: FileTree,
    pub api: ApiSpec,
    pub diagram: ClassDiagram,
}

impl DesignModel {
    /// Reads all five artifacts.
    pub fn read(artifacts: &Artifacts) -> DesignModel {
        let mut model = DesignModel::default();
        for (section, text) in artifacts.iter() {
            read_ids(section, text, &mut model);
        }
        model.components = components(&artifacts.architecture);
        model.questions = open_question_items(&artifacts.architecture)
            .into_iter()
            .map(|(text, span)| OpenQuestion {
                assumed: has_assumption(&text),
                text,
                span,
            })
            .collect();
        model.tree = tree::parse(&artifacts.file_tree);
        model.api = api::parse(&artifacts.api_spec);
        model.diagram = mermaid::parse(&artifacts.class_diagram);
        model
    }
}

fn has_assumption(question: &str) -> bool {
    let lower = question.to_ascii_lowercase();
    ["assum", "default:", "answer:", "decided:", "until told"]
        .iter()
        .any(|w| lower.contains(w))
}

/// Definitions (an id leading a line of its defining artifact) and citations (every
/// other id).
fn read_ids(section: Section, text: &str, model: &mut DesignModel) {
    // Every id family ends in `R-` (FR, NFR, ERR, ADR): other lines hold none.
    for line in lines_containing(text, "R-") {
        let found = ids::scan(line.text);
        if found.is_empty() {
            continue;
        }
        let lead = content_start(line.text);
        for (i, at) in found.into_iter().enumerate() {
            let span = line.start + at.span.start..line.start + at.span.end;
            let leads = i == 0 && at.span.start == lead;
            let defines = leads
                && match section {
                    Section::Requirements => at.id.kind.is_requirement(),
                    Section::Architecture => at.id.kind == IdKind::Decision,
                    _ => false,
                };
            if !defines {
                model.citations.push(Citation {
                    id: at.id,
                    section,
                    span,
                });
                continue;
            }
            let rest = line.text[at.span.end..]
                .trim_start_matches(['*', '`', ':', '.', ')', '|', ' ', '—', '–', '-'])
                .trim_end_matches(['|', ' '])
                .to_string();
            let written = line.text[at.span.clone()].to_string();
            if at.id.kind == IdKind::Decision {
                model.decisions.push(Decision {
                    id: at.id,
                    title: rest,
                    span,
                });
            } else {
                model.requirements.push(Requirement {
                    id: at.id,
                    written,
                    text: rest,
                    span,
                });
            }
        }
    }
}

/// Items under a heading that mentions components: the bold name (or the words
/// before a colon) and the backticked module names.
fn components(architecture: &str) -> Vec<Component> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in lines(architecture) {
        if heading_level(line.text).is_some() {
            inside = line.text.to_ascii_lowercase().contains("component");
            continue;
        }
        let lead = content_start(line.text);
        if !inside || lead == 0 || lead >= line.text.len() {
            continue;
        }
        let content = &line.text[lead..];
        let name_end = content
            .find("**")
            .or_else(|| content.find([':', '(', '—', '|']))
            .unwrap_or(content.len());
        let name = content[..name_end].trim().trim_matches('`').to_string();
        if !name.starts_with(char::is_alphanumeric) {
            continue;
        }
        let modules = content
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|m| names::looks_like_module(m))
            .map(str::to_string)
            .collect();
        let start = line.start + lead;
        out.push(Component {
            span: start..start + name_end,
            name,
            modules,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_split_into_definitions_and_citations() {
        let a = Artifacts {
            architecture: "## Components\n1. **Store** (`tm.store`): keeps data (FR-1, ADR-1).\n## Decisions\n- ADR-001: a file.\n## Open questions\n1. Locking? Assumed: none.\n2. Format?\n".into(),
            requirements: "FUNCTIONAL:\n1. FR-01: Add tasks.\n- **FR-002**: List tasks (see FR-01).\n".into(),
            ..Artifacts::default()
        };
        let m = DesignModel::read(&a);
        let reqs: Vec<String> = m.requirements.iter().map(|r| r.id.to_string()).collect();
        assert_eq!(reqs, ["FR-01", "FR-02"]);
        assert_eq!(m.requirements[0].text, "Add tasks.");
        assert_eq!(m.decisions.len(), 1);
        assert_eq!(m.citations.len(), 3);
        assert_eq!(m.components[0].name, "Store");
        assert_eq!(m.components[0].modules, ["tm.store"]);
        let assumed: Vec<bool> = m.questions.iter().map(|q| q.assumed).collect();
        assert_eq!(assumed, [true, false]);
    }
}
