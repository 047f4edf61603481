//! The rules: each reads the design model and reports what does not hold, at the place
//! a person would fix it.

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
        tests(artifacts, model, &tree, out);
    }
    if present.contains(&Section::ApiSpec) && present.contains(&Section::ClassDiagram) {
        classes(artifacts, model, out);
    }
    if present.contains(&Section::ApiSpec) {
        super::types::check(model, out);
        super::endpoints::check(model, out);
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
            // At the first definition, the one the rest of the design cites (#24).
            let again = artifacts.requirements[..r.span.start].matches('\n').count() + 1;
            out.push(
                Diagnostic::new(
                    Code::DuplicateRequirement,
                    Section::Requirements,
                    earlier.span.clone(),
                    format!(
                        "requirement {} is defined twice (again as {} on line {again})",
                        earlier.written, r.written
                    ),
                )
                .note(format!("defined again as {}: {}", r.written, r.text)),
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
            // Citing FR-3.1 traces FR-3, and citing FR-3 traces its sub-requirements.
            cited_elsewhere.insert(c.id.parent());
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
            && !cited_elsewhere.contains(&r.id.parent())
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
    // A package names a directory; a flat tree lists files only, so the directories
    // of its source files count too (not of its tests) (`src/main/java/com/park/web/X.java` holds `com.park.web`).
    let dirs: Vec<&str> = model
        .tree
        .entries
        .iter()
        .zip(&tree.roles)
        .filter(|(e, role)| !e.is_dir && **role != Role::Test)
        .flat_map(|(e, _)| {
            let path = e.path.as_str();
            path.match_indices('/').map(move |(i, _)| &path[..i])
        })
        .collect();
    let dir_parts = ComponentList::of(dirs.into_iter());
    let dir_index = ModuleIndex::new(&dir_parts);
    for (i, m) in model.api.modules.iter().enumerate() {
        let parts = api_parts.get(i);
        if !m.name.is_empty() && !tree_index.contains(parts) && !dir_index.contains(parts) {
            out.push(Diagnostic::new(
                Code::ModuleWithoutFile,
                Section::ApiSpec,
                m.span.clone(),
                format!("module `{}` has no file in the file tree", m.name),
            ));
        }
    }
    let api = ModuleIndex::new(&api_parts);
    let classes_by_name = class_homes(model, &api_parts);
    for (file, parts) in tree.sources(model) {
        if names::is_wiring(&file.path) {
            continue;
        }
        if !api.contains(parts)
            && !declared_by_class(&file.path, parts, &classes_by_name)
            && !in_go_package(model, &api_parts, &file.path)
        {
            out.push(Diagnostic::new(
                Code::FileWithoutApi,
                Section::FileTree,
                file.span.clone(),
                format!("source file `{}` has no entry in the API spec", file.path),
            ));
        }
    }
}

/// Per class name, the components of the modules declaring it (empty for a class
/// outside any named module): Java, Kotlin and C# keep one class per file.
fn class_homes<'a, 'b>(
    model: &'a DesignModel,
    api_parts: &'b ComponentList<'a>,
) -> HashMap<&'a str, Vec<&'b [&'a str]>> {
    let mut out: HashMap<&str, Vec<&[&str]>> = HashMap::default();
    for (i, m) in model.api.modules.iter().enumerate() {
        for c in &m.classes {
            out.entry(c.name.as_str())
                .or_default()
                .push(api_parts.get(i));
        }
    }
    out
}

/// A Go file in a directory the spec describes as a package (`## Package store
/// (\`internal/store\`)`): Go's unit is the package, not the file.
fn in_go_package(model: &DesignModel, api_parts: &ComponentList, path: &str) -> bool {
    let Some(parent) = path.strip_suffix(names::file_name(path)) else {
        return false;
    };
    if !path.ends_with(".go") {
        return false;
    }
    let dir = names::components(parent);
    model.api.modules.iter().enumerate().any(|(i, m)| {
        names::source_extension(&m.name).is_none() && !m.name.is_empty() && {
            let parts = api_parts.get(i);
            !dir.is_empty() && dir.ends_with(parts)
        }
    })
}

/// A file named after a class the spec declares in its directory's module
/// (`…/catalog/Book.java` and `class Book` in `com.acme.library.catalog`).
fn declared_by_class(path: &str, parts: &[&str], homes: &HashMap<&str, Vec<&[&str]>>) -> bool {
    let file = names::file_name(path);
    let stem = file.split_once('.').map_or(file, |(s, _)| s);
    let Some(modules) = homes.get(stem) else {
        return false;
    };
    let dir = &parts[..parts.len().saturating_sub(1)];
    modules
        .iter()
        .any(|m| m.is_empty() || same_module(m, dir) || same_module(m, parts))
}

fn tests(artifacts: &Artifacts, model: &DesignModel, tree: &TreeFacts, out: &mut Vec<Diagnostic>) {
    let tests: Vec<names::TestTarget> = model
        .tree
        .entries
        .iter()
        .zip(&tree.roles)
        .filter(|(_, role)| **role == Role::Test)
        .map(|(f, _)| names::TestTarget::of(&f.path))
        .collect();
    // Tests by the stem they test, so matching stays linear in the tree's size; a
    // directory's test (Django's `tests.py`) has no stem and is asked every time.
    let mut by_stem: HashMap<&str, Vec<&names::TestTarget>> = HashMap::default();
    let mut directory_tests: Vec<&names::TestTarget> = Vec::new();
    for t in &tests {
        if t.stem.is_empty() {
            directory_tests.push(t);
        } else {
            by_stem.entry(t.stem.as_str()).or_default().push(t);
        }
    }
    // Rust unit tests live in the module: a tree line saying so covers its file, a
    // sentence anywhere else covers every Rust file.
    let in_file_everywhere = [
        &artifacts.architecture,
        &artifacts.api_spec,
        &artifacts.file_tree,
    ]
    .iter()
    .any(|t| {
        lines_of(t)
            .filter(|l| l.contains("cfg(test)"))
            .any(|l| !t.as_str().eq(&artifacts.file_tree) || !l.contains(".rs"))
    });
    let api_parts = ComponentList::of(model.api.modules.iter().map(|m| m.name.as_str()));
    let index = ApiIndex::new(model, &api_parts);
    for (file, parts) in tree.sources(model) {
        let api = described(model, &api_parts, &index, &file.path, parts);
        // A name says "declarative" by convention (`errors.ts`, `order.entity.ts`), but
        // what the spec gives the file decides: a `DomainException` with behaviour
        // needs its test wherever it lives. Wiring and configuration never do.
        let exempt = match api {
            Described::Behaviour => {
                names::is_wiring(&file.path) || names::is_config_path(&file.path)
            }
            Described::Declarative => true,
            Described::Not => names::is_declarative_path(&file.path),
        };
        if exempt {
            continue;
        }
        if file.path.ends_with(".rs") {
            let line = line_at(&artifacts.file_tree, file.span.start);
            if in_file_everywhere || line.contains("cfg(test)") {
                continue;
            }
        }
        let source = names::TestTarget::of_source(&file.path);
        let covered = by_stem
            .get(source.stem.as_str())
            .into_iter()
            .flatten()
            .chain(&directory_tests)
            .any(|t| t.covers(&source));
        if !covered {
            out.push(
                Diagnostic::new(
                    Code::ModuleWithoutTest,
                    Section::FileTree,
                    file.span.clone(),
                    format!("source module `{}` has no test file in the tree", file.path),
                )
                .note(format!(
                    "help: {}",
                    crate::design::model::lang::test_convention(
                        crate::design::model::Lang::from_path(&file.path).unwrap_or_default()
                    )
                )),
            );
        }
    }
}

fn lines_of(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
}

fn line_at(text: &str, at: usize) -> &str {
    let start = text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    &text[start..end]
}

/// The API modules and classes indexed for the test rule: modules by their last
/// name component (two names can only match when those agree), classes by name.
struct ApiIndex<'a> {
    by_last: HashMap<&'a str, Vec<usize>>,
    by_class: HashMap<&'a str, Vec<(usize, usize)>>,
}

impl<'a> ApiIndex<'a> {
    fn new(model: &'a DesignModel, api_parts: &ComponentList<'a>) -> Self {
        let mut by_last: HashMap<&str, Vec<usize>> = HashMap::default();
        let mut by_class: HashMap<&str, Vec<(usize, usize)>> = HashMap::default();
        for (i, m) in model.api.modules.iter().enumerate() {
            if let Some(last) = api_parts.get(i).last() {
                by_last.entry(last).or_default().push(i);
            }
            for (c, class) in m.classes.iter().enumerate() {
                by_class
                    .entry(class.name.as_str())
                    .or_default()
                    .push((i, c));
            }
        }
        ApiIndex { by_last, by_class }
    }
}

/// What the API spec says a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Described {
    /// The spec does not describe it (D021 says so).
    Not,
    /// Only interfaces, enums, records, aliases or data without methods, and no
    /// function but a `main`.
    Declarative,
    /// Something a test can exercise.
    Behaviour,
}

fn described(
    model: &DesignModel,
    api_parts: &ComponentList,
    index: &ApiIndex,
    path: &str,
    parts: &[&str],
) -> Described {
    let file = names::file_name(path);
    let stem = file.split_once('.').map_or(file, |(s, _)| s);
    let dir = &parts[..parts.len().saturating_sub(1)];
    let mut found = false;
    let own_modules = parts
        .last()
        .and_then(|l| index.by_last.get(l))
        .into_iter()
        .flatten();
    for &i in own_modules {
        let m = &model.api.modules[i];
        if m.name.is_empty() || !same_module(api_parts.get(i), parts) {
            continue;
        }
        found = true;
        let behaviour = m
            .functions
            .iter()
            .any(|f| !matches!(f.name.as_str(), "main" | "bootstrap"));
        if behaviour || m.classes.iter().any(|c| c.has_behaviour()) {
            return Described::Behaviour;
        }
    }
    for &(i, c) in index.by_class.get(stem).into_iter().flatten() {
        let m = &model.api.modules[i];
        let class = &m.classes[c];
        let module_parts = api_parts.get(i);
        let home =
            m.name.is_empty() || same_module(module_parts, dir) || same_module(module_parts, parts);
        if home && class.kind != crate::design::model::ClassKind::Mentioned {
            found = true;
            if class.has_behaviour() {
                return Described::Behaviour;
            }
        }
    }
    if found {
        Described::Declarative
    } else {
        Described::Not
    }
}

fn classes(artifacts: &Artifacts, model: &DesignModel, out: &mut Vec<Diagnostic>) {
    use crate::design::model::{ApiClass, ClassKind};
    let mut by_name: HashMap<&str, Vec<&ApiClass>> = HashMap::default();
    for c in model.api.classes() {
        by_name.entry(c.name.as_str()).or_default().push(c);
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
    let scope = super::scope::DiagramScope::read(&artifacts.class_diagram);
    let mut reported: HashSet<&str> = HashSet::default();
    // A class declared in a DTO file (`dto/create-event.dto.ts`) is a DTO whatever its
    // name (`EventView`), for a diagram that leaves DTOs out.
    let dto_modules: Vec<bool> = model
        .api
        .modules
        .iter()
        .map(|m| names::is_dto_path(&m.name))
        .collect();
    let classes = model
        .api
        .modules
        .iter()
        .zip(&dto_modules)
        .flat_map(|(m, dto)| m.classes.iter().map(move |c| (c, *dto)));
    for (c, in_dto_file) in classes {
        let Some(all) = by_name.get(c.name.as_str()) else {
            continue;
        };
        if in_dto_file && scope.leaves_out_dtos() {
            continue;
        }
        // A name only mentioned, or a type alias, is no class the diagram must draw;
        // of several declarations of one name, the first is reported.
        if matches!(c.kind, ClassKind::Mentioned | ClassKind::Alias)
            || drawn.contains(c.name.as_str())
            || scope.leaves_out(c)
            || all.iter().any(|o| scope.leaves_out(o))
            || !reported.insert(c.name.as_str())
        {
            continue;
        }
        out.push(Diagnostic::new(
            Code::ClassNotInDiagram,
            Section::ApiSpec,
            c.span.clone(),
            format!("class `{}` is missing from the class diagram", c.name),
        ));
    }
    for c in &model.diagram.classes {
        let Some(api) = by_name.get(c.name.as_str()) else {
            continue;
        };
        if api.iter().all(|a| a.kind == ClassKind::Mentioned) {
            continue;
        }
        for m in c.members.iter().filter(|m| m.kind == MemberKind::Method) {
            if !api
                .iter()
                .any(|a| a.methods.iter().any(|s| s.name == m.name))
            {
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
        let bases: Vec<&str> = api
            .iter()
            .flat_map(|a| a.bases.iter().map(String::as_str))
            .collect();
        if !bases.is_empty() && !bases.contains(&parent) {
            out.push(Diagnostic::new(
                Code::DiagramContradictsApi,
                Section::ClassDiagram,
                r.span.clone(),
                format!(
                    "the diagram derives `{child}` from `{parent}`, but the API spec derives it from `{}`",
                    bases.join("`, `")
                ),
            ));
        }
    }
}
