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
#[cfg(test)]
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

/// Django's `tests.py` (and a lone `test.py`): the tests of its whole directory.
fn is_directory_test(path: &str) -> bool {
    matches!(file_name(path), "tests.py" | "test.py")
}

pub fn role(path: &str) -> Role {
    if source_extension(path).is_none() {
        Role::Other
    } else if in_test_dir(path) || tested_stem_of(path).is_some() || is_directory_test(path) {
        Role::Test
    } else if PLUMBING.contains(&file_name(path)) {
        Role::Other
    } else {
        Role::Source
    }
}

/// Test files by the usual conventions of the languages above.
#[cfg(test)]
pub fn is_test_file(path: &str) -> bool {
    if source_extension(path).is_none() {
        return false;
    }
    in_test_dir(path) || tested_stem_of(path).is_some() || is_directory_test(path)
}

fn in_test_dir(path: &str) -> bool {
    let dirs = memchr::memrchr(b'/', path.as_bytes()).map_or("", |slash| &path[..slash]);
    dirs.split('/').any(|d| {
        matches!(
            d,
            "test" | "tests" | "__tests__" | "spec" | "specs" | "testing"
        ) || test_project_suffix(d).is_some()
    })
}

/// `Shop.Orders.Tests` (a .NET test project): the project it tests.
fn test_project_suffix(dir: &str) -> Option<&str> {
    [
        ".Tests",
        ".UnitTests",
        ".IntegrationTests",
        ".Test",
        ".Specs",
    ]
    .iter()
    .find_map(|s| dir.strip_suffix(s))
}

/// Directory names that only say "source" or "tests", never which module: a test
/// mirrors its module's path once they are dropped.
fn is_layout_dir(d: &str) -> bool {
    matches!(
        d,
        "src"
            | "source"
            | "main"
            | "test"
            | "tests"
            | "testing"
            | "java"
            | "kotlin"
            | "scala"
            | "unit"
            | "integration"
            | "e2e"
            | "functional"
            | "__tests__"
            | "spec"
            | "specs"
            | "it"
    )
}

/// What a test file tests, or what a source file is, for matching one to the other:
/// the lower-case stem and the directories that name the module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestTarget {
    pub stem: String,
    pub dirs: Vec<String>,
}

fn module_dirs(path: &str) -> Vec<String> {
    let dirs = memchr::memrchr(b'/', path.as_bytes()).map_or("", |slash| &path[..slash]);
    dirs.split('/')
        .filter(|d| !d.is_empty() && !is_layout_dir(d))
        .map(|d| test_project_suffix(d).unwrap_or(d).to_ascii_lowercase())
        .collect()
}

impl TestTarget {
    /// A test file: `tests/unit/patients/test_models.py` tests `models` in `patients`.
    pub fn of(path: &str) -> TestTarget {
        if is_directory_test(path) {
            return TestTarget {
                stem: String::new(),
                dirs: module_dirs(path),
            };
        }
        let stem = match tested_stem_of(path) {
            Some(s) => s.to_ascii_lowercase(),
            None => {
                let file = file_name(path);
                file.rsplit_once('.')
                    .map_or(file, |(s, _)| s)
                    .to_ascii_lowercase()
            }
        };
        TestTarget {
            stem,
            dirs: module_dirs(path),
        }
    }

    /// A source file: its stem without the extension (`orders.service`).
    pub fn of_source(path: &str) -> TestTarget {
        let file = file_name(path);
        let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
        TestTarget {
            stem: stem.to_ascii_lowercase(),
            dirs: module_dirs(path),
        }
    }

    /// This test covers `source`: same stem, and once the directories both share
    /// from the root are dropped, one path ends with the other (a flat `tests/`
    /// covers every module of that name; `tests/unit/patients/` only `…/patients/`).
    pub fn covers(&self, source: &TestTarget) -> bool {
        if self.stem.is_empty() {
            return self.dirs == source.dirs;
        }
        if self.stem != source.stem {
            return false;
        }
        let common = self
            .dirs
            .iter()
            .zip(&source.dirs)
            .take_while(|(a, b)| a == b)
            .count();
        let (a, b) = (&self.dirs[common..], &source.dirs[common..]);
        a.is_empty() || b.is_empty() || b.ends_with(a) || a.ends_with(b)
    }
}

/// Wiring and module files: an entry point (`main.go`, `Program.cs`, `*Application.java`),
/// a package's module file (`__init__.py`, `mod.rs`, `lib.rs`, `index.ts`,
/// `*.module.ts`) or a migration. They hold no API a spec must describe.
pub fn is_wiring(path: &str) -> bool {
    let file = file_name(path);
    let stem = file.split_once('.').map_or(file, |(s, _)| s);
    matches!(
        stem,
        "main"
            | "Main"
            | "Program"
            | "Startup"
            | "index"
            | "mod"
            | "lib"
            | "__init__"
            | "__main__"
            | "package-info"
            | "module-info"
            | "conftest"
            | "setup"
            | "build"
    ) || file.ends_with(".module.ts")
        || file.contains(".config.")
        || (stem.ends_with("Application") && stem.len() > "Application".len())
        || path
            .split('/')
            .any(|d| matches!(d, "migrations" | "migration" | "migrate"))
}

/// A file of DTOs by its name or directory (`create-event.dto.ts`, `dto/…`, `dtos.py`).
pub fn is_dto_path(path: &str) -> bool {
    let lower = file_name(path).to_ascii_lowercase();
    let stem = lower.split_once('.').map_or(lower.as_str(), |(s, _)| s);
    matches!(stem, "dto" | "dtos")
        || lower.contains(".dto.")
        || path.split('/').any(|d| matches!(d, "dto" | "dtos"))
}

/// Configuration by its name (`config.py`, `settings.py`, `app.config.ts`): it needs
/// no test even when the spec gives it a loader.
pub fn is_config_path(path: &str) -> bool {
    let lower = file_name(path).to_ascii_lowercase();
    let stem = lower.split_once('.').map_or(lower.as_str(), |(s, _)| s);
    matches!(
        stem,
        "config" | "settings" | "configuration" | "constants" | "application"
    ) || lower.contains(".config.")
}

/// Files that need no test by their name alone: wiring, module files, migrations,
/// schemas, DTOs, type declarations and configuration.
pub fn is_declarative_path(path: &str) -> bool {
    if is_wiring(path) {
        return true;
    }
    let file = file_name(path);
    let lower = file.to_ascii_lowercase();
    let stem = lower.split_once('.').map_or(lower.as_str(), |(s, _)| s);
    matches!(
        stem,
        "config"
            | "settings"
            | "configuration"
            | "constants"
            | "types"
            | "schema"
            | "schemas"
            | "dto"
            | "dtos"
            | "errors"
            | "exceptions"
            | "application"
    ) || [
        ".dto.",
        ".types.",
        ".schema.",
        ".config.",
        ".d.ts",
        ".entity.",
        ".interface.",
    ]
    .iter()
    .any(|m| lower.contains(m))
        || path.split('/').any(|d| matches!(d, "dto" | "dtos"))
}

/// The module a test file is named after: `test_store.py`, `store_test.go`,
/// `store.test.ts`, `store.spec.js`, `StoreTest.java` all give `store` (lower case).
#[cfg(test)]
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
            strip_suffix_ignore_case(stem, "tests")
                .filter(|s| !s.is_empty() && stem.ends_with("Tests"))
        })
        .or_else(|| {
            strip_suffix_ignore_case(stem, "test")
                .filter(|s| !s.is_empty() && stem.ends_with("Test"))
        })
        .or_else(|| {
            strip_suffix_ignore_case(stem, "spec")
                .filter(|s| !s.is_empty() && stem.ends_with("Spec"))
        })
        .or_else(|| {
            stem.strip_suffix("IT")
                .filter(|s| s.ends_with(|c: char| c.is_ascii_lowercase()))
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
    fn a_test_covers_the_module_whose_path_it_mirrors() {
        let t = TestTarget::of("tests/unit/patients/test_models.py");
        assert!(t.covers(&TestTarget::of_source("src/clinic/patients/models.py")));
        assert!(!t.covers(&TestTarget::of_source("src/clinic/billing/models.py")));
        let flat = TestTarget::of("tests/test_storage.py");
        assert!(flat.covers(&TestTarget::of_source("src/taskman/storage.py")));
        let java = TestTarget::of("lib/src/test/java/com/acme/loans/LoanServiceTests.java");
        assert!(java.covers(&TestTarget::of_source(
            "lib/src/main/java/com/acme/loans/LoanService.java"
        )));
        assert!(!java.covers(&TestTarget::of_source(
            "lib/src/main/java/com/acme/members/LoanService.java"
        )));
        let cs = TestTarget::of("tests/Shop.Domain.Tests/InvoiceTests.cs");
        assert!(is_test_file("tests/Shop.Domain.Tests/InvoiceTests.cs"));
        assert!(cs.covers(&TestTarget::of_source("src/Shop.Domain/Invoice.cs")));
        let spec = TestTarget::of("src/orders/orders.service.spec.ts");
        assert!(spec.covers(&TestTarget::of_source("src/orders/orders.service.ts")));
        assert!(!spec.covers(&TestTarget::of_source("src/orders/orders.controller.ts")));
        let django = TestTarget::of("shop/orders/tests.py");
        assert!(django.covers(&TestTarget::of_source("shop/orders/views.py")));
        assert!(!django.covers(&TestTarget::of_source("shop/billing/views.py")));
        let it = TestTarget::of("src/test/java/a/JdbcStoreIT.java");
        assert!(it.covers(&TestTarget::of_source("src/main/java/a/JdbcStore.java")));
        let go = TestTarget::of("internal/wal/writer_test.go");
        assert!(go.covers(&TestTarget::of_source("internal/wal/writer.go")));
        assert!(is_wiring("cmd/kvd/main.go") && is_wiring("src/Web/Program.cs"));
        assert!(is_wiring("src/main/java/a/WmsApplication.java"));
        assert!(is_declarative_path("src/orders/dto/place-order.dto.ts"));
        assert!(!is_declarative_path("src/orders/orders.service.ts"));
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
