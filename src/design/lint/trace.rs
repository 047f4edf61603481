//! `volk trace`: every place an id or a name appears across the five artifacts.

use serde::Serialize;

use crate::design::model::names::{components, looks_like_module, same_module};
use crate::design::model::text::{is_ident_char, lines};
use crate::design::model::{DesignModel, Id, IdKind, ids};
use crate::design::{Artifacts, Section};

/// What the traced name turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    Requirement,
    Decision,
    Class,
    Module,
    Name,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Occurrence {
    pub artifact: Section,
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// The whole line, trimmed.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Trace {
    pub id: String,
    pub kind: TraceKind,
    pub occurrences: Vec<Occurrence>,
}

/// Path-like tokens of a line with their byte offsets.
fn tokens(line: &str) -> impl Iterator<Item = (usize, &str)> {
    let is_token = |c: char| is_ident_char(c) || matches!(c, '.' | '/' | ':' | '-');
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        match (start, is_token(c)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                let token = line[s..i].trim_end_matches([':', '.', '-']);
                if !token.is_empty() {
                    out.push((s, token));
                }
                start = None;
            }
            _ => {}
        }
    }
    out.into_iter()
}

/// The byte offsets in `line` where `word` stands as a whole word.
fn word_matches(line: &str, word: &str) -> Vec<usize> {
    line.match_indices(word)
        .filter(|(i, _)| {
            let before = line[..*i].chars().next_back();
            let after = line[i + word.len()..].chars().next();
            !before.is_some_and(is_ident_char) && !after.is_some_and(is_ident_char)
        })
        .map(|(i, _)| i)
        .collect()
}

/// Finds `query` in every artifact. `file_of` names an artifact's file in the output.
pub fn trace(artifacts: &Artifacts, query: &str, file_of: impl Fn(Section) -> String) -> Trace {
    let query = query.trim();
    let model = DesignModel::read(artifacts);
    let id = Id::parse(query);
    let is_class = model.api.class(query).is_some() || model.diagram.class(query).is_some();
    let parts = components(query);
    let is_module = !is_class
        && (looks_like_module(query)
            || model
                .api
                .modules
                .iter()
                .any(|m| same_module(&components(&m.name), &parts))
            || model
                .tree
                .files()
                .any(|f| same_module(&components(&f.path), &parts)));
    let kind = match id {
        Some(id) if id.kind == IdKind::Decision => TraceKind::Decision,
        Some(_) => TraceKind::Requirement,
        None if is_class => TraceKind::Class,
        None if is_module => TraceKind::Module,
        None => TraceKind::Name,
    };
    // The tree entries of the module, in file order: each line takes those that start
    // on it by advancing one cursor, so the tree is walked once (it used to be walked
    // once per line, quadratic in the design's size).
    let mut tree_hits: Vec<usize> = if kind == TraceKind::Module {
        model
            .tree
            .entries
            .iter()
            .filter(|e| same_module(&components(&e.path), &parts))
            .map(|e| e.span.start)
            .collect()
    } else {
        Vec::new()
    };
    tree_hits.sort_unstable();
    let mut cursor = 0;
    let mut occurrences = Vec::new();
    for (section, text) in artifacts.iter() {
        let file = file_of(section);
        for (n, line) in lines(text).enumerate() {
            let hits: Vec<usize> = match kind {
                TraceKind::Requirement | TraceKind::Decision => ids::scan(line.text)
                    .into_iter()
                    .filter(|at| Some(at.id) == id)
                    .map(|at| at.span.start)
                    .collect(),
                TraceKind::Module if section == Section::FileTree => {
                    while tree_hits.get(cursor).is_some_and(|&at| at < line.start) {
                        cursor += 1;
                    }
                    tree_hits[cursor..]
                        .iter()
                        .take_while(|&&at| at <= line.start + line.text.len())
                        .map(|&at| at - line.start)
                        .collect()
                }
                TraceKind::Module => tokens(line.text)
                    .filter(|(_, t)| {
                        (looks_like_module(t) || *t == query) && same_module(&components(t), &parts)
                    })
                    .map(|(i, _)| i)
                    .collect(),
                TraceKind::Class | TraceKind::Name => word_matches(line.text, query),
            };
            if let Some(first) = hits.first() {
                occurrences.push(Occurrence {
                    artifact: section,
                    file: file.clone(),
                    line: n + 1,
                    column: line.text[..*first].chars().count() + 1,
                    text: line.text.trim().to_string(),
                });
            }
        }
    }
    Trace {
        id: query.to_string(),
        kind,
        occurrences,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn design() -> Artifacts {
        Artifacts {
            architecture: "## Components\n- **Store** (`taskman.storage`): FR-1.\n".into(),
            requirements: "1. FR-001: Add tasks.\n".into(),
            file_tree: "src/\n  taskman/\n    storage.py\n".into(),
            api_spec:
                "Module: src/taskman/storage.py\n  class Store:\n    save(self) -> int  # FR-01\n"
                    .into(),
            class_diagram: "classDiagram\n  class Store\n".into(),
        }
    }

    fn name(s: Section) -> String {
        s.key().to_string()
    }

    #[test]
    fn requirement_ids_in_any_form() {
        let t = trace(&design(), "FR-01", name);
        assert_eq!(t.kind, TraceKind::Requirement);
        let at: Vec<(Section, usize)> =
            t.occurrences.iter().map(|o| (o.artifact, o.line)).collect();
        assert_eq!(
            at,
            [
                (Section::Architecture, 2),
                (Section::Requirements, 1),
                (Section::ApiSpec, 3)
            ]
        );
    }

    #[test]
    fn tracing_a_module_is_linear_in_the_design_size() {
        let design = |n: usize| {
            let mut tree = String::from("src/\n");
            let mut api = String::new();
            for i in 0..n {
                tree.push_str(&format!("├── m{i}.py\n"));
                if i % 10 == 0 {
                    api.push_str(&format!("Module: src/m{i}.py\n  run{i}() -> int\n"));
                }
            }
            Artifacts {
                file_tree: tree,
                api_spec: api,
                ..Artifacts::default()
            }
        };
        let time = |a: &Artifacts| {
            let started = std::time::Instant::now();
            let found = trace(a, "src/m5.py", name);
            assert_eq!(found.kind, TraceKind::Module);
            assert!(!found.occurrences.is_empty());
            started.elapsed()
        };
        let (small, large) = (design(10_000), design(100_000));
        let _ = time(&small);
        let (t10, t100) = (time(&small), time(&large));
        let ratio = t100.as_secs_f64() / t10.as_secs_f64();
        eprintln!("trace MODULE: {t10:?} at 10k lines, {t100:?} at 100k lines, ratio {ratio:.1}");
        // Linear is 10; quadratic would be 100.
        assert!(ratio < 30.0, "ratio {ratio:.1}");
    }

    #[test]
    fn module_forms_and_classes() {
        let t = trace(&design(), "taskman/storage.py", name);
        assert_eq!(t.kind, TraceKind::Module);
        let artifacts: Vec<Section> = t.occurrences.iter().map(|o| o.artifact).collect();
        assert_eq!(
            artifacts,
            [Section::Architecture, Section::FileTree, Section::ApiSpec]
        );
        assert_eq!(t.occurrences[1].line, 3);
        let c = trace(&design(), "Store", name);
        assert_eq!(c.kind, TraceKind::Class);
        assert_eq!(c.occurrences.len(), 3);
        assert!(trace(&design(), "Nothing", name).occurrences.is_empty());
    }
}
