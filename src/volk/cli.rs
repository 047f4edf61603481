//! `volk run`: one packet in, one packet out.

use std::io::Read as _;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;

use crate::BadInput;
use crate::cxp::Packet;
use crate::reasoner::select::build;
use crate::volk::loop_args::LoopArgs;
use crate::volk::runtime::{RunOptions, run_packet};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The inbound CXP packet: a file, or `-` for standard input (the default).
    #[arg(long, default_value = "-")]
    pub packet: String,
    #[command(flatten)]
    pub design: LoopArgs,
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let (source_name, text) = if args.packet == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| BadInput::err(format!("<stdin>: cannot read: {e}")))?;
        ("<stdin>".to_string(), text)
    } else {
        let text = std::fs::read_to_string(&args.packet)
            .map_err(|e| BadInput::err(format!("{}: cannot read: {e}", args.packet)))?;
        (args.packet.clone(), text)
    };
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
        lint_repairs: design.lint_repairs,
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
    let outcome = runtime.block_on(run_packet(
        packet,
        &source_name,
        &workspace,
        reasoner,
        max_cycles,
        options,
    ))?;
    if let Some(outcome) = outcome
        && let Some((packet, _)) = outcome.emitted.last()
    {
        println!("{}", packet.to_json_pretty());
    }
    Ok(ExitCode::SUCCESS)
}
