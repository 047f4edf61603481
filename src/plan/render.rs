//! Showing diagnostics: rustc-like snippets for people, JSON for tools, one-liners
//! for the architect's repair prompt.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config, termcolor};

use super::diagnostic::{Diagnostic, Severity};

/// Whether to colour human output (ANSI escapes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colour {
    Never,
    Ansi,
}

/// How many diagnostics the human form shows; the rest are counted. A model-written
/// plan can carry hundreds of thousands, and no one reads past the first few.
pub const SHOWN: usize = 50;

/// Lines longer than this (in bytes) are not quoted as a snippet: a plan written on
/// one line would be printed whole for every diagnostic.
const MAX_SNIPPET_LINE: usize = 400;

/// The first [`SHOWN`] diagnostics as snippets of the source, without colour.
pub fn render_human(name: &str, source: &str, diags: &[Diagnostic]) -> String {
    render_human_styled(name, source, diags, Colour::Never)
}

pub fn render_human_styled(
    name: &str,
    source: &str,
    diags: &[Diagnostic],
    colour: Colour,
) -> String {
    let file = SimpleFile::new(name, source);
    let config = Config::default();
    let mut out = String::new();
    let lines = LineStarts::new(source);
    for d in diags.iter().take(SHOWN) {
        let spans = std::iter::once(&d.location).chain(d.related.iter().map(|r| &r.location));
        if spans
            .into_iter()
            .any(|l| lines.longest_between(l.start, l.end) > MAX_SNIPPET_LINE)
        {
            out.push_str(&format!("{name}: {}\n", d.one_line()));
            continue;
        }
        let report = to_report(d, source.len());
        let rendered = match colour {
            Colour::Never => term::emit_into_string(&config, &file, &report).ok(),
            Colour::Ansi => {
                let mut buffer = termcolor::Buffer::ansi();
                term::emit_to_write_style(&mut buffer, &config, &file, &report)
                    .ok()
                    .and_then(|()| String::from_utf8(buffer.into_inner()).ok())
            }
        };
        // A snippet can only fail to render if a span lies outside the source; fall
        // back to the one-line form rather than lose the finding.
        out.push_str(&rendered.unwrap_or_else(|| format!("{name}: {}\n", d.one_line())));
    }
    if let Some(rest) = diags.get(SHOWN..)
        && !rest.is_empty()
    {
        let errors = rest.iter().filter(|d| d.is_error()).count();
        out.push_str(&format!(
            "{name}: {} more not shown ({errors} errors, {} warnings); --format json lists them all\n",
            rest.len(),
            rest.len() - errors
        ));
    }
    out
}

/// Where the lines of a source start, to measure the lines a span touches.
struct LineStarts {
    starts: Vec<usize>,
    len: usize,
}

impl LineStarts {
    fn new(source: &str) -> LineStarts {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', source.as_bytes()).map(|i| i + 1));
        LineStarts {
            starts,
            len: source.len(),
        }
    }

    /// The length of the longest line holding any byte of `start..end`.
    fn longest_between(&self, start: usize, end: usize) -> usize {
        let first = self
            .starts
            .partition_point(|&s| s <= start)
            .saturating_sub(1);
        let last = self
            .starts
            .partition_point(|&s| s <= end.max(start))
            .saturating_sub(1);
        (first..=last)
            .map(|i| {
                let end = self.starts.get(i + 1).copied().unwrap_or(self.len);
                end - self.starts[i]
            })
            .max()
            .unwrap_or(0)
    }
}

fn to_report(d: &Diagnostic, len: usize) -> Report<()> {
    let clamp = |start: usize, end: usize| start.min(len)..end.min(len).max(start.min(len));
    let base = match d.severity {
        Severity::Error => Report::error(),
        Severity::Warning => Report::warning(),
    };
    let mut labels = vec![
        Label::primary((), clamp(d.location.start, d.location.end))
            .with_message(format!("rule: {}", d.code.title())),
    ];
    labels.extend(d.related.iter().map(|r| {
        Label::secondary((), clamp(r.location.start, r.location.end))
            .with_message(r.message.clone())
    }));
    let mut notes = Vec::new();
    if !d.location.path.is_empty() {
        notes.push(format!("at {}", d.location.path));
    }
    if let Some(help) = &d.help {
        notes.push(format!("help: {help}"));
    }
    base.with_code(d.code.id())
        .with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(notes)
}

/// `plan.json: 2 errors, 1 warning` or `plan.json: ok, 4 stages, 5 edges`.
pub fn summary(name: &str, diags: &[Diagnostic], stages: Option<(usize, usize)>) -> String {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    if errors > 0 {
        format!(
            "{name}: {}, {}",
            plural(errors, "error"),
            plural(warnings, "warning")
        )
    } else {
        let shape = stages
            .map(|(s, e)| format!(", {}, {}", plural(s, "stage"), plural(e, "edge")))
            .unwrap_or_default();
        let warned = if warnings > 0 {
            format!(", {}", plural(warnings, "warning"))
        } else {
            String::new()
        };
        format!("{name}: ok{shape}{warned}")
    }
}

/// The machine form of `volk plan check --format json`.
pub fn render_json(name: &str, diags: &[Diagnostic]) -> serde_json::Value {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    serde_json::json!({
        "file": name,
        "ok": errors == 0,
        "errors": errors,
        "warnings": diags.len() - errors,
        "diagnostics": diags,
    })
}

/// One line per diagnostic, for the architect's next attempt.
pub fn repair_notes(diags: &[Diagnostic]) -> Vec<String> {
    diags.iter().map(Diagnostic::one_line).collect()
}
