//! `volk reflect`, `volk hook`, `volk mcp`.

use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub struct ReflectArgs {}

#[derive(Debug, Args)]
pub struct HookArgs {}

#[derive(Debug, Args)]
pub struct McpArgs {}

pub fn reflect(_args: ReflectArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("reflection is not built yet")
}

pub fn hook(_args: HookArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("reflection is not built yet")
}

pub fn mcp(_args: McpArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("reflection is not built yet")
}
