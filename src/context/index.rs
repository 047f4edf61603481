//! The symbol index of a root directory: every source file with its top-level
//! definitions, built by a parallel `.gitignore`-aware walk and refreshed incrementally.
//!
//! The walk reads and screens every source file but only sketches it (see
//! [`super::sketch`]); a file is parsed with tree-sitter the first time a looked-up name
//! is in its sketch, and its definitions are kept from then on. A refresh re-reads only
//! files whose size or modification time changed. When no directory changed either (no
//! file added, removed or renamed, no ignore file edited), the walk itself is skipped
//! and only the known files are stat-ed: that is what keeps a warm lookup in the tens
//! of milliseconds on a tree of tens of thousands of files.

use super::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Instant, UNIX_EPOCH};

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};
use serde::{Deserialize, Serialize};

use super::language::{Language, Parsers};
use super::sketch::{holds, name_hash, sketch};
use super::symbols::{Symbol, extract};
use super::triage::{MAX_FILE_BYTES, SkipReason, screen};

/// Files whose presence makes their directory a package in the project tree.
const MANIFESTS: [&str; 9] = [
    "Cargo.toml",
    "package.json",
    "go.mod",
    "pyproject.toml",
    "setup.py",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "__init__.py",
];

/// Directories never worth indexing even when no ignore file says so.
const NEVER_WALKED: [&str; 3] = ["node_modules", "__pycache__", "site-packages"];

/// Ignore files whose edits change what the walk yields without touching any directory.
const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

/// Size and modification time: what decides whether a cached entry is still valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub size: u64,
    pub mtime_secs: u64,
    pub mtime_nanos: u32,
}

impl Stamp {
    pub fn of(metadata: &std::fs::Metadata) -> Stamp {
        let since_epoch = metadata
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .unwrap_or_default();
        Stamp {
            size: metadata.len(),
            mtime_secs: since_epoch.as_secs(),
            mtime_nanos: since_epoch.subsec_nanos(),
        }
    }

    /// The current stamp of `path`, `None` when it is gone or unreadable.
    fn read(path: &Path) -> Option<Stamp> {
        std::fs::metadata(path).ok().map(|m| Stamp::of(&m))
    }
}

/// What is known of one source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Read and screened; the sorted hashes of the names it may declare. Not parsed yet.
    Sketched(Vec<u32>),
    /// Parsed: its top-level definitions.
    Indexed(Vec<Symbol>),
    Skipped(SkipReason),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub language: Language,
    pub stamp: Stamp,
    pub outcome: Outcome,
}

impl FileEntry {
    pub fn is_skipped(&self) -> bool {
        matches!(self.outcome, Outcome::Skipped(_))
    }

    /// Its definitions, once parsed.
    pub fn symbols(&self) -> &[Symbol] {
        match &self.outcome {
            Outcome::Indexed(symbols) => symbols,
            Outcome::Sketched(_) | Outcome::Skipped(_) => &[],
        }
    }

    /// Whether the file must be parsed before it can answer for one of `hashes`.
    fn awaits(&self, hashes: &[u32]) -> bool {
        match &self.outcome {
            Outcome::Sketched(sketch) => hashes.iter().any(|&h| holds(sketch, h)),
            Outcome::Indexed(_) | Outcome::Skipped(_) => false,
        }
    }
}

/// A path (directory or ignore file) whose stamp proves the set of files is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Watched {
    pub path: String,
    pub stamp: Option<Stamp>,
}

/// The persistent part of the index (what the cache holds).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Index {
    pub root: PathBuf,
    /// Sorted by path.
    pub files: Vec<FileEntry>,
    /// Directories containing a manifest, relative, sorted; `""` is the root.
    pub packages: Vec<String>,
    pub watched: Vec<Watched>,
}

/// How a refresh and lookup went, for the report and the log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct IndexStats {
    /// Source files known to the index.
    pub files: usize,
    /// Files read and sketched by this run (new or changed).
    pub scanned: usize,
    /// Files parsed with tree-sitter by this run.
    pub parsed: usize,
    /// Files taken unchanged from the cache.
    pub reused: usize,
    /// Files left out (huge, binary, generated, unreadable, unparsable).
    pub skipped: usize,
    /// Files parsed so far, by this run or an earlier one.
    pub indexed: usize,
    /// Definitions known from the parsed files.
    pub symbols: usize,
    /// Whether the directory tree was walked (false: only stat-ed, nothing moved).
    pub walked: bool,
    pub elapsed_ms: u64,
}

impl Index {
    pub fn symbol_count(&self) -> usize {
        self.files.iter().map(|f| f.symbols().len()).sum()
    }

    /// Brings `previous` (the cached index, if any) up to date with `root` on disk.
    /// Never fails: unreadable parts are logged and left out.
    pub fn refresh(root: &Path, previous: Option<Index>) -> (Index, IndexStats) {
        let started = Instant::now();
        let previous = previous.filter(|p| p.root == root);
        let (index, mut stats) = match previous {
            Some(previous) if nothing_moved(root, &previous) => restat(root, previous),
            previous => walk(root, previous.as_ref()),
        };
        index.count_into(&mut stats);
        stats.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        (index, stats)
    }

    /// Parses, on all cores, every sketched file that may define one of `names`, so
    /// that the index can answer for them; counts the work in `stats`.
    pub fn resolve(&mut self, names: &[&str], stats: &mut IndexStats) {
        let hashes: Vec<u32> = names.iter().map(|n| name_hash(n)).collect();
        self.parse_where(|f| f.awaits(&hashes), stats);
    }

    /// Parses the sketched files of the packages at `packages` (relative directories,
    /// `""` for the root) so the project tree can list their definitions. Packages are
    /// taken whole, smallest first, while their sources fit in `max_bytes`: a package
    /// too large is left out every time instead of costing each lookup a slice.
    pub fn resolve_packages(
        &mut self,
        packages: &[String],
        max_bytes: u64,
        stats: &mut IndexStats,
    ) {
        let known: HashSet<&str> = self.packages.iter().map(String::as_str).collect();
        let wanted: HashSet<&str> = packages.iter().map(String::as_str).collect();
        // Sizes count every file of the package, parsed or not, so that the same
        // packages fit the budget on every lookup and a warm lookup parses nothing.
        let mut pending: HashMap<&str, (u64, Vec<&str>)> = HashMap::default();
        for file in self.files.iter().filter(|f| !f.is_skipped()) {
            let package = package_of(&known, &file.path);
            if wanted.contains(package) {
                let slot = pending.entry(package).or_default();
                slot.0 = slot.0.saturating_add(file.stamp.size);
                if matches!(file.outcome, Outcome::Sketched(_)) {
                    slot.1.push(&file.path);
                }
            }
        }
        let mut by_size: Vec<(u64, Vec<&str>)> = pending.into_values().collect();
        by_size.sort();
        let mut budget = max_bytes;
        let mut picked: HashSet<String> = HashSet::default();
        for (bytes, files) in by_size {
            if bytes > budget {
                break;
            }
            budget -= bytes;
            picked.extend(files.into_iter().map(str::to_string));
        }
        if !picked.is_empty() {
            self.parse_where(|f| picked.contains(&f.path), stats);
        }
    }

    /// Parses, on all cores, the sketched files `pick` selects.
    fn parse_where(&mut self, pick: impl Fn(&FileEntry) -> bool, stats: &mut IndexStats) {
        let started = Instant::now();
        let root = self.root.clone();
        let mut pending: Vec<&mut FileEntry> = self
            .files
            .iter_mut()
            .filter(|f| matches!(f.outcome, Outcome::Sketched(_)) && pick(f))
            .collect();
        let parsed = pending.len();
        if parsed > 0 {
            let chunk = pending.len().div_ceil(threads()).max(1);
            std::thread::scope(|scope| {
                for part in pending.chunks_mut(chunk) {
                    let root = &root;
                    scope.spawn(move || {
                        let mut parsers = Parsers::default();
                        for entry in part.iter_mut() {
                            entry.outcome =
                                parse(&mut parsers, &root.join(&entry.path), entry.language);
                        }
                    });
                }
            });
        }
        stats.parsed += parsed;
        self.count_into(stats);
        stats.elapsed_ms += u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    }

    fn count_into(&self, stats: &mut IndexStats) {
        stats.files = self.files.len();
        stats.skipped = 0;
        stats.indexed = 0;
        for file in &self.files {
            match file.outcome {
                Outcome::Skipped(_) => stats.skipped += 1,
                Outcome::Indexed(_) => stats.indexed += 1,
                Outcome::Sketched(_) => {}
            }
        }
        stats.symbols = self.symbol_count();
    }
}

/// The package a file belongs to: its nearest ancestor directory holding a manifest
/// (`known`), else the root (`""`).
pub fn package_of<'p>(known: &HashSet<&str>, path: &'p str) -> &'p str {
    let mut dir = path;
    while let Some(cut) = dir.rfind('/') {
        dir = &dir[..cut];
        if known.contains(dir) {
            return dir;
        }
    }
    ""
}

fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// True when every watched directory and ignore file has the stamp it had.
fn nothing_moved(root: &Path, previous: &Index) -> bool {
    if previous.watched.is_empty() {
        return false;
    }
    parallel_all(&previous.watched, |w| {
        Stamp::read(&root.join(&w.path)) == w.stamp
    })
}

/// Runs `check` over `items` on all cores; true when it holds for every item.
fn parallel_all<T: Sync>(items: &[T], check: impl Fn(&T) -> bool + Sync) -> bool {
    let chunk = items.len().div_ceil(threads()).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().all(&check)))
            .collect();
        handles.into_iter().all(|h| h.join().unwrap_or(false))
    })
}

/// The warm path: the set of files is known, only their stamps are checked.
fn restat(root: &Path, mut index: Index) -> (Index, IndexStats) {
    let chunk = index.files.len().div_ceil(threads()).max(1);
    let gone = Mutex::new(Vec::new());
    let scanned = std::thread::scope(|scope| {
        let handles: Vec<_> = index
            .files
            .chunks_mut(chunk)
            .map(|part| {
                let gone = &gone;
                scope.spawn(move || {
                    let mut scanned = 0;
                    for entry in part {
                        let path = root.join(&entry.path);
                        match std::fs::metadata(&path) {
                            Ok(meta) => {
                                let stamp = Stamp::of(&meta);
                                if stamp != entry.stamp {
                                    entry.stamp = stamp;
                                    entry.outcome = scan(&path, entry.language, stamp);
                                    scanned += 1;
                                }
                            }
                            Err(_) => {
                                if let Ok(mut gone) = gone.lock() {
                                    gone.push(entry.path.clone());
                                }
                            }
                        }
                    }
                    scanned
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(0))
            .sum::<usize>()
    });
    let gone = gone.into_inner().unwrap_or_default();
    if !gone.is_empty() {
        index.files.retain(|f| !gone.contains(&f.path));
    }
    let stats = IndexStats {
        scanned,
        reused: index.files.len().saturating_sub(scanned),
        walked: false,
        ..IndexStats::default()
    };
    (index, stats)
}

/// Reads and screens one file, and sketches the names it may declare.
fn scan(path: &Path, language: Language, stamp: Stamp) -> Outcome {
    if stamp.size > MAX_FILE_BYTES {
        return Outcome::Skipped(SkipReason::Huge);
    }
    match read_screened(path) {
        Ok(bytes) => Outcome::Sketched(sketch(language, &bytes)),
        Err(reason) => Outcome::Skipped(reason),
    }
}

/// Reads, screens and parses one file.
fn parse(parsers: &mut Parsers, path: &Path, language: Language) -> Outcome {
    let bytes = match read_screened(path) {
        Ok(bytes) => bytes,
        Err(reason) => return Outcome::Skipped(reason),
    };
    match extract(parsers, language, &bytes) {
        Ok(symbols) => Outcome::Indexed(symbols),
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "context: cannot parse source file");
            Outcome::Skipped(SkipReason::ParseFailed)
        }
    }
}

/// The contents of a source file worth indexing, or why it is not.
fn read_screened(path: &Path) -> Result<Vec<u8>, SkipReason> {
    let bytes = std::fs::read(path).map_err(|error| {
        tracing::warn!(path = %path.display(), %error, "context: cannot read source file");
        SkipReason::Unreadable
    })?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    screen(name, &bytes).inspect_err(|reason| {
        tracing::debug!(path = %path.display(), reason = reason.describe(), "context: skipped");
    })?;
    Ok(bytes)
}

/// What the walker threads gather.
#[derive(Default)]
struct Gathered {
    files: Vec<FileEntry>,
    packages: Vec<String>,
    watched: Vec<Watched>,
    scanned: usize,
    reused: usize,
}

impl Gathered {
    fn absorb(&mut self, other: &mut Gathered) {
        self.files.append(&mut other.files);
        self.packages.append(&mut other.packages);
        self.watched.append(&mut other.watched);
        self.scanned += other.scanned;
        self.reused += other.reused;
    }
}

/// The cold (or structural-change) path: walk the whole tree on all cores, reusing
/// every cached entry whose stamp still matches.
fn walk(root: &Path, previous: Option<&Index>) -> (Index, IndexStats) {
    let empty = (
        Index {
            root: root.to_path_buf(),
            ..Index::default()
        },
        IndexStats {
            walked: true,
            ..IndexStats::default()
        },
    );
    if !root.is_dir() {
        tracing::warn!(root = %root.display(), "context: the root is not a readable directory");
        return empty;
    }
    let known: HashMap<&str, &FileEntry> = previous
        .map(|p| p.files.iter().map(|f| (f.path.as_str(), f)).collect())
        .unwrap_or_default();
    let sink = Mutex::new(Gathered::default());
    let mut builder = VisitorBuilder {
        root,
        known: &known,
        sink: &sink,
    };
    WalkBuilder::new(root)
        .require_git(false)
        .follow_links(false)
        .threads(threads())
        .filter_entry(|entry| {
            !(entry.depth() > 0
                && entry.file_type().is_some_and(|t| t.is_dir())
                && entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| NEVER_WALKED.contains(&name)))
        })
        .build_parallel()
        .visit(&mut builder);
    let mut gathered = sink.into_inner().unwrap_or_default();
    gathered.files.sort_by(|a, b| a.path.cmp(&b.path));
    gathered.packages.sort();
    gathered.packages.dedup();
    gathered.watched.sort_by(|a, b| a.path.cmp(&b.path));
    let stats = IndexStats {
        scanned: gathered.scanned,
        reused: gathered.reused,
        walked: true,
        ..IndexStats::default()
    };
    let index = Index {
        root: root.to_path_buf(),
        files: gathered.files,
        packages: gathered.packages,
        watched: gathered.watched,
    };
    (index, stats)
}

struct VisitorBuilder<'s> {
    root: &'s Path,
    known: &'s HashMap<&'s str, &'s FileEntry>,
    sink: &'s Mutex<Gathered>,
}

impl<'s> ParallelVisitorBuilder<'s> for VisitorBuilder<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            root: self.root,
            known: self.known,
            sink: self.sink,
            local: Gathered::default(),
        })
    }
}

/// One walker thread: its own results, handed over when it ends.
struct Visitor<'s> {
    root: &'s Path,
    known: &'s HashMap<&'s str, &'s FileEntry>,
    sink: &'s Mutex<Gathered>,
    local: Gathered,
}

impl Visitor<'_> {
    fn relative(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(self.root).ok()?;
        let text = rel.to_str()?;
        Some(if std::path::MAIN_SEPARATOR == '/' {
            text.to_string()
        } else {
            text.replace(std::path::MAIN_SEPARATOR, "/")
        })
    }

    fn directory(&mut self, entry: &DirEntry, rel: String) {
        let stamp = entry.metadata().ok().map(|m| Stamp::of(&m));
        for name in IGNORE_FILES {
            let path = entry.path().join(name);
            if let Some(stamp) = Stamp::read(&path) {
                let path = if rel.is_empty() {
                    name.to_string()
                } else {
                    format!("{rel}/{name}")
                };
                self.local.watched.push(Watched {
                    path,
                    stamp: Some(stamp),
                });
            }
        }
        self.local.watched.push(Watched { path: rel, stamp });
    }

    fn file(&mut self, entry: &DirEntry, rel: String) {
        let name = entry.file_name().to_str().unwrap_or_default();
        if MANIFESTS.contains(&name) {
            let dir = rel.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
            self.local.packages.push(dir.to_string());
        }
        let Some(language) = Language::of_path(entry.path()) else {
            return;
        };
        let stamp = match entry.metadata() {
            Ok(meta) => Stamp::of(&meta),
            Err(error) => {
                tracing::warn!(path = %entry.path().display(), %error, "context: cannot stat");
                return;
            }
        };
        if let Some(cached) = self.known.get(rel.as_str())
            && cached.stamp == stamp
            && cached.language == language
        {
            self.local.files.push((*cached).clone());
            self.local.reused += 1;
            return;
        }
        let outcome = scan(entry.path(), language, stamp);
        self.local.scanned += 1;
        self.local.files.push(FileEntry {
            path: rel,
            language,
            stamp,
            outcome,
        });
    }
}

impl ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                tracing::warn!(%error, "context: walk error, skipped");
                return WalkState::Continue;
            }
        };
        let Some(rel) = self.relative(entry.path()) else {
            return WalkState::Continue;
        };
        match entry.file_type() {
            Some(t) if t.is_dir() => self.directory(&entry, rel),
            Some(t) if t.is_file() => self.file(&entry, rel),
            _ => {}
        }
        WalkState::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        if let Ok(mut sink) = self.sink.lock() {
            sink.absorb(&mut self.local);
        }
    }
}
