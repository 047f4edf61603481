//! `volk.toml`: settings read from the project directory, then from the user's config
//! directory (`~/.config/volk/volk.toml`). Flags and environment variables win over
//! both; that precedence is applied where each setting is used.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::BadInput;

/// Every key `volk.toml` may hold. Unknown keys are refused so that a typo is seen.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// `offline`, `openai`, `anthropic`, `deepseek`, `ollama` or `replay:PATH`.
    pub reasoner: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub max_tokens: Option<u32>,
    pub max_cycles: Option<u32>,
    pub theme: Option<String>,
    pub context_root: Option<PathBuf>,
    pub connect_timeout_secs: Option<u64>,
    pub idle_timeout_secs: Option<u64>,
    pub request_timeout_secs: Option<u64>,
    pub plan_repairs: Option<u32>,
}

impl Settings {
    /// Parses one `volk.toml`; the error names the file and the offending key.
    pub fn from_file(path: &Path) -> Result<Settings, BadInput> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| BadInput::new(format!("{}: cannot read: {e}", path.display())))?;
        toml::from_str(&text).map_err(|e| {
            let message = e.message().to_string();
            BadInput::new(format!("{}: {message}", path.display()))
        })
    }

    /// Fills every unset key of `self` from `fallback`.
    pub fn or(self, fallback: Settings) -> Settings {
        Settings {
            reasoner: self.reasoner.or(fallback.reasoner),
            model: self.model.or(fallback.model),
            base_url: self.base_url.or(fallback.base_url),
            max_tokens: self.max_tokens.or(fallback.max_tokens),
            max_cycles: self.max_cycles.or(fallback.max_cycles),
            theme: self.theme.or(fallback.theme),
            context_root: self.context_root.or(fallback.context_root),
            connect_timeout_secs: self.connect_timeout_secs.or(fallback.connect_timeout_secs),
            idle_timeout_secs: self.idle_timeout_secs.or(fallback.idle_timeout_secs),
            request_timeout_secs: self.request_timeout_secs.or(fallback.request_timeout_secs),
            plan_repairs: self.plan_repairs.or(fallback.plan_repairs),
        }
    }

    /// Loads `DIR/volk.toml` for each of `dirs` (first wins), then the user's file.
    /// Missing files are fine; a present but invalid one is an error.
    pub fn load(dirs: &[&Path]) -> Result<Settings, BadInput> {
        let mut settings = Settings::default();
        for dir in dirs {
            let path = dir.join("volk.toml");
            if path.is_file() {
                settings = settings.or(Settings::from_file(&path)?);
            }
        }
        if let Some(user) = user_config_file()
            && user.is_file()
        {
            settings = settings.or(Settings::from_file(&user)?);
        }
        Ok(settings)
    }
}

/// `$XDG_CONFIG_HOME/volk/volk.toml` (or the platform equivalent); `VOLK_CONFIG_DIR`
/// overrides it so tests never read the developer's own file.
pub fn user_config_file() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("VOLK_CONFIG_DIR") {
        return Some(PathBuf::from(dir).join("volk.toml"));
    }
    dirs::config_dir().map(|d| d.join("volk").join("volk.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_is_refused_with_the_file_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("volk.toml");
        std::fs::write(&path, "max_cyles = 3\n").unwrap();
        let err = Settings::from_file(&path).unwrap_err().to_string();
        assert!(err.contains("volk.toml"), "{err}");
        assert!(err.contains("max_cyles"), "{err}");
    }

    #[test]
    fn earlier_directory_wins() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        std::fs::write(a.path().join("volk.toml"), "max_cycles = 3\n").unwrap();
        std::fs::write(
            b.path().join("volk.toml"),
            "max_cycles = 7\ntheme = \"light\"\n",
        )
        .unwrap();
        let s = Settings::load(&[a.path(), b.path()]).unwrap();
        assert_eq!(s.max_cycles, Some(3));
        assert_eq!(s.theme.as_deref(), Some("light"));
    }
}
