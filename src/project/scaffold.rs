//! Creates the project directory an implementation will grow in.

use std::io;
use std::path::Path;
use std::process::Command;

use crate::fsutil::{atomic_write, create_private_dir};

/// Directories every project gets.
pub const DIRS: [&str; 7] = [
    "design",
    "src",
    "tests",
    "tests/unit",
    "tests/integration",
    "docs",
    "requirements",
];

/// What a scaffold run did, for the journal and the `[U:Ar]` log.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ScaffoldReport {
    pub created_dirs: usize,
    pub git_initialised: bool,
    /// `Some(Ok)` when `uv venv` ran, `Some(Err(reason))` when it failed, `None`
    /// when `uv` is not installed.
    pub venv: Option<Result<(), String>>,
    /// A git failure is reported, never fatal.
    pub git_error: Option<String>,
}

/// Creates the scaffold in `project_dir`. Idempotent: existing files are never
/// overwritten. Directories are owner-only (0700).
pub fn init_project(project_dir: &Path) -> io::Result<ScaffoldReport> {
    let mut report = ScaffoldReport::default();
    create_private_dir(project_dir)?;
    for dir in DIRS {
        let path = project_dir.join(dir);
        if !path.exists() {
            report.created_dirs += 1;
        }
        create_private_dir(&path)?;
    }
    for init in ["tests", "tests/unit", "tests/integration"] {
        let path = project_dir.join(init).join("__init__.py");
        if !path.exists() {
            atomic_write(&path, b"")?;
        }
    }
    let context = project_dir.join("context.json");
    if !context.exists() {
        let body = serde_json::json!({
            "state": {},
            "deferred_work": [],
            "session_history": [],
        });
        let text = serde_json::to_string_pretty(&body).unwrap_or_default();
        atomic_write(&context, text.as_bytes())?;
    }
    match crate::project::git::init(project_dir) {
        Ok(created) => report.git_initialised = created,
        Err(e) => report.git_error = Some(e.to_string()),
    }
    if !project_dir.join(".venv").exists() {
        report.venv = create_venv(project_dir);
    }
    Ok(report)
}

/// Runs `uv venv` when `uv` is on PATH. A failure is reported, never fatal.
fn create_venv(project_dir: &Path) -> Option<Result<(), String>> {
    let uv = find_on_path("uv")?;
    let result = Command::new(uv)
        .arg("venv")
        .arg("--quiet")
        .current_dir(project_dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output();
    Some(match result {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(String::from_utf8_lossy(&out.stderr).trim().to_string()),
        Err(e) => Err(e.to_string()),
    })
}

fn find_on_path(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_everything_and_is_idempotent() {
        let ws = tempfile::tempdir().unwrap();
        let dir = ws.path().join("taskman");
        let first = init_project(&dir).unwrap();
        assert_eq!(first.created_dirs, 7);
        assert!(first.git_initialised);
        for d in DIRS {
            assert!(dir.join(d).is_dir(), "{d}");
        }
        for f in [
            "tests/__init__.py",
            "tests/unit/__init__.py",
            "tests/integration/__init__.py",
        ] {
            assert!(dir.join(f).is_file(), "{f}");
        }
        let ctx: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("context.json")).unwrap())
                .unwrap();
        for key in ["state", "deferred_work", "session_history"] {
            assert!(ctx.get(key).is_some(), "{key}");
        }
        std::fs::write(dir.join("context.json"), "{\"state\":{\"kept\":true}}").unwrap();
        let second = init_project(&dir).unwrap();
        assert_eq!(second.created_dirs, 0);
        assert!(!second.git_initialised);
        assert!(
            std::fs::read_to_string(dir.join("context.json"))
                .unwrap()
                .contains("kept")
        );
    }

    #[cfg(unix)]
    #[test]
    fn directories_are_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let ws = tempfile::tempdir().unwrap();
        let dir = ws.path().join("p");
        init_project(&dir).unwrap();
        for d in std::iter::once(".").chain(DIRS) {
            let mode = std::fs::metadata(dir.join(d)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{d}");
        }
    }
}
