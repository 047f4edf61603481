//! `volk context TEXT|--file FILE [--root DIR] [--json]`: shows what would be injected
//! into a design prompt and why, so a person can see and debug the matching.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;

use super::{ContextReport, Shown, build_context, configured_root, resolve_root, words};
use crate::BadInput;
use crate::config::Settings;

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// Requirements text to look names up in (CapWords, `backticked` names, dotted paths).
    #[arg(required_unless_present = "file", conflicts_with = "file")]
    pub text: Option<String>,
    /// Read the text from this file instead (requirements, user stories, a CXP packet).
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Directory to index. Default: $VOLK_CONTEXT_ROOT, else `context_root` in
    /// volk.toml, else the git repository containing the current directory.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Print the whole report (matches, candidates, index figures, section) as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn context(args: ContextArgs) -> anyhow::Result<ExitCode> {
    let text = match (&args.text, &args.file) {
        (_, Some(file)) => std::fs::read_to_string(file)
            .map_err(|e| BadInput::err(format!("{}: cannot read: {e}", file.display())))?,
        (Some(text), None) => text.clone(),
        (None, None) => return Err(BadInput::err("give the text to look up, or --file FILE")),
    };
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let settings = Settings::load(&[&cwd])?;
    let configured = configured_root(args.root.as_deref(), Some(&settings));
    if let Some(dir) = &configured
        && !dir.is_dir()
    {
        return Err(BadInput::err(format!(
            "context root {}: not a readable directory (from {})",
            dir.display(),
            origin(args.root.as_deref())
        )));
    }
    let mut out = Vec::new();
    let Some(root) = resolve_root(configured.as_deref()) else {
        if args.json {
            let value = serde_json::json!({
                "root": null,
                "section": "",
                "matches": [],
                "candidates": words::candidates(&text),
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        } else {
            writeln!(
                out,
                "no context root: not inside a git repository and none configured \
                 (--root DIR, {}, or context_root in volk.toml); nothing would be injected",
                super::root::ROOT_ENV
            )?;
        }
        return print(&out);
    };
    let report = build_context(&root, &text);
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write_human(&mut out, &report)?;
    }
    print(&out)
}

/// Writes the output in one go; a reader that stops early (`| head`) is not an error.
fn print(bytes: &[u8]) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Where the configured root came from, for the error message.
fn origin(flag: Option<&Path>) -> &'static str {
    if flag.is_some() {
        "--root"
    } else if std::env::var_os(super::root::ROOT_ENV).is_some_and(|v| !v.is_empty()) {
        super::root::ROOT_ENV
    } else {
        "context_root in volk.toml"
    }
}

fn write_human(out: &mut impl std::io::Write, report: &ContextReport) -> std::io::Result<()> {
    writeln!(out, "root: {}", report.root.display())?;
    if report.candidates.is_empty() {
        writeln!(
            out,
            "no names to look up in the text (no CapWords, `backticked` names or dotted paths); nothing would be injected"
        )?;
        return Ok(());
    }
    let stats = &report.index;
    writeln!(
        out,
        "index: {} source files ({} read, {} unchanged, {} skipped); {} parsed now, {} definitions known from {} parsed files; {} ms",
        stats.files,
        stats.scanned,
        stats.reused,
        stats.skipped,
        stats.parsed,
        stats.symbols,
        stats.indexed,
        stats.elapsed_ms
    )?;
    let names: Vec<&str> = report.candidates.iter().map(|c| c.name.as_str()).collect();
    writeln!(out, "looked up: {}", names.join(", "))?;
    if report.matches.is_empty() {
        writeln!(
            out,
            "no definition matches any of them; nothing would be injected"
        )?;
        return Ok(());
    }
    writeln!(out, "matches:")?;
    for m in &report.matches {
        let shown = match m.shown {
            Shown::Whole => "injected".to_string(),
            Shown::Truncated { lines } => format!("injected, first {lines} lines"),
            Shown::Omitted => "not injected (limit reached)".to_string(),
        };
        writeln!(
            out,
            "  {} -> {} {}  {}:{}-{}  [{shown}]",
            m.word,
            m.kind.label(),
            m.symbol,
            m.file,
            m.start_line,
            m.end_line
        )?;
    }
    writeln!(
        out,
        "---- injected section ({} bytes) ----",
        report.section.len()
    )?;
    write!(out, "{}", report.section)?;
    Ok(())
}
