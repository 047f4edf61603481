//! The project's git history, with `git2` (no network features: volk never fetches).
//!
//! Plain blocking functions, easy to test; the runtime calls them on a blocking task so
//! the UI never waits for git.

use std::path::Path;

use git2::{IndexAddOption, Oid, Repository, Signature};

/// What `.gitignore` keeps out of design commits: the session (drafts change on every
/// keystroke) and the virtual environment.
const GITIGNORE: &str = ".volk/\n.venv/\n__pycache__/\n";

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git: {0}")]
    Git(#[from] git2::Error),
    #[error("git: {0}")]
    Io(#[from] std::io::Error),
}

/// One commit of the project's history, newest first in [`log`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub id: String,
    pub short_id: String,
    pub summary: String,
    pub time: i64,
}

/// Initialises a repository in `dir` unless one exists; returns whether it created one.
pub fn init(dir: &Path) -> Result<bool, GitError> {
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        crate::fsutil::atomic_write(&ignore, GITIGNORE.as_bytes())?;
    }
    if dir.join(".git").exists() {
        return Ok(false);
    }
    Repository::init(dir)?;
    Ok(true)
}

fn signature(repo: &Repository, fallback: &str) -> Result<Signature<'static>, git2::Error> {
    match repo.signature() {
        Ok(sig) => Ok(sig.to_owned()),
        Err(_) if fallback == "volk" => Signature::now("volk", "volk@localhost"),
        Err(_) => Signature::now(fallback, "reviewer@volk.localhost"),
    }
}

/// Stages everything (respecting `.gitignore`) and commits it with `message`.
/// Returns `None` without touching anything when `dir` has no `.git`.
pub fn commit_all(dir: &Path, message: &str) -> Result<Option<Oid>, GitError> {
    commit_all_by(dir, message, "volk")
}

/// [`commit_all`] authored by the person's git identity, or by `fallback` when git has
/// none (a reviewer's hand edit: `J:Junior` headless, `volk reviewer` in the workbench).
pub fn commit_all_by(dir: &Path, message: &str, fallback: &str) -> Result<Option<Oid>, GitError> {
    if !dir.join(".git").exists() {
        return Ok(None);
    }
    let repo = Repository::open(dir)?;
    let mut index = repo.index()?;
    index.add_all(["*"], IndexAddOption::DEFAULT, None)?;
    index.update_all(["*"], None)?;
    index.write()?;
    let tree_id = index.write_tree()?;
    let tree = repo.find_tree(tree_id)?;
    let sig = signature(&repo, fallback)?;
    let parent = match repo.head() {
        Ok(head) => Some(head.peel_to_commit()?),
        Err(_) => None,
    };
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    let message = crate::reasoner::redact::scrub_text(message);
    let oid = repo.commit(Some("HEAD"), &sig, &sig, &message, &tree, &parents)?;
    Ok(Some(oid))
}

/// The history, newest first. An empty or missing repository has none.
pub fn log(dir: &Path) -> Result<Vec<CommitInfo>, GitError> {
    if !dir.join(".git").exists() {
        return Ok(Vec::new());
    }
    let repo = Repository::open(dir)?;
    if repo.head().is_err() {
        return Ok(Vec::new());
    }
    let mut walk = repo.revwalk()?;
    walk.push_head()?;
    let mut out = Vec::new();
    for oid in walk {
        let commit = repo.find_commit(oid?)?;
        let id = commit.id().to_string();
        out.push(CommitInfo {
            short_id: id.chars().take(7).collect(),
            id,
            summary: String::from_utf8_lossy(commit.summary_bytes().unwrap_or_default())
                .into_owned(),
            time: commit.time().seconds(),
        });
    }
    Ok(out)
}

/// The text of `path` (relative to the repository) at commit `id`, if it existed.
pub fn file_at(dir: &Path, id: &str, path: &str) -> Result<Option<String>, GitError> {
    let repo = Repository::open(dir)?;
    let commit = repo.find_commit(Oid::from_str(id)?)?;
    let tree = commit.tree()?;
    let entry = match tree.get_path(Path::new(path)) {
        Ok(entry) => entry,
        Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let blob = repo.find_blob(entry.id())?;
    Ok(Some(String::from_utf8_lossy(blob.content()).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_is_noop_without_git() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), "x").unwrap();
        assert!(commit_all(dir.path(), "m").unwrap().is_none());
        assert!(!dir.path().join(".git").exists());
    }

    #[test]
    fn commits_carry_message_and_files() {
        let dir = tempfile::tempdir().unwrap();
        assert!(init(dir.path()).unwrap());
        assert!(!init(dir.path()).unwrap());
        std::fs::create_dir_all(dir.path().join("design")).unwrap();
        std::fs::write(dir.path().join("design/a.md"), "one").unwrap();
        std::fs::create_dir_all(dir.path().join(".volk")).unwrap();
        std::fs::write(dir.path().join(".volk/session.json"), "{}").unwrap();
        let first = commit_all(dir.path(), "design cycle 1").unwrap().unwrap();
        std::fs::write(dir.path().join("design/a.md"), "two").unwrap();
        commit_all(dir.path(), "design cycle 2").unwrap().unwrap();
        let log = log(dir.path()).unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(log[0].summary, "design cycle 2");
        assert_eq!(
            file_at(dir.path(), &first.to_string(), "design/a.md")
                .unwrap()
                .as_deref(),
            Some("one")
        );
        assert_eq!(
            file_at(dir.path(), &first.to_string(), ".volk/session.json").unwrap(),
            None
        );
    }
}
