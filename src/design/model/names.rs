//! Module names as a person reads them: `src/taskman/storage.py`, `taskman/storage.py`,
//! `taskman.storage` and `storage.py` under `taskman/` all name one module. A name
//! becomes its list of components without the file extension; two names match when
//! one list ends with the other.

/// File extensions of source code (the files the API spec must describe). A `match`
/// rather than a list: it runs for every path of every frame's lint.
fn is_source_extension(ext: &str) -> bool {
    matches!(
        ext,
        "py" | "rs"
            | "ts"
            | "tsx"
            | "js"
            | "jsx"
            | "mjs"
            | "go"
            | "java"
            | "kt"
            | "rb"
            | "c"
            | "cc"
            | "cpp"
            | "h"
            | "hpp"
            | "cs"
            | "swift"
            | "scala"
            | "php"
            | "ex"
            | "exs"
            | "dart"
            | "lua"
            | "zig"
    )
}

/// Files that make a directory a package rather than hold an API of their own.
const PACKAGE_MARKERS: &[&str] = &["__init__", "mod", "index", "lib", "main"];

/// Files that are plumbing, not modules a spec describes.
const PLUMBING: &[&str] = &[
    "__init__.py",
    "__main__.py",
    "conftest.py",
    "setup.py",
    "mod.rs",
    "build.rs",
];

/// Directory names under which everything is a source root, not part of the name.
fn is_root(part: &str) -> bool {
    matches!(
        part,
        "src" | "lib" | "crate" | "app" | "pkg" | "internal" | "cmd"
    )
}

/// The extension of the last component, if it is one of the source extensions.
pub fn source_extension(path: &str) -> Option<&str> {
    let file = file_name(path);
    let dot = memchr::memrchr(b'.', file.as_bytes())?;
    let ext = &file[dot + 1..];
    is_source_extension(ext).then_some(ext)
}

pub fn file_name(path: &str) -> &str {
    memchr::memrchr(b'/', path.as_bytes()).map_or(path, |slash| &path[slash + 1..])
}

/// A source file the API spec is expected to describe (not a test, not plumbing).
pub fn is_source_module(path: &str) -> bool {
    role(path) == Role::Source
}

/// What a file of the tree is to the rules, worked out once per file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A module the API spec must describe.
    Source,
    /// A test ([`is_test_file`]).
    Test,
    /// Anything else: plumbing, documents, configuration.
    Other,
}

pub fn role(path: &str) -> Role {
    if source_extension(path).is_none() {
        Role::Other
    } else if in_test_dir(path) || tested_stem_of(path).is_some() {
        Role::Test
    } else if PLUMBING.contains(&file_name(path)) {
        Role::Other
    } else {
        Role::Source
    }
}

/// Test files by the usual conventions of the languages above.
pub fn is_test_file(path: &str) -> bool {
    if source_extension(path).is_none() {
        return false;
    }
    in_test_dir(path) || tested_stem_of(path).is_some()
}

fn in_test_dir(path: &str) -> bool {
    let dirs = memchr::memrchr(b'/', path.as_bytes()).map_or("", |slash| &path[..slash]);
    dirs.split('/').any(|d| {
        matches!(
            d,
            "test" | "tests" | "__tests__" | "spec" | "specs" | "testing"
        )
    })
}

/// The module a test file is named after: `test_store.py`, `store_test.go`,
/// `store.test.ts`, `store.spec.js`, `StoreTest.java` all give `store` (lower case).
pub fn tested_stem(path: &str) -> Option<String> {
    tested_stem_of(path).map(str::to_ascii_lowercase)
}

/// [`tested_stem`] as a slice of `path`, in its own case: lower-casing ASCII keeps
/// every byte where it was, so the same slice is found without a lower-case copy.
pub fn tested_stem_of(path: &str) -> Option<&str> {
    let file = file_name(path);
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let stem = stem
        .strip_suffix(".test")
        .or_else(|| stem.strip_suffix(".spec"))
        .unwrap_or(stem);
    let found = strip_prefix_ignore_case(stem, "test_")
        .or_else(|| strip_suffix_ignore_case(stem, "_test"))
        .or_else(|| strip_suffix_ignore_case(stem, "_spec"))
        .or_else(|| {
            strip_suffix_ignore_case(stem, "test")
                .filter(|s| !s.is_empty() && stem.ends_with("Test"))
        })
        .or_else(|| {
            let infix = |w: &[u8]| w == b".test." || w == b".spec.";
            (stem.len() < file.len() && file.as_bytes().windows(6).any(infix)).then_some(stem)
        });
    found.map(|s| s.trim_end_matches('_'))
}

/// `affix` is ASCII, so a match can only start and end on character boundaries.
fn strip_prefix_ignore_case<'a>(text: &'a str, affix: &str) -> Option<&'a str> {
    let head = text.as_bytes().get(..affix.len())?;
    head.eq_ignore_ascii_case(affix.as_bytes())
        .then(|| &text[affix.len()..])
}

fn strip_suffix_ignore_case<'a>(text: &'a str, affix: &str) -> Option<&'a str> {
    let at = text.len().checked_sub(affix.len())?;
    text.as_bytes()[at..]
        .eq_ignore_ascii_case(affix.as_bytes())
        .then(|| &text[..at])
}

/// The components of a module name without extension, roots and package markers:
/// `src/taskman/storage.py` and `taskman.storage` both give `[taskman, storage]`.
pub fn components(name: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(4);
    components_into(name, &mut out);
    out
}

/// [`components`] appended to `out`, so many names can share one buffer.
pub fn components_into<'a>(name: &'a str, out: &mut Vec<&'a str>) {
    let start = out.len();
    let name = name
        .trim()
        .trim_matches(|c| c == '`' || c == '"' || c == '\'');
    let mut name = name;
    while let Some(rest) = name.strip_prefix("./") {
        name = rest;
    }
    let name = name.trim_end_matches('/');
    let (base, had_extension) = match source_extension(name) {
        Some(ext) => (&name[..name.len() - ext.len() - 1], true),
        None => (name, false),
    };
    let bytes = base.as_bytes();
    if had_extension || bytes.contains(&b'/') {
        out.extend(base.split('/').filter(|p| !p.is_empty()));
    } else if bytes.windows(2).any(|w| w == b"::") {
        out.extend(base.split("::").filter(|p| !p.is_empty()));
    } else {
        out.extend(base.split('.').filter(|p| !p.is_empty()));
    }
    if out.len() - start > 1 && out.last().is_some_and(|l| PACKAGE_MARKERS.contains(l)) {
        out.pop();
    }
    let root = out[start..]
        .iter()
        .rposition(|p| is_root(p))
        .map_or(0, |i| i + 1);
    if root < out.len() - start {
        out.drain(start..start + root);
    }
}

/// One list ends with the other (and neither is empty).
pub fn same_module(a: &[&str], b: &[&str]) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long.ends_with(short)
}

/// Does `token` look like a module reference (a path, a dotted or `::` name)?
pub fn looks_like_module(token: &str) -> bool {
    let bytes = token.as_bytes();
    if memchr::memchr2(b'/', b':', bytes).is_some()
        && (bytes.contains(&b'/') || bytes.windows(2).any(|w| w == b"::"))
    {
        return true;
    }
    if memchr::memchr(b'.', bytes).is_none() {
        return false;
    }
    source_extension(token).is_some()
        || token.split('.').all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &str) -> Vec<&str> {
        components(name)
    }

    #[test]
    fn the_four_forms_are_one_module() {
        let forms = [
            "src/taskman/storage.py",
            "taskman/storage.py",
            "taskman.storage",
            "storage.py",
        ];
        for a in forms {
            for b in forms {
                assert!(same_module(&c(a), &c(b)), "{a} vs {b}");
            }
        }
        assert!(!same_module(&c("taskman.cli"), &c("taskman/storage.py")));
        assert_eq!(c("crate::store::disk"), ["store", "disk"]);
        assert_eq!(c("pkg/taskman/__init__.py"), ["taskman"]);
    }

    #[test]
    fn tests_are_recognised() {
        for (path, stem) in [
            ("tests/test_store.py", Some("store")),
            ("store_test.go", Some("store")),
            ("web/store.test.ts", Some("store")),
            ("StoreTest.java", Some("store")),
            ("tests/helpers.py", None),
        ] {
            assert!(is_test_file(path), "{path}");
            assert_eq!(tested_stem(path).as_deref(), stem, "{path}");
        }
        assert!(!is_test_file("src/contest.py"));
        assert!(is_source_module("src/contest.py"));
        assert!(!is_source_module("src/pkg/__init__.py"));
        assert!(!is_source_module("README.md"));
    }
}
