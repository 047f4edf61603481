//! `volk plan check`, `volk plan show`.

use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub struct PlanArgs {}

pub fn plan(_args: PlanArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("plans are not built yet")
}
