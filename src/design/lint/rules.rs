//! The rules: each reads the design model and reports what does not hold, at the place
//! a person would fix it.

use std::borrow::Cow;
use std::collections::{HashMap as StdHashMap, HashSet as StdHashSet};

use foldhash::fast::FixedState;

use crate::design::model::names::{self, Role, same_module};
use crate::design::model::{Citation, DesignModel, IdKind, MemberKind, TreeEntry};
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
    if present.contains(&Section::FileTree) {
        outside_paths(artifacts, model, out);
        let tree = TreeFacts::new(model);
        if present.contains(&Section::ApiSpec) {
            modules(model, &tree, out);
        }
        tests(model, &tree, out);
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
    let marker = memchr::memmem::Finder::new(CONFLICT_OPEN);
    for (section, text) in artifacts.iter() {
        // The marker holds no line break, so a match that starts a line is never
        // hidden by an earlier, overlapping one.
        for at in marker.find_iter(text.as_bytes()) {
            let starts_line = at == 0 || text.as_bytes()[at - 1] == b'\n';
            let rest = &text.as_bytes()[at + CONFLICT_OPEN.len()..];
            let line_rest = memchr::memchr(b'\n', rest).map_or(rest, |nl| &rest[..nl]);
            if starts_line && line_rest.iter().all(|b| *b == b'\r') {
                out.push(
                    Diagnostic::new(
                        Code::UnresolvedConflict,
                        section,
                        at..at + CONFLICT_OPEN.len(),
                        "unresolved edit conflict: the reviewer's edit and the architect's revision differ here",
                    )
                    .note("help: keep one version (or both, merged) and delete the marker lines"),
                );
            }
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

/// The components of many names in one buffer (one allocation, not one per name).
struct ComponentList<'a> {
    parts: Vec<&'a str>,
    ends: Vec<usize>,
}

impl<'a> ComponentList<'a> {
    fn of(names: impl ExactSizeIterator<Item = &'a str>) -> Self {
        let mut list = ComponentList {
            parts: Vec::with_capacity(names.len() * 3),
            ends: Vec::with_capacity(names.len()),
        };
        for name in names {
            names::components_into(name, &mut list.parts);
            list.ends.push(list.parts.len());
        }
        list
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> &[&'a str] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.parts[start..self.ends[i]]
    }
}

/// Module name components indexed by their last component, so matching stays linear.
/// Names that share a last component are chained through `next`, so building the
/// index allocates no list per name.
struct ModuleIndex<'a, 'b> {
    names: &'b ComponentList<'a>,
    first: HashMap<&'a str, usize>,
    next: Vec<usize>,
}

impl<'a, 'b> ModuleIndex<'a, 'b> {
    fn new(names: &'b ComponentList<'a>) -> Self {
        let mut first: HashMap<&'a str, usize> = HashMap::default();
        first.reserve(names.len());
        let mut next = vec![usize::MAX; names.len()];
        for (i, slot) in next.iter_mut().enumerate() {
            if let Some(last) = names.get(i).last()
                && let Some(previous) = first.insert(*last, i)
            {
                *slot = previous;
            }
        }
        ModuleIndex { names, first, next }
    }

    fn contains(&self, parts: &[&str]) -> bool {
        let Some(mut i) = parts.last().and_then(|last| self.first.get(last).copied()) else {
            return false;
        };
        while i != usize::MAX {
            if same_module(self.names.get(i), parts) {
                return true;
            }
            i = self.next[i];
        }
        false
    }
}

/// The file tree as the module and test rules read it: each entry's name components
/// and role, worked out once.
struct TreeFacts<'a> {
    parts: ComponentList<'a>,
    roles: Vec<Role>,
}

impl<'a> TreeFacts<'a> {
    fn new(model: &'a DesignModel) -> Self {
        let entries = &model.tree.entries;
        TreeFacts {
            parts: ComponentList::of(entries.iter().map(|e| e.path.as_str())),
            roles: entries
                .iter()
                .map(|e| {
                    if e.is_dir {
                        Role::Other
                    } else {
                        names::role(&e.path)
                    }
                })
                .collect(),
        }
    }

    /// Source modules (files the API spec must describe), with their components.
    fn sources<'s>(
        &'s self,
        model: &'a DesignModel,
    ) -> impl Iterator<Item = (&'a TreeEntry, &'s [&'a str])> {
        model
            .tree
            .entries
            .iter()
            .zip(&self.roles)
            .enumerate()
            .filter(|(_, (_, role))| **role == Role::Source)
            .map(|(i, (entry, _))| (entry, self.parts.get(i)))
    }
}

/// A file tree path the coding agent would create outside the project: written absolute
/// (`/etc/…`), from a home directory (`~/…`), or climbing above the root with `..`.
/// The name is checked as written, since the tree reader drops a leading slash.
fn outside_paths(artifacts: &Artifacts, model: &DesignModel, out: &mut Vec<Diagnostic>) {
    let text = artifacts.get(Section::FileTree);
    for entry in &model.tree.entries {
        let written = text.get(entry.span.clone()).unwrap_or("");
        let why = if written.starts_with('/') || written.starts_with('\\') {
            Some("is absolute")
        } else if written.starts_with('~') {
            Some("starts with `~` (a home directory)")
        } else if climbs_out(&entry.path) {
            Some("climbs out of the project with `..`")
        } else {
            None
        };
        if let Some(why) = why {
            out.push(Diagnostic::new(
                Code::PathOutsideProject,
                Section::FileTree,
                entry.span.clone(),
                format!("path `{written}` {why}; file tree paths are relative to the project root"),
            ));
        }
    }
}

/// True when `..` components take `path` above its root at some point.
fn climbs_out(path: &str) -> bool {
    let mut depth = 0i64;
    for part in path.split('/') {
        match part {
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            "" | "." => {}
            _ => depth += 1,
        }
    }
    false
}

fn modules(model: &DesignModel, tree: &TreeFacts, out: &mut Vec<Diagnostic>) {
    let tree_index = ModuleIndex::new(&tree.parts);
    let api_parts = ComponentList::of(model.api.modules.iter().map(|m| m.name.as_str()));
    for (i, m) in model.api.modules.iter().enumerate() {
        if !m.name.is_empty() && !tree_index.contains(api_parts.get(i)) {
            out.push(Diagnostic::new(
                Code::ModuleWithoutFile,
                Section::ApiSpec,
                m.span.clone(),
                format!("module `{}` has no file in the file tree", m.name),
            ));
        }
    }
    let api = ModuleIndex::new(&api_parts);
    for (file, parts) in tree.sources(model) {
        if !api.contains(parts) {
            out.push(Diagnostic::new(
                Code::FileWithoutApi,
                Section::FileTree,
                file.span.clone(),
                format!("source file `{}` has no entry in the API spec", file.path),
            ));
        }
    }
}

/// The lower-case file name up to its first dot; borrowed when already lower case.
fn stem(path: &str) -> Cow<'_, str> {
    let file = names::file_name(path);
    lower(file.split_once('.').map_or(file, |(s, _)| s))
}

fn lower(text: &str) -> Cow<'_, str> {
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(text.to_ascii_lowercase())
    } else {
        Cow::Borrowed(text)
    }
}

fn tests(model: &DesignModel, tree: &TreeFacts, out: &mut Vec<Diagnostic>) {
    let tested: HashSet<Cow<str>> = model
        .tree
        .entries
        .iter()
        .zip(&tree.roles)
        .filter(|(_, role)| **role == Role::Test)
        .map(|(f, _)| match names::tested_stem_of(&f.path) {
            Some(s) => lower(s),
            None => stem(&f.path),
        })
        .collect();
    for (file, _) in tree.sources(model) {
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
