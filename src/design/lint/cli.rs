//! `volk lint` and `volk trace`: the design compiler from the command line.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use crate::BadInput;
use crate::design::{Artifacts, Section};
use crate::echo::{escape_controls, mask_controls};
use crate::plan::cli::{ColorChoice, Format, colour};

use super::trace::trace;
use super::{Code, lint, report};

#[derive(Debug, Args)]
pub struct LintArgs {
    /// A project directory (with `design/`) or a design directory; default: the
    /// current directory's project.
    pub path: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// A requirement (`FR-01`), an ADR (`ADR-002`), a module or a class name.
    pub id: String,
    /// A project directory (with `design/`) or a design directory; default: the
    /// current directory's project.
    pub path: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// The five artifacts as read from disk, with the file each came from.
pub struct DesignOnDisk {
    pub dir: PathBuf,
    pub artifacts: Artifacts,
    pub missing: Vec<Section>,
}

impl DesignOnDisk {
    pub fn file(&self, section: Section) -> String {
        let path = self.dir.join(section.file_name());
        let shown = path.strip_prefix(".").unwrap_or(&path);
        shown.display().to_string()
    }
}

fn has_artifacts(dir: &Path) -> bool {
    Section::ALL
        .iter()
        .any(|s| std::fs::symlink_metadata(dir.join(s.file_name())).is_ok())
}

/// The design directory for `path`: `path/design/`, or `path` itself when it holds
/// the artifacts. Without a path, the current directory and then its parents.
fn design_dir(path: Option<&Path>) -> anyhow::Result<PathBuf> {
    let candidates = |dir: &Path| [dir.join("design"), dir.to_path_buf()];
    match path {
        Some(p) => {
            if !p.is_dir() {
                return Err(BadInput::err(format!(
                    "{}: not a directory (expected a project or its design/ directory)",
                    p.display()
                )));
            }
            candidates(p)
                .into_iter()
                .find(|d| has_artifacts(d))
                .ok_or_else(|| {
                    BadInput::err(format!(
                        "{}: no design artifacts here (expected design/architecture.md … design/class_diagram.md)",
                        p.display()
                    ))
                })
        }
        None => {
            let here = PathBuf::from(".");
            if let Some(d) = candidates(&here).into_iter().find(|d| has_artifacts(d)) {
                return Ok(d);
            }
            let cwd = std::env::current_dir()
                .map_err(|e| BadInput::err(format!("cannot read the current directory: {e}")))?;
            cwd.ancestors()
                .skip(1)
                .map(|a| a.join("design"))
                .find(|d| has_artifacts(d))
                .ok_or_else(|| {
                    BadInput::err(
                        "no design here: run `volk lint PROJECT_DIR` or from inside a project",
                    )
                })
        }
    }
}

/// Reads the artifacts exactly as they are on disk, so lines and columns are the
/// file's own.
pub fn read_design(path: Option<&Path>) -> anyhow::Result<DesignOnDisk> {
    let dir = design_dir(path)?;
    // Inside `PROJECT/design/` neither the directory nor a file may be a link (a cloned
    // project may have planted one); a directory named on the command line is the
    // user's own, so only its files are checked.
    let root = if dir.file_name().is_some_and(|n| n == "design") {
        crate::design::write::project_root(&dir).to_path_buf()
    } else {
        dir.clone()
    };
    let mut artifacts = Artifacts::default();
    let mut missing = Vec::new();
    for section in Section::ALL {
        let file = dir.join(section.file_name());
        match crate::confined::read(&root, &file, crate::confined::Limit::DESIGN) {
            Ok(None) => missing.push(section),
            Ok(Some(bytes)) => {
                let text = String::from_utf8(bytes).map_err(|e| {
                    BadInput::err(format!(
                        "{}: not UTF-8 text (byte {})",
                        file.display(),
                        e.utf8_error().valid_up_to()
                    ))
                })?;
                artifacts.set(section, text);
            }
            Err(e) => {
                return Err(BadInput::err(format!(
                    "{}: cannot read: {e}",
                    file.display()
                )));
            }
        }
    }
    Ok(DesignOnDisk {
        dir,
        artifacts,
        missing,
    })
}

pub fn lint_command(args: LintArgs) -> anyhow::Result<ExitCode> {
    let design = read_design(args.path.as_deref())?;
    let mut linted = lint(&design.artifacts);
    for d in &mut linted.diagnostics {
        d.file = design.file(d.artifact);
        if d.code == Code::EmptyArtifact && design.missing.contains(&d.artifact) {
            d.message = format!("{} is missing", d.file);
        }
    }
    let diags = &linted.diagnostics;
    let mut out = crate::console::stdout();
    match args.format {
        Format::Json => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&report::json(diags))?
        )?,
        Format::Human => {
            let colour = colour(args.color, std::io::stdout().is_terminal());
            // The artifacts may come from anywhere: quote them without their controls.
            let mut shown = design.artifacts.clone();
            for section in Section::ALL {
                let masked = mask_controls(shown.get(section)).into_owned();
                shown.set(section, masked);
            }
            let diags: Vec<_> = diags
                .iter()
                .map(|d| {
                    let mut d = d.clone();
                    d.message = mask_controls(&d.message).into_owned();
                    d
                })
                .collect();
            write!(out, "{}", report::human(&shown, &diags, colour))?;
            writeln!(
                out,
                "{}",
                report::summary(&design.dir.display().to_string(), &diags)
            )?;
        }
    }
    Ok(if linted.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn trace_command(args: TraceArgs) -> anyhow::Result<ExitCode> {
    if args.id.trim().is_empty() {
        return Err(BadInput::err("trace: the id to look for is empty"));
    }
    let design = read_design(args.path.as_deref())?;
    let found = trace(&design.artifacts, &args.id, |s| design.file(s));
    let mut out = crate::console::stdout();
    match args.format {
        Format::Json => writeln!(out, "{}", serde_json::to_string_pretty(&found)?)?,
        Format::Human => {
            for o in &found.occurrences {
                writeln!(
                    out,
                    "{}:{}:{}: [{}] {}",
                    o.file,
                    o.line,
                    o.column,
                    o.artifact.key(),
                    escape_controls(&o.text)
                )?;
            }
            let artifacts = {
                let mut a: Vec<Section> = found.occurrences.iter().map(|o| o.artifact).collect();
                a.dedup();
                a.len()
            };
            writeln!(
                out,
                "{}: {} occurrence{} in {} artifact{}",
                found.id,
                found.occurrences.len(),
                if found.occurrences.len() == 1 {
                    ""
                } else {
                    "s"
                },
                artifacts,
                if artifacts == 1 { "" } else { "s" },
            )?;
        }
    }
    Ok(if found.occurrences.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
