//! A hand edit volk cannot read is refused before the feedback it goes with, so the
//! next cycle never overwrites what the person wrote.
//!
//! [`crate::volk::review::detect_hand_edit`] takes an edit only from a regular UTF-8
//! file inside a real `design/`. Anything else there (a Latin-1 byte, a link, a FIFO,
//! a file over the design limit) would be dropped silently and then replaced by the
//! next cycle's text, so the feedback is refused instead, naming the file and what is
//! wrong (for bytes that are not UTF-8, the byte offset), and the file stays as it is,
//! uncommitted.

use crate::design::Section;
use crate::volk::machine::{Action, Input, Refusal};
use crate::volk::session::{Phase, Session};

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
