//! The design model: what the five artifacts say, read from their text with the place
//! of every item, so rules can check one artifact against another and point at the
//! line. Reading never fails: a loosely written artifact yields what can be
//! recognised.

pub(crate) mod api;
pub mod ids;
pub(crate) mod lang;
pub mod mermaid;
pub(crate) mod names;
pub(crate) mod routes;
pub(crate) mod text;
pub(crate) mod tree;

use std::ops::Range;

use crate::design::questions::open_question_items;
use crate::design::{Artifacts, Section};

pub use api::{ApiClass, ApiModule, ApiSpec, ClassKind, Signature};
pub use ids::{Id, IdAt, IdKind};
pub use lang::Lang;
pub use mermaid::{ClassDiagram, DiagramClass, Member, MemberKind, Relation, RelationKind};
pub use tree::{FileTree, TreeEntry};

use text::{content_start, heading_level, lines};

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
    /// The API spec's OpenAPI endpoints and route-bound handlers.
    pub routes: routes::Routes,
    /// The stack the architecture states.
    pub lang: Lang,
    /// Names the architecture writes in backticks (`ResponseEntity`, `pgxpool.Pool`
    /// gives `Pool`): types a design names as coming from its stack.
    pub named: Vec<String>,
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
        model.lang = Lang::stated(&artifacts.architecture);
        model.named = backticked_names(&artifacts.architecture);
        model.api = api::parse_in(&artifacts.api_spec, model.lang);
        model.diagram = mermaid::parse(&artifacts.class_diagram);
        model.routes = routes::read(&artifacts.api_spec);
        model
    }
}

/// Capitalised identifiers inside backticks (`kotlinx.datetime.Instant` gives
/// `Instant`; `Repo<T>` gives `Repo`).
fn backticked_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for code in text.split('`').skip(1).step_by(2) {
        for word in code.split(|c: char| !text::is_ident_char(c)) {
            if word.starts_with(|c: char| c.is_ascii_uppercase()) {
                out.push(word.to_string());
            }
        }
    }
    out
}

fn has_assumption(question: &str) -> bool {
    let lower = question.to_ascii_lowercase();
    ["assum", "default:", "answer:", "decided:", "until told"]
        .iter()
        .any(|w| lower.contains(w))
}

/// Definitions and citations. A definition is an id leading a list item, a heading
/// or a paragraph of its defining artifact (requirements: FR/NFR/ERR; architecture:
/// ADR), or a row of a table whose first column is headed `id`, when no list defines
/// it. Every other id is a citation: a traceability matrix cites what it lists.
fn read_ids(section: Section, text: &str, model: &mut DesignModel) {
    let defining = matches!(section, Section::Requirements | Section::Architecture);
    let mut tracing = false;
    // Per table: is its first column headed `id`? `None` outside a table.
    let mut table: Option<bool> = None;
    let mut in_fence = false;
    let mut deferred: Vec<(IdAt, usize, String)> = Vec::new();
    for line in lines(text) {
        let trimmed = line.text.trim_start();
        if text::is_fence(trimmed) {
            in_fence = !in_fence;
        }
        if heading_level(line.text).is_some() {
            let lower = line.text.to_ascii_lowercase();
            tracing = ["traceab", "matrix", "coverage", "mapping"]
                .iter()
                .any(|w| lower.contains(w));
        }
        let row = trimmed.starts_with('|');
        if !row {
            table = None;
        } else if table.is_none() {
            let first = trimmed
                .trim_start_matches('|')
                .split('|')
                .next()
                .unwrap_or("")
                .trim()
                .trim_matches(['*', '`']);
            table = Some(first.eq_ignore_ascii_case("id") || first.eq_ignore_ascii_case("adr"));
        }
        // Every id family ends in `R-` (FR, NFR, ERR, ADR): other lines hold none.
        if !line.text.contains("R-") {
            continue;
        }
        let found = ids::scan(line.text);
        if found.is_empty() {
            continue;
        }
        let mut lead = content_start(line.text);
        while line.text[lead..].starts_with(['[', '*', '`']) {
            lead += 1;
        }
        for (i, at) in found.into_iter().enumerate() {
            let span = line.start + at.span.start..line.start + at.span.end;
            let leads = i == 0 && at.span.start == lead && defining && !tracing && !in_fence;
            let family = match section {
                Section::Requirements => at.id.kind.is_requirement(),
                Section::Architecture => at.id.kind == IdKind::Decision,
                _ => false,
            };
            let defines = leads && family && table.is_none_or(|id_column| id_column);
            if !defines {
                model.citations.push(Citation {
                    id: at.id,
                    section,
                    span,
                });
                continue;
            }
            let rest = line.text[at.span.end..]
                .trim_start_matches(['*', '`', ':', '.', ')', ']', '|', ' ', '—', '–', '-'])
                .trim_end_matches(['|', ' '])
                .to_string();
            if table.is_some() {
                deferred.push((at, line.start, rest));
                continue;
            }
            define(model, at, line.start, line.text, rest);
        }
    }
    // A table row defines an id only when no list, heading or paragraph does; two
    // rows of id tables defining one id are a duplicate like two list items.
    let listed_before = (model.requirements.len(), model.decisions.len());
    for (at, start, rest) in deferred {
        let listed = model.requirements[..listed_before.0]
            .iter()
            .any(|r| r.id == at.id)
            || model.decisions[..listed_before.1]
                .iter()
                .any(|d| d.id == at.id);
        let span = start + at.span.start..start + at.span.end;
        if listed {
            model.citations.push(Citation {
                id: at.id,
                section,
                span,
            });
            continue;
        }
        let written = text.get(span.clone()).unwrap_or("").to_string();
        push_definition(model, at.id, written, rest, span);
    }
}

fn define(model: &mut DesignModel, at: IdAt, line_start: usize, line: &str, rest: String) {
    let span = line_start + at.span.start..line_start + at.span.end;
    let written = line[at.span.clone()].to_string();
    push_definition(model, at.id, written, rest, span);
}

fn push_definition(
    model: &mut DesignModel,
    id: Id,
    written: String,
    rest: String,
    span: Range<usize>,
) {
    if id.kind == IdKind::Decision {
        model.decisions.push(Decision {
            id,
            title: rest,
            span,
        });
    } else {
        model.requirements.push(Requirement {
            id,
            written,
            text: rest,
            span,
        });
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
