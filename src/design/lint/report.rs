//! Showing design diagnostics: the same rustc-style snippets as `volk plan check`
//! (through [`crate::plan::render_human_styled`]), JSON for tools, one-liners for the
//! architect.

use serde_json::{Value, json};

use crate::design::Artifacts;
use crate::plan::render::Colour;

use super::diagnostic::Diagnostic;

/// Every diagnostic as a snippet of its artifact. `diags` must be sorted by artifact
/// (as [`super::lint`] returns them).
pub fn human(artifacts: &Artifacts, diags: &[Diagnostic], colour: Colour) -> String {
    let mut out = String::new();
    for group in diags.chunk_by(|a, b| a.artifact == b.artifact) {
        let section = group[0].artifact;
        out.push_str(&crate::plan::render_human_styled(
            &group[0].file,
            artifacts.get(section),
            group,
            colour,
        ));
    }
    out
}

/// `design: 2 errors, 1 warning` or `design: ok`.
pub fn summary(name: &str, diags: &[Diagnostic]) -> String {
    crate::plan::summary(name, diags, None)
}

/// The machine form: `{"ok", "errors", "warnings", "diagnostics": [...]}`.
pub fn json(diags: &[Diagnostic]) -> Value {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    json!({
        "ok": errors == 0,
        "errors": errors,
        "warnings": diags.len() - errors,
        "diagnostics": diags,
    })
}

/// One line per diagnostic, errors first, for the architect's next attempt.
pub fn repair_notes(diags: &[Diagnostic]) -> Vec<String> {
    let mut sorted: Vec<&Diagnostic> = diags.iter().collect();
    sorted.sort_by_key(|d| !d.is_error());
    sorted.into_iter().map(Diagnostic::one_line).collect()
}
