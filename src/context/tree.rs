//! The project tree: each package of the root with its modules and top symbols, so
//! the architect sees where new code would live next to the old. Definitions are
//! listed for the files parsed so far, which include the matched packages (up to a
//! budget, see [`super::build_context`]).

use super::{HashMap, HashSet};

use super::index::{FileEntry, Index, package_of};

const MODULES_PER_PACKAGE: usize = 10;
const SYMBOLS_PER_PACKAGE: usize = 8;

/// One line per package, packages holding a matched file first, until `budget` bytes.
pub fn summarise(index: &Index, matched_files: &[&str], budget: usize) -> String {
    let known: HashSet<&str> = index.packages.iter().map(String::as_str).collect();
    let packages = group(index, &known);
    let matched: HashSet<&str> = matched_files
        .iter()
        .map(|path| package_of(&known, path))
        .collect();
    let mut ordered: Vec<(&str, Vec<&FileEntry>)> = packages.into_iter().collect();
    // By path, then stably: packages holding a match first.
    ordered.sort_unstable_by_key(|(package, _)| *package);
    ordered.sort_by_key(|(package, _)| !matched.contains(package));
    let mut out = String::new();
    for (shown, (package, files)) in ordered.iter().enumerate() {
        let line = package_line(package, files);
        let tail_room = 64;
        if out.len() + line.len() + tail_room > budget {
            out.push_str(&format!(
                "- … {} more packages not listed\n",
                ordered.len() - shown
            ));
            break;
        }
        out.push_str(&line);
    }
    out
}

/// Files by the package (nearest ancestor directory with a manifest) they belong to.
/// Files come sorted by path, so a directory's files arrive together and its package
/// is looked up once.
fn group<'i>(index: &'i Index, known: &HashSet<&str>) -> HashMap<&'i str, Vec<&'i FileEntry>> {
    let mut packages: HashMap<&str, Vec<&FileEntry>> = HashMap::default();
    let mut last: Option<(&str, &str)> = None;
    for file in index.files.iter().filter(|f| !f.is_skipped()) {
        let dir = file.path.rsplit_once('/').map_or("", |(dir, _)| dir);
        let package = match last {
            Some((last_dir, package)) if last_dir == dir => package,
            _ => {
                let package = package_of(known, &file.path);
                last = Some((dir, package));
                package
            }
        };
        packages.entry(package).or_default().push(file);
    }
    packages
}

fn package_line(package: &str, files: &[&FileEntry]) -> String {
    let name = if package.is_empty() { "." } else { package };
    let mut modules: Vec<String> = files
        .iter()
        .map(|f| module_name(package, &f.path))
        .collect();
    modules.sort();
    modules.dedup();
    let more_modules = modules.len().saturating_sub(MODULES_PER_PACKAGE);
    modules.truncate(MODULES_PER_PACKAGE);
    let mut symbols: Vec<_> = files.iter().flat_map(|f| f.symbols()).collect();
    // Types first (they say most about a package), each group in file order.
    symbols.sort_by_key(|s| !s.kind.is_type());
    let more_symbols = symbols.len().saturating_sub(SYMBOLS_PER_PACKAGE);
    let top: Vec<String> = symbols
        .iter()
        .take(SYMBOLS_PER_PACKAGE)
        .map(|s| format!("{} {}", s.kind.label(), s.name))
        .collect();
    let count = match files.len() {
        1 => "1 file".to_string(),
        n => format!("{n} files"),
    };
    let mut line = format!("- {name}/ ({count}): modules {}", modules.join(", "));
    if more_modules > 0 {
        line.push_str(&format!(" (+{more_modules})"));
    }
    // Only parsed files have known definitions (files are parsed when first needed).
    if !top.is_empty() {
        line.push_str("; defines ");
        line.push_str(&top.join(", "));
        if more_symbols > 0 {
            line.push_str(&format!(" (+{more_symbols})"));
        }
    }
    line.push('\n');
    line
}

/// `src/billing/mod.rs` in package `.` → `billing`; `pkg/util.py` → `util`.
fn module_name(package: &str, path: &str) -> String {
    let rel = if package.is_empty() {
        path
    } else {
        path.strip_prefix(package)
            .map(|p| p.trim_start_matches('/'))
            .unwrap_or(path)
    };
    let rel = rel.strip_prefix("src/").unwrap_or(rel);
    let without_ext = rel.rsplit_once('.').map_or(rel, |(stem, _)| stem);
    let mut parts: Vec<&str> = without_ext.split('/').collect();
    if parts.len() > 1
        && parts
            .last()
            .is_some_and(|l| ["mod", "__init__", "index"].contains(l))
    {
        parts.pop();
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_drop_src_and_index_files() {
        assert_eq!(module_name("", "src/billing/mod.rs"), "billing");
        assert_eq!(module_name("crates/a", "crates/a/src/lib.rs"), "lib");
        assert_eq!(module_name("pkg", "pkg/util.py"), "util");
        assert_eq!(module_name("", "web/index.ts"), "web");
    }
}
