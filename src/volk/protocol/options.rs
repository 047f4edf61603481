//! How a run behaves at its edges: the options every client of the runtime passes.

use std::path::PathBuf;

/// Where the design's existing-API context comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ContextRoot {
    /// The git repository around the current directory, if any.
    #[default]
    Discover,
    /// A root the person named (flag, `VOLK_CONTEXT_ROOT`, `volk.toml`).
    At(PathBuf),
    /// No context: the bundled demo is self-contained.
    Off,
}

impl ContextRoot {
    /// A configured root, else discovery.
    pub fn configured(root: Option<PathBuf>) -> ContextRoot {
        root.map_or(ContextRoot::Discover, ContextRoot::At)
    }
}

/// How a run behaves at its edges.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Print `[U:Ar]` lines and reflection answers on stderr (headless).
    pub echo_stderr: bool,
    /// Where existing-API context comes from.
    pub context: ContextRoot,
    /// `.prd_plugin/config.json` with the reflection questions.
    pub reflection_config: Option<PathBuf>,
    pub max_tokens: Option<u32>,
    pub plan_repairs: Option<u32>,
    /// `--lint-repairs`: repair passes for a cycle with design errors (default 1).
    pub lint_repairs: Option<u32>,
}
