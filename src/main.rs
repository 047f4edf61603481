//! The `volk` command: parse the command line, dispatch, map errors to exit codes.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "volk",
    version,
    about = "An AI architect designs software; you review it, live."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The workbench on the bundled example scope, with the offline drafter.
    Demo(volk::tui::cli::DemoArgs),
    /// The workbench on a scope: a CXP packet (.json) or a requirements file (.md, .txt).
    Design(volk::tui::cli::DesignArgs),
    /// The workbench on an existing project: resumes where it stood.
    Open(volk::tui::cli::OpenArgs),
    /// Headless: process one inbound CXP packet and print the outbound packet.
    Run(volk::volk::cli::RunArgs),
    /// List, create, update and delete reflection categories and questions.
    Reflect(volk::reflection::cli::ReflectArgs),
    /// Hooks for coding agents (the reflection Stop hook and its installer).
    Hook(volk::reflection::cli::HookArgs),
    /// MCP server on stdio with the four reflection tools.
    Mcp(volk::reflection::cli::McpArgs),
    /// Compile or draw an execution plan.
    Plan(volk::plan::cli::PlanArgs),
    /// Check the five design artifacts against each other (codes D001…).
    Lint(volk::design::lint::cli::LintArgs),
    /// Every place a requirement, ADR, module or class appears in the design.
    Trace(volk::design::lint::cli::TraceArgs),
    /// Show the monorepo context that would be injected into a design prompt.
    Context(volk::context::cli::ContextArgs),
    /// A worker: take packets from the bus and process each as `volk run` would.
    #[cfg(feature = "bus")]
    Serve(volk::bus::cli::ServeArgs),
    /// Publish one packet on the bus (with --wait, print its reply).
    #[cfg(feature = "bus")]
    Submit(volk::bus::cli::SubmitArgs),
    /// Set up and inspect the bus: init, status, dlq.
    #[cfg(feature = "bus")]
    Bus(volk::bus::cli::BusArgs),
    /// Trust a volk.toml found in a workspace or repository to pick the reasoner and base URL.
    Trust(volk::trust::TrustArgs),
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        // The Stop hook fails open even on its own command line.
        Err(e) if volk::reflection::cli::is_stop_hook(&args) && e.use_stderr() => {
            let text = e.to_string();
            let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            volk::console::note(&format!(
                "volk hook stop: {}; letting the agent stop",
                line.trim_start_matches("error: ")
            ));
            return ExitCode::SUCCESS;
        }
        Err(e) => e.exit(),
    };
    let _log = volk::logging::init();
    let result = match cli.command {
        Command::Demo(args) => volk::tui::cli::demo(args),
        Command::Design(args) => volk::tui::cli::design(args),
        Command::Open(args) => volk::tui::cli::open(args),
        Command::Run(args) => volk::volk::cli::run(args),
        Command::Reflect(args) => volk::reflection::cli::reflect(args),
        Command::Hook(args) => volk::reflection::cli::hook(args),
        Command::Mcp(args) => volk::reflection::cli::mcp(args),
        Command::Plan(args) => volk::plan::cli::plan(args),
        Command::Lint(args) => volk::design::lint::cli::lint_command(args),
        Command::Trace(args) => volk::design::lint::cli::trace_command(args),
        Command::Context(args) => volk::context::cli::context(args),
        Command::Trust(args) => volk::trust::run(args),
        #[cfg(feature = "bus")]
        Command::Serve(args) => volk::bus::cli::serve(args),
        #[cfg(feature = "bus")]
        Command::Submit(args) => volk::bus::cli::submit(args),
        #[cfg(feature = "bus")]
        Command::Bus(args) => volk::bus::cli::bus(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            let code = volk::error::exit_code(&error);
            // Messages quote packet fields: never let one drive the terminal.
            let line = format!("volk: {error:#}");
            let line = volk::redact::scrub_text(&line);
            volk::console::note(&volk::echo::escape_controls(&line));
            ExitCode::from(code)
        }
    }
}
