//! Choosing a reasoner from flags, environment and `volk.toml`, in that order.
//! Keys are read from the environment only.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use crate::BadInput;
use crate::config::Settings;
use crate::reasoner::SharedReasoner;
use crate::reasoner::anthropic::Anthropic;
use crate::reasoner::cassette::{Recorder, Replay};
use crate::reasoner::http::{Endpoint, Timeouts};
use crate::reasoner::offline::OfflineDrafter;
use crate::reasoner::openai::OpenAi;
use crate::reasoner::retry::RetryPolicy;
use crate::reasoner::secret::ApiKey;
use crate::redact::Redacting;

/// Reasoner options shared by every command that designs.
#[derive(Debug, Clone, Default, Args)]
pub struct ReasonerArgs {
    /// offline | openai | anthropic | deepseek | ollama | replay:PATH
    #[arg(long, env = "VOLK_REASONER")]
    pub reasoner: Option<String>,
    /// Model name sent to the provider.
    #[arg(long, env = "VOLK_MODEL")]
    pub model: Option<String>,
    /// Base URL of the provider's API.
    #[arg(long, env = "VOLK_BASE_URL")]
    pub base_url: Option<String>,
    /// Record every reasoner call into this cassette (JSON lines; replaced if present).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Replay speed for replay:PATH: 1 as recorded, 2 twice as fast, 0 instant.
    #[arg(long, value_name = "N")]
    pub replay_speed: Option<f64>,
    /// Seconds allowed to connect to the provider (default 10).
    #[arg(long, value_name = "SECS")]
    pub connect_timeout: Option<u64>,
    /// Seconds of silence allowed between chunks of a response (default 120).
    #[arg(long, value_name = "SECS")]
    pub idle_timeout: Option<u64>,
    /// Seconds allowed for a whole call, retries included (default 900).
    #[arg(long, value_name = "SECS")]
    pub request_timeout: Option<u64>,
}

/// The wire protocol a preset speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    OpenAi,
    Anthropic,
}

/// A named provider: protocol, where it lives, which variable holds its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    pub name: &'static str,
    pub protocol: Protocol,
    pub base_url: &'static str,
    pub key_variable: &'static str,
    pub model: &'static str,
    /// A key is needed at the preset's own URL (a local server needs none).
    pub needs_key: bool,
}

pub const PRESETS: [Preset; 4] = [
    Preset {
        name: "openai",
        protocol: Protocol::OpenAi,
        base_url: "https://api.openai.com/v1",
        key_variable: "OPENAI_API_KEY",
        model: "gpt-4.1",
        needs_key: true,
    },
    Preset {
        name: "deepseek",
        protocol: Protocol::OpenAi,
        base_url: "https://api.deepseek.com/v1",
        key_variable: "DEEPSEEK_API_KEY",
        model: "deepseek-chat",
        needs_key: true,
    },
    Preset {
        name: "ollama",
        protocol: Protocol::OpenAi,
        base_url: "http://localhost:11434/v1",
        key_variable: "OLLAMA_API_KEY",
        model: "llama3.1",
        needs_key: false,
    },
    Preset {
        name: "anthropic",
        protocol: Protocol::Anthropic,
        base_url: "https://api.anthropic.com",
        key_variable: "ANTHROPIC_API_KEY",
        model: "claude-sonnet-4-5",
        needs_key: true,
    },
];

/// What `--reasoner` names.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    Offline,
    Replay(PathBuf),
    Provider(Preset),
}

impl Choice {
    pub fn parse(name: &str) -> Option<Choice> {
        let name = name.trim();
        if name == "offline" {
            return Some(Choice::Offline);
        }
        if let Some(path) = name.strip_prefix("replay:") {
            return (!path.is_empty()).then(|| Choice::Replay(PathBuf::from(path)));
        }
        PRESETS
            .iter()
            .find(|p| p.name == name)
            .map(|p| Choice::Provider(*p))
    }
}

/// Said once when a design starts with no reasoner named by a flag, the environment
/// or `volk.toml`: the offline drafter writes it, and this is how to pick a model.
pub fn offline_notice(args: &ReasonerArgs, settings: &Settings) -> Option<&'static str> {
    (args.reasoner.is_none() && settings.reasoner.is_none()).then_some(
        "volk: no reasoner given, so the offline drafter (no model) writes the design; pick a model with --reasoner openai|anthropic|deepseek|ollama [--model NAME], VOLK_REASONER, or reasoner = \"openai\" in volk.toml",
    )
}

/// Builds the reasoner the user asked for.
pub fn build(args: &ReasonerArgs, settings: &Settings) -> Result<SharedReasoner, BadInput> {
    refuse_untrusted(args, settings)?;
    let (name, origin) = match (&args.reasoner, &settings.reasoner) {
        (Some(name), _) => (name.clone(), "--reasoner (or VOLK_REASONER)"),
        (None, Some(name)) => (name.clone(), "volk.toml: reasoner"),
        (None, None) => ("offline".to_string(), "--reasoner"),
    };
    let choice = Choice::parse(&name).ok_or_else(|| {
        BadInput::new(format!(
            "{origin}: unknown reasoner '{name}' (expected offline, openai, anthropic, deepseek, ollama or replay:PATH)"
        ))
    })?;
    if args.replay_speed.is_some() && !matches!(choice, Choice::Replay(_)) {
        return Err(BadInput::new(format!(
            "--replay-speed: only applies to --reasoner replay:FILE (the reasoner is '{name}')"
        )));
    }
    let (reasoner, secret): (SharedReasoner, Option<ApiKey>) = match choice {
        Choice::Offline => (Arc::new(OfflineDrafter::default()), None),
        Choice::Replay(path) => {
            let speed = args.replay_speed.unwrap_or(1.0);
            let replay = Replay::load(&path, speed).map_err(|e| BadInput::new(e.to_string()))?;
            (Arc::new(replay), None)
        }
        Choice::Provider(preset) => {
            let endpoint = endpoint(&preset, args, settings)?;
            let key = endpoint.key.clone();
            let built: Result<SharedReasoner, _> = match preset.protocol {
                Protocol::OpenAi => {
                    OpenAi::new(preset.name, endpoint).map(|r| Arc::new(r) as SharedReasoner)
                }
                Protocol::Anthropic => {
                    Anthropic::new(endpoint).map(|r| Arc::new(r) as SharedReasoner)
                }
            };
            let built = built.map_err(|e| BadInput::new(e.to_string()))?;
            match &key {
                // Nothing the server sends back reaches volk's files with the key in it.
                Some(key) => {
                    key.register();
                    (Redacting::wrap(built, key.redactor()), Some(key.clone()))
                }
                None => (built, None),
            }
        }
    };
    match &args.record {
        None => Ok(reasoner),
        Some(path) => Recorder::create(reasoner, path, secret)
            .map(|r| Arc::new(r) as SharedReasoner)
            .map_err(|e| BadInput::new(format!("--record: {e}"))),
    }
}

/// Exits 2 when an untrusted `volk.toml` would pick the reasoner or the base URL, that
/// is when no flag or environment variable overrides what it asks for.
fn refuse_untrusted(args: &ReasonerArgs, settings: &Settings) -> Result<(), BadInput> {
    let Some(ask) = &settings.untrusted else {
        return Ok(());
    };
    let reasoner_used = ask.reasoner.is_some() && args.reasoner.is_none();
    let provider = match args.reasoner.as_deref().or(ask.reasoner.as_deref()) {
        Some(name) => matches!(Choice::parse(name), Some(Choice::Provider(_))),
        None => settings
            .reasoner
            .as_deref()
            .is_some_and(|name| matches!(Choice::parse(name), Some(Choice::Provider(_)))),
    };
    let base_url_used = ask.base_url.is_some() && args.base_url.is_none() && provider;
    if reasoner_used || base_url_used {
        return Err(BadInput::new(ask.refusal()));
    }
    Ok(())
}

/// Resolves URL, model, key and limits for a provider preset.
pub fn endpoint(
    preset: &Preset,
    args: &ReasonerArgs,
    settings: &Settings,
) -> Result<Endpoint, BadInput> {
    let base_url = args
        .base_url
        .clone()
        .or_else(|| settings.base_url.clone())
        .unwrap_or_else(|| preset.base_url.to_string());
    check_base_url(&base_url, preset)?;
    // A key in the query (`?api-key=…`) is a key: every writer scrubs it from now on
    // (session, journal, log, stderr).
    if let Ok(url) = reqwest::Url::parse(&base_url) {
        for (_, value) in url.query_pairs() {
            if value.len() >= 4 {
                crate::redact::register(&value);
            }
        }
    }
    let model = args
        .model
        .clone()
        .or_else(|| settings.model.clone())
        .unwrap_or_else(|| preset.model.to_string());
    if model.trim().is_empty() {
        return Err(BadInput::new("--model: the model name is empty"));
    }
    let key = ApiKey::from_env(preset.key_variable);
    let at_home = base_url.trim_end_matches('/') == preset.base_url;
    if key.is_none() && preset.needs_key && at_home {
        return Err(BadInput::new(format!(
            "{}: no API key; set {} in the environment",
            preset.name, preset.key_variable
        )));
    }
    Ok(Endpoint {
        base_url,
        model,
        key,
        key_variable: Some(preset.key_variable.to_string()),
        timeouts: timeouts(args, settings)?,
        retry: RetryPolicy::default(),
    })
}

fn check_base_url(base_url: &str, preset: &Preset) -> Result<(), BadInput> {
    let url = reqwest::Url::parse(base_url)
        .map_err(|e| BadInput::new(format!("--base-url: '{base_url}' is not a URL ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(BadInput::new(format!(
            "--base-url: '{base_url}' must start with http:// or https://"
        )));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(BadInput::new(format!(
            "--base-url: credentials in the URL are refused; put the key in {}",
            preset.key_variable
        )));
    }
    Ok(())
}

fn timeouts(args: &ReasonerArgs, settings: &Settings) -> Result<Timeouts, BadInput> {
    let defaults = Timeouts::default();
    let pick = |flag: Option<u64>,
                setting: Option<u64>,
                default: Duration,
                name: &str|
     -> Result<Duration, BadInput> {
        match flag.or(setting) {
            None => Ok(default),
            Some(0) => Err(BadInput::new(format!(
                "--{name} (or volk.toml {}_secs): must be at least 1 second",
                name.replace('-', "_")
            ))),
            Some(secs) => Ok(Duration::from_secs(secs)),
        }
    };
    Ok(Timeouts {
        connect: pick(
            args.connect_timeout,
            settings.connect_timeout_secs,
            defaults.connect,
            "connect-timeout",
        )?,
        idle: pick(
            args.idle_timeout,
            settings.idle_timeout_secs,
            defaults.idle,
            "idle-timeout",
        )?,
        overall: pick(
            args.request_timeout,
            settings.request_timeout_secs,
            defaults.overall,
            "request-timeout",
        )?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse() {
        assert_eq!(Choice::parse("offline"), Some(Choice::Offline));
        assert_eq!(
            Choice::parse("replay:a/b.jsonl"),
            Some(Choice::Replay(PathBuf::from("a/b.jsonl")))
        );
        assert_eq!(Choice::parse("replay:"), None);
        assert!(
            matches!(Choice::parse("deepseek"), Some(Choice::Provider(p)) if p.key_variable == "DEEPSEEK_API_KEY")
        );
        assert_eq!(Choice::parse("gpt"), None);
    }

    #[test]
    fn flags_win_over_settings() {
        let args = ReasonerArgs {
            model: Some("flag-model".into()),
            base_url: Some("http://127.0.0.1:9/v1".into()),
            idle_timeout: Some(3),
            ..ReasonerArgs::default()
        };
        let settings = Settings {
            model: Some("toml-model".into()),
            base_url: Some("http://example.invalid/v1".into()),
            idle_timeout_secs: Some(9),
            connect_timeout_secs: Some(4),
            ..Settings::default()
        };
        let e = endpoint(&PRESETS[2], &args, &settings).unwrap();
        assert_eq!(e.model, "flag-model");
        assert_eq!(e.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(e.timeouts.idle, Duration::from_secs(3));
        assert_eq!(e.timeouts.connect, Duration::from_secs(4));
    }

    #[test]
    fn a_missing_key_names_the_variable_only_at_the_providers_own_url() {
        let preset = Preset {
            key_variable: "VOLK_TEST_KEY_THAT_IS_NEVER_SET",
            ..PRESETS[0]
        };
        let s = Settings::default();
        let err = endpoint(&preset, &ReasonerArgs::default(), &s)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "openai: no API key; set VOLK_TEST_KEY_THAT_IS_NEVER_SET in the environment"
        );
        let local = ReasonerArgs {
            base_url: Some("http://127.0.0.1:8080/v1".into()),
            ..ReasonerArgs::default()
        };
        let e = endpoint(&preset, &local, &s).unwrap();
        assert!(e.key.is_none());
    }

    #[test]
    fn bad_values_are_refused() {
        let mut args = ReasonerArgs {
            base_url: Some("ftp://x".into()),
            ..ReasonerArgs::default()
        };
        let s = Settings::default();
        assert!(endpoint(&PRESETS[2], &args, &s).is_err());
        args.base_url = Some("http://user:secret@host/v1".into());
        let err = endpoint(&PRESETS[2], &args, &s).unwrap_err().to_string();
        assert!(!err.contains("secret"), "{err}");
        args.base_url = None;
        args.idle_timeout = Some(0);
        assert!(
            endpoint(&PRESETS[2], &args, &s)
                .unwrap_err()
                .to_string()
                .contains("idle")
        );
        let unknown = ReasonerArgs {
            reasoner: Some("gpt".into()),
            ..ReasonerArgs::default()
        };
        assert!(build(&unknown, &s).is_err());
        let speed_without_replay = ReasonerArgs {
            replay_speed: Some(2.0),
            ..ReasonerArgs::default()
        };
        let err = build(&speed_without_replay, &s).err().unwrap().to_string();
        assert!(err.starts_with("--replay-speed"), "{err}");
    }
}
