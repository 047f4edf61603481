//! `volk hook install`: registers the Stop hook with a coding agent, keeping every
//! other setting of the host's file. Running it twice changes nothing; running it
//! after volk moved updates the registered command in place.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::hook::Host;

/// Seconds a host waits for the hook before giving up on it.
const HOOK_TIMEOUT_SECS: u64 = 10;
const OPENCODE_PLUGIN_FILE: &str = "volk-reflection.js";

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        path: PathBuf,
        action: &'static str,
        source: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("cannot find the home directory for --user")]
    NoHome,
}

impl InstallError {
    pub fn is_user_error(&self) -> bool {
        !matches!(
            self,
            InstallError::Io {
                action: "write",
                ..
            }
        )
    }
}

/// Where the registration goes.
#[derive(Debug, Clone)]
pub enum Scope {
    /// The project at this root (`.claude/`, `.codex/`, `.opencode/`).
    Project(PathBuf),
    /// The user's own settings under this home directory.
    User(PathBuf),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Installed,
    Updated,
    Unchanged,
}

impl Outcome {
    pub fn describe(self) -> &'static str {
        match self {
            Outcome::Installed => "installed",
            Outcome::Updated => "updated",
            Outcome::Unchanged => "already installed",
        }
    }
}

/// The file the registration lives in, per host and scope.
pub fn target_file(host: Host, scope: &Scope) -> PathBuf {
    match (host, scope) {
        (Host::Claude, Scope::Project(root)) | (Host::Claude, Scope::User(root)) => {
            root.join(".claude").join("settings.json")
        }
        (Host::Codex, Scope::Project(root)) | (Host::Codex, Scope::User(root)) => {
            root.join(".codex").join("hooks.json")
        }
        (Host::Opencode, Scope::Project(root)) => root
            .join(".opencode")
            .join("plugins")
            .join(OPENCODE_PLUGIN_FILE),
        (Host::Opencode, Scope::User(home)) => std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".config"))
            .join("opencode")
            .join("plugins")
            .join(OPENCODE_PLUGIN_FILE),
    }
}

/// Quotes a path for a POSIX shell when it needs quoting.
pub fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@".contains(&b));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The command a host runs: `<volk> hook stop --host <host>`.
pub fn hook_command(volk: &str, host: Host) -> String {
    format!("{volk} hook stop --host {}", host.name())
}

/// Registers the hook; `volk` is the (shell-ready) command that starts volk.
pub fn install(host: Host, scope: &Scope, volk: &str) -> Result<(PathBuf, Outcome), InstallError> {
    let path = target_file(host, scope);
    let command = hook_command(volk, host);
    let outcome = match host {
        Host::Claude | Host::Codex => register_in_settings(&path, host, &command)?,
        Host::Opencode => write_if_changed(&path, opencode_plugin(&command).as_bytes())?,
    };
    Ok((path, outcome))
}

/// A host's settings file larger than this is not read by the Stop hook: it only
/// looks for its own command line there.
const MAX_SETTINGS_BYTES: u64 = 1024 * 1024;

/// The hosts whose project-level settings at `root` run this hook. The Stop hook
/// reflects with the default questions in such a project even before it has a
/// config; a repository's own files are read as untrusted JSON, only to find the
/// command.
pub fn installed_hosts(root: &Path) -> Vec<Host> {
    let scope = Scope::Project(root.to_path_buf());
    [Host::Claude, Host::Codex, Host::Opencode]
        .into_iter()
        .filter(|host| is_installed(*host, &target_file(*host, &scope)))
        .collect()
}

/// Whether the file a host reads registers this hook for it.
pub fn is_installed(host: Host, path: &Path) -> bool {
    let Ok(meta) = fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() > MAX_SETTINGS_BYTES {
        return false;
    }
    let Ok(bytes) = fs::read(path) else {
        return false;
    };
    match host {
        Host::Opencode => String::from_utf8_lossy(&bytes).contains("hook stop --host opencode"),
        Host::Claude | Host::Codex => serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|v| v.get("hooks")?.get("Stop")?.as_array().cloned())
            .into_iter()
            .flatten()
            .filter_map(|group| group.get("hooks")?.as_array().cloned())
            .flatten()
            .filter_map(|handler| handler.get("command")?.as_str().map(String::from))
            .any(|c| is_our_command(&c, host)),
    }
}

/// The line that keeps the hook's markers out of git.
pub const IGNORE_LINE: &str = ".prd_plugin/local/";

/// Adds [`IGNORE_LINE`] to the `.gitignore` at `root` unless a line already ignores
/// it; returns whether it wrote.
pub fn ensure_marker_ignored(root: &Path) -> Result<bool, InstallError> {
    let path = root.join(".gitignore");
    let text = match fs::read(&path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| InstallError::Invalid {
            path: path.clone(),
            message: "not UTF-8 text".into(),
        })?,
        Err(e) if e.kind() == ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(InstallError::Io {
                path,
                action: "read",
                source,
            });
        }
    };
    let covered = text.lines().map(str::trim).any(|l| {
        matches!(
            l.trim_start_matches('/').trim_end_matches('/'),
            ".prd_plugin" | ".prd_plugin/local" | ".prd_plugin/local/reflection"
        )
    });
    if covered {
        return Ok(false);
    }
    let mut body = text;
    if !body.is_empty() && !body.ends_with('\n') {
        body.push('\n');
    }
    body.push_str(IGNORE_LINE);
    body.push('\n');
    write(&path, body.as_bytes())?;
    Ok(true)
}

/// Whether a registered command is this hook for this host, whichever path volk had.
fn is_our_command(command: &str, host: Host) -> bool {
    command.contains("volk") && command.ends_with(&format!("hook stop --host {}", host.name()))
}

fn register_in_settings(path: &Path, host: Host, command: &str) -> Result<Outcome, InstallError> {
    let invalid = |message: &str| InstallError::Invalid {
        path: path.to_path_buf(),
        message: message.to_string(),
    };
    let mut document = match fs::read(path) {
        Ok(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => Map::new(),
        Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(invalid("must be a JSON object")),
            Err(e) => return Err(invalid(&format!("not valid JSON: {e}"))),
        },
        Err(e) if e.kind() == ErrorKind::NotFound => Map::new(),
        Err(source) => {
            return Err(InstallError::Io {
                path: path.to_path_buf(),
                action: "read",
                source,
            });
        }
    };
    let hooks = document
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| invalid("hooks: must be an object"))?;
    let stop = hooks
        .entry("Stop")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| invalid("hooks.Stop: must be a list"))?;

    let existing = stop
        .iter_mut()
        .filter_map(|group| group.get_mut("hooks").and_then(Value::as_array_mut))
        .flatten()
        .filter_map(|handler| handler.get_mut("command"))
        .find(|c| c.as_str().is_some_and(|c| is_our_command(c, host)));
    let outcome = match existing {
        Some(current) if current.as_str() == Some(command) => return Ok(Outcome::Unchanged),
        Some(current) => {
            *current = Value::String(command.to_string());
            Outcome::Updated
        }
        None => {
            stop.push(json!({
                "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECS}]
            }));
            Outcome::Installed
        }
    };
    let mut text = serde_json::to_string_pretty(&Value::Object(document))
        .map_err(|e| invalid(&e.to_string()))?;
    text.push('\n');
    write(path, text.as_bytes())?;
    Ok(outcome)
}

fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<Outcome, InstallError> {
    let outcome = match fs::read(path) {
        Ok(current) if current == bytes => return Ok(Outcome::Unchanged),
        Ok(_) => Outcome::Updated,
        Err(e) if e.kind() == ErrorKind::NotFound => Outcome::Installed,
        Err(source) => {
            return Err(InstallError::Io {
                path: path.to_path_buf(),
                action: "read",
                source,
            });
        }
    };
    write(path, bytes)?;
    Ok(outcome)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), InstallError> {
    crate::fsutil::atomic_write(path, bytes).map_err(|source| InstallError::Io {
        path: path.to_path_buf(),
        action: "write",
        source,
    })
}

/// An opencode plugin: opencode has no Stop hook, so the plugin runs the hook when a
/// session goes idle and, when it blocks, sends the reason back as the next prompt.
pub fn opencode_plugin(command: &str) -> String {
    let command = serde_json::to_string(command).unwrap_or_else(|_| "\"\"".into());
    format!(
        r#"// Written by `volk hook install --host opencode`; running it again rewrites it.
// When a session goes idle, run volk's reflection Stop hook; when it asks for a
// reflection pass, send its questions back to the session as the next prompt.
import {{ spawnSync }} from "node:child_process";

const HOOK = {command};

export const VolkReflection = async ({{ client, directory }}) => ({{
  event: async ({{ event }}) => {{
    if (event.type !== "session.idle") return;
    const sessionID = event.properties?.sessionID;
    if (!sessionID) return;
    const input = JSON.stringify({{
      hook_event_name: "Stop",
      session_id: sessionID,
      cwd: directory,
    }});
    const run = spawnSync(HOOK, {{
      shell: true,
      input,
      encoding: "utf8",
      timeout: {timeout_ms},
    }});
    if (run.status !== 0 || !run.stdout || !run.stdout.trim()) return;
    let answer;
    try {{
      answer = JSON.parse(run.stdout);
    }} catch {{
      return;
    }}
    if (answer.decision !== "block" || typeof answer.reason !== "string") return;
    await client.session.prompt({{
      path: {{ id: sessionID }},
      body: {{ parts: [{{ type: "text", text: answer.reason }}] }},
    }});
  }},
}});
"#,
        timeout_ms = HOOK_TIMEOUT_SECS * 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/usr/bin/volk"), "/usr/bin/volk");
        assert_eq!(shell_quote("/my dir/volk"), "'/my dir/volk'");
        assert_eq!(shell_quote("/it's/volk"), r"'/it'\''s/volk'");
    }

    #[test]
    fn settings_keep_other_hooks_and_update_a_moved_volk() {
        let dir = tempfile::tempdir().unwrap();
        let scope = Scope::Project(dir.path().to_path_buf());
        let path = target_file(Host::Claude, &scope);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(
            &path,
            r#"{"model":"x","hooks":{"Stop":[{"hooks":[{"type":"command","command":"other"}]}],"PreToolUse":[]}}"#,
        )
        .unwrap();
        assert_eq!(
            install(Host::Claude, &scope, "/a/volk").unwrap().1,
            Outcome::Installed
        );
        assert_eq!(
            install(Host::Claude, &scope, "/a/volk").unwrap().1,
            Outcome::Unchanged
        );
        assert_eq!(
            install(Host::Claude, &scope, "/b/volk").unwrap().1,
            Outcome::Updated
        );
        let value: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let stop = value["hooks"]["Stop"].as_array().unwrap();
        assert_eq!(stop.len(), 2);
        assert_eq!(stop[0]["hooks"][0]["command"], "other");
        assert_eq!(
            stop[1]["hooks"][0]["command"],
            "/b/volk hook stop --host claude"
        );
        let keys: Vec<_> = value.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["model", "hooks"]);
    }

    #[test]
    fn installed_hosts_are_found_from_their_files() {
        let dir = tempfile::tempdir().unwrap();
        assert!(installed_hosts(dir.path()).is_empty());
        let scope = Scope::Project(dir.path().to_path_buf());
        install(Host::Codex, &scope, "/x/volk").unwrap();
        assert_eq!(installed_hosts(dir.path()), [Host::Codex]);
        // Some other tool's Stop hook is not ours.
        let claude = target_file(Host::Claude, &scope);
        fs::create_dir_all(claude.parent().unwrap()).unwrap();
        fs::write(
            &claude,
            r#"{"hooks":{"Stop":[{"hooks":[{"command":"other stop"}]}]}}"#,
        )
        .unwrap();
        assert_eq!(installed_hosts(dir.path()), [Host::Codex]);
    }

    #[test]
    fn the_ignore_line_is_added_once() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(".gitignore"), "target").unwrap();
        assert!(ensure_marker_ignored(dir.path()).unwrap());
        assert!(!ensure_marker_ignored(dir.path()).unwrap());
        assert_eq!(
            fs::read_to_string(dir.path().join(".gitignore")).unwrap(),
            "target\n.prd_plugin/local/\n"
        );
    }

    #[test]
    fn a_broken_settings_file_is_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let scope = Scope::Project(dir.path().to_path_buf());
        let path = target_file(Host::Codex, &scope);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "{\"hooks\": [").unwrap();
        let err = install(Host::Codex, &scope, "volk").unwrap_err();
        assert!(err.to_string().contains("hooks.json"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"hooks\": [");
        fs::write(&path, "{\"hooks\": []}").unwrap();
        let err = install(Host::Codex, &scope, "volk").unwrap_err();
        assert!(
            err.to_string().contains("hooks: must be an object"),
            "{err}"
        );
    }
}
