//! What can go wrong with the reflection config, as values the CLI, the MCP server
//! and the architect can each turn into their own kind of report.

use std::path::PathBuf;

/// Every failure names the config file; most also name the JSON path or the id that
/// was refused, so that one line is enough to fix it.
#[derive(Debug, thiserror::Error)]
pub enum ReflectionError {
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        path: PathBuf,
        action: &'static str,
        source: std::io::Error,
    },
    #[error("{}: not valid JSON: {message}", path.display())]
    Syntax { path: PathBuf, message: String },
    #[error("{}: {json_path}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        json_path: String,
        message: String,
    },
    /// A request that does not fit the current config (unknown id, duplicate id,
    /// a category that still has questions).
    #[error("{}: {message}", path.display())]
    Refused { path: PathBuf, message: String },
}

impl ReflectionError {
    /// True when the person (or agent) can fix it by changing the file or the request;
    /// false for failures of the machine (a lock or a write that did not work).
    pub fn is_user_error(&self) -> bool {
        match self {
            ReflectionError::Io { action, source, .. } => {
                *action == "read" || crate::confined::is_refusal(source)
            }
            _ => true,
        }
    }
}

/// A validation failure before it is tied to a file: the JSON path and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub json_path: String,
    pub message: String,
}

impl Violation {
    pub fn new(json_path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            json_path: json_path.into(),
            message: message.into(),
        }
    }

    pub fn in_file(self, path: &std::path::Path) -> ReflectionError {
        ReflectionError::Invalid {
            path: path.to_path_buf(),
            json_path: self.json_path,
            message: self.message,
        }
    }
}
