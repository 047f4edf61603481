//! `volk context`.

use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub struct ContextArgs {}

pub fn context(_args: ContextArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("context is not built yet")
}
