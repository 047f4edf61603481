//! What a component (a popup, or a pane that has moved off `&mut App`) sees of the
//! workbench and what it may ask of it. It reads a [`View`] (the session as the core
//! published it, what the core offers, the look, the screen and the few view facts
//! components show) and answers a key with [`Do`]s, which the workbench carries out
//! once the component has returned. No such component reaches into the workbench's
//! state, so each one is read, and tested, on its own; what they may ask of the
//! workbench is the list below, in one place.

use std::ops::Deref;

use ratatui::layout::Rect;

use crate::design::Section;
use crate::tui::draft::Draft;
use crate::tui::event::Action;
use crate::tui::model::{Model, SessionInfo};
use crate::tui::notice::Notices;
use crate::tui::popup::Popup;
use crate::tui::popup::composer::ComposerTarget;
use crate::tui::popup::diff::CompareWanted;
use crate::tui::problems::Problems;
use crate::tui::theme::Theme;
use crate::tui::trace::TraceState;
use crate::volk::protocol::{Offers, Query};
use crate::volk::ready::OpenItems;

/// The workbench as a component reads it: borrowed for one key or one frame.
#[derive(Clone, Copy)]
pub struct View<'a> {
    pub model: &'a Model,
    /// What the person may do now, as the core rules it.
    pub offers: Offers,
    pub info: &'a SessionInfo,
    pub theme: &'a Theme,
    /// The whole screen (popups size themselves to it).
    pub size: Rect,
    pub notices: &'a Notices,
    pub problems: &'a Problems,
    pub draft: &'a Draft,
    pub trace: Option<&'a TraceState>,
    /// Lines of the document on the current tab.
    pub doc_lines: usize,
    /// `3/7` of the search in progress.
    pub search_status: Option<&'a str>,
    /// A call runs that `x` may stop.
    pub can_cancel: bool,
    /// The reflection or plan call's text as it streams.
    pub side_stream: &'a str,
    /// The reasoner's thinking stream.
    pub thinking: &'a str,
}

impl View<'_> {
    /// What READY would leave open: errors, conflicts, unaddressed threads, unsent
    /// questions.
    pub fn open_items(&self) -> OpenItems {
        OpenItems::of(
            &self.problems.diagnostics,
            &self.model.review().threads,
            self.draft.questions.len(),
        )
    }
}

/// Which answer of a commit query the workbench waits for: a slower answer to an
/// earlier pick is dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wanted {
    /// Nothing (the list closed).
    Nothing,
    /// The commit opens as an old cycle, read-only.
    Commit(String),
    /// The commit is diffed against, in the diff the list was opened from.
    Compare(CompareWanted),
}

/// A step of the search bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchStep {
    /// Esc: back where `/` was pressed, with the search before it.
    Back,
    /// Enter: keep this search for `n`/`N`.
    Keep(String),
    /// The query as typed so far: move to its first match.
    Typed(String),
}

/// What a component asks the workbench to do.
pub enum Do {
    Say(String),
    Warn(String),
    /// Takes the notices off the screen.
    ClearNotices,
    /// A decision for the design loop.
    Act(Action),
    /// A decision that answers the review: sent, and no second one until the loop
    /// moves on.
    Verdict(Action),
    /// A question for the runtime (history, a commit).
    Ask(Query),
    /// Opens this popup in the place of the one that asked.
    Open(Popup),
    /// Quits, stopping a running call first.
    Quit,
    /// Quits without another word.
    QuitNow,
    /// The summary screen gives way to the workbench.
    BackToWorkbench,
    OpenHelp,
    /// Opens the composer on `target` (refused in a read-only workbench).
    OpenComposer(ComposerTarget),
    /// Quits, asking first when words would be lost.
    RequestQuit,
    /// Stops the running call.
    CancelCall,
    /// Sends the draft's questions for `cycle` now.
    SendNow(u32),
    /// Sends the draft's questions, asking first when there are none.
    SendQuestions,
    /// What the composer holds now, written through to the draft.
    Compose(ComposerTarget, String),
    /// The composer's text, saved where it belongs.
    Submit(ComposerTarget, String),
    /// Puts the cursor on a line (1-based) of the current tab.
    GoToLine(usize),
    /// Shows a line (1-based) of an artifact, leaving an old cycle.
    JumpTo(Section, usize),
    /// Goes to an occurrence of the trace.
    TraceGo(usize),
    Want(Wanted),
    Search(SearchStep),
}

/// A component's context for one key: what it reads, and the list it asks into.
pub struct Ctx<'a> {
    view: View<'a>,
    asked: Vec<Do>,
}

impl<'a> Ctx<'a> {
    pub fn new(view: View<'a>) -> Ctx<'a> {
        Ctx {
            view,
            asked: Vec::new(),
        }
    }

    pub fn ask(&mut self, what: Do) {
        self.asked.push(what);
    }

    pub fn say(&mut self, text: String) {
        self.ask(Do::Say(text));
    }

    /// What the component asked for, in order.
    pub fn asked(self) -> Vec<Do> {
        self.asked
    }
}

impl<'a> Deref for Ctx<'a> {
    type Target = View<'a>;

    fn deref(&self) -> &View<'a> {
        &self.view
    }
}
