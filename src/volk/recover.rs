//! What a crashed volk leaves behind, cleared by the next process that takes the
//! thread lock (so nobody else is writing): temp files, a git lock of a commit that
//! never finished, journal lines of a transition whose session was never saved.
//!
//! Also the checks that turn git trouble into one clear line before a commit.

use std::io;
use std::path::{Path, PathBuf};

use crate::volk::session::Session;

/// Marks a commit in progress; a marker found at start means its process died
/// mid-commit, so the git locks it may have left are stale.
fn commit_marker(project_dir: &Path) -> PathBuf {
    Session::dir(project_dir).join("committing")
}

/// The git lock files a killed commit can leave.
fn git_locks(project_dir: &Path) -> Vec<PathBuf> {
    let git = project_dir.join(".git");
    let mut locks = vec![git.join("index.lock"), git.join("HEAD.lock")];
    if let Ok(entries) = crate::confined::read_dir(project_dir, &git.join("refs").join("heads")) {
        locks.extend(
            entries
                .into_iter()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "lock")),
        );
    }
    locks
}

/// Clears what a dead volk left in `project_dir`. Call it holding the thread lock.
///
/// Only what volk made is removed: regular files named `.volk-tmp-*` (the temp files of
/// [`crate::fsutil::atomic_write`]) and real directories named `git-init-*` (the
/// staging of [`crate::project::git::init`]; `remove_dir_all` does not follow links
/// inside). A planted `.volk` or `.volk/tmp` link is refused before anything is read
/// or removed, and a link inside `tmp` is left alone.
pub fn sweep(project_dir: &Path) -> io::Result<()> {
    use crate::confined::{self, Want};
    let volk = Session::dir(project_dir);
    let tmp = volk.join("tmp");
    let volk_exists = confined::check(project_dir, &volk, Want::Dir)
        .map_err(|e| confined::at(&volk, e))?
        .is_some();
    if volk_exists {
        confined::create_dir_all(project_dir, &tmp).map_err(|e| confined::at(&tmp, e))?;
    }
    for entry in confined::read_dir(project_dir, &tmp).map_err(|e| confined::at(&tmp, e))? {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        let _ = if kind.is_file() && name.starts_with(".volk-tmp-") {
            std::fs::remove_file(&path)
        } else if kind.is_dir() && name.starts_with("git-init-") {
            std::fs::remove_dir_all(&path)
        } else {
            Ok(())
        };
    }
    // Temp files of older versions were made beside their target.
    for dir in [
        project_dir.to_path_buf(),
        project_dir.join("design"),
        volk.clone(),
        volk.join("outbox"),
    ] {
        let Ok(entries) = confined::read_dir(project_dir, &dir) else {
            continue;
        };
        for entry in entries {
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with(".volk-tmp-")
                && entry.file_type().is_ok_and(|t| t.is_file())
            {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    let marker = commit_marker(project_dir);
    if confined::check(project_dir, &marker, Want::File)
        .map_err(|e| confined::at(&marker, e))?
        .is_some()
    {
        for lock in git_locks(project_dir) {
            match confined::remove_file(project_dir, &lock) {
                Ok(()) => tracing::warn!("removed {} left by a killed commit", lock.display()),
                Err(e) => return Err(confined::at(&lock, e)),
            }
        }
        std::fs::remove_file(&marker)?;
    }
    Ok(())
}

/// Drops journal lines written after the last saved session: they belong to a step
/// that did not finish and will be journaled again when it is redone.
pub fn trim_journal(session: &Session) -> io::Result<()> {
    let Some(saved) = session.journal_bytes.get() else {
        return Ok(());
    };
    let path = session.journal_path();
    let file = match crate::confined::open_read_write(&session.project_dir, &path, false) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if file.metadata()?.len() > saved {
        file.set_len(saved)?;
    }
    Ok(())
}

/// Repairs what a process killed right after a commit did not record: a cycle whose
/// commit is in git (`Design cycle N: …`) but not in the session gets it back, the
/// journal gets its missing `committed` line, and `context.json` its commit for that
/// cycle. Call it holding the thread lock, after [`trim_journal`]. Returns whether the
/// session changed (the caller saves it).
pub fn repair_commits(session: &mut Session) -> io::Result<bool> {
    let dir = session.project_dir.clone();
    let Ok(repo) = git2::Repository::open(&dir) else {
        return Ok(false);
    };
    let mut in_git = std::collections::HashMap::new();
    if let Ok(mut walk) = repo.revwalk()
        && walk.push_head().is_ok()
    {
        for id in walk.flatten().take(10_000) {
            let Ok(commit) = repo.find_commit(id) else {
                continue;
            };
            let cycle = commit
                .summary()
                .ok()
                .flatten()
                .and_then(|s| s.strip_prefix("Design cycle "))
                .and_then(|s| s.split(':').next())
                .and_then(|n| n.trim().parse::<u32>().ok());
            if let Some(cycle) = cycle {
                // The newest commit of a cycle wins (a redone step replaced HEAD).
                let short: String = id.to_string().chars().take(7).collect();
                in_git.entry(cycle).or_insert(short);
            }
        }
    }
    let journal_path = session.journal_path();
    let limit = crate::confined::Limit::JOURNAL;
    let journal = crate::confined::read_text(&dir, &journal_path, limit)?.unwrap_or_default();
    let journaled: std::collections::HashSet<u32> = journal
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == "committed")
        .filter_map(|v| {
            v["detail"]["cycle"]
                .as_u64()
                .and_then(|c| u32::try_from(c).ok())
        })
        .collect();
    let mut changed = false;
    let (trace_id, thread_id) = (session.trace_id.clone(), session.thread_id.clone());
    for record in &mut session.history {
        let Some(short) = in_git.get(&record.cycle) else {
            continue;
        };
        if record.commit.is_none() {
            record.commit = Some(short.clone());
            changed = true;
        }
        let commit = record.commit.clone().unwrap_or_default();
        if !journaled.contains(&record.cycle) {
            let entry = crate::volk::journal::JournalEntry {
                time: String::new(),
                trace_id: trace_id.clone(),
                thread_id: thread_id.clone(),
                cycle: record.cycle,
                event: crate::volk::journal::JournalEvent::Committed,
                detail: serde_json::json!({ "commit": commit, "cycle": record.cycle, "repaired": true }),
            }
            .stamped();
            let line = serde_json::to_string(&entry).map_err(io::Error::other)?;
            crate::confined::append_line(&dir, &journal_path, &line)?;
            changed = true;
        }
        repair_context_commit(&dir, record.cycle, &commit)?;
    }
    Ok(changed)
}

/// Sets the `commit` of `cycle`'s `session_history` entry in `context.json` where it is
/// `null`; everything else in the file is kept as it is.
fn repair_context_commit(dir: &Path, cycle: u32, commit: &str) -> io::Result<()> {
    let path = crate::project::Layout::new(dir).context_json();
    let limit = crate::confined::Limit::LEDGER;
    let Some(text) = crate::confined::read_text(dir, &path, limit)? else {
        return Ok(());
    };
    let Ok(mut doc) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(());
    };
    let mut fixed = false;
    if let Some(items) = doc
        .get_mut("session_history")
        .and_then(serde_json::Value::as_array_mut)
    {
        for item in items {
            if item["cycle"].as_u64() == Some(u64::from(cycle)) && item["commit"].is_null() {
                item["commit"] = serde_json::json!(commit);
                fixed = true;
            }
        }
    }
    if fixed {
        let text = serde_json::to_string_pretty(&doc).map_err(io::Error::other)?;
        crate::confined::write_atomic(dir, &path, text.as_bytes())?;
    }
    Ok(())
}

/// The last saved session of `project_dir`, marked failed where a retry can redo the
/// interrupted step: how the workbench carries on after a step's commit failed.
pub fn roll_back(
    project_dir: &Path,
    message: &str,
) -> Result<Option<Session>, crate::volk::session::SessionError> {
    use crate::volk::protocol::Phase;
    let Some(mut session) = Session::load(project_dir)? else {
        return Ok(None);
    };
    if matches!(
        session.phase,
        Phase::Designing { .. } | Phase::Reflecting | Phase::Planning { .. }
    ) {
        session.phase = Phase::Failed {
            resume: Box::new(session.phase.clone()),
            message: message.to_string(),
            retryable: true,
        };
        session.save()?;
    }
    Ok(Some(session))
}

#[derive(Debug, thiserror::Error)]
pub enum GitTrouble {
    #[error(
        "{0}: the project's .git is gone (it held the earlier cycles); restore it, or `git init` there to start a new history"
    )]
    Deleted(PathBuf),
    #[error(
        "{0}: held by another git process; wait for it, or remove the file if no git command is running"
    )]
    Locked(PathBuf),
    #[error("{path}: the git repository is corrupt: {message}")]
    Corrupt { path: PathBuf, message: String },
    #[error("{path}: commit failed: {message}")]
    Failed { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// Commits the project once for this step (see [`crate::project::git::commit_once`]),
/// after checking the repository is there and free. `Ok(None)` when the project never
/// had a repository (git was unavailable when it was made).
pub fn commit_step(
    project_dir: &Path,
    message: &str,
    had_commits: bool,
) -> Result<Option<crate::project::git::Committed>, GitTrouble> {
    let git = project_dir.join(".git");
    if !git.exists() {
        return if had_commits {
            Err(GitTrouble::Deleted(git))
        } else {
            Ok(None)
        };
    }
    let index_lock = git.join("index.lock");
    if index_lock.exists() {
        return Err(GitTrouble::Locked(index_lock));
    }
    let marker = commit_marker(project_dir);
    let record = format!("pid={}\n", std::process::id());
    crate::confined::write_atomic(project_dir, &marker, record.as_bytes()).map_err(|source| {
        GitTrouble::Io {
            path: marker.clone(),
            source,
        }
    })?;
    let result = crate::project::git::commit_once(project_dir, message);
    let _ = crate::confined::remove_file(project_dir, &marker);
    result.map(Some).map_err(|e| {
        // Opened again only on failure, to tell a broken repository from a failed commit.
        let broken = match git2::Repository::open(project_dir) {
            Err(open) => Some(open.message().to_string()),
            Ok(repo) => match repo.head() {
                Err(head) if head.code() != git2::ErrorCode::UnbornBranch => {
                    Some(head.message().to_string())
                }
                _ => None,
            },
        };
        match broken {
            Some(message) => GitTrouble::Corrupt { path: git, message },
            None => GitTrouble::Failed {
                path: git,
                message: e.to_string(),
            },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_commit_leaves_a_lock_the_next_start_clears() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        crate::project::git::init(p).unwrap();
        std::fs::write(p.join("a.md"), "x").unwrap();
        commit_step(p, "one", false).unwrap().unwrap();
        std::fs::write(p.join(".git/index.lock"), "").unwrap();
        assert!(matches!(
            commit_step(p, "two", true),
            Err(GitTrouble::Locked(_))
        ));
        // A lock with no marker is someone else's: the sweep keeps it.
        sweep(p).unwrap();
        assert!(p.join(".git/index.lock").exists());
        std::fs::write(commit_marker(p), "pid=1\n").unwrap();
        sweep(p).unwrap();
        assert!(!p.join(".git/index.lock").exists());
        let again = commit_step(p, "one", true).unwrap().unwrap();
        assert!(matches!(again, crate::project::git::Committed::Already(_)));
        std::fs::write(p.join(".git/HEAD"), "garbage").unwrap();
        let corrupt = commit_step(p, "two", true).unwrap_err();
        assert!(matches!(corrupt, GitTrouble::Corrupt { .. }), "{corrupt}");
        assert_eq!(corrupt.to_string().lines().count(), 1);
        std::fs::remove_dir_all(p.join(".git")).unwrap();
        assert!(matches!(
            commit_step(p, "two", true),
            Err(GitTrouble::Deleted(_))
        ));
    }
}
