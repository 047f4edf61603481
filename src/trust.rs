//! `volk trust`: which `volk.toml` files found in a workspace, project or the current
//! directory may choose where the key goes. Such a file may come from a cloned
//! repository, so its `reasoner` and `base_url` are only used once the person has
//! trusted it, as `direnv allow` and `mise trust` do: the file's absolute path and the
//! SHA-256 of its content are recorded in the user's config directory, and a changed
//! file needs trusting again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::BadInput;
use crate::config::Settings;

/// The record of trusted files, in the user's config directory.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Store {
    version: u32,
    /// Absolute path of a trusted `volk.toml` → SHA-256 (hex) of the content trusted.
    files: BTreeMap<PathBuf, String>,
}

const STORE_VERSION: u32 = 1;

/// `VOLK_CONFIG_DIR/trusted.json`, else `$XDG_CONFIG_HOME/volk/trusted.json` (or the
/// platform's config directory).
pub fn store_path() -> Option<PathBuf> {
    crate::config::user_config_file().map(|f| f.with_file_name("trusted.json"))
}

/// Hex SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Refuses a config directory or file that someone else can write: whoever can write
/// the trust store (or the directory it is in) can trust any file for the user, and so
/// choose where the key goes. The message gives the `chmod` that fixes it.
pub fn refuse_shared(path: &Path) -> Result<(), BadInput> {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(BadInput::new(format!(
            "{}: writable by others (mode {mode:04o}), so anyone could choose where your key goes; run `chmod go-w {}`",
            path.display(),
            path.display()
        )));
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Err(BadInput::new(format!(
            "{}: owned by uid {}, not by you (uid {me}); run `chown {me} {}`",
            path.display(),
            meta.uid(),
            path.display()
        )));
    }
    Ok(())
}

/// [`refuse_shared`] for a config file and the directory it is in.
pub fn refuse_shared_config(file: &Path) -> Result<(), BadInput> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        refuse_shared(dir)?;
    }
    refuse_shared(file)
}

fn read_store(path: &Path) -> Result<Store, BadInput> {
    refuse_shared_config(path)?;
    match crate::confined::read_outside(path, crate::confined::Limit::CONFIG) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Store {
            version: STORE_VERSION,
            files: BTreeMap::new(),
        }),
        Err(e) => Err(BadInput::new(format!(
            "{}: cannot read: {e}",
            path.display()
        ))),
        Ok(bytes) => {
            let store: Store = serde_json::from_slice(&bytes)
                .map_err(|e| BadInput::new(format!("{}: {e}", path.display())))?;
            if store.version != STORE_VERSION {
                return Err(BadInput::new(format!(
                    "{}: version {} is not supported (expected {STORE_VERSION})",
                    path.display(),
                    store.version
                )));
            }
            Ok(store)
        }
    }
}

/// True when `path` (a `volk.toml` whose content is `content`) was trusted with exactly
/// this content. An unreadable or corrupt record trusts nothing.
pub fn is_trusted(path: &Path, content: &[u8]) -> bool {
    let Some(store) = store_path() else {
        return false;
    };
    let Ok(absolute) = std::fs::canonicalize(path) else {
        return false;
    };
    match read_store(&store) {
        Ok(record) => record
            .files
            .get(&absolute)
            .is_some_and(|hash| *hash == digest(content)),
        Err(_) => false,
    }
}

/// The file `volk trust PATH` means: PATH itself, `PATH/volk.toml` for a directory,
/// `./volk.toml` without PATH.
fn resolve(path: Option<&Path>) -> PathBuf {
    match path {
        None => PathBuf::from("volk.toml"),
        Some(p) if p.is_dir() => p.join("volk.toml"),
        Some(p) => p.to_path_buf(),
    }
}

/// Records `path` with its current content; returns its absolute path and hash.
pub fn trust(path: Option<&Path>) -> Result<(PathBuf, String), BadInput> {
    let file = resolve(path);
    let content = std::fs::read(&file)
        .map_err(|e| BadInput::new(format!("{}: cannot read: {e}", file.display())))?;
    // Only a file volk can use is worth trusting; this also shows a typo now.
    Settings::parse(&file, &content)?;
    let absolute = std::fs::canonicalize(&file)
        .map_err(|e| BadInput::new(format!("{}: {e}", file.display())))?;
    let store_file = store_path()
        .ok_or_else(|| BadInput::new("volk trust: no config directory (set VOLK_CONFIG_DIR)"))?;
    let mut store = read_store(&store_file)?;
    let hash = digest(&content);
    store.files.insert(absolute.clone(), hash.clone());
    let text = serde_json::to_string_pretty(&store)
        .map_err(|e| BadInput::new(format!("{}: {e}", store_file.display())))?;
    if let Some(dir) = store_file.parent() {
        crate::fsutil::create_private_dir(dir)
            .map_err(|e| BadInput::new(format!("{}: cannot create: {e}", dir.display())))?;
    }
    crate::fsutil::atomic_write_durable(&store_file, text.as_bytes())
        .map_err(|e| BadInput::new(format!("{}: cannot write: {e}", store_file.display())))?;
    Ok((absolute, hash))
}

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The `volk.toml` to trust, or a directory holding one (default: ./volk.toml).
    pub path: Option<PathBuf>,
}

pub fn run(args: TrustArgs) -> anyhow::Result<ExitCode> {
    let (path, hash) = trust(args.path.as_deref())?;
    crate::console::line(&format!(
        "volk: trusted {} (sha256 {}); its reasoner and base_url will be used until it changes",
        path.display(),
        &hash[..12]
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// What an untrusted file asked for, for the refusal message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntrustedAsk {
    pub path: PathBuf,
    pub reasoner: Option<String>,
    pub base_url: Option<String>,
}

impl UntrustedAsk {
    /// The one line volk exits with when the ask would take effect.
    pub fn refusal(&self) -> String {
        let mut asks = Vec::new();
        if let Some(r) = &self.reasoner {
            asks.push(format!("reasoner '{}'", r.escape_debug()));
        }
        if let Some(u) = &self.base_url {
            asks.push(format!("base_url '{}'", u.escape_debug()));
        }
        let shown = std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        format!(
            "{}: asks for {} but is not trusted (it may come from a cloned repository); if you wrote it, run `volk trust {}`, or pass --reasoner/--base-url",
            self.path.display(),
            asks.join(" and "),
            shell_quote(&shown.display().to_string())
        )
    }
}

/// `path` as one shell word.
fn shell_quote(text: &str) -> String {
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_is_sha256() {
        assert_eq!(
            digest(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn quoting_keeps_plain_paths_and_quotes_the_rest() {
        assert_eq!(shell_quote("/tmp/a/volk.toml"), "/tmp/a/volk.toml");
        assert_eq!(shell_quote("/tmp/it's/x"), r"'/tmp/it'\''s/x'");
    }
}
