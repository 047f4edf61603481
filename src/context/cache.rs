//! The on-disk copy of a root's index, one file per root under the user's cache
//! directory, so that a second run re-parses only what changed.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::index::Index;

/// Bumped whenever the index layout or what the extractor records changes, so an old
/// cache is rebuilt instead of misread.
const FORMAT: u32 = 2;

#[derive(Deserialize)]
struct CacheFile {
    format: u32,
    index: Index,
}

/// The same layout as [`CacheFile`], borrowed, so saving does not copy the index.
#[derive(Serialize)]
struct CacheFileRef<'a> {
    format: u32,
    index: &'a Index,
}

/// Where index caches are kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CacheLocation {
    /// `$VOLK_CACHE_DIR/context`, else `<user cache dir>/volk/context`.
    #[default]
    UserCache,
    /// `DIR/context` (tests, and callers with their own cache directory).
    Dir(PathBuf),
    /// No cache: every build parses the whole tree.
    Off,
}

impl CacheLocation {
    pub fn dir(&self) -> Option<PathBuf> {
        match self {
            CacheLocation::UserCache => match std::env::var_os("VOLK_CACHE_DIR") {
                Some(dir) => Some(PathBuf::from(dir).join("context")),
                None => dirs::cache_dir().map(|d| d.join("volk").join("context")),
            },
            CacheLocation::Dir(dir) => Some(dir.join("context")),
            CacheLocation::Off => None,
        }
    }

    /// The cache file of `root`: a readable slug of its name and a hash of the whole
    /// path, so two roots never share a file.
    pub fn file_for(&self, root: &Path) -> Option<PathBuf> {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        root.hash(&mut hasher);
        let name = root
            .file_name()
            .and_then(|n| n.to_str())
            .map(crate::project::slug::slugify)
            .unwrap_or_default();
        Some(
            self.dir()?
                .join(format!("{name}-{:016x}.bin", hasher.finish())),
        )
    }
}

/// The cached index of `root`, or `None` when there is none or it cannot be used.
pub fn load(location: &CacheLocation, root: &Path) -> Option<Index> {
    let path = location.file_for(root)?;
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return None,
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "context: cannot read the index cache");
            return None;
        }
    };
    match bincode::deserialize::<CacheFile>(&bytes) {
        Ok(file) if file.format == FORMAT && file.index.root == root => Some(file.index),
        Ok(_) => {
            tracing::info!(path = %path.display(), "context: index cache is from another version, rebuilding");
            None
        }
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "context: index cache is corrupt, rebuilding");
            None
        }
    }
}

/// Writes the index atomically; a failure only costs the next run a full parse.
pub fn save(location: &CacheLocation, index: &Index) {
    let Some(path) = location.file_for(&index.root) else {
        return;
    };
    let file = CacheFileRef {
        format: FORMAT,
        index,
    };
    let result = bincode::serialize(&file)
        .map_err(std::io::Error::other)
        .and_then(|bytes| {
            if let Some(dir) = path.parent() {
                crate::fsutil::create_private_dir(dir)?;
            }
            crate::fsutil::atomic_write(&path, &bytes)
        });
    if let Err(error) = result {
        tracing::warn!(path = %path.display(), %error, "context: cannot write the index cache");
    }
}
