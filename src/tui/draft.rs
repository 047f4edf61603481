//! The person's unsent work: questions being written, answers to the architect's open
//! questions, the text in the composer. Saved to `PROJECT/.volk/draft.json` on every
//! change by a background task (newest wins, atomic writes) and restored on `volk open`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use crate::brief::{Answer, Question};

/// Everything the person typed and has not sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draft {
    /// The cycle under review when the draft was written.
    #[serde(default)]
    pub cycle: u32,
    #[serde(default)]
    pub questions: Vec<Question>,
    /// Answers to the architect's open questions, by question text.
    #[serde(default)]
    pub answers: Vec<Answer>,
    /// Text in the composer that was not yet added.
    #[serde(default)]
    pub composer: String,
}

impl Draft {
    pub fn is_unsent(&self) -> bool {
        !self.questions.is_empty()
            || !self.composer.trim().is_empty()
            || self.answers.iter().any(|a| !a.answer.trim().is_empty())
    }

    pub fn answer_for(&self, question: &str) -> Option<&str> {
        self.answers
            .iter()
            .find(|a| a.question == question)
            .map(|a| a.answer.as_str())
    }

    pub fn set_answer(&mut self, question: &str, answer: String) {
        self.answers.retain(|a| a.question != question);
        if !answer.trim().is_empty() {
            self.answers.push(Answer {
                question: question.to_string(),
                answer,
            });
        }
    }
}

/// `PROJECT/.volk/draft.json`.
pub fn draft_path(project_dir: &Path) -> PathBuf {
    crate::project::Layout::new(project_dir).draft()
}

#[derive(Debug, thiserror::Error)]
pub enum DraftError {
    #[error("{path}: cannot save the draft: {source}")]
    Save {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: cannot read the draft: {message}")]
    Load { path: String, message: String },
}

/// Writes the draft now (temp file + rename).
pub fn save(path: &Path, draft: &Draft) -> Result<(), DraftError> {
    let bytes = serde_json::to_vec_pretty(draft).map_err(|e| DraftError::Save {
        path: path.display().to_string(),
        source: std::io::Error::other(e),
    })?;
    crate::confined::write_atomic(volk_root(path), path, &bytes).map_err(|source| {
        DraftError::Save {
            path: path.display().to_string(),
            source,
        }
    })
}

/// The project a draft at `PROJECT/.volk/draft.json` belongs to: the root its path is
/// confined to (no link on the way is followed).
fn volk_root(path: &Path) -> &Path {
    path.parent()
        .and_then(Path::parent)
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Reads a saved draft; a missing file is an empty draft.
pub fn load(path: &Path) -> Result<Draft, DraftError> {
    let limit = crate::confined::Limit {
        bytes: MAX_DRAFT_BYTES,
        what: "a draft",
    };
    match crate::confined::read(volk_root(path), path, limit) {
        Ok(Some(bytes)) => serde_json::from_slice(&bytes).map_err(|e| DraftError::Load {
            path: path.display().to_string(),
            message: e.to_string(),
        }),
        Ok(None) => Ok(Draft::default()),
        Err(e) => Err(DraftError::Load {
            path: path.display().to_string(),
            message: e.to_string(),
        }),
    }
}

/// The largest draft read back: a person's unsent questions are kilobytes; anything
/// far larger is not a draft volk wrote.
pub const MAX_DRAFT_BYTES: u64 = 4 * 1024 * 1024;

/// Reads the saved draft for a workbench that must open whatever the file holds: a
/// corrupt or oversized draft is moved aside to `draft.json.bad` (kept for the person,
/// never deleted) and the workbench starts with an empty draft and the returned notice.
/// With `may_move` false (a read-only workbench) the file is left where it is.
pub fn load_or_set_aside(path: &Path, may_move: bool) -> (Draft, Option<String>) {
    let problem = match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.is_file() => {
            // A planted link or FIFO: never read, never moved (it is not the person's).
            return (
                Draft::default(),
                Some(format!(
                    "draft not restored: {}: not a regular file",
                    path.display()
                )),
            );
        }
        Ok(meta) if meta.len() > MAX_DRAFT_BYTES => {
            format!(
                "{} bytes, over the {MAX_DRAFT_BYTES}-byte limit",
                meta.len()
            )
        }
        Ok(_) => match load(path) {
            Ok(draft) => return (draft, None),
            Err(e) => e.to_string(),
        },
        Err(_) => return (Draft::default(), None),
    };
    if !may_move {
        return (
            Draft::default(),
            Some(format!("draft not restored: {problem}")),
        );
    }
    let mut aside = path.as_os_str().to_owned();
    aside.push(".bad");
    let aside = PathBuf::from(aside);
    let notice = match std::fs::rename(path, &aside) {
        Ok(()) => format!(
            "draft unreadable ({problem}); moved aside to {}",
            aside.display()
        ),
        Err(e) => format!("draft unreadable ({problem}); could not move it aside: {e}"),
    };
    (Draft::default(), Some(notice))
}

/// Saves drafts in the background: `update` never blocks, the task writes the newest
/// draft it has seen, skipping intermediate ones when the person types faster than
/// the disk.
pub struct DraftStore {
    path: PathBuf,
    sender: watch::Sender<(u64, Draft)>,
    /// Sequence number of the newest draft on disk; writes of older drafts are skipped,
    /// so a slow background write can never overwrite what `flush` wrote.
    written: Arc<Mutex<u64>>,
    task: tokio::task::JoinHandle<()>,
}

/// Writes `draft` unless a newer one is already on disk.
fn save_newer(
    written: &Mutex<u64>,
    seq: u64,
    path: &Path,
    draft: &Draft,
) -> Result<(), DraftError> {
    let mut last = written
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if seq <= *last {
        return Ok(());
    }
    save(path, draft)?;
    *last = seq;
    Ok(())
}

impl DraftStore {
    /// Starts the saver; failures are reported through `on_error`.
    pub fn start(
        path: PathBuf,
        initial: Draft,
        on_error: impl Fn(String) + Send + 'static,
    ) -> DraftStore {
        let (sender, mut receiver) = watch::channel((0, initial));
        let written = Arc::new(Mutex::new(0));
        let task_path = path.clone();
        let task_written = written.clone();
        let task = tokio::spawn(async move {
            while receiver.changed().await.is_ok() {
                let (seq, draft) = receiver.borrow_and_update().clone();
                let path = task_path.clone();
                let written = task_written.clone();
                let result =
                    tokio::task::spawn_blocking(move || save_newer(&written, seq, &path, &draft))
                        .await;
                match result {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => on_error(e.to_string()),
                    Err(e) => on_error(format!("draft saver stopped: {e}")),
                }
            }
        });
        DraftStore {
            path,
            sender,
            written,
            task,
        }
    }

    pub fn update(&self, draft: &Draft) {
        self.sender.send_if_modified(|(seq, current)| {
            if current == draft {
                false
            } else {
                *seq += 1;
                *current = draft.clone();
                true
            }
        });
    }

    /// Stops the task and writes the newest draft now, so that quitting right after a
    /// keystroke loses nothing.
    pub fn flush(self) -> Result<(), DraftError> {
        self.task.abort();
        let (seq, draft) = self.sender.borrow().clone();
        // Sequence 0 is the draft loaded at start: write it only if nothing is on disk.
        if seq == 0 && self.path.exists() {
            return Ok(());
        }
        save_newer(&self.written, seq.max(1), &self.path, &draft)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corrupt_or_huge_draft_is_moved_aside_and_the_project_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("draft.json");
        std::fs::write(&path, "{not json").unwrap();
        let (draft, notice) = load_or_set_aside(&path, false);
        assert_eq!(draft, Draft::default());
        assert!(notice.unwrap().contains("not restored"));
        assert!(path.exists(), "a read-only workbench leaves the file");
        let (_, notice) = load_or_set_aside(&path, true);
        assert!(notice.unwrap().contains("draft.json.bad"));
        assert!(!path.exists());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("draft.json.bad")).unwrap(),
            "{not json"
        );
        let big = std::fs::File::create(&path).unwrap();
        big.set_len(MAX_DRAFT_BYTES + 1).unwrap();
        let (_, notice) = load_or_set_aside(&path, true);
        assert!(notice.unwrap().contains("limit"));
        let (draft, notice) = load_or_set_aside(&path, true);
        assert_eq!((draft, notice), (Draft::default(), None));
    }

    #[test]
    fn answers_are_replaced_and_blank_ones_dropped() {
        let mut d = Draft::default();
        d.set_answer("Q1", "yes".into());
        d.set_answer("Q1", "no".into());
        assert_eq!(d.answer_for("Q1"), Some("no"));
        d.set_answer("Q1", "  ".into());
        assert_eq!(d.answer_for("Q1"), None);
        assert!(!d.is_unsent());
    }

    #[tokio::test]
    async fn store_saves_the_newest_draft_and_flush_writes_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = draft_path(dir.path());
        let store = DraftStore::start(path.clone(), Draft::default(), |_| {});
        let mut draft = Draft::default();
        for i in 0..20 {
            draft.composer = format!("typing {i}");
            store.update(&draft);
        }
        store.flush().unwrap();
        assert_eq!(load(&path).unwrap().composer, "typing 19");
    }
}
