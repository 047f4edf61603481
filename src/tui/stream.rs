//! Stream bookkeeping: deltas of the running reasoner call go into a section parser
//! (or a live patch) as they arrive; once per frame, before drawing, the run loop
//! calls [`App::sync_stream`], which moves the completed lines into the tabs, moves
//! the tab bar to the section being written and keeps following views at the end.
//! Drawing never does any of this.

use std::time::Instant;

use crate::brief::Purpose;
use crate::design::parser::SectionParser;
use crate::design::{PerSection, Section};
use crate::reasoner::StreamEvent;
use crate::tui::app::{App, Follow, ViewState};
use crate::tui::document::Document;
use crate::tui::highlight::Grammar;
use crate::tui::patch_view::{LivePatch, Synced};
use crate::tui::tab::Tab;
use crate::tui::theme::Theme;

/// The text of a design call before its first section marker.
pub struct RawAnswer {
    pub doc: Document,
    /// Whether a marker has been seen: then the raw text stops growing.
    pub sectioned: bool,
    /// The unfinished last line.
    pending: String,
}

impl RawAnswer {
    pub fn new(theme: &Theme) -> RawAnswer {
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

/// One reasoner call being streamed.
pub struct LiveCall {
    purpose: Purpose,
    parser: SectionParser,
    /// Bytes of each section already moved into its document.
    consumed: PerSection<usize>,
    /// Sections fed since the documents were last synced.
    touched: PerSection<bool>,
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

/// The running call, and the newest call id seen (older calls' pieces are dropped).
#[derive(Default)]
pub struct StreamState {
    pub(crate) live: Option<LiveCall>,
    last_call: u64,
}

impl App {
    /// The section being written by the running call, if any.
    pub fn streaming_section(&self) -> Option<Section> {
        self.stream
            .live
            .as_ref()
            .filter(|l| matches!(l.purpose, Purpose::Design | Purpose::Update))
            .and_then(|l| l.parser().growing())
    }

    pub fn is_streaming(&self) -> bool {
        self.stream.live.is_some()
    }

    /// What the running update did to `section` so far (tab title), when it patches it.
    pub fn patch_label(&self, section: Section) -> Option<String> {
        self.stream.live.as_ref()?.patch.as_ref()?.label(section)
    }

    /// True when the tab shows a section being patched: the view follows the block
    /// being written rather than the end of the text.
    pub fn follows_edit(&self, tab: Tab) -> bool {
        tab.section().is_some_and(|s| self.patch_label(s).is_some())
    }

    /// The running call ended (or failed): nothing streams any more. Its complete
    /// lines are moved to the tabs first; returns how many bytes of answer came.
    pub(crate) fn end_stream(&mut self) -> usize {
        self.sync_stream();
        let bytes = self.stream.live.take().map_or(0, |live| live.chars);
        self.activity.ended();
        bytes
    }

    pub(crate) fn on_delta(&mut self, call: u64, purpose: Purpose, event: StreamEvent) {
        if call < self.stream.last_call {
            return; // a superseded call: drop its pieces
        }
        self.activity.delta(call, &event, Instant::now());
        if let StreamEvent::Retrying(_) = event {
            return; // the activity line says it; the call has no text yet
        }
        if call > self.stream.last_call || self.stream.live.is_none() {
            if call == self.stream.last_call && self.stream.live.is_none() {
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
        let Some(live) = self.stream.live.as_mut() else {
            return;
        };
        match event {
            StreamEvent::Text { text } => {
                live.chars += text.len();
                match live.purpose {
                    Purpose::Design | Purpose::Update => {
                        if let Some(s) = live.parser().growing() {
                            live.touched[s] = true;
                        }
                        let growing = match &mut live.patch {
                            Some(patch) => patch.feed(&text),
                            None => live.parser.feed(&text),
                        };
                        if let Some(s) = growing {
                            live.touched[s] = true;
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
        self.stream.last_call = call;
        self.thinking.clear();
        // An update is drawn on the design it revises: after a first answer whose
        // blocks failed, that is the design the answer left (the repair's base).
        let repairing = self.stream.live.as_ref().is_some_and(|l| l.patch.is_some());
        let patch = (purpose == Purpose::Update).then(|| {
            let current = match self.stream.live.as_ref().and_then(|l| l.patch.as_ref()) {
                Some(previous) => previous.design(),
                None => self.model.artifacts().clone(),
            };
            LivePatch::new(current)
        });
        if matches!(purpose, Purpose::Design | Purpose::Update) {
            // The committed text stays until the stream replaces it; a repair keeps
            // drawing on what the answer it repairs left.
            if !repairing {
                self.backdrop_begin();
            }
            self.raw.clear();
            self.marks = Default::default();
            for view in &mut self.views[..5] {
                *view = ViewState::default();
            }
            self.changed.clear();
            self.tab_follow = Follow::Stream;
        }
        self.stream.live = Some(LiveCall {
            purpose,
            parser: SectionParser::new(),
            consumed: PerSection::default(),
            touched: PerSection::default(),
            started: Instant::now(),
            chars: 0,
            patch,
        });
    }

    /// Moves newly completed lines from the parser into the documents. Called once
    /// per frame, not per delta, so a fast stream costs one copy per frame.
    pub fn sync_stream(&mut self) {
        let Some(live) = self.stream.live.as_mut() else {
            return;
        };
        let growing = live.parser().growing();
        for section in Section::ALL {
            let i = section.index();
            if !live.touched[section] {
                continue;
            }
            live.touched[section] = false;
            if let Some(patch) = live.patch.as_mut() {
                let doc = &mut self.docs[i];
                let synced = patch.sync(
                    section,
                    doc,
                    &mut self.marks[section],
                    &mut live.consumed[section],
                );
                if synced == Synced::Done {
                    if patch.label(section).is_some() {
                        self.backdrop.replace(section, doc, false);
                    }
                    if Some(section) == growing {
                        live.touched[section] = true; // the pending block keeps changing
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
            self.backdrop.replace(section, doc, true);
            if committed.len() > live.consumed[section] {
                let mut fresh = &committed[live.consumed[section]..];
                if doc.lines().is_empty() {
                    // Leading blank lines are trimmed from the finished section too.
                    let blank =
                        fresh.len() - fresh.trim_start_matches(['\n', ' ', '\t', '\r']).len();
                    let cut = fresh[..blank].rfind('\n').map_or(0, |p| p + 1);
                    fresh = &fresh[cut..];
                }
                doc.append_lines(fresh);
                live.consumed[section] = committed.len();
            }
            if Some(section) == growing {
                doc.set_tail(parser.tail());
                live.touched[section] = true; // the tail keeps changing
            } else {
                doc.set_tail("");
            }
        }
        // The tab bar follows the stream while the tab shown follows it too: a person
        // who scrolled away in it keeps their place, as one who picked a tab does.
        if let (Follow::Stream, Some(section), None) = (self.tab_follow, growing, &self.old_cycle)
            && live.purpose != Purpose::Reflect
            && live.purpose != Purpose::Plan
            && (self.tab.section().is_none()
                || self.views[self.tab.index()].follow == Follow::Stream)
        {
            self.tab = Tab::Artifact(section);
        }
        // Follow the stream on every tab that is not scrolled away.
        for section in Section::ALL {
            let i = section.index();
            let len = self.docs[i].len();
            let focus = live.patch.as_ref().and_then(|p| p.focus(section));
            let view = &mut self.views[i];
            if view.follow == Follow::Stream && !self.backdrop.is_stale(section) {
                view.cursor = focus.unwrap_or(usize::MAX).min(len.saturating_sub(1));
            }
        }
    }
}
