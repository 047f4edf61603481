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
            ("/  n  N", "search, next match, previous match"),
            ("w", "soft wrap on / off"),
            ("l", "line numbers on / off"),
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
            (
                "Ctrl-S",
                "send the questions (verdict QUESTIONS): next cycle",
            ),
            ("Ctrl-R", "answer READY (asks first)"),
            (
                "Enter",
                "(composer) add; Ctrl-J new line; Esc closes, text kept",
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
                "quit (asks when a draft is unsent or a call runs)",
            ),
        ],
    ),
];
