//! Showing diagnostics: rustc-like snippets for people, JSON for tools, one-liners
//! for the architect's repair prompt.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config, termcolor};

use std::ops::Range;

use super::diagnostic::{Diagnostic, Severity};
use crate::echo::{escape_controls, mask_controls};

/// What a checker's finding must tell to be drawn as a snippet. The plan compiler and
/// the design compiler (`crate::design::lint`) both report through it, so `volk plan
/// check` and `volk lint` look alike.
pub trait Finding {
    fn severity(&self) -> Severity;
    /// The stable code (`P015`, `D011`).
    fn code_id(&self) -> &'static str;
    /// What the rule demands, in a few words.
    fn rule(&self) -> &'static str;
    fn message(&self) -> &str;
    /// Byte range in the source the snippet is drawn from.
    fn primary(&self) -> Range<usize>;
    /// Other places in the same source, each with a message.
    fn secondary(&self) -> Vec<(String, Range<usize>)> {
        Vec::new()
    }
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// The form used when the snippet cannot be drawn.
    fn one_line(&self) -> String;

    fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }
}

impl Finding for Diagnostic {
    fn severity(&self) -> Severity {
        self.severity
    }

    fn code_id(&self) -> &'static str {
        self.code.id()
    }

    fn rule(&self) -> &'static str {
        self.code.title()
    }

    fn message(&self) -> &str {
        &self.message
    }

    fn primary(&self) -> Range<usize> {
        self.span()
    }

    fn secondary(&self) -> Vec<(String, Range<usize>)> {
        self.related
            .iter()
            .map(|r| (r.message.clone(), r.location.start..r.location.end))
            .collect()
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.location.path.is_empty() {
            notes.push(format!("at {}", self.location.path));
        }
        if let Some(help) = &self.help {
            notes.push(format!("help: {help}"));
        }
        notes
    }

    fn one_line(&self) -> String {
        Diagnostic::one_line(self)
    }
}

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

pub fn render_human_styled<F: Finding>(
    name: &str,
    source: &str,
    diags: &[F],
    colour: Colour,
) -> String {
    // The source and the findings quote text a model or a cloned repository wrote:
    // masked (columns kept) so no escape sequence reaches the terminal.
    let shown = mask_controls(source);
    let source = shown.as_ref();
    let name = &*escape_controls(name);
    let file = SimpleFile::new(name, source);
    let config = Config::default();
    let mut out = String::new();
    let lines = LineStarts::new(source);
    for d in diags.iter().take(SHOWN) {
        let mut spans =
            std::iter::once(d.primary()).chain(d.secondary().into_iter().map(|(_, r)| r));
        if spans.any(|r| lines.longest_between(r.start, r.end) > MAX_SNIPPET_LINE) {
            out.push_str(&format!("{name}: {}\n", escape_controls(&d.one_line())));
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
        out.push_str(
            &rendered.unwrap_or_else(|| format!("{name}: {}\n", escape_controls(&d.one_line()))),
        );
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

fn to_report<F: Finding>(d: &F, len: usize) -> Report<()> {
    let clamp = |r: Range<usize>| r.start.min(len)..r.end.min(len).max(r.start.min(len));
    let base = match d.severity() {
        Severity::Error => Report::error(),
        Severity::Warning => Report::warning(),
    };
    let mut labels =
        vec![Label::primary((), clamp(d.primary())).with_message(format!("rule: {}", d.rule()))];
    labels.extend(d.secondary().into_iter().map(|(message, span)| {
        Label::secondary((), clamp(span)).with_message(mask_controls(&message))
    }));
    base.with_code(d.code_id())
        .with_message(mask_controls(d.message()).into_owned())
        .with_labels(labels)
        .with_notes(
            d.notes()
                .iter()
                .map(|n| mask_controls(n).into_owned())
                .collect(),
        )
}

/// `plan.json: 2 errors, 1 warning` or `plan.json: ok, 4 stages, 5 edges`.
pub fn summary<F: Finding>(name: &str, diags: &[F], stages: Option<(usize, usize)>) -> String {
    let name = &*escape_controls(name);
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
