//! `volk.toml`: settings read from the project directory, then from the user's config
//! directory (`~/.config/volk/volk.toml`). Flags and environment variables win over
//! both; that precedence is applied where each setting is used.
//!
//! A file found in a workspace, project or the current directory may come from a cloned
//! repository: its `reasoner` and `base_url` (which decide where the key is sent) are
//! held back unless `volk trust` recorded that file with its content (see
//! [`crate::trust`]); the user's own file is always trusted.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::BadInput;
use crate::trust::UntrustedAsk;

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
    /// The `reasoner`/`base_url` of an untrusted file, held back; refused if used.
    #[serde(skip)]
    pub untrusted: Option<UntrustedAsk>,
}

impl Settings {
    /// Parses one `volk.toml`; the error names the file and the offending key.
    pub fn from_file(path: &Path) -> Result<Settings, BadInput> {
        let bytes = crate::confined::read_outside(path, crate::confined::Limit::CONFIG)
            .map_err(|e| BadInput::new(format!("{}: cannot read: {e}", path.display())))?;
        Settings::parse(path, &bytes)
    }

    /// Parses the content of the `volk.toml` at `path` (named in errors).
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Settings, BadInput> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| BadInput::new(format!("{}: not UTF-8: {e}", path.display())))?;
        let settings: Settings = toml::from_str(text).map_err(|e| {
            let message = e.message().to_string();
            BadInput::new(format!("{}: {message}", path.display()))
        })?;
        let ceiling = crate::limits::Limits::CEILING;
        let at = |key: &str| format!("{}: {key}", path.display());
        use crate::limits::under_ceiling;
        under_ceiling(&at("max_tokens"), settings.max_tokens, ceiling.max_tokens)?;
        under_ceiling(
            &at("plan_repairs"),
            settings.plan_repairs,
            ceiling.plan_repairs,
        )?;
        under_ceiling(&at("max_cycles"), settings.max_cycles, ceiling.max_cycles)?;
        Ok(settings)
    }

    /// Drops what an untrusted file may not set: anything that spends the user's
    /// tokens (the model and every count or size). It keeps only the theme and the
    /// timeouts (and `reasoner`/`base_url`, which are held back separately).
    fn without_cost_keys(mut self, path: &Path) -> Settings {
        let mut dropped = Vec::new();
        if self.model.take().is_some() {
            dropped.push("model");
        }
        if self.max_tokens.take().is_some() {
            dropped.push("max_tokens");
        }
        if self.plan_repairs.take().is_some() {
            dropped.push("plan_repairs");
        }
        if self.max_cycles.take().is_some() {
            dropped.push("max_cycles");
        }
        if !dropped.is_empty() {
            tracing::warn!(
                file = %path.display(),
                keys = %dropped.join(", "),
                "cost keys of an untrusted volk.toml ignored (volk trust uses them)"
            );
        }
        self
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
            untrusted: self.untrusted.or(fallback.untrusted),
        }
    }

    /// Loads `DIR/volk.toml` for each of `dirs` (first wins), then the user's file.
    /// Missing files are fine; a present but invalid one is an error. The files in
    /// `dirs` are untrusted unless `volk trust` recorded them as they are.
    pub fn load(dirs: &[&Path]) -> Result<Settings, BadInput> {
        let mut settings = Settings::default();
        for dir in dirs {
            let path = dir.join("volk.toml");
            if std::fs::symlink_metadata(&path).is_ok() {
                // Never a FIFO or a device, never more than a config's limit.
                let bytes = crate::confined::read_outside(&path, crate::confined::Limit::CONFIG)
                    .map_err(|e| BadInput::new(format!("{}: cannot read: {e}", path.display())))?;
                let mut found = Settings::parse(&path, &bytes)?;
                let trusted = crate::trust::is_trusted(&path, &bytes);
                if !trusted {
                    found = found.without_cost_keys(&path);
                }
                let asks = found.reasoner.is_some()
                    || found.base_url.is_some()
                    || found.context_root.is_some();
                if asks && !trusted {
                    // It would choose which of the person's code is read into prompts.
                    if let Some(root) = found.context_root.take() {
                        tracing::warn!(
                            file = %path.display(),
                            root = %root.display(),
                            "context_root of an untrusted volk.toml ignored (volk trust uses it)"
                        );
                    }
                    // Held back whole: which of the two wins is decided at use.
                    let ask = UntrustedAsk {
                        path: path.clone(),
                        reasoner: found
                            .reasoner
                            .take()
                            .filter(|_| settings.reasoner.is_none()),
                        base_url: found
                            .base_url
                            .take()
                            .filter(|_| settings.base_url.is_none()),
                    };
                    if settings.untrusted.is_none()
                        && (ask.reasoner.is_some() || ask.base_url.is_some())
                    {
                        settings.untrusted = Some(ask);
                    }
                }
                settings = settings.or(found);
            }
        }
        if let Some(user) = user_config_file()
            && user.is_file()
        {
            crate::trust::refuse_shared_config(&user)?;
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
        std::fs::write(a.path().join("volk.toml"), "idle_timeout_secs = 3\n").unwrap();
        std::fs::write(
            b.path().join("volk.toml"),
            "idle_timeout_secs = 7\ntheme = \"light\"\n",
        )
        .unwrap();
        let s = Settings::load(&[a.path(), b.path()]).unwrap();
        assert_eq!(s.idle_timeout_secs, Some(3));
        assert_eq!(s.theme.as_deref(), Some("light"));
    }

    #[test]
    fn an_untrusted_file_sets_no_cost_key_and_every_count_has_a_ceiling() {
        let a = tempfile::tempdir().unwrap();
        std::fs::write(
            a.path().join("volk.toml"),
            "model = \"o1-pro\"\nplan_repairs = 4\nmax_tokens = 100000\nmax_cycles = 50\ntheme = \"light\"\nidle_timeout_secs = 9\n",
        )
        .unwrap();
        let s = Settings::load(&[a.path()]).unwrap();
        assert_eq!(
            (s.model, s.plan_repairs, s.max_tokens, s.max_cycles),
            (None, None, None, None)
        );
        assert_eq!(s.theme.as_deref(), Some("light"));
        assert_eq!(s.idle_timeout_secs, Some(9));
        // Over the ceiling is refused whoever wrote it, naming the file and key.
        let path = a.path().join("volk.toml");
        let err = Settings::parse(&path, b"plan_repairs = 40\n").unwrap_err();
        assert!(
            err.to_string()
                .ends_with("volk.toml: plan_repairs: 40 is over the ceiling of 5"),
            "{err}"
        );
        let err = Settings::parse(&path, b"max_tokens = 4000000000\n").unwrap_err();
        assert!(err.to_string().contains("max_tokens"), "{err}");
    }
}
