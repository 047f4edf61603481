//! The workbench's state and how it changes: terminal input and [`AppEvent`]s go in,
//! [`Intent`]s come out. No terminal, no tasks, no I/O here, so every behaviour can be
//! tested by feeding events and reading the state or a drawn frame.
//!
//! A key goes to the first layer that takes it (see [`crate::tui::components`]): an
//! open popup, else the finishing keys, the tabs, the keys of any focus and the
//! focused pane. Each of those modules owns its keys and its drawing; what is here
//! is the state they share and the acts several of them use.

use ratatui::crossterm::event::{
    Event, KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::{Position, Rect};

use crate::brief::{Anchor, Answer, Question};
use crate::cxp::Feedback;
use crate::design::{PerSection, Section};
use crate::tui::document::{Document, Rendering};
use crate::tui::draft::Draft;
use crate::tui::event::{Action, Intent};
use crate::tui::highlight::Grammar;
use crate::tui::model::Model;
use crate::tui::popup::help::Help;
use crate::tui::stream::{RawAnswer, StreamState};
use crate::tui::tab::Tab;
use crate::tui::theme::Theme;

pub use crate::tui::popup::Popup;

mod asked;
mod popups;
mod problems;
mod trace;

pub use crate::tui::model::SessionInfo;

/// Whether the viewer moves with the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    Stream,
    Manual,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewState {
    pub top: usize,
    pub cursor: usize,
    pub follow: Follow,
    /// Screen columns scrolled off to the left (with wrap off).
    pub left: usize,
}

impl Default for ViewState {
    fn default() -> Self {
        ViewState {
            top: 0,
            cursor: 0,
            follow: Follow::Stream,
            left: 0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrap {
    Soft,
    Off,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gutter {
    Numbers,
    Hidden,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Viewer,
    Review,
}

/// Whether the focused pane fills the body of the screen (`+`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zoom {
    Split,
    Focused,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThinkingPane {
    Shown,
    Collapsed,
}

pub use crate::tui::popup::composer::ComposerTarget;

/// An older cycle opened read-only from the history.
pub struct OldCycle {
    pub short_id: String,
    pub summary: String,
    pub docs: Vec<Document>,
}

pub use crate::tui::model::{Outcome, ReflectionView};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Workbench,
    Summary,
}

/// Whether a sent verdict is still waiting for the loop to move on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    None,
    Sent,
}

/// Speed of the running stream, as reported by the runtime or measured here.
#[derive(Debug, Clone, Copy, Default)]
pub struct Metrics {
    pub ttft_ms: Option<u64>,
    pub tokens_per_sec: Option<f64>,
    /// The runtime reports metrics; then the workbench stops estimating its own.
    pub reported: bool,
}

/// Areas of the last frame, for mouse hits and page sizes (see [`crate::tui::layout`]).
#[derive(Debug, Clone, Default)]
pub struct HitAreas {
    pub tabs: Vec<Rect>,
    pub viewer: Rect,
    /// The document line drawn on each row of the viewer (a wrapped line fills
    /// several rows), so a click selects the line it lands on.
    pub viewer_lines: Vec<usize>,
    /// The top line at which the document's end reaches the bottom of the viewer:
    /// paging stops there instead of scrolling the text away.
    pub viewer_last_top: usize,
    pub review: Rect,
}

pub struct App {
    /// What the session is, as the core last said it (written only by its events).
    pub model: Model,
    pub info: SessionInfo,
    pub theme: Theme,
    pub docs: Vec<Document>,
    pub journal: Document,
    /// How the journal's entries so far label their cycles.
    pub(crate) timeline: crate::tui::timeline::Timeline,
    /// The plan tab: the reflection and the execution plan (see [`crate::tui::pane::plan`]).
    pub plan_doc: Document,
    pub plan_prompts: crate::plan::Prompts,
    pub zoom: Zoom,
    /// The design answer as it arrived, while no section marker has been seen (and
    /// after a failure, the whole unusable answer): never a blank screen.
    pub raw: RawAnswer,
    /// One view state per tab, indexed by [`Tab::index`].
    pub views: [ViewState; Tab::COUNT],
    pub tab: Tab,
    /// Whether the tab bar moves to the section being written.
    pub tab_follow: Follow,
    pub wrap: Wrap,
    /// Markdown artifacts drawn as documents or as their source (`m`).
    pub rendering: Rendering,
    pub gutter: Gutter,
    pub focus: Focus,
    pub thinking_pane: ThinkingPane,
    pub thinking: String,
    /// Text of a reflection or plan call while it streams.
    pub side_stream: String,
    /// The review pane's selection and scroll.
    pub review_pane: crate::tui::pane::review::ReviewPane,
    pub popup: Option<Popup>,
    pub draft: Draft,
    pub draft_changed: bool,
    pub changed: Vec<Section>,
    pub metrics: Metrics,
    /// What the running call is doing, for the activity line.
    pub activity: crate::tui::activity::Running,
    /// The notice on screen and the messages log (`M`).
    pub notice: crate::tui::notice::Notices,
    pub screen: Screen,
    pub old_cycle: Option<OldCycle>,
    /// The older commit last asked for: a slower answer to an earlier Enter is dropped.
    pub wanted_commit: Option<String>,
    /// The Class diagram tab's drawing, scroll and drawing/source choice.
    pub diagram: crate::tui::diagram::DiagramPane,
    /// The older commit the diff's compare list asked for, to diff against.
    pub(crate) compare_wanted: Option<crate::tui::popup::diff::CompareWanted>,
    pub last_search: String,
    /// Where the cursor was when `/` opened, and the search before: Esc goes back.
    pub(crate) search_origin: Option<(usize, String)>,
    /// `3/7`, and whether the last move wrapped, for the search bar and status line.
    pub search_status: Option<String>,
    /// The question deleted last and where it stood: `u` puts it back.
    pub(crate) deleted: Option<(usize, Question)>,
    pub verdict: Verdict,
    pub spinner: usize,
    /// The screen of the last frame (set by [`App::prepare_frame`]).
    pub size: Rect,
    /// Areas of the last frame, for mouse hits and page sizes.
    pub areas: HitAreas,
    /// Another process holds the thread (named here): this workbench only reads.
    pub read_only: Option<String>,
    /// Set when a frame could not finish highlighting what it shows.
    pub redraw_soon: bool,
    pub(crate) stream: StreamState,
    pub(crate) intents: Vec<Intent>,
    /// Per section, the lines an edit block of the running update wrote.
    pub marks: PerSection<Vec<bool>>,
    /// The design compiler's findings on the text shown (see [`crate::tui::problems`]).
    pub problems: crate::tui::problems::Problems,
    /// The trace `*` started last, and whether `n`/`N` follow it or the search.
    pub trace: Option<crate::tui::trace::TraceState>,
    pub last_find: crate::tui::trace::LastFind,
    /// The committed cycle kept on screen while the next one is written.
    pub(crate) backdrop: crate::tui::backdrop::Backdrop,
}

pub(crate) fn new_docs(theme: &Theme) -> Vec<Document> {
    Section::ALL
        .iter()
        .map(|s| Document::new(Grammar::for_section(*s), &theme.syntax_theme))
        .collect()
}

impl App {
    pub fn new(info: SessionInfo, theme: Theme) -> App {
        let docs = new_docs(&theme);
        let journal = Document::new(Grammar::Plain, &theme.syntax_theme);
        let plan_doc = Document::new(Grammar::Plain, &theme.syntax_theme);
        let raw = RawAnswer::new(&theme);
        App {
            model: Model::default(),
            info,
            theme,
            docs,
            journal,
            timeline: Default::default(),
            plan_doc,
            plan_prompts: crate::plan::Prompts::Cut,
            zoom: Zoom::Split,
            raw,
            views: [ViewState::default(); Tab::COUNT],
            tab: Tab::default(),
            tab_follow: Follow::Stream,
            wrap: Wrap::Soft,
            rendering: Rendering::Rendered,
            gutter: Gutter::Numbers,
            focus: Focus::Viewer,
            thinking_pane: ThinkingPane::Collapsed,
            thinking: String::new(),
            side_stream: String::new(),
            review_pane: Default::default(),
            popup: None,
            draft: Draft::default(),
            draft_changed: false,
            changed: Vec::new(),
            metrics: Metrics::default(),
            activity: Default::default(),
            notice: Default::default(),
            screen: Screen::Workbench,
            old_cycle: None,
            wanted_commit: None,
            diagram: Default::default(),
            compare_wanted: None,
            last_search: String::new(),
            search_origin: None,
            search_status: None,
            deleted: None,
            verdict: Verdict::None,
            spinner: 0,
            size: Rect::default(),
            areas: HitAreas::default(),
            read_only: None,
            redraw_soon: false,
            stream: StreamState::default(),
            intents: Vec::new(),
            marks: Default::default(),
            problems: Default::default(),
            trace: None,
            last_find: Default::default(),
            backdrop: Default::default(),
        }
    }

    /// An info notice: shown for a few seconds and until the next key.
    pub fn say(&mut self, text: String) {
        self.notice.post(crate::tui::notice::Level::Info, text);
    }

    /// A warning notice: like [`App::say`], drawn in the warning colour.
    pub fn warn(&mut self, text: String) {
        self.notice.post(crate::tui::notice::Level::Warning, text);
    }

    /// An error notice: it stays until Esc dismisses it.
    pub fn error(&mut self, text: String) {
        self.notice.post(crate::tui::notice::Level::Error, text);
    }

    /// What the person may do now, as the core rules it for the phase the loop last
    /// reported (the machine's guards use the same rule). A read-only workbench
    /// refuses each act itself, saying who holds the thread.
    pub fn offers(&self) -> crate::volk::protocol::Offers {
        self.model.offers(self.info.max_cycles)
    }

    /// A decision for the design loop.
    pub(crate) fn act(&mut self, action: Action) {
        self.intents.push(Intent::Act(action));
    }

    /// The document on the current tab (an old cycle's when one is open; the raw
    /// answer on every artifact tab while it has no section).
    pub fn current_doc(&self) -> &Document {
        match (&self.old_cycle, self.tab) {
            (Some(old), Tab::Artifact(section)) => &old.docs[section.index()],
            (None, Tab::Artifact(_)) if self.raw.shown() => &self.raw.doc,
            (None, Tab::Artifact(section)) => &self.docs[section.index()],
            (_, Tab::Journal) => &self.journal,
            (_, Tab::Plan) => &self.plan_doc,
        }
    }

    pub fn current_doc_mut(&mut self) -> &mut Document {
        match (&mut self.old_cycle, self.tab) {
            (Some(old), Tab::Artifact(section)) => &mut old.docs[section.index()],
            (None, Tab::Artifact(_)) if self.raw.shown() => &mut self.raw.doc,
            (None, Tab::Artifact(section)) => &mut self.docs[section.index()],
            (_, Tab::Journal) => &mut self.journal,
            (_, Tab::Plan) => &mut self.plan_doc,
        }
    }

    // ----- terminal input -----

    pub fn on_terminal_event(&mut self, event: Event) {
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key),
            Event::Mouse(mouse) => self.on_mouse(mouse),
            Event::Resize(width, height) => self.size = Rect::new(0, 0, width, height),
            Event::Paste(text) => self.on_paste(&text),
            _ => {}
        }
    }

    /// Gives a key to the first layer that takes it.
    pub fn on_key(&mut self, key: KeyEvent) {
        // A notice posted before this key may go once it has been shown long enough.
        self.notice.key_pressed();
        crate::tui::components::dispatch(self, key);
    }

    pub(crate) fn open_help(&mut self) {
        self.popup = Some(Popup::Help(
            Help::new(crate::tui::components::help_groups()),
        ));
    }

    /// `x`: stops the running call.
    pub(crate) fn cancel_call(&mut self) {
        self.act(Action::Cancel);
        self.say("cancelling the running call".into());
    }

    /// `m`: draws every Markdown document (current, old cycle, raw answer) the new way.
    pub(crate) fn set_rendering(&mut self, rendering: Rendering) {
        self.rendering = rendering;
        let old = self.old_cycle.iter_mut().flat_map(|o| o.docs.iter_mut());
        for doc in self.docs.iter_mut().chain(old).chain([&mut self.raw.doc]) {
            doc.set_rendering(rendering);
        }
    }

    /// The person chose a tab: stop moving tabs with the stream.
    pub(crate) fn pick_tab(&mut self, tab: Tab) {
        self.tab_follow = Follow::Manual;
        self.select_tab(tab);
    }

    pub fn select_tab(&mut self, tab: Tab) {
        self.tab = tab;
    }

    /// Restores a saved draft (on `volk open`).
    pub fn restore_draft(&mut self, draft: Draft) {
        self.draft = draft;
    }

    /// Shows the model's cycle in the tabs (a restored session, or the runtime's
    /// report).
    pub(crate) fn show_cycle(&mut self) {
        for section in Section::ALL {
            self.docs[section.index()].set_text(self.model.artifacts().get(section));
        }
        self.backdrop_committed(self.model.cycle());
    }

    /// An artifact came back from the person's editor (or a conflict resolved): shown
    /// now, committed as a reviewer edit when the verdict is sent.
    pub(crate) fn edited_by_hand(&mut self, section: Section, unchanged: bool) {
        if unchanged {
            self.say(format!("{}: no change", section.file_name()));
            return;
        }
        self.docs[section.index()].set_text(self.model.artifacts().get(section));
        self.say(format!(
            "design/{} edited: it is committed as your edit and kept through the next cycle",
            section.file_name()
        ));
        self.clamp_views();
    }

    /// In a read-only workbench, says why `what` cannot be done here and how to take
    /// the thread over; true when it refused.
    pub(crate) fn refuse_read_only(&mut self, what: &str) -> bool {
        let Some(holder) = &self.read_only else {
            return false;
        };
        let text = format!(
            "read-only: you cannot {what} here · to take over, quit {holder}, then volk open {}",
            self.info.project_dir.display()
        );
        self.warn(text);
        true
    }

    /// Intents produced since the last call.
    pub fn take_intents(&mut self) -> Vec<Intent> {
        let mut intents = std::mem::take(&mut self.intents);
        if let Some(holder) = &self.read_only {
            let before = intents.len();
            intents.retain(|i| matches!(i, Intent::Ask(_) | Intent::Quit));
            if intents.len() < before {
                self.say(format!(
                    "read-only: {holder} holds this thread; nothing was sent"
                ));
            }
        }
        intents
    }

    pub fn tick(&mut self) {
        self.spinner = self.spinner.wrapping_add(1);
        self.activity.tick(std::time::Instant::now());
    }

    pub(crate) fn clamp_views(&mut self) {
        let streaming = self.is_streaming();
        for (tab, view) in Tab::ALL.into_iter().zip(self.views.iter_mut()) {
            let len = match (&self.old_cycle, tab) {
                (Some(old), Tab::Artifact(s)) => old.docs[s.index()].len(),
                (None, Tab::Artifact(s)) => self.docs[s.index()].len(),
                (_, Tab::Journal) => self.journal.len(),
                (_, Tab::Plan) => self.plan_doc.len(),
            };
            if view.follow == Follow::Stream && !streaming && self.old_cycle.is_none() {
                // A finished cycle opens at the top.
                view.cursor = 0;
                view.top = 0;
                view.follow = Follow::Manual;
            }
            view.cursor = view.cursor.min(len.saturating_sub(1));
            view.top = view.top.min(view.cursor);
        }
    }

    pub(crate) fn review_items(&self) -> usize {
        self.draft.questions.len()
            + self.model.open_questions().len()
            + self.model.review().threads.len()
    }

    /// The thread under the review pane's cursor, if the cursor is on one.
    pub(crate) fn selected_thread(&self) -> Option<String> {
        let first = self.draft.questions.len() + self.model.open_questions().len();
        let i = self.review_pane.selected.checked_sub(first)?;
        crate::tui::threads::ordered(&self.model.review().threads)
            .get(i)
            .map(|t| t.id.clone())
    }

    /// `S`: settles the requirement or ADR the cursor line defines, else the artifact
    /// of the tab; settled already, it is unsettled.
    pub(crate) fn toggle_settled(&mut self) {
        if self.refuse_read_only("settle parts") {
            return;
        }
        let Some(section) = self.tab.section() else {
            return;
        };
        let line = self
            .current_doc()
            .lines()
            .get(self.views[self.tab.index()].cursor)
            .cloned()
            .unwrap_or_default();
        let mark = crate::design::settled::item_on_line(&line)
            .unwrap_or(crate::design::settled::Mark::Artifact(section));
        let label = mark.label();
        let mut marks = crate::cxp::ReviewMarks::default();
        if self.model.review().settled.contains(&label) {
            self.say(format!("{label} is no longer settled"));
            marks.unsettled.push(label);
        } else {
            self.say(format!("{label} settled: the architect may not change it"));
            marks.settled.push(label);
        }
        self.act(Action::Mark(marks));
    }

    pub(crate) fn anchor_at_cursor(&self) -> Option<Anchor> {
        let section = self.tab.section()?;
        let cursor = self.views[self.tab.index()].cursor;
        let quote = self.current_doc().lines().get(cursor)?.clone();
        Some(Anchor {
            section,
            line: cursor + 1,
            quote,
        })
    }

    /// Why `key` (a verdict) does nothing now, in words true to the phase: only a
    /// running cycle is worth waiting for.
    pub(crate) fn no_review_now(&self, key: &str) -> String {
        if self.model.phase().is_busy() || self.verdict == Verdict::Sent {
            format!("{key}: wait until the cycle is ready for review")
        } else if self.model.phase().can_retry() {
            format!("{key}: no cycle is under review; r runs the stopped call again")
        } else {
            format!(
                "{key}: no cycle is under review ({})",
                self.model.phase().short_label()
            )
        }
    }

    pub(crate) fn send_questions(&mut self) {
        if self.refuse_read_only("send questions") {
            return;
        }
        let cycle = match self.model.phase().reviewed_cycle() {
            Some(cycle) if self.verdict != Verdict::Sent => cycle,
            _ => {
                self.say(self.no_review_now("Ctrl-S"));
                return;
            }
        };
        if !self.draft.composer.trim().is_empty() {
            let text = std::mem::take(&mut self.draft.composer).trim().to_string();
            self.draft.questions.push(Question::new(text));
        }
        if self.draft.questions.is_empty() {
            self.say("Ctrl-S: add a question first (a), or answer READY (Ctrl-R)".into());
            return;
        }
        if self.offers().last_cycle {
            // Questions on the last cycle finalize the design unanswered: ask first.
            self.popup = Some(Popup::Confirm(
                crate::tui::popup::confirm::Confirm::LastCycle,
            ));
            return;
        }
        self.send_now(cycle);
    }

    /// Sends the draft's questions and answers as the verdict on `cycle`.
    pub(crate) fn send_now(&mut self, cycle: u32) {
        let questions = self.draft.questions.to_vec();
        let answers: Vec<Answer> = self
            .draft
            .answers
            .iter()
            .filter(|a| self.model.open_questions().contains(&a.question))
            .cloned()
            .collect();
        self.intents
            .push(Intent::Act(Action::Review(Feedback::questions(
                cycle, questions, answers,
            ))));
        self.verdict = Verdict::Sent;
        self.draft = Draft {
            cycle,
            ..Draft::default()
        };
        self.draft_changed = true;
        self.review_pane.selected = 0;
        self.say("questions sent".into());
    }

    /// Enter on a thread: an addressed one opens the diff at the change that answers
    /// it; any other is reopened with a follow-up question.
    pub(crate) fn open_thread(&mut self, id: String) {
        let answered_in = self
            .model
            .review()
            .threads
            .iter()
            .find(|t| t.id == id)
            .and_then(|t| t.changes.first())
            .and_then(|c| Section::from_key(&c.artifact));
        match answered_in {
            Some(section) if self.model.previous().is_some() => self.open_diff_for(section, true),
            _ => self.open_composer(ComposerTarget::FollowUp(id)),
        }
    }

    pub(crate) fn move_cursor(&mut self, delta: isize) {
        let len = self.current_doc().len();
        let view = &mut self.views[self.tab.index()];
        let next = view
            .cursor
            .saturating_add_signed(delta)
            .min(len.saturating_sub(1));
        view.cursor = next;
        view.follow = if delta > 0 && next + 1 >= len {
            Follow::Stream
        } else {
            Follow::Manual
        };
    }

    /// Moves by `1/divisor` of the viewer's height.
    pub(crate) fn page(&mut self, direction: isize, divisor: usize) {
        let height = (self.areas.viewer.height as usize).max(2) / divisor.max(1);
        let len = self.current_doc().len();
        let view = &mut self.views[self.tab.index()];
        let amount = height.max(1) as isize * direction;
        view.cursor = view
            .cursor
            .saturating_add_signed(amount)
            .min(len.saturating_sub(1));
        view.top = view
            .top
            .saturating_add_signed(amount)
            .min(
                self.areas
                    .viewer_last_top
                    .max(view.top.min(len.saturating_sub(1))),
            )
            .min(len.saturating_sub(1));
        view.follow = Follow::Manual;
    }

    fn scroll(&mut self, delta: isize) {
        let len = self.current_doc().len();
        let view = &mut self.views[self.tab.index()];
        view.top = view
            .top
            .saturating_add_signed(delta)
            .min(len.saturating_sub(1));
        view.cursor = view.cursor.max(view.top).min(len.saturating_sub(1));
        let height = self.areas.viewer.height.max(1) as usize;
        if view.cursor >= view.top + height {
            view.cursor = view.top + height - 1;
        }
        view.follow = Follow::Manual;
    }

    pub(crate) fn undo_delete(&mut self) {
        if let Some((at, question)) = self.deleted.take() {
            let at = at.min(self.draft.questions.len());
            self.draft.questions.insert(at, question);
            self.draft_changed = true;
            self.review_pane.selected = at;
            self.say("question restored".into());
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        let at = Position::new(mouse.column, mouse.row);
        match mouse.kind {
            MouseEventKind::ScrollDown => {
                if let Some(Popup::Diff(diff)) = &mut self.popup {
                    diff.scroll_by(3, self.size.width);
                } else if self.popup.is_none() && self.areas.review.contains(at) {
                    crate::tui::pane::review::scroll(self, 3);
                } else if self.popup.is_none() && !crate::tui::pane::diagram::wheel(self, 3) {
                    self.scroll(3);
                }
            }
            MouseEventKind::ScrollUp => {
                if let Some(Popup::Diff(diff)) = &mut self.popup {
                    diff.scroll_by(-3, self.size.width);
                } else if self.popup.is_none() && self.areas.review.contains(at) {
                    crate::tui::pane::review::scroll(self, -3);
                } else if self.popup.is_none() && !crate::tui::pane::diagram::wheel(self, -3) {
                    self.scroll(-3);
                }
            }
            MouseEventKind::Down(MouseButton::Left) if self.popup.is_none() => {
                if let Some(tab) = self.areas.tabs.iter().position(|r| r.contains(at)) {
                    self.pick_tab(Tab::at(tab).unwrap_or_default());
                } else if self.areas.viewer.contains(at) {
                    self.focus = Focus::Viewer;
                    let row = (mouse.row - self.areas.viewer.y) as usize;
                    if let Some(&line) = self.areas.viewer_lines.get(row) {
                        let view = &mut self.views[self.tab.index()];
                        view.cursor = line;
                        view.follow = Follow::Manual;
                    }
                } else if self.areas.review.contains(at) {
                    self.focus = Focus::Review;
                    let row = (mouse.row - self.areas.review.y) as usize;
                    crate::tui::pane::review::click(self, row);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brief::Purpose;
    use crate::design::Artifacts;
    use crate::reasoner::StreamEvent;
    use crate::tui::event::Phase;
    use crate::tui::event::{AppEvent, LoopEvent};
    use crate::tui::popup::confirm::Confirm;
    use crate::tui::popup::error::Failure;
    use crate::tui::test_keys::{ctrl, key, typed};
    use crate::volk::protocol::Notice;
    use crate::volk::runtime::CommitInfo;
    use ratatui::crossterm::event::KeyCode;

    fn text(call: u64, t: &str) -> AppEvent {
        AppEvent::Loop(LoopEvent::Delta {
            call,
            purpose: Purpose::Design,
            event: StreamEvent::Text { text: t.into() },
        })
    }

    fn reviewing() -> App {
        let artifacts = Artifacts {
            architecture: "Arch line\n\n## Open questions\n\n1. Which database?\n".into(),
            api_spec: "run() -> None".into(),
            ..Artifacts::default()
        };
        crate::tui::scene::Scene::new(SessionInfo::default())
            .first_cycle(1, artifacts)
            .awaiting_review(1)
            .app()
    }

    #[test]
    fn stream_fills_tabs_and_drops_stale_calls() {
        let mut app = App::new(SessionInfo::default(), Theme::dark());
        app.on_app_event(text(1, "ARCHITECTURE:\nline one\nline tw"));
        app.sync_stream();
        assert_eq!(app.docs[0].lines(), ["line one"]);
        assert_eq!(app.docs[0].tail(), "line tw");
        assert_eq!(app.streaming_section(), Some(Section::Architecture));
        app.on_app_event(text(2, "REQUIREMENTS:\nFR-01\n"));
        app.on_app_event(text(1, "stale text\n"));
        app.sync_stream();
        assert!(app.docs[0].is_empty(), "a new call starts clean");
        assert_eq!(app.docs[1].lines(), ["FR-01"]);
    }

    #[test]
    fn cancelled_questions_come_back_and_ctrl_s_sends_them_for_the_reviewed_cycle() {
        let mut app = reviewing();
        app.on_key(key(KeyCode::Char('a')));
        typed(&mut app, "Why JSON?");
        app.on_key(key(KeyCode::Enter));
        app.on_key(ctrl('s'));
        app.take_intents();
        assert!(app.draft.questions.is_empty());
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
            cycle: 2,
        })));
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Cancelled {
            resume: Box::new(Phase::Designing { cycle: 2 }),
        })));
        app.on_app_event(AppEvent::Loop(LoopEvent::Noticed(Notice::Cancelled {
            questions: vec!["Why JSON?".into()],
        })));
        assert_eq!(app.draft.questions, [Question::new("Why JSON?")]);
        assert!(app.notice.as_deref().unwrap().contains("Ctrl-S sends them"));
        app.on_key(ctrl('s'));
        assert_eq!(
            app.take_intents(),
            vec![Intent::Act(Action::Review(Feedback::questions(
                1,
                vec!["Why JSON?".into()],
                vec![]
            )))]
        );
    }

    #[test]
    fn send_requires_a_question_then_clears_the_draft() {
        let mut app = reviewing();
        app.on_key(ctrl('s'));
        assert!(app.take_intents().is_empty());
        app.on_key(key(KeyCode::Char('a')));
        typed(&mut app, "Why JSON?");
        assert_eq!(app.draft.composer, "Why JSON?");
        app.on_key(key(KeyCode::Enter));
        assert_eq!(app.draft.questions.len(), 1);
        app.on_key(ctrl('s'));
        let intents = app.take_intents();
        assert_eq!(
            intents,
            vec![Intent::Act(Action::Review(Feedback::questions(
                1,
                vec!["Why JSON?".into()],
                vec![]
            )))]
        );
        assert!(!app.draft.is_unsent());
        app.on_key(ctrl('s'));
        assert!(app.take_intents().is_empty(), "no double send");
    }

    #[test]
    fn anchored_question_and_answer_travel_together() {
        let mut app = reviewing();
        app.on_key(key(KeyCode::Char('4')));
        app.on_key(key(KeyCode::Char('c')));
        typed(&mut app, "Async?");
        app.on_key(key(KeyCode::Enter));
        app.on_key(key(KeyCode::Char('f')));
        app.on_key(key(KeyCode::Down));
        app.on_key(key(KeyCode::Enter));
        typed(&mut app, "SQLite");
        app.on_key(key(KeyCode::Enter));
        app.on_key(ctrl('s'));
        let intents = app.take_intents();
        assert_eq!(
            intents,
            vec![Intent::Act(Action::Review(Feedback::questions(
                1,
                vec![Question::anchored(
                    "Async?",
                    Anchor {
                        section: Section::ApiSpec,
                        line: 1,
                        quote: "run() -> None".into()
                    }
                )],
                vec![Answer {
                    question: "Which database?".into(),
                    answer: "SQLite".into()
                }]
            )))]
        );
    }

    #[test]
    fn ready_asks_first_and_quit_asks_with_a_draft() {
        let mut app = reviewing();
        app.on_key(ctrl('r'));
        assert!(matches!(app.popup, Some(Popup::Confirm(Confirm::Ready))));
        app.on_key(key(KeyCode::Esc));
        assert!(app.take_intents().is_empty());
        app.on_key(ctrl('r'));
        app.on_key(key(KeyCode::Char('y')));
        assert_eq!(
            app.take_intents(),
            vec![Intent::Act(Action::Review(Feedback::ready(1)))]
        );

        let mut app = reviewing();
        app.on_key(key(KeyCode::Char('a')));
        typed(&mut app, "half a thought");
        app.on_key(key(KeyCode::Esc));
        app.on_key(key(KeyCode::Char('q')));
        assert!(matches!(
            app.popup,
            Some(Popup::Confirm(Confirm::Quit { .. }))
        ));
        app.on_key(key(KeyCode::Char('y')));
        assert_eq!(app.take_intents(), vec![Intent::Quit]);
    }

    #[test]
    fn edit_and_delete_questions_in_the_review_pane() {
        let mut app = reviewing();
        for q in ["one", "two"] {
            app.on_key(key(KeyCode::Char('a')));
            typed(&mut app, q);
            app.on_key(key(KeyCode::Enter));
        }
        app.on_key(key(KeyCode::Char('f')));
        app.on_key(key(KeyCode::Char('e')));
        typed(&mut app, "!");
        app.on_key(key(KeyCode::Enter));
        assert_eq!(app.draft.questions[0].text, "one!");
        app.on_key(key(KeyCode::Char('x')));
        assert_eq!(app.draft.questions.len(), 1);
        assert_eq!(app.draft.questions[0].text, "two");
    }

    #[test]
    fn search_moves_the_cursor_and_wraps() {
        let mut app = reviewing();
        app.last_search = "open".into();
        app.on_key(key(KeyCode::Char('n')));
        assert_eq!(app.views[0].cursor, 2);
        app.on_key(key(KeyCode::Char('n')));
        assert_eq!(app.views[0].cursor, 2);
    }

    #[test]
    fn keys_that_cannot_act_say_why_and_q_asks_with_sent_questions_pending() {
        let mut app = reviewing();
        app.focus = Focus::Review;
        app.zoom = Zoom::Focused;
        for c in ['/', 'S', 'E', 'c', 'd'] {
            app.notice.clear();
            app.on_key(key(KeyCode::Char(c)));
            assert!(
                app.notice
                    .as_deref()
                    .unwrap()
                    .contains("+ splits the screen"),
                "{c}: {:?}",
                app.notice.as_deref()
            );
            assert!(
                app.popup.is_none(),
                "{c} opened a popup over the hidden viewer"
            );
        }
        // An update failed with questions sent: q in the failure popup asks first.
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Failed {
            resume: Box::new(Phase::Designing { cycle: 2 }),
            message: "HTTP 503 from http://x/v1: overloaded".into(),
            retryable: true,
        })));
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Failed {
            resume: Box::new(Phase::Designing { cycle: 2 }),
            message: "HTTP 503".into(),
            retryable: true,
        })));
        app.on_key(key(KeyCode::Char('q')));
        assert!(
            matches!(app.popup, Some(Popup::Confirm(_))),
            "q quit at once with sent questions pending"
        );
        assert!(!app.take_intents().contains(&Intent::Quit));
    }

    #[test]
    fn a_failure_that_cannot_be_retried_offers_no_retry() {
        let mut app = reviewing();
        // The order the runtime sends them in: the error, then the failed phase.
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Failed {
            resume: Box::new(Phase::Designing { cycle: 2 }),
            message: "openai: no API key".into(),
            retryable: false,
        })));
        let failed = Phase::Failed {
            resume: Box::new(Phase::Designing { cycle: 2 }),
            message: "openai: no API key".into(),
            retryable: false,
        };
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(failed)));
        assert!(matches!(
            app.popup,
            Some(Popup::Error(Failure {
                retryable: false,
                ..
            }))
        ));
        app.on_key(key(KeyCode::Char('r')));
        app.on_key(key(KeyCode::Esc));
        app.on_key(key(KeyCode::Char('r')));
        assert!(app.take_intents().is_empty(), "r must not retry");
    }

    #[test]
    fn the_last_commit_asked_for_wins_however_slow() {
        let mut app = reviewing();
        app.on_key(key(KeyCode::Char('h')));
        let commit = |n: u32| CommitInfo {
            id: format!("{n:040}"),
            short_id: format!("c{n}"),
            summary: format!("Design cycle {n}"),
            time: 0,
        };
        app.on_app_event(AppEvent::Loop(LoopEvent::History(vec![
            commit(2),
            commit(1),
        ])));
        app.on_key(key(KeyCode::Enter));
        app.on_key(key(KeyCode::Char('j')));
        app.on_key(key(KeyCode::Enter));
        let old = |n: u32| {
            AppEvent::Loop(LoopEvent::OldCycle {
                short_id: format!("c{n}"),
                summary: format!("Design cycle {n}"),
                artifacts: Artifacts {
                    architecture: format!("cycle {n}"),
                    ..Artifacts::default()
                },
            })
        };
        // The second Enter's answer comes first; the first Enter's, slower, comes last.
        app.on_app_event(old(1));
        app.on_app_event(old(2));
        assert_eq!(
            app.old_cycle.as_ref().map(|o| o.short_id.as_str()),
            Some("c1")
        );
    }

    #[test]
    fn the_cycle_limit_is_known_by_its_value_not_its_wording() {
        let mut app = reviewing();
        app.on_app_event(AppEvent::Loop(LoopEvent::Notice {
            level: crate::volk::protocol::Level::Info,
            text: "Max design cycles reached in a message that only quotes it".into(),
        }));
        assert_eq!(app.model.warning(), None);
        app.on_app_event(AppEvent::Loop(LoopEvent::Noticed(Notice::CycleLimit {
            cycle: 2,
            max: 2,
            trace_id: "t".into(),
        })));
        assert_eq!(
            app.model.warning(),
            Some("Max design cycles reached (2): finalizing without READY (trace t)")
        );
    }

    #[test]
    fn error_popup_retries() {
        let mut app = reviewing();
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Failed {
            resume: Box::new(Phase::Designing { cycle: 2 }),
            message: "HTTP 503".into(),
            retryable: true,
        })));
        app.on_key(key(KeyCode::Char('r')));
        assert_eq!(app.take_intents(), vec![Intent::Act(Action::Retry)]);
        assert!(app.popup.is_none());
    }
}
