//! One writer per thread: an exclusive OS lock on `PROJECT/.volk/lock`, held by the one
//! process that may change the thread (`volk run`, `volk design`, `volk open`).
//!
//! The lock is the standard library's `File::lock` (flock on Unix), so it dies with its
//! holder: a killed process blocks nobody. The file itself only carries the holder's pid
//! and host, for the message a second process prints; it is never deleted, because
//! deleting a lock file lets two processes lock two different files.

use std::fs::{File, TryLockError};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Who holds a lock, as the holder wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub pid: u32,
    pub host: String,
    pub command: String,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (pid {} on {})", self.command, self.pid, self.host)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{path}: the thread is locked by {}", holder_text(.holder))]
    Held {
        path: PathBuf,
        holder: Option<Holder>,
    },
    #[error("{path}: cannot lock the thread: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn holder_text(holder: &Option<Holder>) -> String {
    holder
        .as_ref()
        .map_or_else(|| "another volk process".to_string(), Holder::to_string)
}

/// The held lock; dropping it releases the thread.
#[derive(Debug)]
pub struct ThreadLock {
    _file: File,
    path: PathBuf,
}

impl ThreadLock {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The lock file of a project.
pub fn lock_path(project_dir: &Path) -> PathBuf {
    project_dir.join(".volk").join("lock")
}

/// Takes the thread lock, waiting up to `wait` for a live holder to let go.
pub fn acquire(project_dir: &Path, wait: Duration, command: &str) -> Result<ThreadLock, LockError> {
    let deadline = Instant::now() + wait;
    loop {
        match try_acquire(project_dir, command)? {
            Ok(lock) => return Ok(lock),
            Err(held) => {
                if Instant::now() >= deadline {
                    return Err(held);
                }
                std::thread::sleep(Duration::from_millis(25));
            }
        }
    }
}

/// One attempt: `Ok(Ok(lock))` when taken, `Ok(Err(Held))` when another process has it.
pub fn try_acquire(
    project_dir: &Path,
    command: &str,
) -> Result<Result<ThreadLock, LockError>, LockError> {
    let path = lock_path(project_dir);
    let io = |source| LockError::Io {
        path: path.clone(),
        source,
    };
    // A planted `.volk/lock` link must not be truncated through.
    let mut file = crate::confined::open_read_write(project_dir, &path, true).map_err(io)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Ok(Err(LockError::Held {
                holder: read_holder(&file),
                path,
            }));
        }
        Err(TryLockError::Error(source)) => return Err(io(source)),
    }
    let record = format!(
        "pid={}\nhost={}\ncommand={}\n",
        std::process::id(),
        host_name(),
        command
    );
    file.set_len(0).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    file.write_all(record.as_bytes()).map_err(io)?;
    Ok(Ok(ThreadLock { _file: file, path }))
}

/// Who holds the lock of `project_dir` right now, if anyone (a dead holder holds
/// nothing).
pub fn current_holder(project_dir: &Path) -> Option<Holder> {
    let path = lock_path(project_dir);
    let file = crate::confined::open_read_write(project_dir, &path, false).ok()?;
    match file.try_lock() {
        Ok(()) => None, // released when `file` drops
        Err(_) => read_holder(&file).or(Some(Holder {
            pid: 0,
            host: host_name(),
            command: "another volk process".into(),
        })),
    }
}

/// Who holds the lock on `file`: the process the kernel names in `/proc/locks` when it
/// can be found there (the record in the file may be a stale or forged one), with the
/// command the file records when that record is the live holder's.
fn read_holder(file: &File) -> Option<Holder> {
    let recorded = recorded_holder(file);
    let Some(live) = live_holder_pid(file) else {
        return recorded;
    };
    match recorded {
        Some(r) if r.pid == live => Some(r),
        _ => Some(Holder {
            pid: live,
            host: host_name(),
            command: process_name(live).unwrap_or_else(|| "volk".into()),
        }),
    }
}

/// The holder record written in the lock file (read from the open file, never
/// through a path that may have been swapped).
fn recorded_holder(file: &File) -> Option<Holder> {
    let mut bytes = Vec::new();
    file.take(4096).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix('='))
            .map(|v| crate::echo::escape_controls(v).into_owned())
    };
    Some(Holder {
        pid: field("pid")?.parse().ok()?,
        host: field("host").unwrap_or_default(),
        command: field("command").unwrap_or_else(|| "volk".into()),
    })
}

/// The pid holding a `FLOCK` on `file`, from `/proc/locks` (Linux), matched by inode.
fn live_holder_pid(file: &File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt as _;
    let inode = file.metadata().ok()?.ino();
    let mut text = String::new();
    File::open("/proc/locks")
        .ok()?
        .take(4 * 1024 * 1024)
        .read_to_string(&mut text)
        .ok()?;
    text.lines().find_map(|line| {
        // "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF"
        let fields: Vec<&str> = line.split_whitespace().collect();
        let at = fields.iter().position(|f| *f == "FLOCK")?;
        let pid: u32 = fields.get(at + 3)?.parse().ok()?;
        let id = fields.get(at + 4)?;
        let ino: u64 = id.rsplit(':').next()?.parse().ok()?;
        (ino == inode && pid != std::process::id()).then_some(pid)
    })
}

/// A process's command name, for a holder the lock file does not describe.
fn process_name(pid: u32) -> Option<String> {
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
    Some(crate::echo::escape_controls(comm.trim()).into_owned())
}

/// This machine's name, for the holder record.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_taker_sees_the_holder_and_gets_it_after_release() {
        let dir = tempfile::tempdir().unwrap();
        let first = try_acquire(dir.path(), "volk run").unwrap().unwrap();
        let Err(LockError::Held { holder, .. }) = try_acquire(dir.path(), "volk open").unwrap()
        else {
            panic!("expected the lock to be held");
        };
        let holder = holder.unwrap();
        assert_eq!(holder.pid, std::process::id());
        assert_eq!(holder.command, "volk run");
        assert_eq!(current_holder(dir.path()).unwrap().pid, std::process::id());
        let started = Instant::now();
        assert!(acquire(dir.path(), Duration::from_millis(100), "x").is_err());
        assert!(started.elapsed() >= Duration::from_millis(100));
        drop(first);
        assert!(current_holder(dir.path()).is_none());
        assert!(acquire(dir.path(), Duration::ZERO, "x").is_ok());
    }
}
