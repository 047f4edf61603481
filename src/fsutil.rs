//! Small file-system helpers shared by every module that writes user-visible files.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` so that a reader, or a process killed mid-write, sees either
/// the old file or the new one, never a torn one: the bytes go to a temp file in the
/// same directory that is renamed over the target.
///
/// It does not fsync: a killed process cannot lose data already in the page cache, and
/// an fsync per write would cost ~10 ms each (most of `volk run`'s budget). Use
/// [`atomic_write_durable`] where surviving a power loss matters more than speed.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_via_temp(path, bytes, false)
}

/// [`atomic_write`] that also syncs the data before the rename.
pub fn atomic_write_durable(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_via_temp(path, bytes, true)
}

fn write_via_temp(path: &Path, bytes: &[u8], durable: bool) -> io::Result<()> {
    // The last line of defence: no file volk writes holds a key of this process.
    let bytes = crate::redact::scrub_bytes(bytes);
    let bytes = bytes.as_ref();
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".volk-tmp-")
        .tempfile_in(temp_dir_for(dir))?;
    temp.write_all(bytes)?;
    if durable {
        temp.as_file().sync_all()?;
    }
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Where the temp file for a write into `dir` goes: the project's `.volk/tmp/` when
/// `dir` is inside a project that has one (so a crash mid-write leaves its temp file
/// where git never looks and the next start sweeps it), else `dir` itself.
fn temp_dir_for(dir: &Path) -> std::path::PathBuf {
    for ancestor in dir.ancestors().take(3) {
        if ancestor.file_name().is_some_and(|n| n == ".volk") {
            let tmp = ancestor.join("tmp");
            if is_real_dir(&tmp) {
                return tmp;
            }
        }
        let tmp = ancestor.join(".volk").join("tmp");
        if is_real_dir(&ancestor.join(".volk")) && is_real_dir(&tmp) {
            return tmp;
        }
    }
    dir.to_path_buf()
}

/// A directory that is not reached through a link of its own: a planted `.volk/tmp`
/// link must not receive volk's temp files.
fn is_real_dir(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// Creates `dir` (and its parents) and restricts it to its owner, because a design
/// workspace may hold unpublished requirements.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        atomic_write(&path, b"one").unwrap();
        atomic_write(&path, b"two").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn project_writes_use_the_volk_tmp_directory() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(".volk/tmp")).unwrap();
        fs::create_dir_all(dir.path().join("design")).unwrap();
        assert_eq!(
            temp_dir_for(&dir.path().join("design")),
            dir.path().join(".volk/tmp")
        );
        assert_eq!(
            temp_dir_for(&dir.path().join(".volk/outbox")),
            dir.path().join(".volk/tmp")
        );
        atomic_write(&dir.path().join("design/a.md"), b"x").unwrap();
        assert_eq!(fs::read_dir(dir.path().join("design")).unwrap().count(), 1);
    }
}
