//! Which directory's code is offered to the architect.

use std::path::{Path, PathBuf};

use crate::config::Settings;

/// The environment variable naming the context root.
pub const ROOT_ENV: &str = "VOLK_CONTEXT_ROOT";

/// The root configured by the user: the flag, else `VOLK_CONTEXT_ROOT`, else
/// `context_root` in `volk.toml` (relative paths are taken from the current directory).
pub fn configured_root(flag: Option<&Path>, settings: Option<&Settings>) -> Option<PathBuf> {
    if let Some(flag) = flag {
        return Some(flag.to_path_buf());
    }
    if let Some(env) = std::env::var_os(ROOT_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(env));
    }
    settings.and_then(|s| s.context_root.clone())
}

/// Which root to index: `explicit` (the configured value) made absolute, else the work
/// tree of the git repository containing the current directory, else `None` (no
/// context, which is not an error).
pub fn resolve_root(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(path) = explicit {
        return Some(absolute(path));
    }
    let cwd = std::env::current_dir().ok()?;
    repository_root(&cwd)
}

/// The work tree of the git repository that contains `dir`, if any.
pub fn repository_root(dir: &Path) -> Option<PathBuf> {
    let repo = git2::Repository::discover(dir).ok()?;
    repo.workdir().map(absolute)
}

/// Canonical when possible (so one tree has one cache file whatever the spelling),
/// else merely absolute.
pub fn absolute(path: &Path) -> PathBuf {
    path.canonicalize()
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_git_work_tree_is_found_from_a_subdirectory() {
        let dir = tempfile::tempdir().unwrap();
        git2::Repository::init(dir.path()).unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let found = repository_root(&sub).unwrap();
        assert_eq!(found, dir.path().canonicalize().unwrap());
    }

    #[test]
    fn outside_a_repository_there_is_no_root() {
        let dir = tempfile::tempdir().unwrap();
        // A temp dir could sit inside a repository on some machines; only check when not.
        if git2::Repository::discover(dir.path()).is_err() {
            assert_eq!(repository_root(dir.path()), None);
        }
    }

    #[test]
    fn the_flag_wins_over_settings() {
        let settings = Settings {
            context_root: Some(PathBuf::from("/from/toml")),
            ..Settings::default()
        };
        let got = configured_root(Some(Path::new("/from/flag")), Some(&settings));
        assert_eq!(got, Some(PathBuf::from("/from/flag")));
    }
}
