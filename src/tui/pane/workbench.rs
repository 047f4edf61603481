//! The keys that act whatever pane has the focus: asking, sending, the display
//! toggles, search, diff and history, retry, help and quit. They are tried after the
//! finishing keys and before the focused pane's.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use crate::tui::app::{App, ComposerTarget, Focus, Gutter, ThinkingPane, Verdict, Wrap, Zoom};
use crate::tui::document::Rendering;
use crate::tui::event::{Action, Intent, Phase};
use crate::tui::keymap::{Binding, Chord, Group, HELP_KEY, Handled, QUIT_KEY, command, help, quit};
use crate::tui::trace::LastFind;

/// Questions can be sent: a cycle is under review (or its call was cancelled) and no
/// verdict is on its way.
fn sendable(app: &App) -> bool {
    app.offers().review.is_some() && app.verdict != Verdict::Sent
}

fn reviewable(app: &App) -> bool {
    matches!(app.model.phase(), Phase::AwaitingReview { .. }) && app.verdict != Verdict::Sent
}

/// A question written now is for a cycle under review (or on its way to one).
fn can_ask(app: &App) -> bool {
    !app.offers().past_review
}

fn on_artifact_line(app: &App) -> bool {
    can_ask(app) && app.anchor_at_cursor().is_some()
}

fn has_diff(app: &App) -> bool {
    app.model.previous().is_some() && app.tab.section().is_some()
}

fn has_text(app: &App) -> bool {
    !app.current_doc().is_empty()
}

/// `n`/`N` step through the search: it came after any trace.
fn steps_search(app: &App) -> bool {
    app.last_find == LastFind::Search && !app.last_search.is_empty()
}

/// `n`/`N` step through the trace: `*` came after any search.
fn steps_trace(app: &App) -> bool {
    app.last_find == LastFind::Trace && app.trace.is_some()
}

/// There are findings to list; on the plan tab `p` is the plan's (full prompts).
fn has_problems(app: &App) -> bool {
    !app.problems.is_empty() && app.tab != crate::tui::tab::Tab::Plan
}

fn can_retry(app: &App) -> bool {
    app.offers().retry
}

fn can_undo(app: &App) -> bool {
    app.deleted.is_some()
}

/// Ctrl-C's one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupt;

/// Ctrl-C, taken before any other layer (an open window too, but the composer, which
/// has its own): the one place it is declared and handled.
pub const INTERRUPT: &[Binding<Interrupt>] = &[Binding::new(
    "Ctrl-C",
    "quit from anywhere (asks as q does; twice quits at once)",
    Group::Always,
    &[(Chord::ctrl('c'), Interrupt)],
)];

/// Ctrl-C: quit, or quit at once when the quit question is already open.
pub fn on_interrupt(app: &mut App, key: KeyEvent) -> Handled {
    match command(INTERRUPT, &key) {
        Some(Interrupt) => {
            app.interrupt();
            Handled::Consumed
        }
        None => Handled::Ignored,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    HalfPageDown,
    HalfPageUp,
    Search,
    FindNext,
    FindPrevious,
    Problems,
    Wrap,
    Gutter,
    Rendering,
    Thinking,
    Diff,
    History,
    Ask,
    AskAboutLine,
    Settle,
    Edit,
    Undo,
    Send,
    Ready,
    Zoom,
    Help,
    Messages,
    Escape,
    Retry,
    Quit,
}

use Command as C;

pub const BINDINGS: &[Binding<Command, App>] = &[
    Binding::new(
        "Ctrl-D Ctrl-U",
        "half a page down / up",
        Group::Reading,
        &[
            (Chord::ctrl('d'), C::HalfPageDown),
            (Chord::ctrl('u'), C::HalfPageUp),
        ],
    ),
    Binding::new(
        "/",
        "search as you type (3/7)",
        Group::Reading,
        &[(Chord::ch('/'), C::Search)],
    )
    .hint("/", "search", 5)
    .when(has_text),
    Binding::new(
        "n  N",
        "next / previous search match (after /; the later of / and * wins)",
        Group::Reading,
        &[
            (Chord::ch('n'), C::FindNext),
            (Chord::ch('N'), C::FindPrevious),
        ],
    )
    .hint("n N", "next match", 2)
    .when(steps_search),
    Binding::new(
        "n  N",
        "next / previous place of the trace (after *; the later of / and * wins)",
        Group::Reading,
        &[
            (Chord::ch('n'), C::FindNext),
            (Chord::ch('N'), C::FindPrevious),
        ],
    )
    .hint("n N", "next traced place", 2)
    .when(steps_trace),
    Binding::new(
        "p",
        "problems: the design compiler's findings, errors first (Enter goes to the line)",
        Group::Reading,
        &[(Chord::ch('p'), C::Problems)],
    )
    .hint("p", "problems", 4)
    .when(has_problems),
    Binding::new(
        "w",
        "wrap at words on / off",
        Group::Reading,
        &[(Chord::ch('w'), C::Wrap)],
    ),
    Binding::new(
        "l",
        "line numbers on / off",
        Group::Reading,
        &[(Chord::ch('l'), C::Gutter)],
    ),
    Binding::new(
        "m",
        "Markdown drawn as a document / as source",
        Group::Reading,
        &[(Chord::ch('m'), C::Rendering)],
    ),
    Binding::new(
        "t",
        "thinking pane shown / collapsed",
        Group::Reading,
        &[(Chord::ch('t'), C::Thinking)],
    )
    .hint("t", "thinking", 6)
    .when(App::is_streaming),
    Binding::new(
        "d",
        "diff of this artifact against the previous cycle",
        Group::Reading,
        &[(Chord::ch('d'), C::Diff)],
    )
    .hint("d", "diff", 6)
    .when(has_diff),
    Binding::new(
        "h",
        "cycles (commits); Enter opens one read-only, Esc returns",
        Group::Reading,
        &[(Chord::ch('h'), C::History)],
    )
    .hint("h", "history", 7),
    Binding::new(
        "a",
        "write a question",
        Group::Reviewing,
        &[(Chord::ch('a'), C::Ask)],
    )
    .hint("a", "ask", 2)
    .when(can_ask),
    Binding::new(
        "c",
        "write a question about the cursor line (quotes it)",
        Group::Reviewing,
        &[(Chord::ch('c'), C::AskAboutLine)],
    )
    .hint("c", "ask about line", 1)
    .when(on_artifact_line),
    Binding::new(
        "S",
        "settle / unsettle the requirement or ADR on the line, else the tab",
        Group::Reviewing,
        &[(Chord::ch('S'), C::Settle)],
    ),
    Binding::new(
        "E",
        "edit this artifact in $VISUAL / $EDITOR at the cursor line",
        Group::Reviewing,
        &[(Chord::ch('E'), C::Edit)],
    ),
    Binding::new(
        "u",
        "put the deleted question back",
        Group::Reviewing,
        &[(Chord::ch('u'), C::Undo)],
    )
    .hint("u", "undo", 3)
    .when(can_undo),
    Binding::new(
        "Ctrl-S",
        "send the questions (verdict QUESTIONS): next cycle",
        Group::Reviewing,
        &[(Chord::ctrl('s'), C::Send)],
    )
    .hint("Ctrl-S", "send", 3)
    .when(sendable),
    Binding::new(
        "Ctrl-R",
        "answer READY (asks first)",
        Group::Reviewing,
        &[(Chord::ctrl('r'), C::Ready)],
    )
    .hint("Ctrl-R", "READY", 5)
    .when(reviewable),
    Binding::new(
        "+",
        "zoom: the focused pane fills the screen / back to the split",
        Group::Reading,
        &[(Chord::ch('+'), C::Zoom)],
    )
    .hint("+", "zoom", 8),
    help(&[(HELP_KEY, C::Help)]),
    Binding::new(
        "M",
        "messages: every notice of this run, with its time and level",
        Group::Always,
        &[(Chord::ch('M'), C::Messages)],
    ),
    Binding::new(
        "Esc",
        "dismiss an error notice, close a popup, leave an old cycle, or cancel the call (asks)",
        Group::Always,
        &[(Chord::plain(KeyCode::Esc), C::Escape)],
    ),
    Binding::new(
        "r",
        "retry after a reasoner error",
        Group::Always,
        &[(Chord::ch('r'), C::Retry)],
    )
    .hint("r", "retry", 0)
    .when(can_retry),
    quit(&[(QUIT_KEY, C::Quit)]),
];

pub fn on_key(app: &mut App, key: KeyEvent) -> Handled {
    let Some(command) = command(BINDINGS, &key) else {
        return Handled::Ignored;
    };
    // The viewer is zoomed away: its keys say so rather than act on a hidden pane.
    if app.zoom == Zoom::Focused
        && app.focus == Focus::Review
        && matches!(
            command,
            C::Search | C::Settle | C::Edit | C::AskAboutLine | C::Diff
        )
        && let KeyCode::Char(c) = key.code
    {
        app.say(format!(
            "{c}: the viewer is hidden while the review pane is zoomed; + splits the screen"
        ));
        return Handled::Consumed;
    }
    match command {
        C::Send => app.send_questions(),
        C::Ready => app.ask_ready(),
        C::HalfPageDown => app.page(1, 2),
        C::HalfPageUp => app.page(-1, 2),
        C::Quit => app.request_quit(),
        C::Help => app.open_help(),
        C::Messages => {
            app.popup = Some(crate::tui::popup::Popup::Messages(Default::default()));
        }
        C::Escape => {
            if app.notice.error_shown() {
                app.notice.clear();
            } else if app.old_cycle.take().is_some() {
                app.clamp_views();
            } else if app.focus == Focus::Viewer && crate::tui::pane::viewer::can_cancel(app) {
                app.ask_cancel();
            } else {
                app.focus = Focus::Viewer;
            }
        }
        C::Ask | C::AskAboutLine if !can_ask(app) => {
            app.say(if app.offers().closed {
                "the design is final: no more questions can be sent".into()
            } else {
                "READY was answered: b (after the reflection) goes back to the review".into()
            });
        }
        C::Zoom => {
            app.zoom = match app.zoom {
                Zoom::Split => Zoom::Focused,
                Zoom::Focused => Zoom::Split,
            };
            app.say(match app.zoom {
                Zoom::Focused => "+: zoomed; + again splits the screen".into(),
                Zoom::Split => "+: split screen".into(),
            });
        }
        C::Ask => app.open_composer(ComposerTarget::NewQuestion { anchor: None }),
        C::AskAboutLine => {
            let anchor = app.anchor_at_cursor();
            if anchor.is_some() {
                app.open_composer(ComposerTarget::NewQuestion { anchor });
            } else if crate::tui::pane::diagram::drawing_shown(app) {
                app.say("c: the drawing has no lines to quote; v shows the Mermaid source".into());
            } else {
                app.say("c: put the cursor on an artifact line first".into());
            }
        }
        C::Diff => app.open_diff(),
        C::Settle if app.old_cycle.is_none() => app.toggle_settled(),
        C::Settle => return Handled::Ignored,
        C::Edit if !matches!(app.model.phase(), Phase::AwaitingReview { .. }) => {
            app.say("E: edit once the cycle waits for your review".into());
        }
        C::Edit if app.refuse_read_only("edit artifacts") => {}
        C::Edit if app.old_cycle.is_none() => {
            if let Some(section) = app.tab.section() {
                app.intents.push(Intent::EditArtifact {
                    section,
                    line: app.views[app.tab.index()].cursor + 1,
                });
            }
        }
        C::Edit => return Handled::Ignored,
        C::History => app.open_history(),
        C::Wrap => {
            app.wrap = match app.wrap {
                Wrap::Soft => Wrap::Off,
                Wrap::Off => Wrap::Soft,
            };
            app.say(match app.wrap {
                Wrap::Soft => "w: wrap on (at words)".into(),
                Wrap::Off => "w: wrap off (←/→ scroll sideways)".into(),
            });
        }
        C::Rendering => {
            let rendering = match app.rendering {
                Rendering::Rendered => Rendering::Source,
                Rendering::Source => Rendering::Rendered,
            };
            app.set_rendering(rendering);
            app.say(match rendering {
                Rendering::Rendered => "m: Markdown drawn as a document".into(),
                Rendering::Source => "m: Markdown shown as source".into(),
            });
        }
        C::Gutter => {
            app.gutter = match app.gutter {
                Gutter::Numbers => Gutter::Hidden,
                Gutter::Hidden => Gutter::Numbers,
            };
            app.say(match app.gutter {
                Gutter::Numbers => "l: line numbers shown".into(),
                Gutter::Hidden => "l: line numbers hidden".into(),
            });
        }
        C::Thinking => {
            app.thinking_pane = match app.thinking_pane {
                ThinkingPane::Shown => ThinkingPane::Collapsed,
                ThinkingPane::Collapsed => ThinkingPane::Shown,
            }
        }
        C::Search => app.open_search(),
        C::Undo if can_undo(app) => app.undo_delete(),
        C::Undo => return Handled::Ignored,
        C::FindNext => app.find_next(false),
        C::FindPrevious => app.find_next(true),
        C::Problems => app.open_problems(),
        C::Retry if can_retry(app) => app.act(Action::Retry),
        C::Retry => return Handled::Ignored,
    }
    Handled::Consumed
}
