//! One writer per thread: an exclusive OS lock on `PROJECT/.volk/lock`, held by the one
//! process that may change the thread (`volk run`, `volk design`, `volk open`).
//!
//! The lock is the standard library's `File::lock` (flock on Unix), so it dies with its
//! holder: a killed process blocks nobody. The file itself only carries the holder's pid
//! and host, for the message a second process prints; it is never deleted, because
//! deleting a lock file lets two processes lock two different files.

use std::fs::{File, OpenOptions, TryLockError};
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
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Ok(Err(LockError::Held {
                holder: read_holder(&path),
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
    let file = OpenOptions::new().read(true).write(true).open(&path).ok()?;
    match file.try_lock() {
        Ok(()) => None, // released when `file` drops
        Err(_) => read_holder(&path).or(Some(Holder {
            pid: 0,
            host: host_name(),
            command: "another volk process".into(),
        })),
    }
}

fn read_holder(path: &Path) -> Option<Holder> {
    let mut text = String::new();
    File::open(path).ok()?.read_to_string(&mut text).ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix('='))
            .map(str::to_string)
    };
    Some(Holder {
        pid: field("pid")?.parse().ok()?,
        host: field("host").unwrap_or_default(),
        command: field("command").unwrap_or_else(|| "volk".into()),
    })
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
