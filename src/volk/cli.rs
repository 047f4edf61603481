//! `volk run`: one packet in, one packet out.

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;

use crate::volk::loop_args::LoopArgs;

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
    #[arg(long, env = "VOLK_MAX_PACKET_BYTES", default_value_t = crate::intake::DEFAULT_MAX_PACKET_BYTES)]
    pub max_packet_bytes: u64,
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let (source_name, text) = crate::intake::read_packet(&args.packet, args.max_packet_bytes)?;
    let packet = crate::volk::headless::accept(&source_name, &text)?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let setup = crate::volk::headless::Setup::from_args(&args.design, &cwd)?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let lock_wait = std::time::Duration::from_secs(args.lock_wait);
    let outcome = runtime.block_on(setup.process(packet, &source_name, lock_wait))?;
    if let Some(outcome) = outcome
        && let Some((packet, _)) = outcome.emitted.last()
    {
        crate::console::line(&packet.to_json_pretty())?;
    }
    Ok(ExitCode::SUCCESS)
}
