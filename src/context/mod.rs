//! Monorepo context: the existing code a design should reuse.
//!
//! Before a design, the names the requirements mention (CapWords, `backticked`
//! identifiers, dotted paths) are looked up in a symbol index of the context root, and
//! the source of each definition goes into the prompt as its own labelled section.
//! The walk only sketches each file (the names after declaration keywords); the files
//! that may define a looked-up name are parsed with tree-sitter, once, and every
//! definition reported comes from that parse. Nothing here may stop a design: every
//! failure is logged and skipped, and the worst outcome is an empty section.

/// Maps keyed by paths and names of the local tree: a lookup hashes tens of thousands of
/// them, and nothing here is chosen by an adversary, so a fast fixed hash beats SipHash.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
type HashSet<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;

pub mod cache;
pub mod cli;
pub(crate) mod index;
pub mod language;
pub mod root;
pub(crate) mod section;
pub mod sketch;
pub mod symbols;
pub(crate) mod tree;
pub(crate) mod triage;
pub(crate) mod words;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use cache::CacheLocation;
pub use index::{Index, IndexStats};
pub use language::Language;
pub use root::{configured_root, resolve_root};
pub use section::{LABEL, MAX_DEFINITION_LINES, MAX_SECTION_BYTES, Shown, SymbolMatch};
pub use symbols::SymbolKind;
pub use words::{Candidate, WordSource};

/// What `build_context` found: the block for the prompt and why it holds what it holds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ContextReport {
    pub root: PathBuf,
    /// The labelled block for the design prompt; empty when nothing matched.
    pub section: String,
    /// Every definition a candidate named, injected or not (see [`SymbolMatch::shown`]).
    pub matches: Vec<SymbolMatch>,
    /// The names looked up.
    pub candidates: Vec<Candidate>,
    pub index: IndexStats,
}

impl ContextReport {
    /// The matches whose source is in the section.
    pub fn injected(&self) -> impl Iterator<Item = &SymbolMatch> {
        self.matches.iter().filter(|m| m.shown != Shown::Omitted)
    }
}

/// Builds the "existing API sources" block for `text` (requirements, user stories, UX
/// notes) from the code under `root`, using and refreshing the on-disk index cache.
/// Never fails: errors are logged with `tracing` and skipped.
pub fn build_context(root: &Path, text: &str) -> ContextReport {
    build_context_with(root, text, &CacheLocation::UserCache)
}

/// [`build_context`] with the index cache kept at `cache`.
pub fn build_context_with(root: &Path, text: &str, cache: &CacheLocation) -> ContextReport {
    let root = root::absolute(root);
    let candidates = words::candidates(text);
    let mut report = ContextReport {
        root: root.clone(),
        candidates,
        ..ContextReport::default()
    };
    if report.candidates.is_empty() {
        tracing::info!(root = %root.display(), "context: no candidate names in the text");
        return report;
    }
    if !root.is_dir() {
        tracing::warn!(root = %root.display(), "context: the root is not a readable directory, no context");
        return report;
    }
    let names: Vec<&str> = report.candidates.iter().map(|c| c.name.as_str()).collect();
    let previous = cache::load(cache, &root);
    let (mut index, mut stats) = Index::refresh(&root, previous);
    index.resolve(&names, &mut stats);
    let matched = matched_packages(&index, &report.candidates);
    if !matched.is_empty() {
        index.resolve_packages(&matched, TREE_PARSE_BYTES, &mut stats);
        let found = section::find(&index, &report.candidates);
        let (block, matches) = section::render(&root, &index, &report.candidates, &found);
        report.section = block;
        report.matches = matches;
    }
    if stats.scanned > 0 || stats.parsed > 0 || stats.walked {
        cache::save(cache, &index);
    }
    report.index = stats;
    tracing::info!(
        root = %root.display(),
        candidates = report.candidates.len(),
        matches = report.matches.len(),
        bytes = report.section.len(),
        parsed = report.index.parsed,
        reused = report.index.reused,
        elapsed_ms = report.index.elapsed_ms,
        "context: built"
    );
    report
}

/// At most this much source is parsed per lookup to list the definitions of the
/// packages holding a match in the project tree.
const TREE_PARSE_BYTES: u64 = 2 * 1024 * 1024;

/// The packages holding a definition of one of the candidates.
fn matched_packages(index: &Index, candidates: &[Candidate]) -> Vec<String> {
    let known: HashSet<&str> = index.packages.iter().map(String::as_str).collect();
    let mut packages: Vec<String> = section::find(index, candidates)
        .into_iter()
        .map(|(_, file, _)| index::package_of(&known, &file.path).to_string())
        .collect();
    packages.sort();
    packages.dedup();
    packages
}
