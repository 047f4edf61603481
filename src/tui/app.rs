//! The workbench's state and how it changes: terminal input and [`AppEvent`]s go in,
//! [`Intent`]s come out. No terminal, no tasks, no I/O here, so every behaviour can be
//! tested by feeding events and reading the state or a drawn frame.

use crate::tui::event::LoopEvent;
use std::path::PathBuf;
use std::time::Instant;

use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::{Position, Rect};
use ratatui_textarea::{TextArea, WrapMode};

use crate::cxp::Feedback;
use crate::design::parser::SectionParser;
use crate::design::questions::open_questions;
use crate::design::{Artifacts, Section};
use crate::reasoner::StreamEvent;
use crate::tui::diff::{DiffLine, diff_lines};
use crate::tui::document::{Document, Rendering};
use crate::tui::draft::Draft;
use crate::tui::event::{Action, AppEvent, Intent, Phase};
use crate::tui::highlight::Grammar;
use crate::tui::patch_view::{CostMeter, LivePatch, Synced};
use crate::tui::theme::Theme;
use crate::volk::brief::{Anchor, Question};
use crate::volk::brief::{Answer, Purpose};
use crate::volk::plan_step::PlanCheck;
use crate::volk::review::ReviewState;
use crate::volk::runtime::CommitInfo;
use crate::volk::runtime::Notice;

/// A loop notice without its `(trace …)` suffix: trace ids belong to the journal, not
/// the status bar.
fn without_trace(line: &str) -> String {
    match line.rfind(" (trace ") {
        Some(at) if line.ends_with(')') => line[..at].to_string(),
        _ => line.to_string(),
    }
}

/// Columns one ←/→ scrolls with wrap off.
const SIDE_STEP: usize = 8;

/// The six tabs: five artifacts and the decision journal.
pub const TAB_COUNT: usize = 6;
pub const JOURNAL_TAB: usize = 5;

pub fn tab_title(tab: usize) -> &'static str {
    Section::ALL.get(tab).map_or("Journal", |s| s.title())
}

/// Static facts shown in the header.
#[derive(Debug, Clone, Default)]
pub struct SessionInfo {
    pub project_name: String,
    pub project_dir: PathBuf,
    pub thread_id: String,
    pub max_cycles: u32,
    pub reasoner: String,
    pub model: String,
}

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThinkingPane {
    Shown,
    Collapsed,
}

/// What the composer is writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerTarget {
    NewQuestion {
        anchor: Option<Anchor>,
    },
    EditQuestion(usize),
    Answer {
        question: String,
    },
    Steer,
    /// A follow-up question that reopens the thread with this id.
    FollowUp(String),
}

/// A window over the workbench; Esc closes it.
pub enum Popup {
    Help {
        scroll: usize,
    },
    Composer {
        target: ComposerTarget,
        editor: Box<TextArea<'static>>,
    },
    Search {
        query: String,
    },
    ConfirmReady,
    ConfirmQuit {
        reason: String,
    },
    Diff {
        section: Section,
        lines: Vec<DiffLine>,
        scroll: usize,
    },
    History {
        commits: Option<Vec<CommitInfo>>,
        selected: usize,
    },
    Error {
        message: String,
        retryable: bool,
    },
}

/// An older cycle opened read-only from the history.
pub struct OldCycle {
    pub short_id: String,
    pub summary: String,
    pub docs: Vec<Document>,
}

/// The reflection pass, shown before finalizing.
#[derive(Debug, Clone, Default)]
pub struct ReflectionView {
    pub questions: Vec<String>,
    pub answers: String,
}

/// The finalized design: shown on the summary screen.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub packet_path: PathBuf,
    pub subject: String,
}

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

/// The text of a design call before its first section marker.
pub struct RawAnswer {
    pub doc: Document,
    /// Whether a marker has been seen: then the raw text stops growing.
    pub sectioned: bool,
    /// The unfinished last line.
    pending: String,
}

impl RawAnswer {
    fn new(theme: &Theme) -> RawAnswer {
        RawAnswer {
            doc: Document::new(Grammar::Markdown, &theme.syntax_theme),
            sectioned: false,
            pending: String::new(),
        }
    }

    fn clear(&mut self) {
        self.doc.clear();
        self.sectioned = false;
        self.pending.clear();
    }

    fn push(&mut self, text: &str) {
        self.pending.push_str(text);
        if let Some(end) = self.pending.rfind('\n') {
            self.doc.append_lines(&self.pending[..=end]);
            self.pending.drain(..=end);
        }
        self.doc.set_tail(&self.pending);
    }

    /// Whether the viewer shows it: text came, but no section.
    pub fn shown(&self) -> bool {
        !self.sectioned && !self.doc.is_empty()
    }
}

/// Areas of the last drawn frame, for mouse hits and page sizes.
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

/// One reasoner call being streamed.
struct LiveCall {
    purpose: Purpose,
    parser: SectionParser,
    /// Bytes of each section already moved into its document.
    consumed: [usize; 5],
    /// Sections fed since the documents were last synced.
    touched: [bool; 5],
    started: Instant,
    chars: usize,
    /// An update answer: edit blocks drawn on top of the current design.
    patch: Option<LivePatch>,
}

impl LiveCall {
    fn parser(&self) -> &SectionParser {
        match &self.patch {
            Some(patch) => patch.parser(),
            None => &self.parser,
        }
    }
}

pub struct App {
    pub info: SessionInfo,
    pub theme: Theme,
    pub phase: Phase,
    pub cycle: u32,
    pub docs: Vec<Document>,
    pub journal: Document,
    /// The design answer as it arrived, while no section marker has been seen (and
    /// after a failure, the whole unusable answer): never a blank screen.
    pub raw: RawAnswer,
    pub views: [ViewState; TAB_COUNT],
    pub tab: usize,
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
    pub review_selected: usize,
    pub popup: Option<Popup>,
    pub draft: Draft,
    pub draft_changed: bool,
    pub artifacts: Artifacts,
    pub previous: Option<Artifacts>,
    pub changed: Vec<Section>,
    pub open_questions: Vec<String>,
    /// Threads and settled parts, as the design loop last reported them.
    pub review: ReviewState,
    pub last_commit: Option<String>,
    pub committing: bool,
    pub metrics: Metrics,
    /// What the running call is doing, for the activity line.
    pub activity: crate::tui::activity::Running,
    pub notice: Option<String>,
    /// A warning the summary repeats (the cycle limit forced finalization).
    pub warning: Option<String>,
    pub reflection: Option<ReflectionView>,
    pub plan: Option<PlanCheck>,
    pub outcome: Option<Outcome>,
    pub screen: Screen,
    pub old_cycle: Option<OldCycle>,
    /// The older commit last asked for: a slower answer to an earlier Enter is dropped.
    pub wanted_commit: Option<String>,
    pub last_search: String,
    /// Where the cursor was when `/` opened, and the search before: Esc goes back.
    search_origin: Option<(usize, String)>,
    /// `3/7`, and whether the last move wrapped, for the search bar and status line.
    pub search_status: Option<String>,
    /// The question deleted last and where it stood: `u` puts it back.
    deleted: Option<(usize, Question)>,
    pub verdict: Verdict,
    pub spinner: usize,
    pub areas: HitAreas,
    /// Another process holds the thread (named here): this workbench only reads.
    pub read_only: Option<String>,
    /// Set by a draw that could not finish highlighting what it shows.
    pub redraw_soon: bool,
    live: Option<LiveCall>,
    last_call: u64,
    intents: Vec<Intent>,
    /// Per section, the lines an edit block of the running update wrote.
    pub marks: [Vec<bool>; 5],
    pub cost: CostMeter,
}

fn new_docs(theme: &Theme) -> Vec<Document> {
    Section::ALL
        .iter()
        .map(|s| Document::new(Grammar::for_section(*s), &theme.syntax_theme))
        .collect()
}

impl App {
    pub fn new(info: SessionInfo, theme: Theme) -> App {
        let docs = new_docs(&theme);
        let journal = Document::new(Grammar::Plain, &theme.syntax_theme);
        let raw = RawAnswer::new(&theme);
        App {
            info,
            theme,
            phase: Phase::New,
            cycle: 0,
            docs,
            journal,
            raw,
            views: [ViewState::default(); TAB_COUNT],
            tab: 0,
            tab_follow: Follow::Stream,
            wrap: Wrap::Soft,
            rendering: Rendering::Rendered,
            gutter: Gutter::Numbers,
            focus: Focus::Viewer,
            thinking_pane: ThinkingPane::Collapsed,
            thinking: String::new(),
            side_stream: String::new(),
            review_selected: 0,
            popup: None,
            draft: Draft::default(),
            draft_changed: false,
            artifacts: Artifacts::default(),
            previous: None,
            changed: Vec::new(),
            open_questions: Vec::new(),
            review: ReviewState::default(),
            last_commit: None,
            committing: false,
            metrics: Metrics::default(),
            activity: Default::default(),
            notice: None,
            warning: None,
            reflection: None,
            plan: None,
            outcome: None,
            screen: Screen::Workbench,
            old_cycle: None,
            wanted_commit: None,
            last_search: String::new(),
            search_origin: None,
            search_status: None,
            deleted: None,
            verdict: Verdict::None,
            spinner: 0,
            areas: HitAreas::default(),
            read_only: None,
            redraw_soon: false,
            live: None,
            last_call: 0,
            intents: Vec::new(),
            marks: Default::default(),
            cost: CostMeter::default(),
        }
    }

    /// Restores a saved draft (on `volk open`).
    pub fn restore_draft(&mut self, draft: Draft) {
        self.draft = draft;
    }

    /// Shows a finished cycle (a restored session, or the runtime's report).
    pub fn show_artifacts(&mut self, cycle: u32, artifacts: Artifacts) {
        for section in Section::ALL {
            self.docs[section.index()].set_text(artifacts.get(section));
        }
        self.open_questions = open_questions(&artifacts.architecture);
        self.artifacts = artifacts;
        self.cycle = cycle;
    }

    /// An artifact came back from the person's editor: shown now, committed as a
    /// reviewer edit when the verdict is sent.
    pub fn edited_by_hand(&mut self, section: Section, text: &str) {
        if self.artifacts.get(section) == text {
            self.notice = Some(format!("{}: no change", section.file_name()));
            return;
        }
        self.docs[section.index()].set_text(text);
        self.artifacts.set(section, text.to_string());
        self.notice = Some(format!(
            "design/{} edited: it is committed as your edit and kept through the next cycle",
            section.file_name()
        ));
        self.clamp_views();
    }

    /// What the running update did to `section` so far (tab title), when it patches it.
    pub fn patch_label(&self, section: Section) -> Option<String> {
        self.live.as_ref()?.patch.as_ref()?.label(section)
    }

    /// True when the tab shows a section being patched: the view follows the block
    /// being written rather than the end of the text.
    pub fn follows_edit(&self, tab: usize) -> bool {
        Section::ALL
            .get(tab)
            .is_some_and(|s| self.patch_label(*s).is_some())
    }

    /// Intents produced since the last call.
    pub fn take_intents(&mut self) -> Vec<Intent> {
        let mut intents = std::mem::take(&mut self.intents);
        if let Some(holder) = &self.read_only {
            let before = intents.len();
            intents.retain(|i| {
                matches!(
                    i,
                    Intent::LoadHistory | Intent::LoadCommit { .. } | Intent::Quit
                )
            });
            if intents.len() < before {
                self.notice = Some(format!(
                    "read-only: {holder} holds this thread; nothing was sent"
                ));
            }
        }
        intents
    }

    /// The section being written by the running call, if any.
    pub fn streaming_section(&self) -> Option<Section> {
        self.live
            .as_ref()
            .filter(|l| matches!(l.purpose, Purpose::Design | Purpose::Update))
            .and_then(|l| l.parser().growing())
    }

    pub fn is_streaming(&self) -> bool {
        self.live.is_some()
    }

    /// The document on the current tab (an old cycle's when one is open; the raw
    /// answer on every artifact tab while it has no section).
    pub fn current_doc(&self) -> &Document {
        match (&self.old_cycle, Section::ALL.get(self.tab)) {
            (Some(old), Some(section)) => &old.docs[section.index()],
            (None, Some(_)) if self.raw.shown() => &self.raw.doc,
            (None, Some(section)) => &self.docs[section.index()],
            _ => &self.journal,
        }
    }

    pub fn current_doc_mut(&mut self) -> &mut Document {
        match (&mut self.old_cycle, Section::ALL.get(self.tab)) {
            (Some(old), Some(section)) => &mut old.docs[section.index()],
            (None, Some(_)) if self.raw.shown() => &mut self.raw.doc,
            (None, Some(section)) => &mut self.docs[section.index()],
            _ => &mut self.journal,
        }
    }

    pub fn tick(&mut self) {
        self.spinner = self.spinner.wrapping_add(1);
        self.activity.tick(Instant::now());
    }

    // ----- events from the loop -----

    pub fn on_app_event(&mut self, event: AppEvent) {
        match event {
            AppEvent::Loop(LoopEvent::Phase(phase)) => self.on_phase(phase),
            AppEvent::Loop(LoopEvent::CallStarted { call, .. }) => {
                self.activity.started(call, Instant::now())
            }
            AppEvent::Loop(LoopEvent::Delta {
                call,
                purpose,
                event,
            }) => self.on_delta(call, purpose, event),
            AppEvent::Loop(LoopEvent::CycleReady {
                cycle,
                artifacts,
                changed,
            }) => {
                self.sync_stream();
                self.live = None;
                self.marks = Default::default();
                if !self.artifacts.is_empty() && self.artifacts != artifacts {
                    self.previous = Some(self.artifacts.clone());
                }
                self.show_artifacts(cycle, artifacts);
                self.changed = changed;
                self.committing = true;
                if self.tab_follow == Follow::Stream {
                    self.tab = 0;
                }
                self.draft.cycle = cycle;
                for view in &mut self.views {
                    view.follow = Follow::Stream;
                }
                self.clamp_views();
            }
            AppEvent::Loop(LoopEvent::DesignFinalized { .. }) => self.committing = true,
            AppEvent::Loop(LoopEvent::Committed { short_id, .. }) => {
                self.committing = false;
                self.last_commit = Some(short_id);
            }
            AppEvent::Loop(LoopEvent::Reflection { questions, answers }) => {
                self.live = None;
                self.reflection = Some(ReflectionView { questions, answers });
            }
            AppEvent::Loop(LoopEvent::Plan(check)) => {
                self.live = None;
                self.plan = Some(check);
            }
            AppEvent::Loop(LoopEvent::PacketWritten { path, subject }) => {
                if subject == "implement" {
                    self.outcome = Some(Outcome {
                        packet_path: path,
                        subject,
                    });
                }
            }
            AppEvent::Loop(LoopEvent::Metrics {
                ttft_ms,
                tokens_per_sec,
            }) => {
                self.activity.ended();
                self.metrics = Metrics {
                    ttft_ms: ttft_ms.or(self.metrics.ttft_ms),
                    tokens_per_sec: tokens_per_sec.or(self.metrics.tokens_per_sec),
                    reported: true,
                };
            }
            AppEvent::Loop(LoopEvent::Error { message, retryable }) => {
                self.live = None;
                self.activity.ended();
                self.verdict = Verdict::None;
                self.notice = Some(message.clone());
                self.popup = Some(Popup::Error { message, retryable });
            }
            AppEvent::Loop(LoopEvent::Journal(value)) => {
                self.cost.on_journal(&value);
                if self.journal.is_empty() {
                    self.journal
                        .append_lines(&format!("{}\n", crate::tui::timeline::header()));
                }
                let line = crate::tui::timeline::line(&value);
                self.journal.append_lines(&format!("{line}\n"));
            }
            AppEvent::Loop(LoopEvent::History(commits)) => {
                if let Some(Popup::History { commits: slot, .. }) = &mut self.popup {
                    *slot = Some(commits);
                }
            }
            AppEvent::Loop(LoopEvent::OldCycle {
                short_id,
                summary,
                artifacts,
            }) => {
                if self.wanted_commit.as_deref() != Some(short_id.as_str()) {
                    return; // superseded by a later Enter, or the popup was closed
                }
                self.wanted_commit = None;
                let mut docs = new_docs(&self.theme);
                for doc in &mut docs {
                    doc.set_rendering(self.rendering);
                }
                for section in Section::ALL {
                    docs[section.index()].set_text(artifacts.get(section));
                }
                self.old_cycle = Some(OldCycle {
                    short_id,
                    summary,
                    docs,
                });
                self.popup = None;
                self.clamp_views();
            }
            AppEvent::Loop(LoopEvent::PreviousCycle(artifacts)) => {
                if self.previous.is_none() {
                    self.previous = Some(artifacts);
                }
            }
            AppEvent::JobFailed(message) | AppEvent::Loop(LoopEvent::QueryFailed(message)) => {
                self.notice = Some(message)
            }
            AppEvent::Loop(LoopEvent::Review(state)) => self.review = *state,
            AppEvent::Loop(LoopEvent::Notice(line)) => {
                self.notice = Some(without_trace(line.trim_start_matches("[U:Ar]").trim()));
            }
            AppEvent::Loop(LoopEvent::Noticed(notice)) => {
                let full = notice.to_string();
                let full = full.trim_start_matches("[U:Ar]").trim();
                // The summary's warning keeps the trace id; the status bar does not.
                let line = without_trace(full);
                match notice {
                    Notice::CycleLimit { .. } => self.warning = Some(full.to_string()),
                    Notice::Cancelled { questions } => {
                        // Back in the review pane, in the order sent, ahead of any
                        // question written since.
                        let back: Vec<Question> = questions
                            .into_iter()
                            .filter(|q| !self.draft.questions.contains(q))
                            .collect();
                        if !back.is_empty() {
                            self.draft.questions.splice(0..0, back);
                            self.draft_changed = true;
                        }
                    }
                }
                self.notice = Some(line);
            }
        }
    }

    fn on_phase(&mut self, phase: Phase) {
        self.verdict = Verdict::None;
        if !phase.is_busy() {
            self.activity.ended();
        }
        match &phase {
            Phase::Designing { cycle } => {
                self.cycle = *cycle;
                self.metrics = Metrics::default();
            }
            Phase::Reflecting | Phase::Planning { .. } => {
                self.side_stream.clear();
                self.metrics = Metrics::default();
            }
            Phase::AwaitingReview { cycle } => self.cycle = *cycle,
            Phase::Finalized => {
                self.live = None;
                self.screen = Screen::Summary;
                self.popup = None;
            }
            Phase::Cancelled { .. } => self.live = None,
            Phase::Failed {
                message, retryable, ..
            } => {
                self.live = None;
                self.popup = Some(Popup::Error {
                    message: message.clone(),
                    retryable: *retryable,
                });
            }
            _ => {}
        }
        self.phase = phase;
    }

    fn on_delta(&mut self, call: u64, purpose: Purpose, event: StreamEvent) {
        if call < self.last_call {
            return; // a superseded call: drop its pieces
        }
        self.activity.delta(call, &event, Instant::now());
        if let StreamEvent::Retrying(_) = event {
            return; // the activity line says it; the call has no text yet
        }
        if call > self.last_call || self.live.is_none() {
            if call == self.last_call && self.live.is_none() {
                // The call already finished; late pieces are stale.
                if !matches!(
                    event,
                    StreamEvent::Text { .. } | StreamEvent::Thinking { .. }
                ) {
                    return;
                }
            }
            self.begin_call(call, purpose);
        }
        let Some(live) = self.live.as_mut() else {
            return;
        };
        match event {
            StreamEvent::Text { text } => {
                live.chars += text.len();
                match live.purpose {
                    Purpose::Design | Purpose::Update => {
                        if let Some(s) = live.parser().growing() {
                            live.touched[s.index()] = true;
                        }
                        let growing = match &mut live.patch {
                            Some(patch) => patch.feed(&text),
                            None => live.parser.feed(&text),
                        };
                        if let Some(s) = growing {
                            live.touched[s.index()] = true;
                            self.raw.sectioned = true;
                        } else if !self.raw.sectioned && live.patch.is_none() {
                            // (An update drawn on the current design shows that instead.)
                            self.raw.push(&text);
                        }
                    }
                    Purpose::Reflect | Purpose::Plan => self.side_stream.push_str(&text),
                }
                let secs = live.started.elapsed().as_secs_f64();
                if !self.metrics.reported && secs > 0.2 {
                    self.metrics.tokens_per_sec = Some(live.chars as f64 / 4.0 / secs);
                }
            }
            StreamEvent::Thinking { text } => self.thinking.push_str(&text),
            StreamEvent::Usage { .. } | StreamEvent::Retrying(_) => {}
            StreamEvent::Finished { .. } => self.sync_stream(),
        }
    }

    fn begin_call(&mut self, call: u64, purpose: Purpose) {
        self.last_call = call;
        self.thinking.clear();
        // An update is drawn on the design it revises: after a first answer whose
        // blocks failed, that is the design the answer left (the repair's base).
        let patch = (purpose == Purpose::Update).then(|| {
            let current = match self.live.as_ref().and_then(|l| l.patch.as_ref()) {
                Some(previous) => previous.design(),
                None => self.artifacts.clone(),
            };
            LivePatch::new(current)
        });
        if matches!(purpose, Purpose::Design | Purpose::Update) {
            if patch.is_none() {
                for doc in &mut self.docs {
                    doc.clear();
                }
            }
            self.raw.clear();
            self.marks = Default::default();
            for view in &mut self.views[..5] {
                *view = ViewState::default();
            }
            self.changed.clear();
            self.tab_follow = Follow::Stream;
        }
        self.live = Some(LiveCall {
            purpose,
            parser: SectionParser::new(),
            consumed: [0; 5],
            touched: [false; 5],
            started: Instant::now(),
            chars: 0,
            patch,
        });
    }

    /// Moves newly completed lines from the parser into the documents. Called once
    /// per frame, not per delta, so a fast stream costs one copy per frame.
    pub fn sync_stream(&mut self) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        let growing = live.parser().growing();
        for section in Section::ALL {
            let i = section.index();
            if !live.touched[i] {
                continue;
            }
            live.touched[i] = false;
            if let Some(patch) = live.patch.as_mut() {
                let doc = &mut self.docs[i];
                let synced = patch.sync(section, doc, &mut self.marks[i], &mut live.consumed[i]);
                if synced == Synced::Done {
                    if Some(section) == growing {
                        live.touched[i] = true; // the pending block keeps changing
                    }
                    continue;
                }
            }
            let parser = match &live.patch {
                Some(patch) => patch.parser(),
                None => &live.parser,
            };
            let committed = parser.committed(section);
            let doc = &mut self.docs[i];
            if committed.len() > live.consumed[i] {
                let mut fresh = &committed[live.consumed[i]..];
                if doc.lines().is_empty() {
                    // Leading blank lines are trimmed from the finished section too.
                    let blank =
                        fresh.len() - fresh.trim_start_matches(['\n', ' ', '\t', '\r']).len();
                    let cut = fresh[..blank].rfind('\n').map_or(0, |p| p + 1);
                    fresh = &fresh[cut..];
                }
                doc.append_lines(fresh);
                live.consumed[i] = committed.len();
            }
            if Some(section) == growing {
                doc.set_tail(parser.tail());
                live.touched[i] = true; // the tail keeps changing
            } else {
                doc.set_tail("");
            }
        }
        if let (Follow::Stream, Some(section), None) = (self.tab_follow, growing, &self.old_cycle)
            && live.purpose != Purpose::Reflect
            && live.purpose != Purpose::Plan
        {
            self.tab = section.index();
        }
        // Follow the stream on every tab that is not scrolled away.
        for section in Section::ALL {
            let i = section.index();
            let len = self.docs[i].len();
            let focus = live.patch.as_ref().and_then(|p| p.focus(section));
            let view = &mut self.views[i];
            if view.follow == Follow::Stream {
                view.cursor = focus.unwrap_or(usize::MAX).min(len.saturating_sub(1));
            }
        }
    }

    fn clamp_views(&mut self) {
        for (i, view) in self.views.iter_mut().enumerate() {
            let len = match (&self.old_cycle, Section::ALL.get(i)) {
                (Some(old), Some(s)) => old.docs[s.index()].len(),
                (None, Some(s)) => self.docs[s.index()].len(),
                _ => self.journal.len(),
            };
            if view.follow == Follow::Stream && self.live.is_none() && self.old_cycle.is_none() {
                // A finished cycle opens at the top.
                view.cursor = 0;
                view.top = 0;
                view.follow = Follow::Manual;
            }
            view.cursor = view.cursor.min(len.saturating_sub(1));
            view.top = view.top.min(view.cursor);
        }
    }

    // ----- terminal input -----

    pub fn on_terminal_event(&mut self, event: Event) {
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key),
            Event::Mouse(mouse) => self.on_mouse(mouse),
            Event::Paste(text) => {
                if let Some(Popup::Composer { editor, .. }) = &mut self.popup {
                    // Terminals send a pasted line break as CR (or CR LF).
                    editor.insert_str(text.replace("\r\n", "\n").replace('\r', "\n"));
                    self.composer_changed();
                }
            }
            _ => {}
        }
    }

    pub fn on_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl
            && key.code == KeyCode::Char('c')
            && !matches!(self.popup, Some(Popup::Composer { .. }))
        {
            if matches!(self.popup, Some(Popup::ConfirmQuit { .. })) {
                // The second Ctrl-C: quit without another question.
                self.popup = None;
                if self.phase.is_busy() {
                    self.intents.push(Intent::Act(Action::Cancel));
                }
                self.intents.push(Intent::Quit);
            } else {
                self.request_quit();
            }
            return;
        }
        if self.popup.is_some() {
            self.on_popup_key(key);
            return;
        }
        if self.screen == Screen::Summary {
            match key.code {
                KeyCode::Char('q') => self.intents.push(Intent::Quit),
                KeyCode::Enter | KeyCode::Esc => self.screen = Screen::Workbench,
                KeyCode::Char('?') => self.popup = Some(Popup::Help { scroll: 0 }),
                _ => {}
            }
            return;
        }
        if ctrl {
            match key.code {
                KeyCode::Char('s') => self.send_questions(),
                KeyCode::Char('r') => self.ask_ready(),
                KeyCode::Char('d') => self.page(1, 2),
                KeyCode::Char('u') => self.page(-1, 2),
                _ => {}
            }
            return;
        }
        match key.code {
            KeyCode::Char('q') => self.request_quit(),
            KeyCode::Char('?') => self.popup = Some(Popup::Help { scroll: 0 }),
            KeyCode::Esc => {
                if self.old_cycle.take().is_some() {
                    self.clamp_views();
                } else {
                    self.focus = Focus::Viewer;
                }
            }
            KeyCode::Char(c @ '1'..='6') => self.pick_tab(c as usize - '1' as usize),
            KeyCode::Tab => self.pick_tab((self.tab + 1) % TAB_COUNT),
            KeyCode::BackTab => self.pick_tab((self.tab + TAB_COUNT - 1) % TAB_COUNT),
            KeyCode::Char('f') => {
                self.focus = match self.focus {
                    Focus::Viewer => Focus::Review,
                    Focus::Review => Focus::Viewer,
                }
            }
            KeyCode::Char('a') => self.open_composer(ComposerTarget::NewQuestion { anchor: None }),
            KeyCode::Char('c') => {
                let anchor = self.anchor_at_cursor();
                if anchor.is_some() {
                    self.open_composer(ComposerTarget::NewQuestion { anchor });
                } else {
                    self.notice = Some("c: put the cursor on an artifact line first".into());
                }
            }
            KeyCode::Char('d') => self.open_diff(),
            KeyCode::Char('S') if self.old_cycle.is_none() => self.toggle_settled(),
            KeyCode::Char('E') if !matches!(self.phase, Phase::AwaitingReview { .. }) => {
                self.notice = Some("E: edit once the cycle waits for your review".into());
            }
            KeyCode::Char('E') if self.old_cycle.is_none() => {
                if let Some(section) = Section::ALL.get(self.tab).copied() {
                    self.intents.push(Intent::EditArtifact {
                        section,
                        line: self.views[self.tab].cursor + 1,
                    });
                }
            }
            KeyCode::Char('h') => {
                self.popup = Some(Popup::History {
                    commits: None,
                    selected: 0,
                });
                self.intents.push(Intent::LoadHistory);
            }
            KeyCode::Char('w') => {
                self.wrap = match self.wrap {
                    Wrap::Soft => Wrap::Off,
                    Wrap::Off => Wrap::Soft,
                };
                self.notice = Some(match self.wrap {
                    Wrap::Soft => "w: wrap on (at words)".into(),
                    Wrap::Off => "w: wrap off (←/→ scroll sideways)".into(),
                });
            }
            KeyCode::Char('m') => {
                self.rendering = match self.rendering {
                    Rendering::Rendered => Rendering::Source,
                    Rendering::Source => Rendering::Rendered,
                };
                let rendering = self.rendering;
                let old = self.old_cycle.iter_mut().flat_map(|o| o.docs.iter_mut());
                for doc in self.docs.iter_mut().chain(old).chain([&mut self.raw.doc]) {
                    doc.set_rendering(rendering);
                }
                self.notice = Some(match rendering {
                    Rendering::Rendered => "m: Markdown drawn as a document".into(),
                    Rendering::Source => "m: Markdown shown as source".into(),
                });
            }
            KeyCode::Char('l') => {
                self.gutter = match self.gutter {
                    Gutter::Numbers => Gutter::Hidden,
                    Gutter::Hidden => Gutter::Numbers,
                };
                self.notice = Some(match self.gutter {
                    Gutter::Numbers => "l: line numbers shown".into(),
                    Gutter::Hidden => "l: line numbers hidden".into(),
                });
            }
            KeyCode::Char('t') => {
                self.thinking_pane = match self.thinking_pane {
                    ThinkingPane::Shown => ThinkingPane::Collapsed,
                    ThinkingPane::Collapsed => ThinkingPane::Shown,
                }
            }
            KeyCode::Char('/') => {
                self.search_origin = Some((
                    self.views[self.tab].cursor,
                    std::mem::take(&mut self.last_search),
                ));
                self.search_status = None;
                self.popup = Some(Popup::Search {
                    query: String::new(),
                })
            }
            KeyCode::Char('u') if self.deleted.is_some() => self.undo_delete(),
            KeyCode::Char('n') => self.search_next(false),
            KeyCode::Char('N') => self.search_next(true),
            KeyCode::Char('r') if self.phase.can_retry() => {
                self.intents.push(Intent::Act(Action::Retry))
            }
            KeyCode::Char('x')
                if self.focus == Focus::Viewer && self.phase.is_busy() && self.live.is_some() =>
            {
                self.intents.push(Intent::Act(Action::Cancel));
                self.notice = Some("cancelling the running call".into());
            }
            KeyCode::Enter if self.phase == Phase::AwaitingFinalize => {
                self.intents.push(Intent::Act(Action::Finalize));
                self.verdict = Verdict::Sent;
            }
            KeyCode::Char('y') if self.phase == Phase::AwaitingPlanApproval => {
                self.intents.push(Intent::Act(Action::ApprovePlan));
                self.verdict = Verdict::Sent;
            }
            KeyCode::Char('s') if self.phase == Phase::AwaitingPlanApproval => {
                self.open_composer(ComposerTarget::Steer)
            }
            _ => match self.focus {
                Focus::Viewer => self.on_viewer_key(key),
                Focus::Review => self.on_review_key(key),
            },
        }
    }

    fn on_viewer_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Left | KeyCode::Right if self.wrap == Wrap::Soft => {
                self.notice = Some("←/→ scroll sideways with wrap off (w)".into());
            }
            KeyCode::Left => {
                let view = &mut self.views[self.tab];
                view.left = view.left.saturating_sub(SIDE_STEP);
            }
            KeyCode::Right => {
                let widest = self.current_doc().widest();
                let view = &mut self.views[self.tab];
                view.left = (view.left + SIDE_STEP).min(widest.saturating_sub(1));
            }
            KeyCode::Down | KeyCode::Char('j') => self.move_cursor(1),
            KeyCode::Up | KeyCode::Char('k') => self.move_cursor(-1),
            KeyCode::PageDown | KeyCode::Char(' ') => self.page(1, 1),
            KeyCode::PageUp => self.page(-1, 1),
            KeyCode::Home | KeyCode::Char('g') => {
                let view = &mut self.views[self.tab];
                view.cursor = 0;
                view.top = 0;
                view.follow = Follow::Manual;
            }
            KeyCode::End | KeyCode::Char('G') => {
                let len = self.current_doc().len();
                let view = &mut self.views[self.tab];
                view.cursor = len.saturating_sub(1);
                view.follow = Follow::Stream;
            }
            _ => {}
        }
    }

    fn review_items(&self) -> usize {
        self.draft.questions.len() + self.open_questions.len() + self.review.threads.len()
    }

    /// The thread under the review pane's cursor, if the cursor is on one.
    fn selected_thread(&self) -> Option<String> {
        let first = self.draft.questions.len() + self.open_questions.len();
        let i = self.review_selected.checked_sub(first)?;
        crate::tui::threads::ordered(&self.review.threads)
            .get(i)
            .map(|t| t.id.clone())
    }

    /// `S`: settles the requirement or ADR the cursor line defines, else the artifact
    /// of the tab; settled already, it is unsettled.
    fn toggle_settled(&mut self) {
        let Some(section) = Section::ALL.get(self.tab).copied() else {
            return;
        };
        let line = self
            .current_doc()
            .lines()
            .get(self.views[self.tab].cursor)
            .cloned()
            .unwrap_or_default();
        let mark = crate::design::settled::item_on_line(&line)
            .unwrap_or(crate::design::settled::Mark::Artifact(section));
        let label = mark.label();
        let mut marks = crate::cxp::ReviewMarks::default();
        if self.review.settled.contains(&label) {
            self.notice = Some(format!("{label} is no longer settled"));
            marks.unsettled.push(label);
        } else {
            self.notice = Some(format!("{label} settled: the architect may not change it"));
            marks.settled.push(label);
        }
        self.intents.push(Intent::Act(Action::Mark(marks)));
    }

    fn on_review_key(&mut self, key: KeyEvent) {
        let count = self.review_items();
        match key.code {
            KeyCode::Down | KeyCode::Char('j') if count > 0 => {
                self.review_selected = (self.review_selected + 1).min(count - 1);
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.review_selected = self.review_selected.saturating_sub(1)
            }
            KeyCode::Enter | KeyCode::Char('e') if self.selected_thread().is_some() => {
                if let Some(id) = self.selected_thread() {
                    self.open_thread(id);
                }
            }
            KeyCode::Char('o') if self.selected_thread().is_some() => {
                if let Some(id) = self.selected_thread() {
                    self.open_composer(ComposerTarget::FollowUp(id));
                }
            }
            KeyCode::Delete | KeyCode::Char('x') if self.selected_thread().is_some() => {
                if let Some(id) = self.selected_thread() {
                    self.notice = Some(format!("{id} closed"));
                    self.intents
                        .push(Intent::Act(Action::Mark(crate::cxp::ReviewMarks {
                            close: vec![id],
                            ..Default::default()
                        })));
                }
            }
            KeyCode::Enter | KeyCode::Char('e') => {
                let n = self.draft.questions.len();
                if self.review_selected < n {
                    self.open_composer(ComposerTarget::EditQuestion(self.review_selected));
                } else if let Some(q) = self.open_questions.get(self.review_selected - n) {
                    let question = q.clone();
                    self.open_composer(ComposerTarget::Answer { question });
                }
            }
            KeyCode::Delete | KeyCode::Char('x') => {
                let n = self.draft.questions.len();
                if self.review_selected < n {
                    let removed = self.draft.questions.remove(self.review_selected);
                    self.deleted = Some((self.review_selected, removed));
                    self.notice = Some("question deleted · u undoes".into());
                    self.draft_changed = true;
                    self.review_selected = self
                        .review_selected
                        .min(self.review_items().saturating_sub(1));
                }
            }
            _ => {}
        }
    }

    fn on_popup_key(&mut self, key: KeyEvent) {
        let Some(popup) = self.popup.take() else {
            return;
        };
        self.popup = match popup {
            Popup::Composer { target, editor } => return self.on_composer_key(key, target, editor),
            Popup::Help { scroll } => match key.code {
                KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') => None,
                KeyCode::Down | KeyCode::Char('j') => Some(Popup::Help { scroll: scroll + 1 }),
                KeyCode::Up | KeyCode::Char('k') => Some(Popup::Help {
                    scroll: scroll.saturating_sub(1),
                }),
                _ => Some(Popup::Help { scroll }),
            },
            Popup::Search { mut query } => match key.code {
                KeyCode::Esc => {
                    // Back to where the search started, and to the search before.
                    if let Some((cursor, previous)) = self.search_origin.take() {
                        self.views[self.tab].cursor = cursor;
                        self.last_search = previous;
                    }
                    self.search_status = None;
                    None
                }
                KeyCode::Enter => {
                    self.search_origin = None;
                    self.last_search = query;
                    None
                }
                KeyCode::Backspace | KeyCode::Char(_) => {
                    match key.code {
                        KeyCode::Char(c) => query.push(c),
                        _ => {
                            query.pop();
                        }
                    }
                    self.search_as_typed(&query);
                    Some(Popup::Search { query })
                }
                _ => Some(Popup::Search { query }),
            },
            Popup::ConfirmReady => match key.code {
                KeyCode::Char('y') | KeyCode::Enter => {
                    self.intents
                        .push(Intent::Act(Action::Review(Feedback::ready(self.cycle))));
                    self.verdict = Verdict::Sent;
                    None
                }
                _ => None,
            },
            Popup::ConfirmQuit { reason } => match key.code {
                KeyCode::Char('y') | KeyCode::Enter => {
                    if self.phase.is_busy() {
                        self.intents.push(Intent::Act(Action::Cancel));
                    }
                    self.intents.push(Intent::Quit);
                    None
                }
                KeyCode::Char('n') | KeyCode::Esc => None,
                _ => Some(Popup::ConfirmQuit { reason }),
            },
            Popup::Diff {
                section,
                lines,
                scroll,
            } => {
                let step = self.areas.viewer.height.max(1) as usize;
                match key.code {
                    KeyCode::Esc | KeyCode::Char('d') | KeyCode::Char('q') => None,
                    KeyCode::Down | KeyCode::Char('j') => Some(Popup::Diff {
                        section,
                        scroll: (scroll + 1).min(lines.len().saturating_sub(1)),
                        lines,
                    }),
                    KeyCode::Up | KeyCode::Char('k') => Some(Popup::Diff {
                        section,
                        lines,
                        scroll: scroll.saturating_sub(1),
                    }),
                    KeyCode::PageDown | KeyCode::Char(' ') => Some(Popup::Diff {
                        section,
                        scroll: (scroll + step).min(lines.len().saturating_sub(1)),
                        lines,
                    }),
                    KeyCode::PageUp => Some(Popup::Diff {
                        section,
                        lines,
                        scroll: scroll.saturating_sub(step),
                    }),
                    _ => Some(Popup::Diff {
                        section,
                        lines,
                        scroll,
                    }),
                }
            }
            Popup::History { commits, selected } => {
                let count = commits.as_ref().map_or(0, Vec::len);
                match key.code {
                    KeyCode::Esc | KeyCode::Char('h') | KeyCode::Char('q') => {
                        self.wanted_commit = None;
                        None
                    }
                    KeyCode::Down | KeyCode::Char('j') => Some(Popup::History {
                        commits,
                        selected: (selected + 1).min(count.saturating_sub(1)),
                    }),
                    KeyCode::Up | KeyCode::Char('k') => Some(Popup::History {
                        commits,
                        selected: selected.saturating_sub(1),
                    }),
                    KeyCode::Enter => {
                        if let Some(c) = commits.as_ref().and_then(|c| c.get(selected)) {
                            self.wanted_commit = Some(c.short_id.clone());
                            self.intents.push(Intent::LoadCommit {
                                id: c.id.clone(),
                                short_id: c.short_id.clone(),
                                summary: c.summary.clone(),
                            });
                        }
                        Some(Popup::History { commits, selected })
                    }
                    _ => Some(Popup::History { commits, selected }),
                }
            }
            Popup::Error { message, retryable } => match key.code {
                KeyCode::Char('r') if retryable => {
                    self.intents.push(Intent::Act(Action::Retry));
                    self.notice = None;
                    None
                }
                KeyCode::Esc | KeyCode::Enter => None,
                KeyCode::Char('q') => {
                    self.request_quit();
                    return;
                }
                _ => Some(Popup::Error { message, retryable }),
            },
        };
    }

    fn on_composer_key(
        &mut self,
        key: KeyEvent,
        target: ComposerTarget,
        mut editor: Box<TextArea<'static>>,
    ) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Esc => {
                // Closing keeps the words: a new question stays in the composer draft,
                // edits and answers were saved as they were typed.
                self.popup = None;
                return;
            }
            KeyCode::Enter if !alt && !key.modifiers.contains(KeyModifiers::SHIFT) => {
                self.submit_composer(target, editor.lines().join("\n"));
                return;
            }
            KeyCode::Char('j') if ctrl => editor.insert_newline(),
            KeyCode::Char('l') if ctrl => {
                // Clears the composer; the text goes to the yank buffer (Ctrl-Y).
                editor.select_all();
                editor.cut();
                self.notice = Some("composer cleared · Ctrl-Y brings it back".into());
            }
            KeyCode::Enter => editor.insert_newline(),
            KeyCode::Char('s') if ctrl => {
                self.submit_composer(target.clone(), editor.lines().join("\n"));
                if self.popup.is_none() {
                    self.send_questions();
                }
                return;
            }
            _ => {
                editor.input(key);
            }
        }
        self.popup = Some(Popup::Composer { target, editor });
        self.composer_changed();
    }

    /// Writes what the composer holds through to the draft, on every keystroke.
    fn composer_changed(&mut self) {
        let Some(Popup::Composer { target, editor }) = &self.popup else {
            return;
        };
        let text = editor.lines().join("\n");
        match target {
            ComposerTarget::NewQuestion { .. } => self.draft.composer = text,
            ComposerTarget::EditQuestion(i) => {
                if let Some(q) = self.draft.questions.get_mut(*i) {
                    q.text = text;
                }
            }
            ComposerTarget::Answer { question } => {
                let question = question.clone();
                self.draft.set_answer(&question, text);
            }
            ComposerTarget::Steer | ComposerTarget::FollowUp(_) => return,
        }
        self.draft_changed = true;
    }

    fn submit_composer(&mut self, target: ComposerTarget, text: String) {
        let text = text.trim().to_string();
        match target {
            ComposerTarget::NewQuestion { anchor } => {
                if !text.is_empty() {
                    self.draft.questions.push(Question {
                        text,
                        anchor,
                        ..Question::default()
                    });
                }
                self.draft.composer.clear();
            }
            ComposerTarget::EditQuestion(i) => {
                if text.is_empty() && i < self.draft.questions.len() {
                    self.draft.questions.remove(i);
                } else if let Some(q) = self.draft.questions.get_mut(i) {
                    q.text = text;
                }
            }
            ComposerTarget::Answer { question } => self.draft.set_answer(&question, text),
            ComposerTarget::Steer => {
                if !text.is_empty() {
                    self.intents.push(Intent::Act(Action::SteerPlan(text)));
                    self.verdict = Verdict::Sent;
                }
            }
            ComposerTarget::FollowUp(id) => {
                if !text.is_empty() {
                    self.draft.questions.push(Question {
                        follows: Some(id),
                        ..Question::new(text)
                    });
                }
            }
        }
        self.draft_changed = true;
        self.popup = None;
    }

    fn open_composer(&mut self, target: ComposerTarget) {
        let initial = match &target {
            ComposerTarget::NewQuestion { .. } => self.draft.composer.clone(),
            ComposerTarget::EditQuestion(i) => self
                .draft
                .questions
                .get(*i)
                .map(|q| q.text.clone())
                .unwrap_or_default(),
            ComposerTarget::Answer { question } => self
                .draft
                .answer_for(question)
                .unwrap_or_default()
                .to_string(),
            ComposerTarget::Steer | ComposerTarget::FollowUp(_) => String::new(),
        };
        let mut editor = TextArea::new(initial.split('\n').map(str::to_string).collect());
        editor.set_wrap_mode(WrapMode::Word);
        editor.move_cursor(ratatui_textarea::CursorMove::Bottom);
        editor.move_cursor(ratatui_textarea::CursorMove::End);
        self.popup = Some(Popup::Composer {
            target,
            editor: Box::new(editor),
        });
    }

    fn anchor_at_cursor(&self) -> Option<Anchor> {
        let section = *Section::ALL.get(self.tab)?;
        let cursor = self.views[self.tab].cursor;
        let quote = self.current_doc().lines().get(cursor)?.clone();
        Some(Anchor {
            section,
            line: cursor + 1,
            quote,
        })
    }

    fn send_questions(&mut self) {
        let cycle = match self.phase.reviewed_cycle() {
            Some(cycle) if self.verdict != Verdict::Sent => cycle,
            _ => {
                self.notice = Some("Ctrl-S: wait until the cycle is ready for review".into());
                return;
            }
        };
        if !self.draft.composer.trim().is_empty() {
            let text = std::mem::take(&mut self.draft.composer).trim().to_string();
            self.draft.questions.push(Question::new(text));
        }
        if self.draft.questions.is_empty() {
            self.notice = Some("Ctrl-S: add a question first (a), or answer READY (Ctrl-R)".into());
            return;
        }
        let questions = self.draft.questions.to_vec();
        let answers: Vec<Answer> = self
            .draft
            .answers
            .iter()
            .filter(|a| self.open_questions.contains(&a.question))
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
        self.review_selected = 0;
        self.notice = Some("questions sent".into());
    }

    fn ask_ready(&mut self) {
        if !matches!(self.phase, Phase::AwaitingReview { .. }) || self.verdict == Verdict::Sent {
            self.notice = Some("Ctrl-R: wait until the cycle is ready for review".into());
            return;
        }
        self.popup = Some(Popup::ConfirmReady);
    }

    fn request_quit(&mut self) {
        let reason = if self.draft.is_unsent() && self.screen == Screen::Workbench {
            Some("Your draft is not sent (it stays saved for `volk open`).")
        } else if self.phase.is_busy() && self.live.is_some() {
            Some("The architect is still working; quitting stops the call.")
        } else {
            None
        };
        match reason {
            Some(reason) => {
                self.popup = Some(Popup::ConfirmQuit {
                    reason: reason.to_string(),
                })
            }
            None => self.intents.push(Intent::Quit),
        }
    }

    fn open_diff(&mut self) {
        let Some(section) = Section::ALL.get(self.tab).copied() else {
            self.notice = Some("d: the journal has no diff".into());
            return;
        };
        self.open_diff_for(section, false);
    }

    /// The diff of `section` against the previous cycle; `at_change` scrolls to the
    /// first changed hunk (a thread's answer).
    fn open_diff_for(&mut self, section: Section, at_change: bool) {
        let Some(previous) = &self.previous else {
            self.notice = Some("d: no earlier cycle to compare with yet".into());
            return;
        };
        let lines = diff_lines(previous.get(section), self.artifacts.get(section));
        let scroll = if at_change {
            lines
                .iter()
                .position(|l| {
                    matches!(
                        l.kind,
                        crate::tui::diff::DiffKind::Added | crate::tui::diff::DiffKind::Removed
                    )
                })
                .map_or(0, |i| i.saturating_sub(2))
        } else {
            0
        };
        self.popup = Some(Popup::Diff {
            section,
            lines,
            scroll,
        });
    }

    /// Enter on a thread: an addressed one opens the diff at the change that answers
    /// it; any other is reopened with a follow-up question.
    fn open_thread(&mut self, id: String) {
        let answered_in = self
            .review
            .threads
            .iter()
            .find(|t| t.id == id)
            .and_then(|t| t.changes.first())
            .and_then(|c| Section::from_key(&c.artifact));
        match answered_in {
            Some(section) if self.previous.is_some() => self.open_diff_for(section, true),
            _ => self.open_composer(ComposerTarget::FollowUp(id)),
        }
    }

    /// The person chose a tab: stop moving tabs with the stream.
    fn pick_tab(&mut self, tab: usize) {
        self.tab_follow = Follow::Manual;
        self.select_tab(tab);
    }

    pub fn select_tab(&mut self, tab: usize) {
        if tab < TAB_COUNT {
            self.tab = tab;
        }
    }

    fn move_cursor(&mut self, delta: isize) {
        let len = self.current_doc().len();
        let view = &mut self.views[self.tab];
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
    fn page(&mut self, direction: isize, divisor: usize) {
        let height = (self.areas.viewer.height as usize).max(2) / divisor.max(1);
        let len = self.current_doc().len();
        let view = &mut self.views[self.tab];
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
        let view = &mut self.views[self.tab];
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

    fn search_next(&mut self, backwards: bool) {
        if self.last_search.is_empty() {
            self.notice = Some("/: type a search first".into());
            return;
        }
        let from = self.views[self.tab].cursor;
        let found = self.current_doc().find(&self.last_search, from, backwards);
        self.show_match(found, from, backwards);
    }

    /// Moves to the first match at or after where `/` was pressed, as the query grows.
    fn search_as_typed(&mut self, query: &str) {
        let origin = self.search_origin.as_ref().map_or(0, |(c, _)| *c);
        self.last_search = query.to_string();
        if query.is_empty() {
            self.views[self.tab].cursor = origin;
            self.search_status = None;
            return;
        }
        let doc = self.current_doc();
        let found = match doc.lines().get(origin) {
            Some(line) if line.to_lowercase().contains(&query.to_lowercase()) => Some(origin),
            _ => doc.find(query, origin, false),
        };
        self.show_match(found, origin, false);
    }

    /// Puts the cursor on a match and says which of how many it is, and whether the
    /// search went round the end of the document.
    fn show_match(&mut self, found: Option<usize>, from: usize, backwards: bool) {
        let needle = self.last_search.to_lowercase();
        let Some(line) = found else {
            let status = format!("not found: {}", self.last_search);
            self.search_status = Some(status.clone());
            self.notice = Some(status);
            return;
        };
        let doc = self.current_doc();
        let matching: Vec<usize> = doc
            .lines()
            .iter()
            .enumerate()
            .filter(|(_, l)| l.to_lowercase().contains(&needle))
            .map(|(i, _)| i)
            .collect();
        let nth = matching
            .iter()
            .position(|&i| i == line)
            .map_or(0, |i| i + 1);
        let wrapped = if backwards { line > from } else { line < from };
        let mut status = format!("{nth}/{}", matching.len());
        if wrapped {
            status.push_str(if backwards {
                " · wrapped to the bottom"
            } else {
                " · wrapped to the top"
            });
        }
        let view = &mut self.views[self.tab];
        view.cursor = line;
        view.follow = Follow::Manual;
        self.notice = Some(format!("/{} {status}", self.last_search));
        self.search_status = Some(status);
    }

    fn undo_delete(&mut self) {
        if let Some((at, question)) = self.deleted.take() {
            let at = at.min(self.draft.questions.len());
            self.draft.questions.insert(at, question);
            self.draft_changed = true;
            self.review_selected = at;
            self.notice = Some("question restored".into());
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        let at = Position::new(mouse.column, mouse.row);
        match mouse.kind {
            MouseEventKind::ScrollDown => {
                if let Some(Popup::Diff { scroll, lines, .. }) = &mut self.popup {
                    *scroll = (*scroll + 3).min(lines.len().saturating_sub(1));
                } else if self.popup.is_none() {
                    self.scroll(3);
                }
            }
            MouseEventKind::ScrollUp => {
                if let Some(Popup::Diff { scroll, .. }) = &mut self.popup {
                    *scroll = scroll.saturating_sub(3);
                } else if self.popup.is_none() {
                    self.scroll(-3);
                }
            }
            MouseEventKind::Down(MouseButton::Left) if self.popup.is_none() => {
                if let Some(tab) = self.areas.tabs.iter().position(|r| r.contains(at)) {
                    self.pick_tab(tab);
                } else if self.areas.viewer.contains(at) {
                    self.focus = Focus::Viewer;
                    let row = (mouse.row - self.areas.viewer.y) as usize;
                    if let Some(&line) = self.areas.viewer_lines.get(row) {
                        let view = &mut self.views[self.tab];
                        view.cursor = line;
                        view.follow = Follow::Manual;
                    }
                } else if self.areas.review.contains(at) {
                    self.focus = Focus::Review;
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn typed(app: &mut App, text: &str) {
        for c in text.chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
    }

    fn text(call: u64, t: &str) -> AppEvent {
        AppEvent::Loop(LoopEvent::Delta {
            call,
            purpose: Purpose::Design,
            event: StreamEvent::Text { text: t.into() },
        })
    }

    fn reviewing() -> App {
        let mut app = App::new(SessionInfo::default(), Theme::dark());
        let artifacts = Artifacts {
            architecture: "Arch line\n\n## Open questions\n\n1. Which database?\n".into(),
            api_spec: "run() -> None".into(),
            ..Artifacts::default()
        };
        app.on_app_event(AppEvent::Loop(LoopEvent::CycleReady {
            cycle: 1,
            artifacts,
            changed: Section::ALL.to_vec(),
        }));
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::AwaitingReview {
            cycle: 1,
        })));
        app
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
        assert!(matches!(app.popup, Some(Popup::ConfirmReady)));
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
        assert!(matches!(app.popup, Some(Popup::ConfirmQuit { .. })));
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
    fn a_failure_that_cannot_be_retried_offers_no_retry() {
        let mut app = reviewing();
        // The order the runtime sends them in: the error, then the failed phase.
        app.on_app_event(AppEvent::Loop(LoopEvent::Error {
            message: "openai: no API key".into(),
            retryable: false,
        }));
        let failed = Phase::Failed {
            resume: Box::new(Phase::Designing { cycle: 2 }),
            message: "openai: no API key".into(),
            retryable: false,
        };
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(failed)));
        assert!(matches!(
            app.popup,
            Some(Popup::Error {
                retryable: false,
                ..
            })
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
        app.on_app_event(AppEvent::Loop(LoopEvent::Notice(
            "[U:Ar] Max design cycles reached in a message that only quotes it".into(),
        )));
        assert_eq!(app.warning, None);
        app.on_app_event(AppEvent::Loop(LoopEvent::Noticed(Notice::CycleLimit {
            cycle: 2,
            max: 2,
            trace_id: "t".into(),
        })));
        assert_eq!(
            app.warning.as_deref(),
            Some("Max design cycles reached (2): finalizing without READY (trace t)")
        );
    }

    #[test]
    fn error_popup_retries() {
        let mut app = reviewing();
        app.on_app_event(AppEvent::Loop(LoopEvent::Error {
            message: "HTTP 503".into(),
            retryable: true,
        }));
        app.on_key(key(KeyCode::Char('r')));
        assert_eq!(app.take_intents(), vec![Intent::Act(Action::Retry)]);
        assert!(app.popup.is_none());
    }
}
