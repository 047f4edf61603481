//! `--state-remote URL`: a thread's state carried between machines through git.
//!
//! Workers on different machines do not share a workspace. After each step a worker
//! pushes the thread to one repository with two refs per thread: the design branch
//! (`refs/volk/threads/<thread>/head`, the commits a person reads) and the resumable
//! state (`refs/volk/threads/<thread>/state`: session, journal, ledger and outbox of
//! `.volk/`, committed on the project's own `refs/volk/state`, never on the design
//! branch). Before a step a worker fetches, and when the remote's state differs from
//! its copy it takes the remote's: under the thread's lease only one worker pushes, so
//! the remote is always the latest finished step. A step that died before its push is
//! redone from the state before it, which is `volk run`'s resend path.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::bus::BusError;
use crate::bus::names::token;
use crate::project::claim;
use crate::volk::session::Session;

/// The `.volk/` files a resume needs; the rest (lock, tmp, draft, caches) stays local.
const STATE_FILES: [&str; 3] = ["session.json", "journal.jsonl", "processed.json"];
const LOCAL_STATE: &str = "refs/volk/state";
const REMOTE_HEAD: &str = "refs/volk/remote-head";

#[derive(Debug, Clone)]
pub struct StateRemote {
    url: String,
    lock_wait: Duration,
}

impl StateRemote {
    pub fn new(url: &str, lock_wait: Duration) -> StateRemote {
        StateRemote {
            url: url.to_string(),
            lock_wait,
        }
    }

    fn refs(thread_id: &str) -> (String, String) {
        let t = token(thread_id);
        (
            format!("refs/volk/threads/{t}/head"),
            format!("refs/volk/threads/{t}/state"),
        )
    }

    /// Brings the thread's directory in `workspace` to the remote's state when the remote
    /// has one that differs from the local copy (or the thread is new here).
    pub fn fetch(&self, workspace: &Path, thread_id: &str) -> Result<(), BusError> {
        let (head_ref, state_ref) = Self::refs(thread_id);
        let listed = git(workspace, &["ls-remote", &self.url, &state_ref])?;
        let Some(remote) = listed.split_whitespace().next().map(str::to_string) else {
            return Ok(());
        };
        let local = claim::find_claimed(workspace, thread_id)
            .map_err(|e| BusError::new(workspace.display(), e))?;
        if let Some(dir) = &local
            && git(dir, &["rev-parse", "-q", "--verify", LOCAL_STATE])
                .is_ok_and(|sha| sha.trim() == remote)
        {
            return Ok(());
        }
        let dir = match local {
            Some(dir) => dir,
            None => self.claim_for(workspace, thread_id, &state_ref)?,
        };
        let _lock = crate::volk::lock::acquire(&dir, self.lock_wait, "volk serve")
            .map_err(|e| BusError::new(dir.display(), e))?;
        crate::project::git::init(&dir).map_err(|e| BusError::new(dir.display(), e))?;
        git(
            &dir,
            &[
                "fetch",
                "-q",
                "--force",
                &self.url,
                &format!("+{head_ref}:{REMOTE_HEAD}"),
                &format!("+{state_ref}:{LOCAL_STATE}"),
            ],
        )?;
        let branch = git(&dir, &["show", &format!("{LOCAL_STATE}:branch")])?;
        let branch = branch.trim();
        git(&dir, &["checkout", "-q", "-f", "-B", branch, REMOTE_HEAD])?;
        git(&dir, &["reset", "-q", "--hard", REMOTE_HEAD])?;
        self.restore_volk(&dir)?;
        crate::bus::note(&format!(
            "[bus] took thread {} from {} (state {})",
            thread_id,
            self.shown(),
            &remote[..remote.len().min(12)]
        ));
        Ok(())
    }

    /// A new directory for a thread first seen here, named as on the machine that made it.
    fn claim_for(
        &self,
        workspace: &Path,
        thread_id: &str,
        state_ref: &str,
    ) -> Result<PathBuf, BusError> {
        let staging = tempfile::Builder::new()
            .prefix(".volk-state-")
            .tempdir_in(workspace)
            .map_err(|e| BusError::new(workspace.display(), e))?;
        git(staging.path(), &["init", "-q", "--bare"])?;
        git(
            staging.path(),
            &["fetch", "-q", &self.url, &format!("{state_ref}:refs/s")],
        )?;
        let name = git(staging.path(), &["show", "refs/s:dir"])?;
        let slug = crate::project::slug::slugify(name.trim());
        let claimed = claim::claim(workspace, &slug, thread_id)
            .map_err(|e| BusError::new(workspace.display(), e))?;
        Ok(claimed.dir().to_path_buf())
    }

    /// Replaces the resumable files of `.volk/` with those of `refs/volk/state`.
    fn restore_volk(&self, dir: &Path) -> Result<(), BusError> {
        let volk = Session::dir(dir);
        let outbox = volk.join("outbox");
        for name in STATE_FILES {
            let _ = std::fs::remove_file(volk.join(name));
        }
        let _ = std::fs::remove_dir_all(&outbox);
        std::fs::create_dir_all(&outbox).map_err(|e| BusError::new(outbox.display(), e))?;
        let listed = git(dir, &["ls-tree", "-r", "--name-only", LOCAL_STATE, "volk/"])?;
        for path in listed.lines() {
            let Some(relative) = path.strip_prefix("volk/") else {
                continue;
            };
            // Only the names this module writes: a hostile remote cannot aim elsewhere.
            let allowed = STATE_FILES.contains(&relative)
                || relative.strip_prefix("outbox/").is_some_and(|f| {
                    !f.is_empty() && !f.contains('/') && !f.starts_with('.') && f.ends_with(".json")
                });
            if !allowed {
                continue;
            }
            let bytes = git_bytes(dir, &["show", &format!("{LOCAL_STATE}:{path}")])?;
            let target = volk.join(relative);
            crate::fsutil::atomic_write(&target, &bytes)
                .map_err(|e| BusError::new(target.display(), e))?;
        }
        Ok(())
    }

    /// After a step: commits `.volk/`'s resumable files on `refs/volk/state` and pushes
    /// both refs of the thread.
    pub fn push(&self, dir: &Path, thread_id: &str) -> Result<(), BusError> {
        let (head_ref, state_ref) = Self::refs(thread_id);
        let _lock = crate::volk::lock::acquire(dir, self.lock_wait, "volk serve")
            .map_err(|e| BusError::new(dir.display(), e))?;
        let volk = Session::dir(dir);
        let tmp = volk.join("tmp");
        std::fs::create_dir_all(&tmp).map_err(|e| BusError::new(tmp.display(), e))?;
        let index = tempfile::Builder::new()
            .prefix("state-index-")
            .tempfile_in(&tmp)
            .map_err(|e| BusError::new(tmp.display(), e))?;
        let index_path = index.path().to_path_buf();
        drop(index);
        let mut files: Vec<(String, PathBuf)> = STATE_FILES
            .iter()
            .map(|n| (format!("volk/{n}"), volk.join(n)))
            .filter(|(_, p)| p.is_file())
            .collect();
        if let Ok(entries) = std::fs::read_dir(volk.join("outbox")) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.ends_with(".json") && !name.starts_with('.') {
                    files.push((format!("volk/outbox/{name}"), entry.path()));
                }
            }
        }
        files.sort();
        let branch = git(dir, &["symbolic-ref", "--short", "HEAD"])?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let add = |path: &str, sha: &str| -> Result<(), BusError> {
            git_env(
                dir,
                &[
                    "update-index",
                    "--add",
                    "--cacheinfo",
                    &format!("100644,{sha},{path}"),
                ],
                &[("GIT_INDEX_FILE", index_path.as_os_str())],
            )
            .map(|_| ())
        };
        for (path, file) in &files {
            let sha = git(dir, &["hash-object", "-w", "--", &file.to_string_lossy()])?;
            add(path, sha.trim())?;
        }
        for (path, text) in [("branch", branch.trim()), ("dir", name.as_str())] {
            let file = tmp.join(format!("state-{path}"));
            std::fs::write(&file, text).map_err(|e| BusError::new(file.display(), e))?;
            let sha = git(dir, &["hash-object", "-w", "--", &file.to_string_lossy()])?;
            let _ = std::fs::remove_file(&file);
            add(path, sha.trim())?;
        }
        let tree = git_env(
            dir,
            &["write-tree"],
            &[("GIT_INDEX_FILE", index_path.as_os_str())],
        )?;
        let _ = std::fs::remove_file(&index_path);
        let mut args = vec!["commit-tree".to_string(), tree.trim().to_string()];
        if let Ok(parent) = git(dir, &["rev-parse", "-q", "--verify", LOCAL_STATE]) {
            args.extend(["-p".to_string(), parent.trim().to_string()]);
        }
        args.extend([
            "-m".to_string(),
            format!("volk state of thread {thread_id}"),
        ]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let commit = git(dir, &args)?;
        git(dir, &["update-ref", LOCAL_STATE, commit.trim()])?;
        git(
            dir,
            &[
                "push",
                "-q",
                "--force",
                &self.url,
                &format!("HEAD:{head_ref}"),
                &format!("{LOCAL_STATE}:{state_ref}"),
            ],
        )?;
        Ok(())
    }

    fn shown(&self) -> String {
        crate::redact::scrub_text(&self.url).into_owned()
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<String, BusError> {
    git_env(dir, args, &[])
}

fn git_env(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<String, BusError> {
    let bytes = run(dir, args, env)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn git_bytes(dir: &Path, args: &[&str]) -> Result<Vec<u8>, BusError> {
    run(dir, args, &[])
}

fn run(dir: &Path, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Result<Vec<u8>, BusError> {
    let mut command = Command::new("git");
    command
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_AUTHOR_NAME", "volk")
        .env("GIT_AUTHOR_EMAIL", "volk@localhost")
        .env("GIT_COMMITTER_NAME", "volk")
        .env("GIT_COMMITTER_EMAIL", "volk@localhost");
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command
        .output()
        .map_err(|e| BusError::new("cannot run git (needed by --state-remote)", e))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(BusError::new(
            format!("git {} in {}", args.first().unwrap_or(&""), dir.display()),
            stderr.lines().next().unwrap_or("failed").trim(),
        ));
    }
    Ok(out.stdout)
}
