//! Module names as a person reads them: `src/taskman/storage.py`, `taskman/storage.py`,
//! `taskman.storage` and `storage.py` under `taskman/` all name one module. A name
//! becomes its list of components without the file extension; two names match when
//! one list ends with the other.

/// File extensions of source code (the files the API spec must describe).
const SOURCE_EXTENSIONS: &[&str] = &[
    "py", "rs", "ts", "tsx", "js", "jsx", "mjs", "go", "java", "kt", "rb", "c", "cc", "cpp", "h",
    "hpp", "cs", "swift", "scala", "php", "ex", "exs", "dart", "lua", "zig",
];

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
const ROOTS: &[&str] = &["src", "lib", "crate", "app", "pkg", "internal", "cmd"];

/// The extension of the last component, if it is one of the source extensions.
pub fn source_extension(path: &str) -> Option<&str> {
    let file = path.rsplit('/').next().unwrap_or(path);
    let (_, ext) = file.rsplit_once('.')?;
    SOURCE_EXTENSIONS.contains(&ext).then_some(ext)
}

pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A source file the API spec is expected to describe (not a test, not plumbing).
pub fn is_source_module(path: &str) -> bool {
    source_extension(path).is_some() && !is_test_file(path) && !PLUMBING.contains(&file_name(path))
}

/// Test files by the usual conventions of the languages above.
pub fn is_test_file(path: &str) -> bool {
    if source_extension(path).is_none() {
        return false;
    }
    let in_test_dir = path.split('/').rev().skip(1).any(|d| {
        matches!(
            d,
            "test" | "tests" | "__tests__" | "spec" | "specs" | "testing"
        )
    });
    in_test_dir || tested_stem(path).is_some()
}

/// The module a test file is named after: `test_store.py`, `store_test.go`,
/// `store.test.ts`, `store.spec.js`, `StoreTest.java` all give `store` (lower case).
pub fn tested_stem(path: &str) -> Option<String> {
    let file = file_name(path);
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let stem = stem
        .strip_suffix(".test")
        .or_else(|| stem.strip_suffix(".spec"))
        .unwrap_or(stem);
    let lower = stem.to_ascii_lowercase();
    let found = lower
        .strip_prefix("test_")
        .or_else(|| lower.strip_suffix("_test"))
        .or_else(|| lower.strip_suffix("_spec"))
        .or_else(|| {
            lower
                .strip_suffix("test")
                .filter(|s| !s.is_empty() && stem.ends_with("Test"))
        })
        .or_else(|| {
            (stem.len() < file.len() && (file.contains(".test.") || file.contains(".spec.")))
                .then_some(lower.as_str())
        });
    found.map(|s| s.trim_end_matches('_').to_string())
}

/// The components of a module name without extension, roots and package markers:
/// `src/taskman/storage.py` and `taskman.storage` both give `[taskman, storage]`.
pub fn components(name: &str) -> Vec<&str> {
    let name = name
        .trim()
        .trim_matches(|c| c == '`' || c == '"' || c == '\'');
    let name = name.trim_start_matches("./").trim_end_matches('/');
    let (base, had_extension) = match source_extension(name) {
        Some(ext) => (&name[..name.len() - ext.len() - 1], true),
        None => (name, false),
    };
    let parts: Vec<&str> = if base.contains('/') || had_extension {
        base.split('/').collect()
    } else if base.contains("::") {
        base.split("::").collect()
    } else {
        base.split('.').collect()
    };
    let mut out: Vec<&str> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    if out.len() > 1 && out.last().is_some_and(|l| PACKAGE_MARKERS.contains(l)) {
        out.pop();
    }
    let root = out
        .iter()
        .rposition(|p| ROOTS.contains(p))
        .map_or(0, |i| i + 1);
    if root < out.len() {
        out.drain(..root);
    }
    out
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
    source_extension(token).is_some()
        || token.contains('/')
        || token.contains("::")
        || (token.contains('.')
            && token.split('.').all(|p| {
                !p.is_empty()
                    && p.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            }))
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
