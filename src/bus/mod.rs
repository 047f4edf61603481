//! The bus: `volk serve`, `volk submit` and `volk bus` on NATS JetStream.
//!
//! One `volk run` per packet holds its guarantees (one writer, exactly once, resend to
//! recover) only where every process shares a filesystem. On the bus the same
//! guarantees come from the server: a work queue that redelivers what a dead worker
//! held, publish de-duplication, a lease per thread and a ledger whose keys are created
//! once. Each packet is still processed by [`crate::volk::headless::Setup::process`],
//! the code path of `volk run`; this module only moves packets and claims threads.
//! The layout is in docs/bus.md.

pub(crate) mod address;
pub mod cli;
pub(crate) mod dlq;
pub(crate) mod layout;
pub(crate) mod lease;
pub(crate) mod limit;
pub(crate) mod names;
pub(crate) mod record;
pub(crate) mod state;
pub(crate) mod status;
pub(crate) mod submit;
pub(crate) mod worker;

/// An error on the bus, its text already free of credentials.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BusError(pub String);

impl BusError {
    /// `what` failed with `cause`; the credentials of the bus URL are scrubbed here,
    /// where the message is built, and again by `main` as a last line of defence.
    pub fn new(what: impl std::fmt::Display, cause: impl std::fmt::Display) -> BusError {
        let text = format!("{what}: {cause}");
        BusError(crate::redact::scrub_text(&text).into_owned())
    }
}

/// Writes a worker's line on stderr, scrubbed and with control characters escaped.
pub fn note(text: &str) {
    let text = crate::redact::scrub_text(text);
    crate::console::note(&crate::echo::escape_controls(&text));
}
