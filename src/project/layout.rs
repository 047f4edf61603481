//! Where everything lives inside a project directory. Every path under a project is
//! named here once, so the runtime, the session store and the tests cannot disagree
//! about where the design, the session or the outbox is.

use std::path::{Path, PathBuf};

use crate::design::Section;

/// The directory (relative to the project) holding the five artifacts.
pub const DESIGN_DIR: &str = "design";
/// The directory (relative to the project) holding volk's own state, ignored by git.
pub const VOLK_DIR: &str = ".volk";

/// The paths of one project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    root: PathBuf,
}

impl Layout {
    pub fn new(root: impl Into<PathBuf>) -> Layout {
        Layout { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `design/`: the artifacts as the reviewer reads and edits them.
    pub fn design_dir(&self) -> PathBuf {
        self.root.join(DESIGN_DIR)
    }

    /// An artifact's path relative to the project, as git names it.
    pub fn artifact_in_repo(section: Section) -> String {
        format!("{DESIGN_DIR}/{}", section.file_name())
    }

    /// The architect's reflections (`design/reflection.md`), newest first.
    pub fn reflection(&self) -> PathBuf {
        self.design_dir().join("reflection.md")
    }

    pub fn execution_plan(&self) -> PathBuf {
        self.design_dir().join("execution_plan.json")
    }

    pub fn context_json(&self) -> PathBuf {
        self.root.join("context.json")
    }

    /// `.volk/`: the session, journal, draft and outbox.
    pub fn volk_dir(&self) -> PathBuf {
        self.root.join(VOLK_DIR)
    }

    pub fn session(&self) -> PathBuf {
        self.volk_dir().join("session.json")
    }

    pub fn journal(&self) -> PathBuf {
        self.volk_dir().join("journal.jsonl")
    }

    pub fn draft(&self) -> PathBuf {
        self.volk_dir().join("draft.json")
    }

    pub fn outbox(&self) -> PathBuf {
        self.volk_dir().join("outbox")
    }

    /// The outbox file of the `seq`-th packet sent: numbered, so names sort by time.
    pub fn outbox_packet(&self, seq: u32, subject: &str) -> PathBuf {
        self.outbox().join(format!("{seq:03}-{subject}.json"))
    }

    /// The newest `implement` packet in the outbox, if the design was handed over.
    pub fn newest_implement_packet(&self) -> Option<PathBuf> {
        std::fs::read_dir(self.outbox())
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with("-implement.json"))
            })
            .max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outbox_names_sort_by_sequence_and_the_newest_implement_wins() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        std::fs::create_dir_all(layout.outbox()).unwrap();
        for (seq, subject) in [(1, "design_review"), (2, "implement"), (10, "implement")] {
            std::fs::write(layout.outbox_packet(seq, subject), "{}").unwrap();
        }
        assert_eq!(
            layout.newest_implement_packet(),
            Some(layout.outbox().join("010-implement.json"))
        );
        assert_eq!(
            Layout::artifact_in_repo(Section::ApiSpec),
            "design/api_spec.md"
        );
    }
}
