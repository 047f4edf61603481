//! The options every command that runs a design loop takes, read one way: `volk run`
//! and `volk design` flatten the same struct, so a flag, its environment variable and
//! its checks cannot differ between the headless loop and the workbench.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::BadInput;
use crate::config::Settings;
use crate::limits::{Limits, under_ceiling};
use crate::reasoner::select::ReasonerArgs;
use crate::volk::protocol::ContextRoot;

#[derive(Debug, Args)]
pub struct LoopArgs {
    /// Where project directories are created (default: the current directory).
    #[arg(long, env = "VOLK_WORKSPACE")]
    pub workspace: Option<PathBuf>,
    #[command(flatten)]
    pub reasoner: ReasonerArgs,
    /// Cycles before the design is finalized anyway (default 99).
    #[arg(long)]
    pub max_cycles: Option<u32>,
    /// Root of the code base whose existing types the design should reuse.
    #[arg(long, env = "VOLK_CONTEXT_ROOT")]
    pub context_root: Option<PathBuf>,
    /// The reflection config (default: the nearest `.prd_plugin/config.json`).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Automatic repair passes for a cycle with design errors before the review
    /// (default 1; 0 turns them off).
    #[arg(long, value_name = "N")]
    pub lint_repairs: Option<u32>,
}

impl LoopArgs {
    pub fn workspace(&self, cwd: &Path) -> PathBuf {
        self.workspace.clone().unwrap_or_else(|| cwd.to_path_buf())
    }

    /// `volk.toml` of the workspace, then of the current directory, then the user's.
    pub fn settings(&self, cwd: &Path) -> Result<Settings, BadInput> {
        Settings::load(&[&self.workspace(cwd), cwd])
    }

    /// The cycle limit of a new thread; zero is refused, whatever sets it.
    pub fn max_cycles(&self, settings: &Settings) -> Result<Option<u32>, BadInput> {
        let ceiling = Limits::CEILING.max_cycles;
        under_ceiling("--max-cycles", self.max_cycles, ceiling)?;
        under_ceiling("volk.toml: max_cycles", settings.max_cycles, ceiling)?;
        match (self.max_cycles, settings.max_cycles) {
            (Some(0), _) => Err(BadInput::new("--max-cycles: must be at least 1")),
            (None, Some(0)) => Err(BadInput::new("volk.toml: max_cycles: must be at least 1")),
            (flag, setting) => Ok(flag.or(setting)),
        }
    }

    /// `--lint-repairs`, refused above its ceiling.
    pub fn lint_repairs(&self) -> Result<Option<u32>, BadInput> {
        under_ceiling(
            "--lint-repairs",
            self.lint_repairs,
            Limits::CEILING.lint_repairs,
        )
    }

    pub fn context(&self, settings: &Settings) -> ContextRoot {
        ContextRoot::configured(
            self.context_root
                .clone()
                .or_else(|| settings.context_root.clone()),
        )
    }

    pub fn reflection_config(&self, cwd: &Path) -> PathBuf {
        self.config
            .clone()
            .unwrap_or_else(|| crate::reflection::locate_config(cwd))
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        args: LoopArgs,
    }

    #[test]
    fn zero_cycles_is_refused_from_a_flag_and_from_the_config() {
        let args = Cli::parse_from(["volk", "--max-cycles", "0"]).args;
        let none = Settings::default();
        assert!(args.max_cycles(&none).is_err());
        let args = Cli::parse_from(["volk"]).args;
        let zero = Settings {
            max_cycles: Some(0),
            ..Settings::default()
        };
        assert!(args.max_cycles(&zero).is_err());
        let three = Settings {
            max_cycles: Some(3),
            ..Settings::default()
        };
        assert_eq!(args.max_cycles(&three).unwrap(), Some(3));
    }
}
