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
    /// The plan JSON (`-` reads standard input); with `--project`, its
    /// `design/execution_plan.json` by default.
    pub file: Option<PathBuf>,
    /// A volk project: the plan is checked with the artifacts the design loop gave it.
    /// A plan file at `<project>/design/execution_plan.json` finds its project alone.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
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

/// The project a plan belongs to: `--project`, else the directory whose
/// `design/execution_plan.json` the file is, when it holds a volk session.
fn project_of(args: &SourceArgs) -> Option<PathBuf> {
    if let Some(dir) = &args.project {
        return Some(dir.clone());
    }
    let file = args.file.as_ref()?;
    let design = file.parent()?;
    if design.file_name()? != "design" {
        return None;
    }
    let dir = match design.parent() {
        Some(p) if p.as_os_str().is_empty() => PathBuf::from("."),
        Some(p) => p.to_path_buf(),
        None => return None,
    };
    dir.join(".volk/session.json").is_file().then_some(dir)
}

/// The artifacts the loop gave the plans of `project` (from its session; the loop's
/// own set for a session written before it was recorded).
fn project_given(project: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let path = project.join(".volk/session.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| BadInput::err(format!("{}: cannot read: {e}", path.display())))?;
    let session: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| BadInput::err(format!("{}: not a volk session: {e}", path.display())))?;
    let recorded: Vec<String> = session["plan"]["given"]
        .as_array()
        .map(|ids| {
            ids.iter()
                .filter_map(|id| id.as_str())
                .filter(|id| is_snake_case(id))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Ok(if recorded.is_empty() {
        vec![crate::plan::LOOP_GIVEN.to_string()]
    } else {
        recorded
    })
}

fn load(args: &SourceArgs) -> anyhow::Result<Loaded> {
    let project = project_of(args);
    let file = match (&args.file, &project) {
        (Some(file), _) => file.clone(),
        (None, Some(dir)) => dir.join("design/execution_plan.json"),
        (None, None) => {
            return Err(BadInput::err(
                "volk plan: give the plan file, or --project DIR",
            ));
        }
    };
    let mut given = args.given.clone();
    if let Some(dir) = &project {
        for id in project_given(dir)? {
            if !given.contains(&id) {
                given.push(id);
            }
        }
    }
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
    let (name, bytes) = if file.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| BadInput::err(format!("<stdin>: cannot read: {e}")))?;
        ("<stdin>".to_string(), bytes)
    } else {
        let name = file.display().to_string();
        let bytes = crate::confined::read_outside(&file, crate::confined::Limit::DESIGN)
            .map_err(|e| BadInput::err(format!("{name}: cannot read: {e}")))?;
        (name, bytes)
    };
    let source = String::from_utf8(bytes).map_err(|e| {
        BadInput::err(format!(
            "{name}: not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let compiled = compile(&source, &kinds, &given);
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
            writeln!(out, "{}", crate::echo::escape_controls(&line))?;
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
