//! `volk run`: one packet in, one packet out.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::reasoner::select::ReasonerArgs;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The inbound CXP packet: a file, or `-` for standard input (the default).
    #[arg(long, default_value = "-")]
    pub packet: String,
    /// Where project directories are created.
    #[arg(long, env = "VOLK_WORKSPACE")]
    pub workspace: Option<PathBuf>,
    #[command(flatten)]
    pub reasoner: ReasonerArgs,
    /// Cycles before the design is finalized anyway (default 99).
    #[arg(long)]
    pub max_cycles: Option<u32>,
}

pub fn run(_args: RunArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not built yet")
}
