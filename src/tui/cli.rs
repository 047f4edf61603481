//! `volk demo`, `volk design`, `volk open`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::reasoner::select::ReasonerArgs;

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Workspace for the demo project (default: a new directory in the temp dir).
    #[arg(long)]
    pub workspace: Option<PathBuf>,
    /// Colour theme (a name from themes/ or a path to a theme file).
    #[arg(long)]
    pub theme: Option<String>,
}

#[derive(Debug, Args)]
pub struct DesignArgs {
    /// A CXP packet (.json) or a requirements file (.md, .txt).
    pub input: PathBuf,
    #[arg(long, env = "VOLK_WORKSPACE")]
    pub workspace: Option<PathBuf>,
    #[command(flatten)]
    pub reasoner: ReasonerArgs,
    #[arg(long)]
    pub max_cycles: Option<u32>,
    #[arg(long)]
    pub theme: Option<String>,
}

#[derive(Debug, Args)]
pub struct OpenArgs {
    /// A project directory created by volk.
    pub project_dir: PathBuf,
    #[command(flatten)]
    pub reasoner: ReasonerArgs,
    #[arg(long)]
    pub theme: Option<String>,
}

pub fn demo(_args: DemoArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("the workbench is not built yet")
}

pub fn design(_args: DesignArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("the workbench is not built yet")
}

pub fn open(_args: OpenArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("the workbench is not built yet")
}
