//! Every key of the workbench, grouped as the help window shows them. The README's key
//! list is written from this table.

pub type KeyGroup = (&'static str, &'static [(&'static str, &'static str)]);

pub const HELP: &[KeyGroup] = &[
    (
        "Tabs",
        &[
            (
                "1-6",
                "Architecture, Requirements, File tree, API spec, Class diagram, Journal",
            ),
            ("Tab / Shift-Tab", "next / previous tab (or click a tab)"),
        ],
    ),
    (
        "Reading",
        &[
            ("j k / ↑ ↓", "move the cursor line"),
            (
                "PgDn PgUp Space",
                "page down / up (Ctrl-D Ctrl-U: half a page)",
            ),
            ("g G / Home End", "top / bottom (G follows a stream again)"),
            ("mouse wheel", "scroll"),
            (
                "/  n  N",
                "search as you type (3/7), next match, previous match",
            ),
            ("w", "wrap at words on / off"),
            ("← →", "scroll sideways (wrap off)"),
            ("l", "line numbers on / off"),
            ("m", "Markdown drawn as a document / as source"),
            ("t", "thinking pane shown / collapsed"),
            ("d", "diff of this artifact against the previous cycle"),
            (
                "h",
                "cycles (commits); Enter opens one read-only, Esc returns",
            ),
        ],
    ),
    (
        "Reviewing as J:Junior",
        &[
            ("a", "write a question"),
            ("c", "write a question about the cursor line (quotes it)"),
            ("f", "focus the review pane / the viewer"),
            (
                "Enter / e",
                "(review pane) edit a question, answer an open question",
            ),
            (
                "x / Delete",
                "(review pane) delete a question, close a thread",
            ),
            (
                "Enter / o",
                "(review pane, on a thread) the diff that answers it / a follow-up",
            ),
            (
                "S",
                "settle / unsettle the requirement or ADR on the line, else the tab",
            ),
            (
                "E",
                "edit this artifact in $VISUAL / $EDITOR at the cursor line",
            ),
            ("u", "(review pane) put the deleted question back"),
            (
                "Ctrl-S",
                "send the questions (verdict QUESTIONS): next cycle",
            ),
            ("Ctrl-R", "answer READY (asks first)"),
            ("Enter", "(composer) save; Esc closes, text kept"),
            (
                "Ctrl-J / Ctrl-L",
                "(composer) new line / clear (Ctrl-Y brings the text back)",
            ),
        ],
    ),
    (
        "Finishing",
        &[
            ("Enter", "after the reflection: finalize"),
            (
                "y / s",
                "approve the execution plan / steer the next attempt",
            ),
        ],
    ),
    (
        "Always",
        &[
            ("?", "this help"),
            ("Esc", "close a popup, leave an old cycle"),
            ("r", "retry after a reasoner error"),
            ("x", "cancel the running call"),
            (
                "q / Ctrl-C",
                "quit (asks when a draft is unsent or a call runs; Ctrl-C twice quits)",
            ),
        ],
    ),
];

/// Where the keys act: each has its own short list in the key-hint bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    Reading,
    Streaming,
    ReviewPane,
    Composer,
    Diff,
    Finalize,
    Plan,
    Summary,
}

/// `(key, what it does)` for the hint bar, most useful first: the bar drops the last
/// ones that do not fit. Every key here is bound in [`HELP`] too.
pub fn hints(context: Context) -> &'static [(&'static str, &'static str)] {
    match context {
        Context::Reading => &[
            ("c", "ask about line"),
            ("a", "ask"),
            ("Ctrl-S", "send"),
            ("f", "review pane"),
            ("/", "search"),
            ("d", "diff"),
        ],
        Context::Streaming => &[
            ("x", "cancel"),
            ("a", "ask"),
            ("t", "thinking"),
            ("/", "search"),
        ],
        Context::ReviewPane => &[
            ("e", "edit"),
            ("x", "delete"),
            ("u", "undo"),
            ("Ctrl-S", "send"),
            ("f", "viewer"),
        ],
        Context::Composer => &[
            ("Enter", "save"),
            ("Ctrl-J", "newline"),
            ("Ctrl-L", "clear"),
            ("Esc", "keep"),
        ],
        Context::Diff => &[("j k", "scroll"), ("Esc", "close")],
        Context::Finalize => &[("Enter", "finalize"), ("h", "history")],
        Context::Plan => &[("y", "approve"), ("s", "steer")],
        Context::Summary => &[("Enter", "workbench")],
    }
}

/// The hint bar's text for `context` in at most `width` columns, always ending with
/// help and quit.
pub fn hint_bar(context: Context, width: usize) -> String {
    let tail = "? help · q quit ";
    let mut out = String::new();
    for (key, what) in hints(context) {
        let piece = format!("{key} {what} · ");
        if out.chars().count() + piece.chars().count() + tail.len() > width {
            break;
        }
        out.push_str(&piece);
    }
    out.push_str(tail);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hinted_key_is_in_the_help_and_the_bar_fits() {
        let helped: Vec<&str> = HELP
            .iter()
            .flat_map(|(_, keys)| keys.iter().map(|(k, _)| *k))
            .collect();
        for context in [
            Context::Reading,
            Context::Streaming,
            Context::ReviewPane,
            Context::Composer,
            Context::Diff,
            Context::Finalize,
            Context::Plan,
            Context::Summary,
        ] {
            for (key, _) in hints(context) {
                let first = key.split_whitespace().next().unwrap_or(key);
                assert!(
                    helped
                        .iter()
                        .any(|h| h.split_whitespace().any(|k| k == first)),
                    "{key} ({context:?}) is not in the help"
                );
            }
            for width in [40, 60, 80] {
                assert!(hint_bar(context, width).chars().count() <= width.max(16));
            }
        }
    }
}
