//! The Stop hook: asks a coding agent to reflect once before it stops.
//!
//! On the first eligible Stop of a session the hook blocks with the selected
//! questions and leaves a pending marker; on the next Stop it consumes the marker and
//! lets the agent stop. A marker, not a fingerprint of the transcript, bounds the
//! pass, because the agent's answer changes the transcript itself.
//!
//! The hook fails open: whatever goes wrong, the agent may stop. It never blocks
//! unless the config was read and validated and the marker was written, so an
//! unwritable disk cannot trap an agent in a loop.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde_json::{Map, Value};

use super::select::{SelectedQuestion, select};
use super::store::{CONFIG_FILE, ConfigStore, PLUGIN_DIR, locate_config};

/// Environment variable that switches the Stop hook off (`off`, `0`, `false`, `no`).
pub const OPT_OUT_VAR: &str = "PRD_REFLECTION";
/// Where Claude Code tells its hooks the project root is.
pub const PROJECT_DIR_VAR: &str = "CLAUDE_PROJECT_DIR";
/// Markers older than this are left over from sessions that never stopped again.
const STALE_MARKER_AGE: Duration = Duration::from_secs(24 * 60 * 60);

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Host {
    Claude,
    Codex,
    Opencode,
}

impl Host {
    /// Codex puts a `turn_id` in every Stop input; Claude Code does not.
    fn detect(input: &Map<String, Value>) -> Host {
        if input.contains_key("turn_id") {
            Host::Codex
        } else {
            Host::Claude
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Codex => "codex",
            Host::Opencode => "opencode",
        }
    }
}

/// Why a Stop is let through; tests and the log tell these apart, the host only
/// sees an empty stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allow {
    /// `PRD_REFLECTION=off`.
    OptedOutByEnv,
    /// `enabled: false` in the config.
    Disabled,
    /// `on_stop: false` in the config.
    NotOnStop,
    /// A sub-agent finishing: reflection is for the main agent's turn.
    Subagent,
    /// Some other hook event routed here by mistake.
    NotAStop,
    /// The session's reflection was asked on the previous Stop.
    Reflected,
    /// No enabled question in an enabled category.
    NothingToAsk,
    /// No `.prd_plugin/` where the input's `cwd` leads and no project-level hook
    /// installed at the project root: the hook creates nothing.
    NoConfig,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow(Allow),
    Block { reason: String },
}

impl Decision {
    /// What goes on stdout: exactly `{"decision":"block","reason":…}`, or nothing.
    /// Codex refuses unknown fields and non-JSON, so nothing else is ever printed.
    pub fn stdout(&self) -> Option<String> {
        #[derive(Serialize)]
        struct Block<'a> {
            decision: &'static str,
            reason: &'a str,
        }
        match self {
            Decision::Allow(_) => None,
            Decision::Block { reason } => serde_json::to_string(&Block {
                decision: "block",
                reason,
            })
            .ok(),
        }
    }
}

/// What the hook knows besides its stdin.
#[derive(Debug, Clone)]
pub struct HookContext {
    /// `--host`; detected from the input when absent.
    pub host: Option<Host>,
    /// `--config`; else located from the input's `cwd`.
    pub config: Option<PathBuf>,
    /// The process's working directory, used when the input has no usable `cwd`.
    pub cwd: PathBuf,
    /// The host's project directory (`CLAUDE_PROJECT_DIR`), when it names one.
    pub project_dir: Option<PathBuf>,
    pub opted_out: bool,
}

impl HookContext {
    /// Reads the opt-out variable and the working directory of this process.
    pub fn from_env(host: Option<Host>, config: Option<PathBuf>) -> Self {
        let opted_out = std::env::var(OPT_OUT_VAR)
            .map(|v| {
                matches!(
                    v.trim().to_ascii_lowercase().as_str(),
                    "off" | "0" | "false" | "no" | "disabled"
                )
            })
            .unwrap_or(false);
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let project_dir = std::env::var_os(PROJECT_DIR_VAR)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        Self {
            host,
            config,
            cwd,
            project_dir,
            opted_out,
        }
    }
}

/// Decides one Stop. An `Err` carries the one line for stderr; the caller then
/// lets the agent stop.
pub fn decide(input: &[u8], ctx: &HookContext) -> Result<Decision, String> {
    if ctx.opted_out {
        return Ok(Decision::Allow(Allow::OptedOutByEnv));
    }
    let value: Value =
        serde_json::from_slice(input).map_err(|e| format!("stdin is not JSON: {e}"))?;
    let input = value
        .as_object()
        .ok_or("stdin is not a JSON object".to_string())?;
    match input.get("hook_event_name").and_then(Value::as_str) {
        Some("Stop") => {}
        Some("SubagentStop") => return Ok(Decision::Allow(Allow::Subagent)),
        Some(_) => return Ok(Decision::Allow(Allow::NotAStop)),
        None => return Err("stdin has no hook_event_name".into()),
    }
    let session = input
        .get("session_id")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .ok_or("stdin has no session_id".to_string())?;
    let host = ctx.host.unwrap_or_else(|| Host::detect(input));
    let cwd = input
        .get("cwd")
        .and_then(Value::as_str)
        .map(|c| ctx.cwd.join(c))
        .filter(|c| c.is_dir())
        .unwrap_or_else(|| ctx.cwd.clone());
    let config_path = match &ctx.config {
        Some(path) => path.clone(),
        None => match find_config(&cwd, ctx.project_dir.as_deref()) {
            Some(found) => found,
            None => return Ok(Decision::Allow(Allow::NoConfig)),
        },
    };
    // Absolute, so the marker and the root it must stay under are spelled alike.
    let config_path = std::path::absolute(&config_path).unwrap_or(config_path);
    let marker = marker_path(&config_path, session);
    refuse_symlinks(&config_path)?;

    // The marker lives under the config's directory; a link planted on the way (a
    // cloned `.prd_plugin/local -> ~`) is refused, never followed.
    let root = config_root(&config_path);
    let marker_parent = marker.parent().unwrap_or(Path::new("."));
    crate::confined::check(&root, marker_parent, crate::confined::Want::Dir)
        .map_err(|e| format!("{}: cannot remove marker: {e}", marker.display()))?;
    // The parents are real directories inside the project: removing the marker unlinks
    // it, and a planted link there is removed as a link, never followed.
    match fs::remove_file(&marker) {
        Ok(()) => return Ok(Decision::Allow(Allow::Reflected)),
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(format!("{}: cannot remove marker: {e}", marker.display())),
    }

    let config = ConfigStore::new(&config_path)
        .load()
        .map_err(|e| e.to_string())?
        .config;
    if !config.enabled {
        return Ok(Decision::Allow(Allow::Disabled));
    }
    if !config.on_stop {
        return Ok(Decision::Allow(Allow::NotOnStop));
    }
    let questions = select(&config);
    if questions.is_empty() {
        return Ok(Decision::Allow(Allow::NothingToAsk));
    }
    write_marker(&root, &marker, session, host, &questions)?;
    Ok(Decision::Block {
        reason: reason(&questions),
    })
}

/// The config a Stop in `cwd` reads: the nearest `.prd_plugin/` up the tree (within
/// the repository); else, where a project-level hook is installed at the project root
/// (the host's `project_dir`, or the repository root of `cwd`), that root's
/// `.prd_plugin/config.json`, which need not exist yet (the default questions). `None`
/// where neither holds: the hook then writes nothing.
pub fn find_config(cwd: &Path, project_dir: Option<&Path>) -> Option<PathBuf> {
    let found = locate_config(cwd);
    if found.parent().is_some_and(Path::is_dir) {
        return Some(found);
    }
    let root = project_root(cwd, project_dir)?;
    if let Some(found) = Some(locate_config(&root)).filter(|f| f.parent().is_some_and(Path::is_dir))
    {
        return Some(found);
    }
    if super::install::installed_hosts(&root).is_empty() {
        return None;
    }
    Some(root.join(PLUGIN_DIR).join(CONFIG_FILE))
}

/// The project a Stop belongs to: the host's project directory when it is one, else
/// the repository that holds `cwd`; `None` outside any repository.
pub fn project_root(cwd: &Path, project_dir: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = project_dir.filter(|d| d.is_absolute() && d.is_dir()) {
        return Some(dir.to_path_buf());
    }
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

/// Refuses a config directory, `local/` or `local/reflection/` that is a symbolic link:
/// a repository could point one anywhere, and the hook would remove and write markers
/// there.
fn refuse_symlinks(config_path: &Path) -> Result<(), String> {
    let dir = marker_dir(config_path);
    let local = dir.parent().map(Path::to_path_buf).unwrap_or_default();
    let base = local.parent().map(Path::to_path_buf).unwrap_or_default();
    for path in [&base, &local, &dir] {
        if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!(
                "{}: is a symbolic link; the hook does not write through it",
                path.display()
            ));
        }
    }
    Ok(())
}

/// `<config dir>/local/reflection/`: ephemeral state next to the config it belongs to.
/// The directory every path of the hook must stay in: the project around the config's
/// `.prd_plugin/` (which may not exist yet when an installed hook asks the defaults).
fn config_root(config_path: &Path) -> PathBuf {
    match config_path.parent().and_then(Path::parent) {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

pub fn marker_dir(config_path: &Path) -> PathBuf {
    let base = match config_path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    base.join("local").join("reflection")
}

/// The marker file of one session. A session id that is not a plain file name
/// (slashes, dots, odd characters, very long) is replaced by a stable hash of it.
pub fn marker_path(config_path: &Path, session: &str) -> PathBuf {
    let plain = session.len() <= 128
        && !session.starts_with('.')
        && session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    let key = if plain {
        session.to_string()
    } else {
        format!("h{:016x}", fnv1a(session.as_bytes()))
    };
    marker_dir(config_path).join(format!("{key}.pending"))
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn write_marker(
    root: &Path,
    marker: &Path,
    session: &str,
    host: Host,
    questions: &[SelectedQuestion],
) -> Result<(), String> {
    #[derive(Serialize)]
    struct Marker<'a> {
        session_id: &'a str,
        host: Host,
        questions: Vec<&'a str>,
        created: u64,
    }
    let dir = marker.parent().unwrap_or(Path::new("."));
    let fail = |e: std::io::Error| format!("{}: cannot write marker: {e}", marker.display());
    // One component at a time, refusing a link on the way (`mkdir` never follows one).
    crate::confined::create_dir_all(root, dir).map_err(fail)?;
    remove_stale_markers(root, dir);
    let created = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let body = serde_json::to_vec(&Marker {
        session_id: session,
        host,
        questions: questions.iter().map(|q| q.id.as_str()).collect(),
        created,
    })
    .map_err(|e| fail(std::io::Error::other(e)))?;
    crate::confined::write_atomic(root, marker, &body).map_err(fail)
}

/// Markers of sessions that ended right after being asked would otherwise pile up.
fn remove_stale_markers(root: &Path, dir: &Path) {
    let Ok(entries) = crate::confined::read_dir(root, dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > STALE_MARKER_AGE);
        if old && entry.path().extension().is_some_and(|e| e == "pending") {
            let _ = crate::confined::remove_file(root, &entry.path());
        }
    }
}

/// The message the agent reads: the numbered questions and how to answer them.
pub fn reason(questions: &[SelectedQuestion]) -> String {
    let mut text = String::from(
        "Before you stop, take one short reflection pass over the work of this turn and answer:\n",
    );
    for (n, q) in questions.iter().enumerate() {
        text.push_str(&format!(
            "\n{}. [{}] {} ({})",
            n + 1,
            q.category,
            q.text,
            q.id
        ));
    }
    text.push_str(
        "\n\nAnswer each by its number in one to three lines: a short verdict, the \
         observable evidence behind it (commands you ran and what they printed, files, \
         tests), and the next action if one is needed. State conclusions only: leave out \
         hidden reasoning, and never include secrets, credentials or personal data. \
         After answering you may stop; this is asked once per turn.",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ctx(dir: &Path) -> HookContext {
        HookContext {
            host: None,
            config: None,
            cwd: dir.to_path_buf(),
            project_dir: None,
            opted_out: false,
        }
    }

    fn stop(session: &str) -> Vec<u8> {
        format!(r#"{{"hook_event_name":"Stop","session_id":"{session}","stop_hook_active":false}}"#)
            .into_bytes()
    }

    #[test]
    fn no_plugin_directory_means_allow_and_nothing_created() {
        let dir = tempfile::tempdir().unwrap();
        let decision = decide(&stop("s1"), &ctx(dir.path())).unwrap();
        assert_eq!(decision, Decision::Allow(Allow::NoConfig));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn block_then_allow_then_block() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(".prd_plugin")).unwrap();
        let ctx = ctx(dir.path());
        let first = decide(&stop("s1"), &ctx).unwrap();
        let Decision::Block { reason } = &first else {
            panic!("{first:?}")
        };
        assert!(reason.contains("1. [Verification]") && reason.contains("RFQ-001"));
        assert!(
            dir.path()
                .join(".prd_plugin/local/reflection/s1.pending")
                .is_file()
        );
        assert_eq!(
            decide(&stop("s1"), &ctx).unwrap(),
            Decision::Allow(Allow::Reflected)
        );
        assert!(matches!(
            decide(&stop("s1"), &ctx).unwrap(),
            Decision::Block { .. }
        ));
        // Another session has its own cycle.
        assert!(matches!(
            decide(&stop("s2"), &ctx).unwrap(),
            Decision::Block { .. }
        ));
    }

    #[test]
    fn output_has_exactly_two_fields() {
        let d = Decision::Block {
            reason: "why \"quoted\"\n".into(),
        };
        let out: Value = serde_json::from_str(&d.stdout().unwrap()).unwrap();
        let keys: Vec<_> = out.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["decision", "reason"]);
        assert_eq!(Decision::Allow(Allow::Subagent).stdout(), None);
    }

    #[test]
    fn odd_session_ids_become_safe_file_names() {
        let p = marker_path(Path::new("/x/.prd_plugin/config.json"), "../../etc/passwd");
        assert_eq!(
            p.parent().unwrap(),
            Path::new("/x/.prd_plugin/local/reflection")
        );
        assert!(p.file_name().unwrap().to_string_lossy().starts_with('h'));
        let q = marker_path(Path::new("/x/.prd_plugin/config.json"), "../../etc/passwd");
        assert_eq!(p, q);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Whatever arrives on stdin or sits in the config file, the hook never
        /// panics, and it blocks only when the config is valid.
        #[test]
        fn never_blocks_without_a_valid_config(
            stdin in prop_oneof![
                proptest::collection::vec(any::<u8>(), 0..200),
                "[a-z_\"{}:, ]{0,80}".prop_map(String::into_bytes),
                "[a-zA-Z0-9._/-]{0,40}".prop_map(|s| stop(&s)),
            ],
            config in prop_oneof![
                Just(None),
                "[\\PC]{0,60}".prop_map(Some),
                Just(Some(r#"{"reflection":{"categories":[{"id":"a","name":"A","questions":[{"id":"RFQ-001","text":"Q?"}]}]}}"#.to_string())),
            ],
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(".prd_plugin").join("config.json");
            if let Some(text) = &config {
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(&path, text).unwrap();
            }
            let outcome = decide(&stdin, &ctx(dir.path()));
            if let Ok(Decision::Block { .. }) = outcome {
                let valid = ConfigStore::new(&path).load().is_ok();
                prop_assert!(valid, "blocked with an invalid config");
            }
        }
    }
}
