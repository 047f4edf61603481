//! The session of one design thread, persisted in `PROJECT/.volk/session.json` so that a
//! `design_feedback` packet handled by a new process continues where the last one
//! stopped. One thread, one project directory, one session: threads never share state.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::brief::{Brief, Purpose};
use crate::cxp::{Feedback, Scope};
use crate::design::Artifacts;
use crate::project::Layout;
use crate::project::slug::slugify;
use crate::volk::plan_step::PlanState;
use crate::volk::protocol::{FinalizeReason, Phase};

pub const SESSION_VERSION: u32 = 1;
pub const DEFAULT_MAX_CYCLES: u32 = crate::limits::Limits::DEFAULT.max_cycles;

/// One design cycle as it happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CycleRecord {
    pub cycle: u32,
    #[serde(default)]
    pub commit: Option<String>,
    /// The feedback that answered this cycle, once it came.
    #[serde(default)]
    pub feedback: Option<Feedback>,
}

/// The reasoner call to issue (again, after a failure).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PendingCall {
    pub purpose: Purpose,
    pub brief: Brief,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Session {
    pub version: u32,
    pub thread_id: String,
    pub trace_id: String,
    pub project_dir: PathBuf,
    pub scope: Scope,
    pub max_cycles: u32,
    /// The last design cycle written (0 before the first).
    pub cycle: u32,
    pub phase: Phase,
    pub artifacts: Artifacts,
    /// Design of the cycle before, for "what changed".
    #[serde(default)]
    pub previous: Option<Artifacts>,
    /// The monorepo context injected into prompts (`monorepo_src_section`).
    #[serde(default)]
    pub context: String,
    #[serde(default)]
    pub history: Vec<CycleRecord>,
    /// Every answer the reviewer gave to the architect's open questions so far.
    #[serde(default)]
    pub answers: Vec<crate::brief::Answer>,
    #[serde(default)]
    pub pending: Option<PendingCall>,
    /// Why the design is being finalized, once it is. Kept in the session file as
    /// `"forced": true|false`, the shape older sessions have.
    #[serde(rename = "forced", default, with = "finalize_flag")]
    pub finalize: FinalizeReason,
    #[serde(default)]
    pub plan: PlanState,
    #[serde(default)]
    pub outbox_seq: u32,
    /// The journal's length when this session was saved: lines past it belong to a
    /// step that never finished (the recovery trims what lies past it).
    #[serde(default)]
    pub journal_bytes: std::cell::Cell<Option<u64>>,
    /// The reasoner that designed it, for `volk open` (never a key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoner: Option<crate::volk::designed_with::DesignedWith>,
    /// Edit blocks: the update cycle in progress, the raw answers, each cycle's cost.
    #[serde(default)]
    pub patch: crate::volk::patch_cycle::PatchLedger,
    /// Question threads, settled parts and a pending hand edit.
    #[serde(default)]
    pub review: crate::volk::review::ReviewState,
    /// The architect's reflections, one per READY, oldest first: a reopened design
    /// keeps the earlier ones.
    #[serde(default)]
    pub reflections: Vec<crate::brief::reflected::Reflection>,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a volk session: {message}")]
    Corrupt { path: PathBuf, message: String },
}

impl Session {
    pub fn new(
        thread_id: &str,
        trace_id: &str,
        project_dir: PathBuf,
        scope: Scope,
        max_cycles: u32,
    ) -> Session {
        Session {
            version: SESSION_VERSION,
            thread_id: thread_id.to_string(),
            trace_id: trace_id.to_string(),
            project_dir,
            scope,
            max_cycles: max_cycles.max(1),
            cycle: 0,
            phase: Phase::New,
            artifacts: Artifacts::default(),
            previous: None,
            context: String::new(),
            history: Vec::new(),
            answers: Vec::new(),
            pending: None,
            finalize: FinalizeReason::Ready,
            plan: PlanState::default(),
            outbox_seq: 0,
            journal_bytes: std::cell::Cell::new(None),
            reasoner: None,
            patch: Default::default(),
            review: Default::default(),
            reflections: Vec::new(),
        }
    }

    pub fn dir(project_dir: &Path) -> PathBuf {
        Layout::new(project_dir).volk_dir()
    }

    pub fn path(project_dir: &Path) -> PathBuf {
        Layout::new(project_dir).session()
    }

    pub fn journal_path(&self) -> PathBuf {
        Layout::new(&self.project_dir).journal()
    }

    /// The size of the journal now, recorded with each save: a recovery trims what a
    /// step that never finished appended past it.
    pub fn journal_len(&self) -> u64 {
        std::fs::symlink_metadata(self.journal_path()).map_or(0, |m| m.len())
    }

    pub fn outbox_dir(&self) -> PathBuf {
        Layout::new(&self.project_dir).outbox()
    }

    /// Writes the session atomically.
    pub fn save(&self) -> Result<(), SessionError> {
        let dir = Self::dir(&self.project_dir);
        crate::confined::create_private_dir(&self.project_dir, &dir).map_err(|source| {
            SessionError::Io {
                path: dir.clone(),
                source,
            }
        })?;
        let path = Self::path(&self.project_dir);
        self.journal_bytes.set(Some(self.journal_len()));
        let text = serde_json::to_string_pretty(self).map_err(|e| SessionError::Corrupt {
            path: path.clone(),
            message: e.to_string(),
        })?;
        crate::confined::write_atomic(&self.project_dir, &path, text.as_bytes())
            .map_err(|source| SessionError::Io { path, source })
    }

    /// Loads the session of a project directory; `Ok(None)` when there is none.
    pub fn load(project_dir: &Path) -> Result<Option<Session>, SessionError> {
        let path = Self::path(project_dir);
        let limit = crate::confined::Limit::SESSION;
        let bytes = match crate::confined::read(project_dir, &path, limit) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(None),
            Err(source) => return Err(SessionError::Io { path, source }),
        };
        let text = String::from_utf8(bytes).map_err(|e| SessionError::Corrupt {
            path: path.clone(),
            message: format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        })?;
        let version = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("version").and_then(serde_json::Value::as_u64));
        if let Some(version) = version
            && version != u64::from(SESSION_VERSION)
        {
            return Err(SessionError::Corrupt {
                path,
                message: format!(
                    "version {version} is not one this volk reads (it reads {SESSION_VERSION})"
                ),
            });
        }
        let mut session: Session =
            serde_json::from_str(&text).map_err(|e| SessionError::Corrupt {
                path: path.clone(),
                message: e.to_string(),
            })?;
        // The directory may have been moved since; trust where it is now.
        session.project_dir = project_dir.to_path_buf();
        Ok(Some(session))
    }

    /// The brief a reasoner call of `purpose` works from.
    pub fn brief(&self, purpose: Purpose) -> Brief {
        let scope = &self.scope;
        let texts = |values: &[serde_json::Value]| {
            values
                .iter()
                .map(crate::cxp::value_text)
                .collect::<Vec<_>>()
        };
        Brief {
            task_summary: scope.task_summary.clone(),
            project_name: scope.project_name.clone(),
            requirements: scope.requirements.clone(),
            original_intent: scope.original_intent.clone(),
            structured_requirements: texts(&scope.structured_requirements),
            nfrs: texts(&scope.nfrs),
            ux_design: scope.ux_design.clone(),
            current: (purpose != Purpose::Design).then(|| self.artifacts.clone()),
            questions: Vec::new(),
            answers: self.answers.clone(),
            reflection_questions: Vec::new(),
            plan_feedback: self.plan.notes.clone(),
            reflections: match purpose {
                Purpose::Plan => self.reflections.clone(),
                _ => Vec::new(),
            },
            lint_feedback: Vec::new(),
            cycle: match purpose {
                Purpose::Design => 1,
                Purpose::Update => self.cycle + 1,
                Purpose::Reflect | Purpose::Plan => self.cycle,
            },
            repair: None,
            review: String::new(),
            reformat: None,
            pass: crate::brief::Pass::Main,
            lint_sections: Vec::new(),
        }
    }
}

/// The project directory for a new thread: `WORKSPACE/<slug>`, or `<slug>-2`, `-3`, …
/// when that directory already belongs to another thread.
pub fn project_dir_for(
    workspace: &Path,
    scope: &Scope,
    thread_id: &str,
) -> Result<PathBuf, SessionError> {
    let base = if scope.project_name.trim().is_empty() {
        slugify(&scope.task_summary)
    } else {
        slugify(&scope.project_name)
    };
    let mut n = 1u32;
    loop {
        let name = if n == 1 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        let dir = workspace.join(&name);
        match Session::load(&dir)? {
            None => return Ok(dir),
            Some(s) if s.thread_id == thread_id => return Ok(dir),
            Some(_) => n += 1,
        }
    }
}

/// Finds the project of `thread_id` in `workspace` (one level deep).
pub fn find_thread(workspace: &Path, thread_id: &str) -> Result<Option<PathBuf>, SessionError> {
    let entries = match std::fs::read_dir(workspace) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(SessionError::Io {
                path: workspace.to_path_buf(),
                source,
            });
        }
    };
    for entry in entries.flatten() {
        let dir = entry.path();
        if !Session::path(&dir).is_file() {
            continue;
        }
        if let Some(session) = Session::load(&dir)?
            && session.thread_id == thread_id
        {
            return Ok(Some(dir));
        }
    }
    Ok(None)
}

mod finalize_flag {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::FinalizeReason;

    pub fn serialize<S: Serializer>(reason: &FinalizeReason, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(reason.is_forced())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<FinalizeReason, D::Error> {
        Ok(if bool::deserialize(d)? {
            FinalizeReason::CycleLimit
        } else {
            FinalizeReason::Ready
        })
    }
}
