//! Paths under a project, opened without following links.
//!
//! A project directory is often a cloned repository, so anything in it may have been
//! planted: `.volk/tmp -> ../..`, `design/api_spec.md -> ~/.ssh/id_ed25519`,
//! `.prd_plugin/config.json -> /dev/zero`. Every file volk reads, writes or deletes under
//! a project goes through this module, which walks the path from the project root one
//! component at a time with `symlink_metadata` and refuses a link anywhere on it, opens
//! the last component with `O_NOFOLLOW` (so a link swapped in after the check still
//! fails), and refuses a FIFO, a socket, a device, or a directory where a file belongs.
//! Reads are capped per kind of file ([`Limit`]), so a huge or endless file cannot fill
//! memory.
//!
//! The root itself is the user's choice (it may be reached through a link, such as a
//! `/tmp` that points elsewhere); only what is under it is checked.
//!
//! A refusal is an `io::Error` whose inner error is a [`Refused`], so every caller's
//! existing `"{path}: {source}"` error stays one line, and `main` classifies it as bad
//! input (exit 2) through [`is_refusal`].

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
use std::path::{Component, Path, PathBuf};

/// What a path under the project is expected to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    File,
    Dir,
}

impl Want {
    fn noun(self) -> &'static str {
        match self {
            Want::File => "regular file",
            Want::Dir => "directory",
        }
    }
}

/// Why a path under the project was refused. Its text does not repeat the requested
/// path (the caller's error names it), only the component that is wrong when that is
/// another one.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error("refused: {} a symbolic link; volk never follows a link inside a project", shown(.component))]
    Link { component: Option<PathBuf> },
    #[error("refused: {} a {found}, not a {}", shown(.component), .want.noun())]
    Kind {
        component: Option<PathBuf>,
        found: &'static str,
        want: Want,
    },
    #[error("refused: larger than the {limit}-byte limit for {what} (see docs/guard.md)")]
    TooLarge { limit: u64, what: &'static str },
    #[error("refused: the path leaves the project")]
    Outside,
}

fn shown(component: &Option<PathBuf>) -> String {
    match component {
        Some(p) => format!("{} is", p.display()),
        None => "it is".to_string(),
    }
}

impl Refused {
    fn into_io(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, self)
    }
}

/// An error of this module with the path it is about, for callers whose own error does
/// not name the path.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", .path.display())]
pub struct Located {
    pub path: PathBuf,
    pub source: io::Error,
}

/// `error` with `path` in front of its text, still recognised by [`is_refusal`].
pub fn at(path: &Path, error: io::Error) -> io::Error {
    io::Error::new(
        error.kind(),
        Located {
            path: path.to_path_buf(),
            source: error,
        },
    )
}

/// True when `error` is (or wraps) a refusal of this module.
pub fn is_refusal(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|inner| {
        inner.is::<Refused>()
            || inner
                .downcast_ref::<Located>()
                .is_some_and(|l| is_refusal(&l.source))
    })
}

/// True when any error in an `anyhow` chain is a refusal of this module.
pub fn chain_has_refusal(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.is::<Refused>() || cause.downcast_ref::<io::Error>().is_some_and(is_refusal)
    })
}

/// The most volk reads of one kind of file; past it the read is refused. The values are
/// documented in docs/guard.md ("Bounded reads").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub bytes: u64,
    pub what: &'static str,
}

const MIB: u64 = 1024 * 1024;

impl Limit {
    /// `volk.toml`, the reflection config, the trust store, hook settings.
    pub const CONFIG: Limit = Limit {
        bytes: MIB,
        what: "a config file",
    };
    /// `.volk/session.json`: the brief, the design and the answers of a thread.
    pub const SESSION: Limit = Limit {
        bytes: 64 * MIB,
        what: "a session",
    };
    /// `.volk/processed.json`, `.volk/claim.json`, `context.json`.
    pub const LEDGER: Limit = Limit {
        bytes: 8 * MIB,
        what: "a ledger or record",
    };
    /// `.volk/journal.jsonl`.
    pub const JOURNAL: Limit = Limit {
        bytes: 256 * MIB,
        what: "a journal",
    };
    /// One `design/*.md` (or the plan JSON).
    pub const DESIGN: Limit = Limit {
        bytes: 8 * MIB,
        what: "a design file",
    };
    /// An outbox packet, as for any packet.
    pub const PACKET: Limit = Limit {
        bytes: 8 * MIB,
        what: "a packet",
    };
}

/// The path of `path` relative to `root`, refusing `..` and anything outside `root`.
fn relative<'a>(root: &Path, path: &'a Path) -> io::Result<&'a Path> {
    let rel = path
        .strip_prefix(root)
        .map_err(|_| Refused::Outside.into_io())?;
    if rel
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(Refused::Outside.into_io());
    }
    Ok(rel)
}

fn kind_name(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "directory"
    } else if t.is_file() {
        "regular file"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

/// Checks every component of `path` (under `root`) without following links: none may be
/// a link, every parent must be a directory, and the last one, if it exists, must be what
/// `want` says. `Ok(None)` when some component does not exist (nothing to refuse yet).
pub fn check(root: &Path, path: &Path, want: Want) -> io::Result<Option<Metadata>> {
    let rel = relative(root, path)?;
    let parts: Vec<_> = rel
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect();
    let mut at = root.to_path_buf();
    let last = parts.len();
    if last == 0 {
        return fs::metadata(root).map(Some);
    }
    for (i, part) in parts.into_iter().enumerate() {
        at.push(part);
        let meta = match fs::symlink_metadata(&at) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let component = (at != path).then(|| at.clone());
        if meta.file_type().is_symlink() {
            return Err(Refused::Link { component }.into_io());
        }
        let expected = if i + 1 == last { want } else { Want::Dir };
        let fits = match expected {
            Want::Dir => meta.is_dir(),
            Want::File => meta.is_file(),
        };
        if !fits {
            return Err(Refused::Kind {
                component,
                found: kind_name(&meta),
                want: expected,
            }
            .into_io());
        }
        if i + 1 == last {
            return Ok(Some(meta));
        }
    }
    Ok(None)
}

/// Opens `path` for reading without following a link and without blocking on a FIFO
/// swapped in after the check; refuses anything but a regular file.
fn open_regular(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                Refused::Link { component: None }.into_io()
            } else {
                e
            }
        })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Refused::Kind {
            component: None,
            found: kind_name(&meta),
            want: Want::File,
        }
        .into_io());
    }
    Ok(file)
}

/// Reads at most `limit` bytes from an open regular file, refusing a larger one (the
/// size is checked first and the read is capped, so a file that grows is refused too).
pub fn read_capped(mut file: File, limit: Limit) -> io::Result<Vec<u8>> {
    let too_large = || {
        Refused::TooLarge {
            limit: limit.bytes,
            what: limit.what,
        }
        .into_io()
    };
    let size = file.metadata()?.len();
    if size > limit.bytes {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    (&mut file).take(limit.bytes + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit.bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Reads the regular file `path` under `root`, capped at `limit`. `Ok(None)` when it
/// does not exist.
pub fn read(root: &Path, path: &Path, limit: Limit) -> io::Result<Option<Vec<u8>>> {
    if check(root, path, Want::File)?.is_none() {
        return Ok(None);
    }
    match open_regular(path, OpenOptions::new().read(true)) {
        Ok(file) => read_capped(file, limit).map(Some),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// [`read`] as UTF-8 text; invalid UTF-8 is an error naming the byte offset.
pub fn read_text(root: &Path, path: &Path, limit: Limit) -> io::Result<Option<String>> {
    let Some(bytes) = read(root, path, limit)? else {
        return Ok(None);
    };
    String::from_utf8(bytes).map(Some).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not UTF-8 (byte offset {})", e.utf8_error().valid_up_to()),
        )
    })
}

/// Reads a regular file that is not under any project (a config in the user's home, a
/// file named on the command line), capped at `limit`: no FIFO, device or directory is
/// read, though a link the user made is followed.
pub fn read_outside(path: &Path, limit: Limit) -> io::Result<Vec<u8>> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Refused::Kind {
            component: None,
            found: kind_name(&meta),
            want: Want::File,
        }
        .into_io());
    }
    read_capped(file, limit)
}

/// Makes the directory `path` under `root` and its missing parents, one component at a
/// time, refusing a link or a non-directory on the way (`mkdir` never follows a link).
pub fn create_dir_all(root: &Path, path: &Path) -> io::Result<()> {
    let rel = relative(root, path)?;
    let mut at = root.to_path_buf();
    for part in rel.components().filter(|c| *c != Component::CurDir) {
        at.push(part);
        match fs::create_dir(&at) {
            Ok(()) => continue,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        check(root, &at, Want::Dir)?;
    }
    Ok(())
}

/// [`create_dir_all`], then restricts the directory to its owner (a design workspace may
/// hold unpublished requirements); a planted link is refused, never chmodded through.
pub fn create_private_dir(root: &Path, dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    create_dir_all(root, dir)?;
    check(root, dir, Want::Dir)?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
}

/// Refuses a link or a wrong kind of file anywhere on the way to `path`, for a caller
/// about to replace the file (its parents must be real directories; the file itself, if
/// present, a regular file).
pub fn check_writable(root: &Path, path: &Path) -> io::Result<()> {
    if let Some(parent) = path.parent()
        && parent != root
    {
        check(root, parent, Want::Dir)?;
    }
    check(root, path, Want::File).map(drop)
}

/// Replaces `path` under `root` atomically (see [`crate::fsutil::atomic_write`]) after
/// checking that no link or special file is on the way.
pub fn write_atomic(root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        create_dir_all(root, parent)?;
    }
    check_writable(root, path)?;
    crate::fsutil::atomic_write(path, bytes)
}

/// Opens (creating) a regular file under `root` for appending, without following a link.
pub fn open_append(root: &Path, path: &Path) -> io::Result<File> {
    if let Some(parent) = path.parent() {
        create_dir_all(root, parent)?;
    }
    check_writable(root, path)?;
    open_regular(path, OpenOptions::new().create(true).append(true))
}

/// Appends one line (scrubbed of keys) to a regular file under `root`.
pub fn append_line(root: &Path, path: &Path, line: &str) -> io::Result<()> {
    let mut file = open_append(root, path)?;
    let line = crate::redact::scrub_text(line);
    let mut buf = String::with_capacity(line.len() + 1);
    buf.push_str(&line);
    buf.push('\n');
    file.write_all(buf.as_bytes())
}

/// Opens (creating) a regular file under `root` for reading and writing without
/// truncating it, without following a link: the thread lock.
pub fn open_read_write(root: &Path, path: &Path, create: bool) -> io::Result<File> {
    if let Some(parent) = path.parent()
        && create
    {
        create_dir_all(root, parent)?;
    }
    check_writable(root, path)?;
    open_regular(
        path,
        OpenOptions::new()
            .create(create)
            .truncate(false)
            .read(true)
            .write(true),
    )
}

/// Removes the regular file `path` under `root`; a missing file is no error, anything
/// that is not a regular file is refused (never followed, never removed).
pub fn remove_file(root: &Path, path: &Path) -> io::Result<()> {
    if check(root, path, Want::File)?.is_none() {
        return Ok(());
    }
    match fs::remove_file(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// The entries of the directory `path` under `root` (refused when it or a parent is a
/// link); an empty list when it does not exist.
pub fn read_dir(root: &Path, path: &Path) -> io::Result<Vec<fs::DirEntry>> {
    if check(root, path, Want::Dir)?.is_none() {
        return Ok(Vec::new());
    }
    Ok(fs::read_dir(path)?.flatten().collect())
}

/// `line` as an error for the command boundary: bad input (exit 2) when `error` is a
/// refusal of this module, else a failure (exit 1).
pub fn report(line: String, error: &io::Error) -> anyhow::Error {
    if is_refusal(error) {
        crate::BadInput::err(line)
    } else {
        anyhow::anyhow!(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_link_anywhere_on_the_way_is_refused_and_never_followed() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), "key").unwrap();
        let r = root.path();
        symlink(outside.path(), r.join("design")).unwrap();
        let err = read(r, &r.join("design/secret"), Limit::DESIGN).unwrap_err();
        assert!(is_refusal(&err));
        assert!(
            err.to_string().contains("design is a symbolic link"),
            "{err}"
        );
        let err = write_atomic(r, &r.join("design/new.md"), b"x").unwrap_err();
        assert!(is_refusal(&err));
        assert!(!outside.path().join("new.md").exists());
        fs::remove_file(r.join("design")).unwrap();
        fs::create_dir(r.join("design")).unwrap();
        symlink(outside.path().join("secret"), r.join("design/a.md")).unwrap();
        let err = read(r, &r.join("design/a.md"), Limit::DESIGN).unwrap_err();
        assert_eq!(
            err.to_string(),
            "refused: it is a symbolic link; volk never follows a link inside a project"
        );
        assert!(remove_file(r, &r.join("design/a.md")).is_err());
        assert!(open_append(r, &r.join("design/a.md")).is_err());
        assert_eq!(
            fs::read_to_string(outside.path().join("secret")).unwrap(),
            "key"
        );
    }

    #[test]
    fn devices_fifos_and_directories_are_not_files_and_reads_are_capped() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        fs::create_dir(r.join("a.md")).unwrap();
        let err = read(r, &r.join("a.md"), Limit::DESIGN).unwrap_err();
        assert!(
            err.to_string().contains("a directory, not a regular file"),
            "{err}"
        );
        let err = read_outside(Path::new("/dev/zero"), Limit::CONFIG).unwrap_err();
        assert!(err.to_string().contains("character device"), "{err}");
        fs::write(r.join("big"), vec![b'x'; 5000]).unwrap();
        const LOCK: Limit = Limit {
            bytes: 4096,
            what: "a lock file",
        };
        let err = read(r, &r.join("big"), LOCK).unwrap_err();
        assert!(
            err.to_string().contains("4096-byte limit for a lock file"),
            "{err}"
        );
        assert_eq!(read(r, &r.join("missing"), LOCK).unwrap(), None);
        assert!(read(r, &r.join("../x"), LOCK).is_err());
        fs::write(r.join("latin1.md"), b"caf\xe9\n").unwrap();
        let err = read_text(r, &r.join("latin1.md"), Limit::DESIGN).unwrap_err();
        assert_eq!(err.to_string(), "not UTF-8 (byte offset 3)");
    }

    #[test]
    fn directories_are_made_without_passing_through_links() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let r = root.path();
        symlink(outside.path(), r.join(".volk")).unwrap();
        assert!(create_dir_all(r, &r.join(".volk/tmp")).is_err());
        assert!(!outside.path().join("tmp").exists());
        create_dir_all(r, &r.join("x/y")).unwrap();
        assert!(r.join("x/y").is_dir());
    }
}
