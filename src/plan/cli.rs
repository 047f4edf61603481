//! `volk plan check`, `volk plan show`.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};

use crate::BadInput;

use super::model::is_snake_case;
use super::render::Colour;
use super::{Compiled, KindRegistry, compile, draw, render_human_styled, render_json, summary};

#[derive(Debug, Args)]
pub struct PlanArgs {
    #[command(subcommand)]
    pub command: PlanCommand,
}

#[derive(Debug, Subcommand)]
pub enum PlanCommand {
    /// Compile an execution plan and print its diagnostics (exit 0 clean, 1 errors).
    Check(CheckArgs),
    /// Draw the stage graph of an execution plan.
    Show(ShowArgs),
}

#[derive(Debug, Args)]
pub struct SourceArgs {
    /// The plan JSON (`-` reads standard input).
    pub file: PathBuf,
    /// A kinds file (same format as assets/kinds.json) adding or replacing kinds.
    #[arg(long, value_name = "FILE")]
    pub kinds: Option<PathBuf>,
    /// Artifact ids that exist before the first stage, besides `analysis`.
    #[arg(long, value_name = "ID,...", value_delimiter = ',')]
    pub given: Vec<String>,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub source: SourceArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

pub fn plan(args: PlanArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        PlanCommand::Check(a) => check(a),
        PlanCommand::Show(a) => show(a),
    }
}

/// A plan read from disk and compiled, with what is needed to report on it.
struct Loaded {
    name: String,
    source: String,
    compiled: Compiled,
}

fn load(args: &SourceArgs) -> anyhow::Result<Loaded> {
    for id in &args.given {
        if !is_snake_case(id) {
            return Err(BadInput::err(format!(
                "--given: `{id}` is not a snake_case artifact id"
            )));
        }
    }
    let kinds = match &args.kinds {
        Some(path) => {
            KindRegistry::with_overrides(path).map_err(|e| BadInput::err(e.to_string()))?
        }
        None => KindRegistry::builtin(),
    };
    let (name, bytes) = if args.file.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| BadInput::err(format!("<stdin>: cannot read: {e}")))?;
        ("<stdin>".to_string(), bytes)
    } else {
        let name = args.file.display().to_string();
        let bytes = crate::confined::read_outside(&args.file, crate::confined::Limit::DESIGN)
            .map_err(|e| BadInput::err(format!("{name}: cannot read: {e}")))?;
        (name, bytes)
    };
    let source = String::from_utf8(bytes).map_err(|e| {
        BadInput::err(format!(
            "{name}: not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let compiled = compile(&source, &kinds, &args.given);
    Ok(Loaded {
        name,
        source,
        compiled,
    })
}

pub(crate) fn colour(choice: ColorChoice, terminal: bool) -> Colour {
    let wanted = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    if wanted { Colour::Ansi } else { Colour::Never }
}

fn status(compiled: &Compiled) -> ExitCode {
    if compiled.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn shape(compiled: &Compiled) -> Option<(usize, usize)> {
    compiled
        .plan
        .as_ref()
        .map(|p| (p.stages.len(), p.edges.len()))
}

fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let loaded = load(&args.source)?;
    let diags = &loaded.compiled.diagnostics;
    match args.format {
        Format::Json => {
            crate::console::line(&serde_json::to_string_pretty(&render_json(
                &loaded.name,
                diags,
            ))?)?;
        }
        Format::Human => {
            let colour = colour(args.source.color, std::io::stdout().is_terminal());
            let mut out = crate::console::stdout();
            write!(
                out,
                "{}",
                render_human_styled(&loaded.name, &loaded.source, diags, colour)
            )?;
            writeln!(
                out,
                "{}",
                summary(&loaded.name, diags, shape(&loaded.compiled))
            )?;
        }
    }
    Ok(status(&loaded.compiled))
}

fn show(args: ShowArgs) -> anyhow::Result<ExitCode> {
    let loaded = load(&args.source)?;
    let diags = &loaded.compiled.diagnostics;
    if let Some(plan) = &loaded.compiled.plan {
        let mut out = crate::console::stdout();
        for line in draw(plan) {
            // Stage names and prompts are the model's text.
            writeln!(out, "{}", crate::volk::echo::escape_controls(&line))?;
        }
    }
    if !diags.is_empty() {
        let colour = colour(args.source.color, std::io::stderr().is_terminal());
        crate::console::note_raw(&render_human_styled(
            &loaded.name,
            &loaded.source,
            diags,
            colour,
        ));
        crate::console::note(&summary(&loaded.name, diags, shape(&loaded.compiled)));
    }
    Ok(status(&loaded.compiled))
}
