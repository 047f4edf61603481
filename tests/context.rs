//! Monorepo context on real fixture trees in temp dirs, and `volk context` as a process.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed setup step should panic

use std::fs;
use std::path::Path;
use std::process::Command;

use volk::context::{
    CacheLocation, ContextReport, MAX_SECTION_BYTES, Shown, SymbolKind, build_context_with,
};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A fixture tree with one definition per supported language.
fn polyglot(root: &Path) {
    write(
        root,
        "crates/queue/Cargo.toml",
        "[package]\nname = \"queue\"\n",
    );
    write(
        root,
        "crates/queue/src/lib.rs",
        "use std::collections::VecDeque;\n\n/// Work waiting to run.\n#[derive(Debug)]\npub struct TaskQueue {\n    items: VecDeque<u32>,\n}\n\nimpl TaskQueue {\n    pub fn push(&mut self, id: u32) { self.items.push_back(id); }\n}\n",
    );
    write(
        root,
        "services/billing/invoice.py",
        "import decimal\n\n\nclass InvoiceBuilder:\n    \"\"\"Builds invoices.\"\"\"\n\n    def add_line(self, amount):\n        pass\n\n\ndef render_pdf(invoice):\n    return b''\n",
    );
    write(
        root,
        "web/src/session.ts",
        "export interface SessionStore {\n  get(id: string): Session | undefined;\n}\n\nexport type Session = { id: string };\n",
    );
    write(
        root,
        "web/src/Badge.tsx",
        "export function UserBadge(props: { name: string }) {\n  return <span>{props.name}</span>;\n}\n",
    );
    write(
        root,
        "web/src/legacy.js",
        "class EventBus {\n  emit(name) {}\n}\nmodule.exports = { EventBus };\n",
    );
    write(
        root,
        "gateway/router.go",
        "package gateway\n\n// RouteTable maps paths to handlers.\ntype RouteTable struct {\n\troutes map[string]string\n}\n\nfunc NewRouteTable() *RouteTable { return &RouteTable{} }\n",
    );
    write(root, "gateway/go.mod", "module example.com/gateway\n");
    write(
        root,
        "ledger/src/main/java/org/ledger/AccountLedger.java",
        "package org.ledger;\n\npublic class AccountLedger {\n    private long balance;\n}\n",
    );
}

fn build(root: &Path, cache: &Path, text: &str) -> ContextReport {
    build_context_with(root, text, &CacheLocation::Dir(cache.to_path_buf()))
}

fn matched<'r>(report: &'r ContextReport, symbol: &str) -> &'r volk::context::SymbolMatch {
    report
        .matches
        .iter()
        .find(|m| m.symbol == symbol)
        .unwrap_or_else(|| panic!("{symbol} not matched: {:#?}", report.matches))
}

#[test]
fn every_language_is_indexed_and_matched() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    polyglot(root.path());
    let text = "The TaskQueue feeds the InvoiceBuilder, which calls `render_pdf`. \
                Sessions live in a SessionStore; the UI shows a UserBadge and talks over the EventBus. \
                Requests go through the RouteTable into the AccountLedger.";
    let report = build(root.path(), cache.path(), text);

    let expected = [
        (
            "TaskQueue",
            SymbolKind::Struct,
            "crates/queue/src/lib.rs",
            5,
            7,
        ),
        (
            "InvoiceBuilder",
            SymbolKind::Class,
            "services/billing/invoice.py",
            4,
            8,
        ),
        (
            "render_pdf",
            SymbolKind::Function,
            "services/billing/invoice.py",
            11,
            12,
        ),
        (
            "SessionStore",
            SymbolKind::Interface,
            "web/src/session.ts",
            1,
            3,
        ),
        ("UserBadge", SymbolKind::Function, "web/src/Badge.tsx", 1, 3),
        ("EventBus", SymbolKind::Class, "web/src/legacy.js", 1, 3),
        ("RouteTable", SymbolKind::Struct, "gateway/router.go", 4, 6),
        (
            "AccountLedger",
            SymbolKind::Class,
            "ledger/src/main/java/org/ledger/AccountLedger.java",
            3,
            5,
        ),
    ];
    for (name, kind, file, start, end) in expected {
        let m = matched(&report, name);
        assert_eq!(m.kind, kind, "{name}");
        assert_eq!(m.file, file, "{name}");
        assert_eq!((m.start_line, m.end_line), (start, end), "{name}");
        assert_eq!(m.shown, Shown::Whole, "{name}");
        assert_eq!(m.word, name);
    }
    let section = &report.section;
    assert!(section.starts_with("EXISTING API SOURCES"), "{section}");
    assert!(section.contains("pub struct TaskQueue {"));
    assert!(
        section.contains("/// Work waiting to run."),
        "doc comment shown with its struct"
    );
    assert!(section.contains("```go\n"));
    assert!(section.contains("class AccountLedger"));
    assert!(section.contains("Project tree"));
    assert!(
        section.contains("crates/queue/"),
        "package listed in the tree:\n{section}"
    );
    assert_eq!(report.index.parsed, 7);
    assert_eq!(report.index.skipped, 0);
}

#[test]
fn text_without_names_injects_nothing() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    polyglot(root.path());
    let report = build(root.path(), cache.path(), "add a task");
    assert_eq!(report.section, "");
    assert!(report.matches.is_empty());
    assert!(report.candidates.is_empty());

    let report = build(
        root.path(),
        cache.path(),
        "The ShoppingCart holds a PriceTag.",
    );
    assert_eq!(report.section, "");
    assert!(report.matches.is_empty());
    assert_eq!(report.candidates.len(), 2);
}

#[test]
fn a_missing_root_gives_an_empty_section_not_an_error() {
    let cache = tempfile::tempdir().unwrap();
    let report = build(
        Path::new("/nonexistent/volk-context-root"),
        cache.path(),
        "The TaskQueue",
    );
    assert_eq!(report.section, "");
    assert!(report.matches.is_empty());
}

#[test]
fn a_long_definition_is_cut_at_200_lines_with_a_marker() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut source = String::from("class BigService:\n");
    for i in 1..300 {
        source.push_str(&format!("    field_{i} = {i}\n"));
    }
    write(root.path(), "big.py", &source);
    let report = build(root.path(), cache.path(), "Extend the BigService.");
    let m = matched(&report, "BigService");
    assert_eq!((m.start_line, m.end_line), (1, 300));
    assert_eq!(m.shown, Shown::Truncated { lines: 200 });
    let section = &report.section;
    assert!(section.contains("    field_199 = 199\n"));
    assert!(
        !section.contains("field_200 ="),
        "line 201 must not be shown"
    );
    assert!(
        section.contains("[truncated: 100 more lines of BigService not shown, up to line 300]"),
        "{section}"
    );
}

#[test]
fn the_section_is_capped_at_100_kb_with_a_marker() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for n in 0..40 {
        let mut source = format!("pub struct HugeThing{n} {{\n");
        for i in 0..150 {
            source.push_str(&format!(
                "    pub field_number_{i}: std::collections::HashMap<String, u64>,\n"
            ));
        }
        source.push_str("}\n");
        write(root.path(), &format!("src/thing{n}.rs"), &source);
        text.push_str(&format!("uses HugeThing{n}, "));
    }
    let report = build(root.path(), cache.path(), &text);
    assert_eq!(report.matches.len(), 40);
    assert!(
        report.section.len() <= MAX_SECTION_BYTES,
        "{}",
        report.section.len()
    );
    assert!(report.section.len() > MAX_SECTION_BYTES - 10_000);
    assert!(
        report
            .section
            .contains("the 100 KB limit for existing sources was reached")
    );
    assert!(report.matches.iter().any(|m| m.shown == Shown::Omitted));
    assert!(
        report
            .matches
            .first()
            .is_some_and(|m| m.shown == Shown::Whole)
    );
}

#[test]
fn gitignored_and_ignored_files_are_not_indexed() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    write(root.path(), ".gitignore", "build/\n*.gen.ts\n");
    write(root.path(), "build/out.rs", "pub struct HiddenOutput;\n");
    write(
        root.path(),
        "src/api.gen.ts",
        "export class HiddenClient {}\n",
    );
    write(
        root.path(),
        "node_modules/dep/index.js",
        "class HiddenDep {}\n",
    );
    write(
        root.path(),
        "src/real.ts",
        "export class VisibleClient {}\n",
    );
    let report = build(
        root.path(),
        cache.path(),
        "The HiddenOutput, HiddenClient, HiddenDep and VisibleClient.",
    );
    let names: Vec<&str> = report.matches.iter().map(|m| m.symbol.as_str()).collect();
    assert_eq!(names, vec!["VisibleClient"]);
    assert_eq!(report.index.files, 1);
}

#[test]
fn corrupt_binary_and_generated_files_are_skipped_and_the_rest_indexed() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    fs::write(
        root.path().join("broken.py"),
        b"class Broken:\n    x = '\xff\xfe\xfd'\n",
    )
    .unwrap();
    fs::write(root.path().join("blob.rs"), b"pub struct Blob;\0\0\x01\x02").unwrap();
    write(
        root.path(),
        "gen.go",
        "// Code generated by stringer. DO NOT EDIT.\npackage x\ntype Generated int\n",
    );
    write(
        root.path(),
        "garbage.ts",
        "export class {{{ ]]] ((( interface\n",
    );
    write(root.path(), "fine.rs", "pub enum Healthy { Yes }\n");
    let report = build(
        root.path(),
        cache.path(),
        "Use the Broken class, the Blob struct, the Generated type and the Healthy enum.",
    );
    let names: Vec<&str> = report.matches.iter().map(|m| m.symbol.as_str()).collect();
    assert_eq!(names, vec!["Healthy"]);
    assert_eq!(report.index.files, 5);
    assert_eq!(report.index.skipped, 3, "{:?}", report.index);
}

#[test]
fn the_cache_reparses_only_what_changed() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    polyglot(root.path());
    let text = "The TaskQueue and the RouteTable and the FreshType";
    let work = |r: &ContextReport| (r.index.scanned, r.index.parsed, r.index.reused);

    // Cold: every file read and sketched, only the two that may define a name parsed.
    let cold = build(root.path(), cache.path(), text);
    assert_eq!(work(&cold), (7, 2, 0));
    assert!(cold.index.walked);

    let warm = build(root.path(), cache.path(), text);
    assert_eq!(work(&warm), (0, 0, 7));
    assert!(!warm.index.walked, "nothing moved: no walk needed");
    assert_eq!(warm.matches, cold.matches);

    // A new name parses the file that defines it, and the rest of its package (here
    // the root, which has no manifest: the four other unparsed files) for the tree, once.
    let other = build(root.path(), cache.path(), "The InvoiceBuilder");
    assert_eq!(work(&other), (0, 5, 7));
    let again = build(root.path(), cache.path(), "The InvoiceBuilder");
    assert_eq!(work(&again), (0, 0, 7));

    // Touch one file's content: only it is read and parsed again; its new symbol is found.
    write(
        root.path(),
        "gateway/router.go",
        "package gateway\n\ntype RouteTable struct{}\n\ntype FreshType struct{}\n",
    );
    let touched = build(root.path(), cache.path(), text);
    assert_eq!(work(&touched), (1, 1, 6));
    assert!(!touched.index.walked);
    assert!(touched.matches.iter().any(|m| m.symbol == "FreshType"));

    // A new file changes its directory: the tree is walked, only the new file read (and
    // parsed, being in a package that holds a match).
    write(
        root.path(),
        "gateway/extra.go",
        "package gateway\n\ntype Extra struct{}\n",
    );
    let added = build(root.path(), cache.path(), text);
    assert!(added.index.walked);
    assert_eq!(work(&added), (1, 1, 7));

    // A removed file disappears from the index.
    fs::remove_file(root.path().join("gateway/router.go")).unwrap();
    let removed = build(root.path(), cache.path(), text);
    assert_eq!(removed.index.files, 7);
    assert!(removed.matches.iter().all(|m| m.symbol != "RouteTable"));
    assert_eq!(work(&removed), (0, 0, 7));
}

#[test]
fn editing_a_gitignore_is_noticed_without_a_directory_change() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    write(root.path(), ".gitignore", "# nothing yet\n");
    write(root.path(), "gen/out.rs", "pub struct GenOut;\n");
    let before = build(root.path(), cache.path(), "The GenOut");
    assert_eq!(before.matches.len(), 1);
    fs::write(root.path().join(".gitignore"), "gen/\n").unwrap();
    let after = build(root.path(), cache.path(), "The GenOut");
    assert!(after.matches.is_empty(), "{:?}", after.matches);
}

fn volk(cwd: &Path, cache: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_volk"));
    cmd.current_dir(cwd)
        .env("VOLK_CACHE_DIR", cache)
        .env("VOLK_CONFIG_DIR", cache.join("config"))
        .env("VOLK_LOG", cache.join("volk.log"))
        .env_remove("VOLK_CONTEXT_ROOT");
    cmd
}

#[test]
fn cli_prints_matches_and_the_section() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    polyglot(root.path());
    let out = volk(root.path(), cache.path())
        .args(["context", "--root"])
        .arg(root.path())
        .arg("Queue work in the TaskQueue.")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("TaskQueue -> struct TaskQueue  crates/queue/src/lib.rs:5-7  [injected]"),
        "{stdout}"
    );
    assert!(stdout.contains("EXISTING API SOURCES"));
    assert!(
        cache.path().join("context").is_dir(),
        "cache written under VOLK_CACHE_DIR"
    );
}

#[test]
fn cli_json_from_a_file_and_the_git_repository_as_default_root() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    polyglot(root.path());
    git2::Repository::init(root.path()).unwrap();
    write(
        root.path(),
        "docs/req.md",
        "# Scope\n\nUse the `InvoiceBuilder` for totals.\n",
    );
    let out = volk(&root.path().join("web"), cache.path())
        .args(["context", "--json", "--file", "../docs/req.md"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["matches"][0]["symbol"], "InvoiceBuilder");
    assert_eq!(json["matches"][0]["kind"], "class");
    assert_eq!(json["matches"][0]["file"], "services/billing/invoice.py");
    assert_eq!(json["matches"][0]["word_source"], "backticked");
    assert_eq!(json["matches"][0]["shown"]["state"], "whole");
    assert!(
        json["section"]
            .as_str()
            .unwrap()
            .contains("class InvoiceBuilder:")
    );
    assert_eq!(
        Path::new(json["root"].as_str().unwrap()),
        root.path().canonicalize().unwrap()
    );
}

#[test]
fn cli_root_from_the_environment_and_from_volk_toml() {
    let root = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    polyglot(root.path());
    let out = volk(cwd.path(), cache.path())
        .env("VOLK_CONTEXT_ROOT", root.path())
        .args(["context", "--json", "The RouteTable"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["matches"][0]["symbol"], "RouteTable");

    fs::write(
        cwd.path().join("volk.toml"),
        format!("context_root = {:?}\n", root.path().to_str().unwrap()),
    )
    .unwrap();
    // A volk.toml found here may come from a cloned repository: its root counts once trusted.
    let out = volk(cwd.path(), cache.path())
        .args(["context", "--json", "The RouteTable"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_ne!(
        json["matches"][0]["symbol"], "RouteTable",
        "untrusted root used"
    );
    let trusted = volk(cwd.path(), cache.path())
        .arg("trust")
        .output()
        .unwrap();
    assert!(trusted.status.success());
    let out = volk(cwd.path(), cache.path())
        .args(["context", "--json", "The RouteTable"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["matches"][0]["symbol"], "RouteTable");
}

#[test]
fn cli_bad_input_exits_2_with_one_line() {
    let cwd = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let out = volk(cwd.path(), cache.path())
        .args(["context", "--file", "missing.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("volk: missing.md: cannot read"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);

    let out = volk(cwd.path(), cache.path())
        .args(["context", "--root", "/nonexistent/dir", "The TaskQueue"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("/nonexistent/dir: not a readable directory (from --root)"),
        "{stderr}"
    );
}

#[test]
fn cli_without_any_root_injects_nothing_and_succeeds() {
    let cwd = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    if git2::Repository::discover(cwd.path()).is_ok() {
        return; // the temp dir sits inside a repository on this machine
    }
    let out = volk(cwd.path(), cache.path())
        .args(["context", "The TaskQueue"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("no context root"), "{stdout}");
}

/// The sketch decides which files get parsed, so it must hold every name tree-sitter
/// finds; checked on this crate's own sources.
#[test]
fn the_sketch_never_misses_a_definition_of_real_code() {
    use volk::context::language::{Language, Parsers};
    use volk::context::sketch::{holds, name_hash, sketch};
    use volk::context::symbols::extract;

    let mut parsers = Parsers::default();
    let mut checked = 0;
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let Some(language) = Language::of_path(&path) else {
                continue;
            };
            let bytes = fs::read(&path).unwrap();
            let sketch = sketch(language, &bytes);
            for symbol in extract(&mut parsers, language, &bytes).unwrap() {
                assert!(
                    holds(&sketch, name_hash(&symbol.name)),
                    "{}: {}",
                    path.display(),
                    symbol.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} definitions checked");
}

#[test]
fn the_tree_lists_the_definitions_of_matched_packages() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    write(root.path(), "pkg/Cargo.toml", "[package]\nname = \"pkg\"\n");
    write(root.path(), "pkg/src/a.rs", "pub struct Alpha;\n");
    write(root.path(), "pkg/src/b.rs", "pub struct Beta;\n");
    write(root.path(), "other/x.py", "class Gamma:\n    pass\n");
    let report = build(root.path(), cache.path(), "The Alpha");
    let tree: Vec<&str> = report
        .section
        .lines()
        .filter(|l| l.starts_with("- "))
        .collect();
    assert_eq!(
        tree,
        vec![
            "- pkg/ (2 files): modules a, b; defines struct Alpha, struct Beta",
            "- ./ (1 file): modules other/x",
        ],
        "{}",
        report.section
    );
    assert_eq!(report.index.parsed, 2);
    let again = build(root.path(), cache.path(), "The Alpha");
    assert_eq!(again.index.parsed, 0, "a warm lookup parses nothing");
    assert_eq!(again.section, report.section);
}

#[test]
fn a_corrupt_cache_is_rebuilt() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    polyglot(root.path());
    let first = build(root.path(), cache.path(), "The TaskQueue");
    let files: Vec<_> = fs::read_dir(cache.path().join("context"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "one cache file per root");
    fs::write(&files[0], b"\xff\xff\xff\xff\xff\xff\xff\xffnot an index").unwrap();
    let rebuilt = build(root.path(), cache.path(), "The TaskQueue");
    assert_eq!(rebuilt.index.scanned, 7, "everything read again");
    assert_eq!(rebuilt.matches, first.matches);
}
