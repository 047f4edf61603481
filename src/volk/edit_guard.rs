//! A hand edit volk cannot read is refused before the feedback it goes with, so the
//! next cycle never overwrites what the person wrote.
//!
//! [`detect_hand_edit`] takes an edit only from a regular UTF-8
//! file inside a real `design/`. Anything else there (a Latin-1 byte, a link, a FIFO,
//! a file over the design limit) would be dropped silently and then replaced by the
//! next cycle's text, so the feedback is refused instead, naming the file and what is
//! wrong (for bytes that are not UTF-8, the byte offset), and the file stays as it is,
//! uncommitted.

use crate::design::{Artifacts, Section};
use crate::volk::machine::{Input, Refusal};
use crate::volk::protocol::Action;
use crate::volk::protocol::Phase;
use crate::volk::session::Session;

/// The hand edits waiting in `design/` when a feedback arrives for the cycle under
/// review: the edited artifacts, or `None` when the files are as volk wrote them.
/// Runs at the runtime's edge (it reads files); an unreadable directory is no edit.
pub fn detect_hand_edit(session: &Session, input: &Input) -> Option<Artifacts> {
    let Input::Act(Action::Review(feedback)) = input else {
        return None;
    };
    let Phase::AwaitingReview { cycle } = session.phase else {
        return None;
    };
    if feedback.design_cycle.is_some_and(|c| c != cycle) {
        return None;
    }
    // Compared in the files' own form, so a fence volk added is no edit.
    let dir = session.project_dir.join("design");
    let written = crate::design::write::as_written(&session.artifacts);
    let read_back = crate::design::write::read_design_docs(&dir).ok()?;
    let mut edited = session.artifacts.clone();
    let mut any = false;
    for s in Section::ALL {
        // Only a regular UTF-8 file inside a real `design/` (see `volk::edit_guard`).
        let raw = match crate::design::write::read_design_file(&dir, s) {
            Ok(Some(text)) => text.trim_end().to_string(),
            Ok(None) => String::new(),
            Err(_) => return None,
        };
        if raw != written.get(s) {
            any = true;
            edited.set(s, read_back.get(s).to_string());
        }
    }
    any.then_some(edited)
}

/// `Err` when `input` is review feedback and a file of `design/` cannot be read as a
/// hand edit.
pub fn check(session: &Session, input: &Input) -> Result<(), Refusal> {
    let Input::Act(Action::Review(_)) = input else {
        return Ok(());
    };
    let Phase::AwaitingReview { .. } = session.phase else {
        return Ok(());
    };
    let dir = session.project_dir.join(crate::project::layout::DESIGN_DIR);
    for section in Section::ALL {
        if let Err(e) = crate::design::write::read_design_file(&dir, section) {
            return Err(Refusal::Review(format!(
                "{e}; the hand edit was not taken and the file is left as it is (save it as UTF-8 and send again)"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn design() -> crate::design::Artifacts {
        crate::design::Artifacts {
            architecture: "A".into(),
            requirements: "1. FR-01: add\n2. FR-02: list".into(),
            file_tree: "src/".into(),
            api_spec: "run()".into(),
            class_diagram: "classDiagram".into(),
        }
    }

    #[test]
    fn only_a_real_edit_of_the_files_is_a_hand_edit() {
        use crate::cxp::{Feedback, Scope};
        let dir = tempfile::tempdir().unwrap();
        let mut session = Session::new("t", "r", dir.path().to_path_buf(), Scope::default(), 9);
        session.phase = Phase::AwaitingReview { cycle: 1 };
        session.artifacts = design();
        // The architect fenced the diagram itself: the file reads back unfenced, and
        // that is still no edit.
        session.artifacts.class_diagram = "```mermaid\nclassDiagram\n```".into();
        let design_dir = dir.path().join("design");
        crate::design::write::write_design_docs(&design_dir, &session.artifacts).unwrap();
        let feedback = Input::Act(Action::Review(Feedback::questions(
            1,
            vec!["q?".into()],
            vec![],
        )));
        assert_eq!(detect_hand_edit(&session, &feedback), None);
        std::fs::write(design_dir.join("api_spec.md"), "run() -> int\n").unwrap();
        let edited = detect_hand_edit(&session, &feedback).unwrap();
        assert_eq!(edited.api_spec, "run() -> int");
        assert_eq!(edited.class_diagram, session.artifacts.class_diagram);
        // Not while the architect writes, and not for another cycle's feedback.
        let stale = Input::Act(Action::Review(Feedback::questions(
            2,
            vec!["q?".into()],
            vec![],
        )));
        assert_eq!(detect_hand_edit(&session, &stale), None);
        session.phase = Phase::Designing { cycle: 2 };
        assert_eq!(detect_hand_edit(&session, &feedback), None);
    }
}
