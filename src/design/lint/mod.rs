//! The design compiler: the five artifacts checked against each other, each finding
//! with a stable code and its place, as `volk plan check` does for plans. It is
//! deterministic and fast enough to run on every streamed frame.

pub mod cli;
pub(crate) mod diagnostic;
pub(crate) mod endpoints;
pub(crate) mod report;
pub mod rules;
pub(crate) mod scope;
pub(crate) mod trace;
pub(crate) mod types;

pub use crate::design::model::lang::{DECLARATIVE_FILES, test_convention};
pub use diagnostic::{Code, Diagnostic};

use crate::design::Artifacts;
use crate::design::model::DesignModel;

/// The model and its findings, sorted by artifact and position.
#[derive(Debug, Clone)]
pub struct Linted {
    pub model: DesignModel,
    pub diagnostics: Vec<Diagnostic>,
}

impl Linted {
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    pub fn warning_count(&self) -> usize {
        self.diagnostics.len() - self.error_count()
    }

    pub fn has_errors(&self) -> bool {
        self.error_count() > 0
    }
}

/// Reads and checks a design. `file` paths default to `design/<artifact>.md`.
pub fn lint(artifacts: &Artifacts) -> Linted {
    let model = DesignModel::read(artifacts);
    let mut diagnostics = Vec::new();
    rules::check(artifacts, &model, &mut diagnostics);
    diagnostics.sort_by_key(|d| (d.artifact, d.span.start, d.code));
    diagnostic::locate(artifacts, &mut diagnostics);
    Linted { model, diagnostics }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brief::{Brief, Purpose};
    use crate::reasoner::offline::draft;

    #[test]
    fn the_offline_design_compiles_without_errors() {
        let brief = Brief {
            task_summary: "Build a task CLI".into(),
            requirements: "1. Add tasks with a title\n2. List tasks\n3. Mark tasks complete\n4. Export the whole log as JSON".into(),
            ..Brief::default()
        };
        let artifacts = crate::design::parser::parse(&draft(Purpose::Design, &brief));
        let linted = lint(&artifacts);
        let notes = report::repair_notes(&linted.diagnostics);
        assert!(!linted.has_errors(), "{notes:#?}");
        assert!(linted.diagnostics.is_empty(), "{notes:#?}");
    }

    #[test]
    fn file_tree_paths_outside_the_project_are_d023() {
        for (tree, shown) in [
            ("/etc/cron.d/job\n", "`/etc/cron.d/job` is absolute"),
            ("~/.bashrc\n", "`~/.bashrc` starts with `~`"),
            ("src/\n└── ../../x.txt\n", "`../../x.txt` climbs out"),
        ] {
            let artifacts = Artifacts {
                file_tree: tree.into(),
                ..Artifacts::default()
            };
            let d023: Vec<_> = lint(&artifacts)
                .diagnostics
                .into_iter()
                .filter(|d| d.code == diagnostic::Code::PathOutsideProject)
                .collect();
            assert_eq!(d023.len(), 1, "{tree}");
            assert!(d023[0].message.contains(shown), "{}", d023[0].message);
        }
        let inside = Artifacts {
            file_tree: "src/\n└── a/../b.py\n".into(),
            ..Artifacts::default()
        };
        assert!(
            !lint(&inside)
                .diagnostics
                .iter()
                .any(|d| d.code == diagnostic::Code::PathOutsideProject)
        );
    }
}
