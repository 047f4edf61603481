//! `volk run`: one packet in, one packet out.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;

use crate::BadInput;
use crate::config::Settings;
use crate::cxp::Packet;
use crate::reasoner::select::{ReasonerArgs, build};
use crate::volk::runtime::{ContextRoot, RunOptions};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The inbound CXP packet: a file, or `-` for standard input (the default).
    #[arg(long, default_value = "-")]
    pub packet: String,
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
    /// The reflection config (default: `.prd_plugin/config.json` in the current directory).
    #[arg(long)]
    pub config: Option<PathBuf>,
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
    let workspace = args.workspace.clone().unwrap_or_else(|| cwd.clone());
    let settings = Settings::load(&[&workspace, &cwd]).map_err(anyhow::Error::new)?;
    let reasoner = build(&args.reasoner, &settings).map_err(anyhow::Error::new)?;
    let options = RunOptions {
        echo_stderr: true,
        context: ContextRoot::configured(
            args.context_root.clone().or(settings.context_root.clone()),
        ),
        reflection_config: Some(
            args.config
                .clone()
                .unwrap_or_else(|| crate::reflection::locate_config(&cwd)),
        ),
        max_tokens: settings.max_tokens,
        plan_repairs: settings.plan_repairs,
    };
    let max_cycles = args.max_cycles.or(settings.max_cycles);
    if max_cycles == Some(0) {
        return Err(BadInput::err("--max-cycles: must be at least 1"));
    }
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
        println!("{}", packet.to_json_pretty());
    }
    Ok(ExitCode::SUCCESS)
}
