//! The reasoner a session was designed with (provider, model, base URL; never a key),
//! recorded in `session.json` so that `volk open` continues with the same architect
//! instead of silently switching to the offline drafter, which would rewrite all five
//! artifacts at the next cycle.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::BadInput;
use crate::reasoner::Reasoner;
use crate::reasoner::select::{Choice, PRESETS, ReasonerArgs};

/// What designed a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DesignedWith {
    /// `offline`, `replay`, or a provider preset (`openai`, `anthropic`, …).
    pub reasoner: String,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
}

impl DesignedWith {
    pub fn of(reasoner: &dyn Reasoner) -> DesignedWith {
        DesignedWith {
            reasoner: reasoner.name().to_string(),
            model: reasoner.model().to_string(),
            base_url: reasoner.base_url().map(str::to_string),
        }
    }

    /// True for a design written by a model rather than the offline drafter.
    pub fn is_model(&self) -> bool {
        self.reasoner != "offline"
    }
}

/// Only the part of `session.json` this module reads, so that it does not depend on
/// the rest of the session's shape.
#[derive(Deserialize)]
struct Recorded {
    #[serde(default)]
    reasoner: Option<DesignedWith>,
}

/// The record of `project_dir`, or for a session written before it was recorded, the
/// reasoner its journal shows calling (`reasoner_metrics` entries).
pub fn read(project_dir: &Path) -> Option<DesignedWith> {
    let volk = project_dir.join(".volk");
    let read = |name: &str, limit| {
        crate::confined::read(project_dir, &volk.join(name), limit)
            .ok()
            .flatten()
    };
    let recorded = read("session.json", crate::confined::Limit::SESSION)
        .and_then(|b| serde_json::from_slice::<Recorded>(&b).ok())
        .and_then(|r| r.reasoner);
    if recorded.is_some() {
        return recorded;
    }
    let journal = read("journal.jsonl", crate::confined::Limit::JOURNAL)?;
    let journal = String::from_utf8_lossy(&journal);
    journal
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["event"] == "reasoner_metrics")
        .map(|v| DesignedWith {
            reasoner: v["detail"]["reasoner"].as_str().unwrap_or("").to_string(),
            model: v["detail"]["model"].as_str().unwrap_or("").to_string(),
            base_url: None,
        })
}

/// True when `url` names this machine, where a key cannot leave it.
fn is_loopback(url: &str) -> bool {
    reqwest::Url::parse(url).is_ok_and(|u| {
        let host = u.host_str().unwrap_or("");
        let host = host.trim_start_matches('[').trim_end_matches(']');
        host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    })
}

/// The reasoner options `volk open` uses: the flags, then what the session was designed
/// with. A model-backed design is never continued by the offline drafter unless
/// `--reasoner offline` says so. A recorded base URL is reused only when it is the
/// provider's own or on this machine: `session.json` sits in a directory that may have
/// been copied from elsewhere, and the key must not follow a URL written there.
pub fn resume_args(
    project_dir: &Path,
    flags: &ReasonerArgs,
    configured_base_url: Option<&str>,
) -> Result<ReasonerArgs, BadInput> {
    let Some(recorded) = read(project_dir) else {
        return Ok(flags.clone());
    };
    let mut args = flags.clone();
    if args.reasoner.is_some() {
        // The person chose; the recorded model and URL only fill in for the same provider
        // (`--reasoner offline` on an offline-drafted design just continues it).
        if args.reasoner.as_deref() != Some(recorded.reasoner.as_str())
            || !matches!(Choice::parse(&recorded.reasoner), Some(Choice::Provider(_)))
        {
            return Ok(args);
        }
    } else if !recorded.is_model() {
        return Ok(args);
    }
    let shown = project_dir.display();
    let preset = match Choice::parse(&recorded.reasoner) {
        Some(Choice::Provider(preset)) => preset,
        _ => {
            return Err(BadInput::new(format!(
                "{shown}: designed with {} (model {}); pass --reasoner to continue it (--reasoner offline lets the offline drafter rewrite it)",
                recorded.reasoner, recorded.model
            )));
        }
    };
    args.reasoner = Some(preset.name.to_string());
    if args.model.is_none() && !recorded.model.is_empty() {
        args.model = Some(recorded.model.clone());
    }
    if args.base_url.is_none()
        && let Some(url) = &recorded.base_url
    {
        let own = PRESETS
            .iter()
            .any(|p| p.name == preset.name && p.base_url == url.trim_end_matches('/'));
        if own || is_loopback(url) || configured_base_url == Some(url.as_str()) {
            args.base_url = Some(url.clone());
        } else if configured_base_url.is_none() {
            return Err(BadInput::new(format!(
                "{shown}: designed with {} at {url}; pass --base-url {url} to send the key there again (or --reasoner offline to let the offline drafter rewrite it)",
                preset.name
            )));
        }
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(record: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".volk")).unwrap();
        std::fs::write(dir.path().join(".volk/session.json"), record).unwrap();
        dir
    }

    #[test]
    fn flags_win_and_the_record_fills_in() {
        let dir = project(
            r#"{"reasoner":{"reasoner":"openai","model":"gpt-x","base_url":"http://127.0.0.1:9/v1"}}"#,
        );
        let args = resume_args(dir.path(), &ReasonerArgs::default(), None).unwrap();
        assert_eq!(args.reasoner.as_deref(), Some("openai"));
        assert_eq!(args.model.as_deref(), Some("gpt-x"));
        assert_eq!(args.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
        let flags = ReasonerArgs {
            model: Some("other".into()),
            ..ReasonerArgs::default()
        };
        let args = resume_args(dir.path(), &flags, None).unwrap();
        assert_eq!(args.model.as_deref(), Some("other"));
        let offline = ReasonerArgs {
            reasoner: Some("offline".into()),
            ..ReasonerArgs::default()
        };
        let args = resume_args(dir.path(), &offline, None).unwrap();
        assert_eq!(args.reasoner.as_deref(), Some("offline"));
        assert_eq!(args.model, None);
    }

    #[test]
    fn a_foreign_base_url_is_not_followed_without_a_flag() {
        let dir = project(
            r#"{"reasoner":{"reasoner":"openai","model":"m","base_url":"https://example.invalid/v1"}}"#,
        );
        let err = resume_args(dir.path(), &ReasonerArgs::default(), None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--base-url https://example.invalid/v1"),
            "{err}"
        );
        let ok = resume_args(
            dir.path(),
            &ReasonerArgs::default(),
            Some("https://example.invalid/v1"),
        )
        .unwrap();
        assert_eq!(ok.base_url.as_deref(), Some("https://example.invalid/v1"));
    }

    #[test]
    fn a_replayed_design_needs_a_flag_and_an_offline_one_needs_nothing() {
        let dir = project(r#"{"reasoner":{"reasoner":"replay","model":"m"}}"#);
        assert!(resume_args(dir.path(), &ReasonerArgs::default(), None).is_err());
        let dir = project(r#"{"reasoner":{"reasoner":"offline","model":"offline"}}"#);
        let args = resume_args(dir.path(), &ReasonerArgs::default(), None).unwrap();
        assert_eq!(args.reasoner, None);
        // The flag its own message suggests continues it (issue 26).
        for model in ["offline", "drafter"] {
            let dir = project(&format!(
                r#"{{"reasoner":{{"reasoner":"offline","model":"{model}"}}}}"#
            ));
            let flags = ReasonerArgs {
                reasoner: Some("offline".into()),
                ..ReasonerArgs::default()
            };
            let args = resume_args(dir.path(), &flags, None).unwrap();
            assert_eq!(args.reasoner.as_deref(), Some("offline"));
        }
    }

    #[test]
    fn an_old_session_is_judged_by_its_journal() {
        let dir = project("{}");
        std::fs::write(
            dir.path().join(".volk/journal.jsonl"),
            "{\"event\":\"reasoner_metrics\",\"detail\":{\"reasoner\":\"deepseek\",\"model\":\"deepseek-chat\"}}\n",
        )
        .unwrap();
        let args = resume_args(dir.path(), &ReasonerArgs::default(), None).unwrap();
        assert_eq!(args.reasoner.as_deref(), Some("deepseek"));
        assert_eq!(args.model.as_deref(), Some("deepseek-chat"));
    }
}
