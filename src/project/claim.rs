//! Claiming a project directory for a new thread without ever sharing or adopting one.
//!
//! The directory is made with `create_dir` (which fails when the name exists), never
//! with check-then-create, and the claim record `.volk/claim.json` names the thread that
//! made it. Anything else at a name (a user's repository, a symlink, a plain file, a
//! directory of another thread) makes volk try the next suffix (`taskman-2`, …). Claims
//! in one workspace are serialised by a short-lived lock, so two processes starting the
//! same thread agree on one directory.

use std::fs::OpenOptions;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fsutil::atomic_write;

/// Highest suffix tried before giving up (a workspace with a thousand `taskman-N`).
const MAX_SUFFIX: u32 = 1000;

/// The claim record: which thread volk created this directory for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimRecord {
    pub thread_id: String,
}

/// The directory a thread ended up with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claimed {
    /// Made just now, empty but for the claim record.
    Created(PathBuf),
    /// Made earlier by volk for this same thread.
    Existing(PathBuf),
}

impl Claimed {
    pub fn dir(&self) -> &Path {
        match self {
            Claimed::Created(dir) | Claimed::Existing(dir) => dir,
        }
    }
}

pub fn claim_path(project_dir: &Path) -> PathBuf {
    project_dir.join(".volk").join("claim.json")
}

/// Which thread a directory belongs to, if volk made it (or it holds a volk session,
/// for projects made before claim records existed). A symlink belongs to nobody.
pub fn owner_of(dir: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(dir).ok()?;
    if !meta.is_dir() {
        return None;
    }
    if let Ok(text) = std::fs::read_to_string(claim_path(dir))
        && let Ok(record) = serde_json::from_str::<ClaimRecord>(&text)
    {
        return Some(record.thread_id);
    }
    let text = std::fs::read_to_string(dir.join(".volk").join("session.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("thread_id")?.as_str().map(str::to_string)
}

/// Finds the directory of `thread_id` in `workspace` (one level deep, no symlinks).
pub fn find_claimed(workspace: &Path, thread_id: &str) -> io::Result<Option<PathBuf>> {
    let entries = match std::fs::read_dir(workspace) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|dir| owner_of(dir).as_deref() == Some(thread_id))
        .collect();
    // The unsuffixed name first, then `-2`, `-3`, … so every process picks the same one.
    found.sort_by_key(|p| (p.as_os_str().len(), p.clone()));
    Ok(found.into_iter().next())
}

/// The directory of `thread_id` named after `slug`: its existing one, else a new one
/// created atomically at the first free name.
pub fn claim(workspace: &Path, slug: &str, thread_id: &str) -> io::Result<Claimed> {
    std::fs::create_dir_all(workspace)?;
    let _guard = workspace_lock(workspace)?;
    if let Some(dir) = find_claimed(workspace, thread_id)? {
        return Ok(Claimed::Existing(dir));
    }
    for n in 1..=MAX_SUFFIX {
        let name = if n == 1 {
            slug.to_string()
        } else {
            format!("{slug}-{n}")
        };
        let dir = workspace.join(&name);
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                let record = ClaimRecord {
                    thread_id: thread_id.to_string(),
                };
                let text = serde_json::to_string(&record).map_err(io::Error::other)?;
                atomic_write(&claim_path(&dir), text.as_bytes())?;
                return Ok(Claimed::Created(dir));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other(format!(
        "{}: no free project name from {slug} to {slug}-{MAX_SUFFIX}",
        workspace.display()
    )))
}

/// Serialises claims in one workspace; held for the few milliseconds a claim takes and
/// released with the returned file (or the process).
fn workspace_lock(workspace: &Path) -> io::Result<std::fs::File> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(workspace.join(".volk-claims.lock"))?;
    file.lock()?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_directories_symlinks_and_files_get_the_next_suffix() {
        let ws = tempfile::tempdir().unwrap();
        let ws = ws.path();
        std::fs::create_dir(ws.join("taskman")).unwrap();
        std::fs::write(ws.join("taskman-2"), "a file").unwrap();
        let target = tempfile::tempdir().unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(target.path(), ws.join("taskman-3")).unwrap();
        let claimed = claim(ws, "taskman", "t1").unwrap();
        let expected = if cfg!(unix) { "taskman-4" } else { "taskman-3" };
        assert_eq!(claimed, Claimed::Created(ws.join(expected)));
        assert_eq!(
            claim(ws, "taskman", "t1").unwrap(),
            Claimed::Existing(ws.join(expected))
        );
        let other = claim(ws, "taskman", "t2").unwrap();
        assert_ne!(other.dir(), ws.join(expected));
        assert!(std::fs::read_dir(target.path()).unwrap().next().is_none());
    }
}
