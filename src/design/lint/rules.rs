//! The rules: each reads the design model and reports what does not hold, at the place
//! a person would fix it.

use std::collections::{HashMap as StdHashMap, HashSet as StdHashSet};

use foldhash::fast::FixedState;

use crate::design::model::names::{self, components, same_module};
use crate::design::model::{Citation, DesignModel, IdKind, MemberKind};
use crate::design::{Artifacts, Section};

use super::diagnostic::{Code, Diagnostic};

/// Deterministic and fast: the keys are ids and names from the design, not from an
/// adversary.
type HashMap<K, V> = StdHashMap<K, V, FixedState>;
type HashSet<K> = StdHashSet<K, FixedState>;

pub fn check(artifacts: &Artifacts, model: &DesignModel, out: &mut Vec<Diagnostic>) {
    let present: HashSet<Section> = Section::ALL
        .into_iter()
        .filter(|s| !artifacts.get(*s).trim().is_empty())
        .collect();
    for section in Section::ALL {
        if !present.contains(&section) {
            out.push(Diagnostic::new(
                Code::EmptyArtifact,
                section,
                0..0,
                format!("the {} is empty", section.title().to_ascii_lowercase()),
            ));
        }
    }
    if present.contains(&Section::ClassDiagram)
        && let Some(e) = &model.diagram.error
    {
        out.push(Diagnostic::new(
            Code::DiagramSyntax,
            Section::ClassDiagram,
            e.span.clone(),
            format!("the class diagram does not parse: {}", e.message),
        ));
    }
    requirements(
        artifacts,
        model,
        present.contains(&Section::Requirements),
        out,
    );
    decisions(
        artifacts,
        model,
        present.contains(&Section::Architecture),
        out,
    );
    if present.contains(&Section::ApiSpec) && present.contains(&Section::FileTree) {
        modules(model, out);
    }
    if present.contains(&Section::FileTree) {
        tests(model, out);
    }
    if present.contains(&Section::ApiSpec) && present.contains(&Section::ClassDiagram) {
        classes(model, out);
    }
    conflicts(artifacts, out);
    for q in model.questions.iter().filter(|q| !q.assumed) {
        out.push(
            Diagnostic::new(
                Code::UnassumedQuestion,
                Section::Architecture,
                q.span.clone(),
                "this open question states no assumed answer",
            )
            .note("help: end it with \"Assumed: …\", the answer the design goes on with"),
        );
    }
}

/// A hand edit the merge could not reconcile stays between markers for the person;
/// each one is an error at its opening marker.
fn conflicts(artifacts: &Artifacts, out: &mut Vec<Diagnostic>) {
    use crate::design::merge::CONFLICT_OPEN;
    for (section, text) in artifacts.iter() {
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            if line.trim_end_matches(['\n', '\r']) == CONFLICT_OPEN {
                out.push(
                    Diagnostic::new(
                        Code::UnresolvedConflict,
                        section,
                        offset..offset + CONFLICT_OPEN.len(),
                        "unresolved edit conflict: the reviewer's edit and the architect's revision differ here",
                    )
                    .note("help: keep one version (or both, merged) and delete the marker lines"),
                );
            }
            offset += line.len();
        }
    }
}

fn requirements(
    artifacts: &Artifacts,
    model: &DesignModel,
    present: bool,
    out: &mut Vec<Diagnostic>,
) {
    let mut first = HashMap::default();
    for r in &model.requirements {
        if let Some(earlier) = first.insert(r.id, r) {
            out.push(
                Diagnostic::new(
                    Code::DuplicateRequirement,
                    Section::Requirements,
                    r.span.clone(),
                    format!("requirement {} is defined twice", r.written),
                )
                .note(format!(
                    "first defined as {}: {}",
                    earlier.written, earlier.text
                )),
            );
            first.insert(r.id, earlier);
        }
    }
    if !present {
        return;
    }
    let mut cited_elsewhere = HashSet::default();
    for c in model
        .citations
        .iter()
        .filter(|c| c.id.kind.is_requirement())
    {
        if c.section != Section::Requirements {
            cited_elsewhere.insert(c.id);
        }
        if !first.contains_key(&c.id) {
            out.push(Diagnostic::new(
                Code::UnknownRequirement,
                c.section,
                c.span.clone(),
                format!(
                    "{} cites {}, which the requirements do not define",
                    c.section.title(),
                    written(artifacts, c)
                ),
            ));
        }
    }
    let mut reported = HashSet::default();
    for r in &model.requirements {
        if r.id.kind == IdKind::Functional
            && !cited_elsewhere.contains(&r.id)
            && reported.insert(r.id)
        {
            out.push(
                Diagnostic::new(
                    Code::UntracedRequirement,
                    Section::Requirements,
                    r.span.clone(),
                    format!("{} is cited by no other artifact", r.written),
                )
                .note("help: name it next to the component or function that serves it"),
            );
        }
    }
}

fn decisions(artifacts: &Artifacts, model: &DesignModel, present: bool, out: &mut Vec<Diagnostic>) {
    if !present {
        return;
    }
    let defined: HashSet<_> = model.decisions.iter().map(|d| d.id).collect();
    for c in model
        .citations
        .iter()
        .filter(|c| c.id.kind == IdKind::Decision && !defined.contains(&c.id))
    {
        out.push(Diagnostic::new(
            Code::UnknownDecision,
            c.section,
            c.span.clone(),
            format!(
                "{} cites {}, which the architecture does not define",
                c.section.title(),
                written(artifacts, c)
            ),
        ));
    }
}

/// The id of a citation as the artifact writes it (`FR-9`).
fn written<'a>(artifacts: &'a Artifacts, c: &Citation) -> &'a str {
    artifacts.get(c.section).get(c.span.clone()).unwrap_or("?")
}

/// Module name components indexed by their last component, so matching stays linear.
struct ModuleIndex<'a> {
    by_last: HashMap<&'a str, Vec<Vec<&'a str>>>,
}

impl<'a> ModuleIndex<'a> {
    fn new(names: impl Iterator<Item = &'a str>) -> Self {
        let mut by_last: HashMap<&'a str, Vec<Vec<&'a str>>> = HashMap::default();
        for name in names {
            let parts = components(name);
            if let Some(last) = parts.last() {
                by_last.entry(*last).or_default().push(parts);
            }
        }
        ModuleIndex { by_last }
    }

    fn contains(&self, parts: &[&str]) -> bool {
        parts.last().is_some_and(|last| {
            self.by_last
                .get(last)
                .is_some_and(|all| all.iter().any(|p| same_module(p, parts)))
        })
    }
}

fn modules(model: &DesignModel, out: &mut Vec<Diagnostic>) {
    let tree = ModuleIndex::new(model.tree.entries.iter().map(|e| e.path.as_str()));
    for m in model.api.modules.iter().filter(|m| !m.name.is_empty()) {
        if !tree.contains(&components(&m.name)) {
            out.push(Diagnostic::new(
                Code::ModuleWithoutFile,
                Section::ApiSpec,
                m.span.clone(),
                format!("module `{}` has no file in the file tree", m.name),
            ));
        }
    }
    let api = ModuleIndex::new(model.api.modules.iter().map(|m| m.name.as_str()));
    for file in model
        .tree
        .files()
        .filter(|f| names::is_source_module(&f.path))
    {
        if !api.contains(&components(&file.path)) {
            out.push(Diagnostic::new(
                Code::FileWithoutApi,
                Section::FileTree,
                file.span.clone(),
                format!("source file `{}` has no entry in the API spec", file.path),
            ));
        }
    }
}

fn stem(path: &str) -> String {
    let file = names::file_name(path);
    file.split_once('.')
        .map_or(file, |(s, _)| s)
        .to_ascii_lowercase()
}

fn tests(model: &DesignModel, out: &mut Vec<Diagnostic>) {
    let tested: HashSet<String> = model
        .tree
        .files()
        .filter(|f| names::is_test_file(&f.path))
        .map(|f| names::tested_stem(&f.path).unwrap_or_else(|| stem(&f.path)))
        .collect();
    for file in model
        .tree
        .files()
        .filter(|f| names::is_source_module(&f.path))
    {
        if !tested.contains(&stem(&file.path)) {
            out.push(Diagnostic::new(
                Code::ModuleWithoutTest,
                Section::FileTree,
                file.span.clone(),
                format!("source module `{}` has no test file in the tree", file.path),
            ));
        }
    }
}

fn classes(model: &DesignModel, out: &mut Vec<Diagnostic>) {
    let mut by_name: HashMap<&str, &crate::design::model::ApiClass> = HashMap::default();
    for c in model.api.classes() {
        by_name.entry(c.name.as_str()).or_insert(c);
    }
    let mut known: HashSet<&str> = HashSet::default();
    for c in model.api.classes() {
        known.insert(&c.name);
        known.extend(c.bases.iter().map(String::as_str));
    }
    for c in &model.diagram.classes {
        if !known.contains(c.name.as_str()) {
            out.push(Diagnostic::new(
                Code::ClassNotInApi,
                Section::ClassDiagram,
                c.span.clone(),
                format!("class `{}` is defined nowhere in the API spec", c.name),
            ));
        }
    }
    let drawn: HashSet<&str> = model
        .diagram
        .classes
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    for c in model.api.classes() {
        if !drawn.contains(c.name.as_str()) {
            out.push(Diagnostic::new(
                Code::ClassNotInDiagram,
                Section::ApiSpec,
                c.span.clone(),
                format!("class `{}` is missing from the class diagram", c.name),
            ));
        }
    }
    for c in &model.diagram.classes {
        let Some(api) = by_name.get(c.name.as_str()) else {
            continue;
        };
        for m in c.members.iter().filter(|m| m.kind == MemberKind::Method) {
            if !api.methods.iter().any(|s| s.name == m.name) {
                out.push(Diagnostic::new(
                    Code::DiagramContradictsApi,
                    Section::ClassDiagram,
                    m.span.clone(),
                    format!(
                        "the diagram gives `{}` a method `{}` the API spec does not list",
                        c.name, m.name
                    ),
                ));
            }
        }
    }
    for r in &model.diagram.relations {
        let Some((child, parent)) = r.child_parent() else {
            continue;
        };
        let Some(api) = by_name.get(child) else {
            continue;
        };
        if !api.bases.is_empty() && !api.bases.iter().any(|b| b == parent) {
            out.push(Diagnostic::new(
                Code::DiagramContradictsApi,
                Section::ClassDiagram,
                r.span.clone(),
                format!(
                    "the diagram derives `{child}` from `{parent}`, but the API spec derives it from `{}`",
                    api.bases.join("`, `")
                ),
            ));
        }
    }
}
