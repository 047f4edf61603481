//! The config file on disk: where it is, how it is read, and how a change is made
//! safe against other processes (CLI and MCP server at once) and against a crash.
//!
//! A change holds an exclusive lock on `config.json.lock` beside the file, re-reads
//! the file under that lock, validates the result and replaces the file atomically
//! (temp file, sync, rename). Readers take no lock: a rename is atomic, so they see
//! the old file or the new one.

use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::error::ReflectionError;
use super::model::{ReflectionConfig, SECTION};

/// The directory, at a project root, that holds the config and the local state.
pub const PLUGIN_DIR: &str = ".prd_plugin";
pub const CONFIG_FILE: &str = "config.json";
/// Prefix of the temp files `fsutil::atomic_write` leaves behind when killed.
const TEMP_PREFIX: &str = ".volk-tmp-";

/// Finds the config for a process running in `start`: the nearest directory at or
/// above `start` that has a `.prd_plugin/` directory, without leaving the git
/// repository `start` is in; else `start/.prd_plugin/config.json`.
pub fn locate_config(start: &Path) -> PathBuf {
    for dir in start.ancestors() {
        if dir.join(PLUGIN_DIR).is_dir() {
            return dir.join(PLUGIN_DIR).join(CONFIG_FILE);
        }
        if dir.join(".git").exists() {
            break;
        }
    }
    start.join(PLUGIN_DIR).join(CONFIG_FILE)
}

/// Where the reflection settings came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The file has a `reflection` section.
    File,
    /// No file, or a file without the section: the shipped default set.
    Defaults,
}

#[derive(Debug, Clone)]
pub struct Loaded {
    pub config: ReflectionConfig,
    pub source: Source,
}

/// One `.prd_plugin/config.json`.
#[derive(Debug, Clone)]
pub struct ConfigStore {
    path: PathBuf,
}

impl ConfigStore {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The project a `.prd_plugin/config.json` sits in: what it is confined to, since a
    /// cloned repository may have planted `.prd_plugin` or the file as a link or a
    /// device. A `--config` elsewhere is the user's own path and has no such root.
    fn project_root(&self) -> Option<&Path> {
        let dir = self.path.parent()?;
        (dir.file_name()? == PLUGIN_DIR)
            .then(|| dir.parent())
            .flatten()
    }

    /// The lock file beside the config; it is never deleted, because deleting a lock
    /// file lets two processes lock two different files.
    pub fn lock_path(&self) -> PathBuf {
        let mut name = self
            .path
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_else(|| CONFIG_FILE.into());
        name.push(".lock");
        self.path.with_file_name(name)
    }

    /// Reads the reflection settings without locking.
    pub fn load(&self) -> Result<Loaded, ReflectionError> {
        let document = self.read_document()?;
        self.section_of(&document)
    }

    /// Applies `change` under the lock and writes the result. `change` may refuse
    /// with a message (an unknown id, a category that still has questions); the file
    /// is then left untouched.
    pub fn update<T>(
        &self,
        change: impl FnOnce(&mut ReflectionConfig) -> Result<T, String>,
    ) -> Result<T, ReflectionError> {
        let _lock = self.lock()?;
        let mut document = self.read_document()?;
        let mut config = self.section_of(&document)?.config;
        config.settle_counter();
        let result = change(&mut config).map_err(|message| ReflectionError::Refused {
            path: self.path.clone(),
            message,
        })?;
        config.validate().map_err(|v| v.in_file(&self.path))?;
        document.insert(SECTION.to_string(), config.to_json());
        let mut text = serde_json::to_string_pretty(&Value::Object(document)).map_err(|e| {
            ReflectionError::Io {
                path: self.path.clone(),
                action: "write",
                source: std::io::Error::other(e),
            }
        })?;
        text.push('\n');
        let permissions = fs::symlink_metadata(&self.path)
            .ok()
            .map(|m| m.permissions());
        let io = |source| ReflectionError::Io {
            path: self.path.clone(),
            action: "write",
            source,
        };
        match self.project_root() {
            Some(root) => crate::confined::write_atomic(root, &self.path, text.as_bytes()),
            None => crate::fsutil::atomic_write(&self.path, text.as_bytes()),
        }
        .map_err(io)?;
        keep_permissions(&self.path, permissions).map_err(io)?;
        self.remove_stale_temp_files();
        Ok(result)
    }

    /// Takes the exclusive lock; it is released when the returned file is dropped
    /// (or when the process dies).
    fn lock(&self) -> Result<File, ReflectionError> {
        let lock_path = self.lock_path();
        let io = |source| ReflectionError::Io {
            path: lock_path.clone(),
            action: "lock",
            source,
        };
        let file = match self.project_root() {
            Some(root) => crate::confined::open_read_write(root, &lock_path, true),
            None => {
                if let Some(dir) = lock_path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    fs::create_dir_all(dir).map_err(io)?;
                }
                OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(&lock_path)
            }
        }
        .map_err(io)?;
        file.lock().map_err(io)?;
        Ok(file)
    }

    /// The whole file as a JSON object; an absent file is an empty object.
    fn read_document(&self) -> Result<Map<String, Value>, ReflectionError> {
        let limit = crate::confined::Limit::CONFIG;
        let read = match self.project_root() {
            Some(root) => crate::confined::read(root, &self.path, limit),
            None => crate::confined::read_outside(&self.path, limit).map(Some),
        };
        let bytes = match read {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(Map::new()),
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Map::new()),
            Err(source) => {
                return Err(ReflectionError::Io {
                    path: self.path.clone(),
                    action: "read",
                    source,
                });
            }
        };
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| ReflectionError::Syntax {
            path: self.path.clone(),
            message: e.to_string(),
        })?;
        match value {
            Value::Object(map) => Ok(map),
            _ => Err(ReflectionError::Invalid {
                path: self.path.clone(),
                json_path: "(top level)".into(),
                message: "must be a JSON object".into(),
            }),
        }
    }

    fn section_of(&self, document: &Map<String, Value>) -> Result<Loaded, ReflectionError> {
        match document.get(SECTION) {
            None => Ok(Loaded {
                config: ReflectionConfig::defaults(),
                source: Source::Defaults,
            }),
            Some(section) => Ok(Loaded {
                config: ReflectionConfig::from_json(section).map_err(|v| v.in_file(&self.path))?,
                source: Source::File,
            }),
        }
    }

    /// A writer killed between creating its temp file and renaming it leaves the
    /// temp file behind; the next writer, holding the lock, clears it away.
    fn remove_stale_temp_files(&self) {
        let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) else {
            return;
        };
        if fs::symlink_metadata(dir).is_ok_and(|m| !m.is_dir()) {
            return;
        }
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX)
                && entry.file_type().is_ok_and(|t| t.is_file())
            {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

/// The temp file behind an atomic write is private to its owner; a config that others
/// could read before keeps its mode, and a new one gets the usual `rw-r--r--`.
fn keep_permissions(path: &Path, before: Option<fs::Permissions>) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let permissions = before.unwrap_or_else(|| fs::Permissions::from_mode(0o644));
        fs::set_permissions(path, permissions)?;
    }
    #[cfg(not(unix))]
    let _ = (path, before);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_means_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let store = ConfigStore::new(dir.path().join(PLUGIN_DIR).join(CONFIG_FILE));
        let loaded = store.load().unwrap();
        assert_eq!(loaded.source, Source::Defaults);
        assert_eq!(loaded.config, ReflectionConfig::defaults());
    }

    #[test]
    fn update_keeps_other_keys_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE);
        fs::write(
            &path,
            r#"{"zeta": 1, "alpha": {"b": 2, "a": 1}, "mid": [1, 2]}"#,
        )
        .unwrap();
        let store = ConfigStore::new(&path);
        store
            .update(|c| {
                c.enabled = false;
                Ok(())
            })
            .unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<_> = value.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["zeta", "alpha", "mid", "reflection"]);
        let inner: Vec<_> = value["alpha"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(inner, ["b", "a"]);
        assert_eq!(value["reflection"]["enabled"], Value::Bool(false));
        assert_eq!(store.load().unwrap().source, Source::File);
    }

    #[test]
    fn a_refused_change_leaves_the_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE);
        fs::write(&path, "{\"keep\": true}").unwrap();
        let store = ConfigStore::new(&path);
        let err = store.update(|_| -> Result<(), String> { Err("no".into()) });
        assert!(matches!(err, Err(ReflectionError::Refused { .. })));
        let err = store.update(|c| {
            c.max_questions_per_stop = 0;
            Ok(())
        });
        assert!(matches!(err, Err(ReflectionError::Invalid { .. })));
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"keep\": true}");
    }

    #[test]
    fn broken_files_are_reported_with_their_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE);
        fs::write(&path, "{not json").unwrap();
        let err = ConfigStore::new(&path).load().unwrap_err().to_string();
        assert!(
            err.contains("config.json") && err.contains("not valid JSON"),
            "{err}"
        );
        fs::write(&path, "[1]").unwrap();
        let err = ConfigStore::new(&path).load().unwrap_err().to_string();
        assert!(err.contains("JSON object"), "{err}");
    }

    #[test]
    fn locate_prefers_an_existing_plugin_dir_above() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let sub = root.join("a").join("b");
        fs::create_dir_all(&sub).unwrap();
        assert_eq!(locate_config(&sub), sub.join(PLUGIN_DIR).join(CONFIG_FILE));
        fs::create_dir_all(root.join(PLUGIN_DIR)).unwrap();
        assert_eq!(locate_config(&sub), root.join(PLUGIN_DIR).join(CONFIG_FILE));
        // A git repository in between is a boundary.
        fs::create_dir_all(root.join("a").join(".git")).unwrap();
        assert_eq!(locate_config(&sub), sub.join(PLUGIN_DIR).join(CONFIG_FILE));
    }
}
