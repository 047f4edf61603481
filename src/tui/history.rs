//! Older cycles from the project's git history: plain blocking functions that the
//! event loop runs on blocking tasks.

use std::path::Path;

use crate::design::{Artifacts, Section};
use crate::project::git::{self, GitError};

/// The five artifacts as committed in `id` (absent files are empty sections).
pub fn artifacts_at(dir: &Path, id: &str) -> Result<Artifacts, GitError> {
    let mut artifacts = Artifacts::default();
    for section in Section::ALL {
        let path = format!("design/{}", section.file_name());
        if let Some(text) = git::file_at(dir, id, &path)? {
            artifacts.set(section, text.trim_end().to_string());
        }
    }
    Ok(artifacts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::write::write_design_docs;

    #[test]
    fn an_older_cycle_reads_back_as_committed() {
        let dir = tempfile::tempdir().unwrap();
        git::init(dir.path()).unwrap();
        let first = Artifacts {
            architecture: "cycle one".into(),
            file_tree: "src/".into(),
            ..Artifacts::default()
        };
        write_design_docs(&dir.path().join("design"), &first).unwrap();
        let id = git::commit_all(dir.path(), "design cycle 1")
            .unwrap()
            .unwrap();
        let second = Artifacts {
            architecture: "cycle two".into(),
            ..Artifacts::default()
        };
        write_design_docs(&dir.path().join("design"), &second).unwrap();
        git::commit_all(dir.path(), "design cycle 2")
            .unwrap()
            .unwrap();
        assert_eq!(artifacts_at(dir.path(), &id.to_string()).unwrap(), first);
        let log = git::log(dir.path()).unwrap();
        assert_eq!(artifacts_at(dir.path(), &log[0].id).unwrap(), second);
    }
}
