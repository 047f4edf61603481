//! Error classification shared by every command.
//!
//! Modules keep their own typed errors; at the command boundary anything the user
//! can fix (an unreadable or invalid file, a refused sender, a bad flag) is wrapped in
//! [`BadInput`] so that `main` exits with status 2 instead of 1.

/// An error the user caused and can fix: the message names the file or field and
/// what is wrong. `main` prints it on one line and exits with status 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);

impl BadInput {
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }

    /// Wraps the message as an `anyhow::Error` so it can travel through `?`.
    pub fn err(message: impl Into<String>) -> anyhow::Error {
        anyhow::Error::new(Self::new(message))
    }
}

/// The same packet is being processed by another volk right now: nothing is wrong with
/// it, so it is not bad input. `main` exits with [`IN_PROGRESS_EXIT`] (75, `EX_TEMPFAIL`:
/// try again later), which a pipeline can tell from a refusal.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InProgress(pub String);

/// The exit status of [`InProgress`].
pub const IN_PROGRESS_EXIT: u8 = 75;

/// The exit status for an error that reached `main`: 75 in progress, 2 bad input, 1 else.
pub fn exit_code(error: &anyhow::Error) -> u8 {
    if error.chain().any(|cause| cause.is::<InProgress>()) {
        IN_PROGRESS_EXIT
    } else if is_bad_input(error) {
        2
    } else {
        1
    }
}

/// True when any error in the chain is a [`BadInput`], or a planted link, device or
/// oversized file under a project that [`crate::confined`] refused.
pub fn is_bad_input(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.is::<BadInput>()) || crate::confined::chain_has_refusal(error)
}
