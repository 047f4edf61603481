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
///
/// The repository is made in `.volk/tmp/` and renamed into place, so a crash never
/// leaves a half-made `.git`. An existing `.gitignore` gets volk's `.volk/` line
/// appended when it lacks one.
pub fn init(dir: &Path) -> Result<bool, GitError> {
    ensure_ignored(dir)?;
    if dir.join(".git").exists() {
        ensure_excluded(dir)?;
        return Ok(false);
    }
    let tmp = dir.join(".volk").join("tmp");
    std::fs::create_dir_all(&tmp)?;
    let staging = tempfile::Builder::new()
        .prefix("git-init-")
        .tempdir_in(&tmp)?;
    Repository::init(staging.path())?;
    std::fs::rename(staging.path().join(".git"), dir.join(".git"))?;
    ensure_excluded(dir)?;
    Ok(true)
}

/// The session directory, as git names it; never staged (see [`stage_all`]).
const VOLK_DIR: &str = ".volk";

/// Writes `.volk/` to `.git/info/exclude`, which the person does not edit, so the
/// session stays out of git even when they replace `.gitignore`.
fn ensure_excluded(dir: &Path) -> Result<(), GitError> {
    let repo = Repository::open(dir)?;
    let path = repo.path().join("info").join("exclude");
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e.into()),
    };
    if text
        .lines()
        .any(|l| matches!(l.trim(), ".volk" | ".volk/" | "/.volk" | "/.volk/"))
    {
        return Ok(());
    }
    let mut body = text;
    if !body.is_empty() && !body.ends_with('\n') {
        body.push('\n');
    }
    body.push_str(".volk/\n");
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    crate::fsutil::atomic_write(&path, body.as_bytes())?;
    Ok(())
}

/// Stages every change of the work tree (respecting the ignore files) except
/// `.volk/`, which is also dropped from the index should it ever have been added:
/// the session is never committed, whatever the ignore files say.
fn stage_all(index: &mut git2::Index) -> Result<(), git2::Error> {
    let mut skip_volk = |path: &Path, _: &[u8]| -> i32 { i32::from(path.starts_with(VOLK_DIR)) };
    index.add_all(["*"], IndexAddOption::DEFAULT, Some(&mut skip_volk))?;
    index.update_all(["*"], Some(&mut skip_volk))?;
    index.remove_dir(Path::new(VOLK_DIR), 0)?;
    index.write()
}

/// Makes sure `.gitignore` keeps the session out of commits.
fn ensure_ignored(dir: &Path) -> Result<(), GitError> {
    let ignore = dir.join(".gitignore");
    match std::fs::read_to_string(&ignore) {
        Ok(text) => {
            let has = text
                .lines()
                .any(|l| matches!(l.trim(), ".volk" | ".volk/" | "/.volk" | "/.volk/"));
            if !has {
                let mut body = text;
                if !body.is_empty() && !body.ends_with('\n') {
                    body.push('\n');
                }
                body.push_str(".volk/\n");
                crate::fsutil::atomic_write(&ignore, body.as_bytes())?;
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            crate::fsutil::atomic_write(&ignore, GITIGNORE.as_bytes())?;
        }
        Err(e) => return Err(e.into()),
    }
    Ok(())
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
    stage_all(&mut index)?;
    let tree_id = index.write_tree()?;
    let tree = repo.find_tree(tree_id)?;
    let sig = signature(&repo, fallback)?;
    let parent = match repo.head() {
        Ok(head) => Some(head.peel_to_commit()?),
        Err(_) => None,
    };
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    let message = crate::redact::scrub_text(message);
    let oid = repo.commit(Some("HEAD"), &sig, &sig, &message, &tree, &parents)?;
    Ok(Some(oid))
}

/// What [`commit_once`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Committed {
    /// A new commit.
    New(Oid),
    /// HEAD already is this commit (same tree, same message): a resent step.
    Already(Oid),
}

impl Committed {
    pub fn id(self) -> Oid {
        match self {
            Committed::New(oid) | Committed::Already(oid) => oid,
        }
    }
}

/// [`commit_all`] that is safe to repeat: when HEAD already has the tree and the
/// message, nothing new is made, so a step redone after a crash commits once.
pub fn commit_once(dir: &Path, message: &str) -> Result<Committed, GitError> {
    let repo = Repository::open(dir)?;
    let mut index = repo.index()?;
    stage_all(&mut index)?;
    let tree_id = index.write_tree()?;
    let parent = match repo.head() {
        Ok(head) => Some(head.peel_to_commit()?),
        Err(_) => None,
    };
    let mut parent = parent;
    if let Some(head) = parent.clone()
        && head.message().ok().map(str::trim_end) == Some(message.trim_end())
    {
        if head.tree_id() == tree_id {
            return Ok(Committed::Already(head.id()));
        }
        // The step was committed, then redone with other content (a model answers
        // differently the second time): replace that commit, never add a second one.
        parent = head.parents().next();
    }
    let tree = repo.find_tree(tree_id)?;
    let sig = signature(&repo, "volk")?;
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    if parents.is_empty()
        && let Ok(head) = repo.head()
        && let Ok(name) = head.name()
    {
        // Replacing a root commit: point the branch at a new root.
        let oid = repo.commit(None, &sig, &sig, message, &tree, &[])?;
        repo.reference(name, oid, true, "volk: redo of the same step")?;
        return Ok(Committed::New(oid));
    }
    if let Some(p) = &parent
        && repo.head().ok().and_then(|h| h.target()) != Some(p.id())
    {
        let oid = repo.commit(None, &sig, &sig, message, &tree, &parents)?;
        let head = repo.head()?;
        let name = head.name().unwrap_or("HEAD").to_string();
        repo.reference(&name, oid, true, "volk: redo of the same step")?;
        return Ok(Committed::New(oid));
    }
    let oid = repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)?;
    Ok(Committed::New(oid))
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
    fn the_session_is_never_staged_whatever_the_ignore_files_say() {
        let dir = tempfile::tempdir().unwrap();
        init(dir.path()).unwrap();
        let exclude = dir.path().join(".git/info/exclude");
        assert!(
            std::fs::read_to_string(&exclude)
                .unwrap()
                .contains(".volk/\n")
        );
        // The person's own ignore files, without volk's line.
        std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
        std::fs::write(&exclude, "").unwrap();
        std::fs::create_dir_all(dir.path().join(".volk/outbox")).unwrap();
        std::fs::write(dir.path().join(".volk/session.json"), "{}").unwrap();
        std::fs::write(dir.path().join(".volk/outbox/001.json"), "{}").unwrap();
        std::fs::write(dir.path().join("a.md"), "one").unwrap();
        commit_all(dir.path(), "first").unwrap();
        commit_once(dir.path(), "second").unwrap();
        let repo = Repository::open(dir.path()).unwrap();
        let tree = repo.head().unwrap().peel_to_tree().unwrap();
        assert!(tree.get_path(Path::new("a.md")).is_ok());
        assert!(tree.get_path(Path::new(".volk")).is_err());
        // `init` of the existing repository writes the exclusion again.
        init(dir.path()).unwrap();
        assert!(
            std::fs::read_to_string(&exclude)
                .unwrap()
                .contains(".volk/")
        );
    }

    #[test]
    fn a_redone_step_commits_once() {
        let dir = tempfile::tempdir().unwrap();
        init(dir.path()).unwrap();
        std::fs::write(dir.path().join("a.md"), "one").unwrap();
        let first = commit_once(dir.path(), "Design cycle 1").unwrap();
        assert!(matches!(first, Committed::New(_)));
        assert_eq!(
            commit_once(dir.path(), "Design cycle 1").unwrap(),
            Committed::Already(first.id())
        );
        std::fs::write(dir.path().join("a.md"), "one, redone").unwrap();
        assert!(matches!(
            commit_once(dir.path(), "Design cycle 1").unwrap(),
            Committed::New(_)
        ));
        assert_eq!(log(dir.path()).unwrap().len(), 1);
        std::fs::write(dir.path().join("a.md"), "two").unwrap();
        commit_once(dir.path(), "Design cycle 2").unwrap();
        std::fs::write(dir.path().join("a.md"), "two, redone").unwrap();
        commit_once(dir.path(), "Design cycle 2").unwrap();
        let log = log(dir.path()).unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(
            file_at(dir.path(), &log[0].id, "a.md").unwrap().as_deref(),
            Some("two, redone")
        );
    }

    #[test]
    fn an_existing_gitignore_gets_the_volk_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".gitignore"), "target").unwrap();
        init(dir.path()).unwrap();
        let text = std::fs::read_to_string(dir.path().join(".gitignore")).unwrap();
        assert_eq!(text, "target\n.volk/\n");
        init(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".gitignore")).unwrap(),
            text
        );
    }

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
