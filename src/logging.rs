//! Diagnostic logging with `tracing`, always to a file: the terminal belongs to the
//! workbench or to the packet on stdout.

use std::path::PathBuf;

/// Where the log goes: `VOLK_LOG`, else `<cache dir>/volk/volk.log`.
pub fn log_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("VOLK_LOG") {
        return Some(PathBuf::from(path));
    }
    dirs::cache_dir().map(|d| d.join("volk").join("volk.log"))
}

/// Installs the file subscriber. Logging is best effort: if the file cannot be
/// opened, volk runs without a log rather than failing.
pub fn init() -> Option<()> {
    let path = log_path()?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).ok()?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .ok()?;
    let filter = tracing_subscriber::EnvFilter::try_from_env("VOLK_LOG_LEVEL")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(Scrubbing(file)))
        .try_init()
        .ok()
}

/// The log file, scrubbed of every registered key (each event arrives in one write).
struct Scrubbing<W>(W);

impl<W: std::io::Write> std::io::Write for Scrubbing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .write_all(&crate::redact::scrub_bytes(buf))
            .map(|()| buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}
