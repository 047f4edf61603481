//! How much a line for the person matters: the core says it, each client shows it its
//! way (the workbench's colours and expiry, `volk run`'s `[U:Ar]` lines).

/// Ordered, so the most serious of several lines can be taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Info,
    Warning,
    Error,
}

impl Level {
    pub fn label(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}
