//! Older cycles from the project's git history: plain blocking functions, run by the
//! runtime on blocking tasks (the workbench never calls git itself).

use std::path::Path;

use crate::design::{Artifacts, Section};
use crate::project::git::{self, GitError};
use crate::project::layout::Layout;

/// The five artifacts as committed in `id` (absent files are empty sections).
pub fn artifacts_at(dir: &Path, id: &str) -> Result<Artifacts, GitError> {
    let mut artifacts = Artifacts::default();
    for section in Section::ALL {
        if let Some(text) = git::file_at(dir, id, &Layout::artifact_in_repo(section))? {
            artifacts.set(section, text.trim_end().to_string());
        }
    }
    Ok(artifacts)
}

/// The artifacts of the commit before the newest one, for the diff view of a resumed
/// session; `None` when there is no such commit or it holds no design.
pub fn previous_cycle(dir: &Path) -> Result<Option<Artifacts>, GitError> {
    let commits = git::log(dir)?;
    let Some(previous) = commits.get(1) else {
        return Ok(None);
    };
    let artifacts = artifacts_at(dir, &previous.id)?;
    Ok((!artifacts.is_empty()).then_some(artifacts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::write::write_design_docs;

    #[test]
    fn an_older_cycle_reads_back_as_committed() {
        let dir = tempfile::tempdir().unwrap();
        git::init(dir.path()).unwrap();
        let design = Layout::new(dir.path()).design_dir();
        assert_eq!(previous_cycle(dir.path()).unwrap(), None);
        let first = Artifacts {
            architecture: "cycle one".into(),
            file_tree: "src/".into(),
            ..Artifacts::default()
        };
        write_design_docs(&design, &first).unwrap();
        let id = git::commit_all(dir.path(), "design cycle 1")
            .unwrap()
            .unwrap();
        assert_eq!(previous_cycle(dir.path()).unwrap(), None);
        let second = Artifacts {
            architecture: "cycle two".into(),
            ..Artifacts::default()
        };
        write_design_docs(&design, &second).unwrap();
        git::commit_all(dir.path(), "design cycle 2")
            .unwrap()
            .unwrap();
        assert_eq!(artifacts_at(dir.path(), &id.to_string()).unwrap(), first);
        let log = git::log(dir.path()).unwrap();
        assert_eq!(artifacts_at(dir.path(), &log[0].id).unwrap(), second);
        assert_eq!(previous_cycle(dir.path()).unwrap(), Some(first));
    }
}
