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

/// The claim record: which thread volk created this directory for, and the id of the
/// creation record volk keeps for it in the workspace (a line of `.volk-claims.jsonl`).
/// A `claim.json` alone proves nothing (a cloned repository can carry one); the
/// creation record, outside every project, is what volk wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimRecord {
    pub thread_id: String,
    #[serde(default)]
    pub created: String,
}

/// The workspace's creation records, one line per directory volk made (appended under
/// the workspace lock).
fn creations_path(workspace: &Path) -> PathBuf {
    workspace.join(".volk-claims.jsonl")
}

/// True when the workspace holds the creation record `created` for `thread_id`.
fn created_here(workspace: &Path, created: &str, thread_id: &str) -> bool {
    let plain = !created.is_empty()
        && created.len() <= 64
        && created.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
    if !plain {
        return false;
    }
    let path = creations_path(workspace);
    let Ok(Some(text)) =
        crate::confined::read_text(workspace, &path, crate::confined::Limit::LEDGER)
    else {
        return false;
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<ClaimRecord>(l).ok())
        .any(|r| r.thread_id == thread_id && r.created == created)
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

/// Which thread a directory belongs to: only one volk made, whose `claim.json` matches
/// a creation record in the workspace and, once it has a session, the session's thread.
/// A symlink, a directory with a forged `claim.json`, or one with only a session (a
/// copied or cloned project) belongs to nobody.
pub fn owner_of(dir: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(dir).ok()?;
    if !meta.is_dir() {
        return None;
    }
    let workspace = dir.parent()?;
    let limit = crate::confined::Limit::LEDGER;
    let text = crate::confined::read_text(dir, &claim_path(dir), limit).ok()??;
    let record = serde_json::from_str::<ClaimRecord>(&text).ok()?;
    if !created_here(workspace, &record.created, &record.thread_id) {
        return None;
    }
    let session = dir.join(".volk").join("session.json");
    match crate::confined::read_text(dir, &session, crate::confined::Limit::SESSION) {
        Ok(None) => Some(record.thread_id),
        Ok(Some(text)) => {
            // A session that names another thread is not this claim's; one that cannot be
            // read is still the thread's (its load reports what is wrong with it).
            let named = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v.get("thread_id")?.as_str().map(str::to_string));
            match named {
                Some(other) if other != record.thread_id => None,
                _ => Some(record.thread_id),
            }
        }
        Err(_) => Some(record.thread_id),
    }
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
    finish_interrupted_claim(workspace)?;
    if let Some(dir) = find_claimed(workspace, thread_id)? {
        return Ok(Claimed::Existing(dir));
    }
    let intent = intent_path(workspace);
    for n in 1..=MAX_SUFFIX {
        let name = if n == 1 {
            slug.to_string()
        } else {
            format!("{slug}-{n}")
        };
        let dir = workspace.join(&name);
        // The intent first: a process killed between `create_dir` and the claim record
        // leaves an empty directory the next claimer can recognise as volk's.
        let record = Intent {
            thread_id: thread_id.to_string(),
            name: name.clone(),
        };
        let text = serde_json::to_string(&record).map_err(io::Error::other)?;
        atomic_write(&intent, text.as_bytes())?;
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                write_record(&dir, thread_id)?;
                std::fs::remove_file(&intent)?;
                return Ok(Claimed::Created(dir));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    let _ = std::fs::remove_file(&intent);
    Err(io::Error::other(format!(
        "{}: no free project name from {slug} to {slug}-{MAX_SUFFIX}",
        workspace.display()
    )))
}

/// A claim under way: the name being tried for a thread.
#[derive(Debug, Serialize, Deserialize)]
struct Intent {
    thread_id: String,
    name: String,
}

fn intent_path(workspace: &Path) -> PathBuf {
    workspace.join(".volk-claims.intent")
}

/// Writes the creation record in the workspace first, then the claim naming it.
fn write_record(dir: &Path, thread_id: &str) -> io::Result<()> {
    let record = ClaimRecord {
        thread_id: thread_id.to_string(),
        created: uuid::Uuid::new_v4().to_string(),
    };
    let text = serde_json::to_string(&record).map_err(io::Error::other)?;
    if let Some(workspace) = dir.parent() {
        crate::confined::append_line(workspace, &creations_path(workspace), &text)?;
    }
    crate::confined::write_atomic(dir, &claim_path(dir), text.as_bytes())
}

/// Completes the claim of a process killed mid-claim (we hold the workspace lock, so
/// it is dead). The directory it names is adopted only if it was made after the intent
/// and holds nothing but volk's own (partial) `.volk/`: a user's directory never does.
fn finish_interrupted_claim(workspace: &Path) -> io::Result<()> {
    let path = intent_path(workspace);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let written = std::fs::metadata(&path)?.modified()?;
    if let Ok(intent) = serde_json::from_str::<Intent>(&text)
        && !intent.name.contains(['/', '\\'])
        && !intent.name.starts_with('.')
    {
        let dir = workspace.join(&intent.name);
        let fresh = std::fs::symlink_metadata(&dir)
            .is_ok_and(|m| m.is_dir() && m.modified().is_ok_and(|t| t >= written));
        let only_volk = std::fs::read_dir(&dir).is_ok_and(|entries| {
            entries
                .flatten()
                .all(|e| e.file_name() == ".volk" && e.path().is_dir())
        });
        if fresh && only_volk && !claim_path(&dir).exists() {
            write_record(&dir, &intent.thread_id)?;
        }
    }
    std::fs::remove_file(&path)
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

    #[test]
    fn a_claim_killed_after_create_dir_is_finished_not_abandoned() {
        let ws = tempfile::tempdir().unwrap();
        let ws = ws.path();
        // A user's empty directory older than the intent is never adopted.
        std::fs::create_dir(ws.join("old")).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let intent = |thread: &str, name: &str| {
            let text = format!(r#"{{"thread_id":"{thread}","name":"{name}"}}"#);
            std::fs::write(intent_path(ws), text).unwrap();
        };
        intent("t1", "old");
        assert_eq!(
            claim(ws, "old", "t1").unwrap(),
            Claimed::Created(ws.join("old-2"))
        );
        intent("t2", "p");
        std::fs::create_dir(ws.join("p")).unwrap();
        assert_eq!(
            claim(ws, "p", "t2").unwrap(),
            Claimed::Existing(ws.join("p"))
        );
        assert_eq!(owner_of(&ws.join("p")).as_deref(), Some("t2"));
        assert!(owner_of(&ws.join("old")).is_none());
    }
}
