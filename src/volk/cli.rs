//! `volk run`: one packet in, one packet out.

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;

use crate::BadInput;
use crate::cxp::Packet;
use crate::reasoner::select::build;
use crate::volk::loop_args::LoopArgs;
use crate::volk::runtime::RunOptions;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The inbound CXP packet: a file, or `-` for standard input (the default).
    #[arg(long, default_value = "-")]
    pub packet: String,
    #[command(flatten)]
    pub design: LoopArgs,
    /// Seconds to wait for another process that holds the thread, then exit 2.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub lock_wait: u64,
    /// The largest inbound packet accepted, in bytes (default 8 MiB).
    #[arg(long, env = "VOLK_MAX_PACKET_BYTES", default_value_t = crate::volk::intake::DEFAULT_MAX_PACKET_BYTES)]
    pub max_packet_bytes: u64,
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let (source_name, text) =
        crate::volk::intake::read_packet(&args.packet, args.max_packet_bytes)?;
    let packet = Packet::parse(&source_name, &text).map_err(|e| BadInput::err(e.to_string()))?;
    // Refuse a bad sender before anything is created on disk.
    packet
        .classify(&source_name)
        .map_err(|e| BadInput::err(e.to_string()))?;

    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let design = &args.design;
    let workspace = design.workspace(&cwd);
    let settings = design.settings(&cwd).map_err(anyhow::Error::new)?;
    let reasoner = build(&design.reasoner, &settings).map_err(anyhow::Error::new)?;
    let options = RunOptions {
        echo_stderr: true,
        context: design.context(&settings),
        reflection_config: Some(design.reflection_config(&cwd)),
        max_tokens: settings.max_tokens,
        plan_repairs: settings.plan_repairs,
        lint_repairs: design.lint_repairs().map_err(anyhow::Error::new)?,
    };
    let max_cycles = design.max_cycles(&settings).map_err(anyhow::Error::new)?;
    std::fs::create_dir_all(&workspace).map_err(|e| {
        BadInput::err(format!(
            "{}: cannot create the workspace: {e}",
            workspace.display()
        ))
    })?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let request = crate::volk::headless::Request {
        source_name,
        workspace,
        max_cycles,
        lock_wait: std::time::Duration::from_secs(args.lock_wait),
    };
    let outcome = runtime.block_on(crate::volk::headless::handle(
        packet, &request, reasoner, options,
    ))?;
    if let Some(outcome) = outcome
        && let Some((packet, _)) = outcome.emitted.last()
    {
        crate::console::line(&packet.to_json_pretty())?;
    }
    Ok(ExitCode::SUCCESS)
}
