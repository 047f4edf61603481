//! The last committed cycle kept on screen while the next one is written: a call of a
//! new cycle leaves every tab's committed text in place (drawn dimmed, under a banner)
//! until the stream reaches that section, and a failed or cancelled call puts the
//! committed text back with its change marks. The state changes happen where the
//! stream is synced ([`crate::tui::stream`]); drawing only asks [`App::backdrop_of`].

use crate::design::{PerSection, Section};
use crate::tui::app::App;
use crate::tui::document::Document;
use crate::tui::event::Phase;

/// Which tabs still show the committed cycle, and what to restore after a failure.
#[derive(Debug, Clone, Default)]
pub struct Backdrop {
    /// The cycle the committed text belongs to.
    committed_cycle: u32,
    /// Per section: the document holds the committed text, which the running call has
    /// not replaced yet.
    stale: PerSection<bool>,
    /// Per section: the running (or failed) call wrote into the document, so a
    /// failure must put the committed text back.
    replaced: PerSection<bool>,
    /// The change marks of the committed cycle, shown again after a failure.
    changed: Vec<Section>,
    /// The last call failed or was cancelled: nothing is on its way until the next
    /// call is asked for.
    halted: bool,
    /// A first cycle that failed or was cancelled: no committed text to go back to,
    /// so what arrived stays on screen, dimmed, under its own banner.
    partial: Option<Partial>,
}

/// What is left of a call that had no committed cycle behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partial {
    pub cycle: u32,
    /// Bytes of the answer that arrived.
    pub bytes: usize,
    pub how: Halt,
}

/// How a call ended early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    Failed,
    Cancelled,
}

/// What a tab shows in place of text the running cycle has not written yet, or of a
/// first cycle that never finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Showing {
    Committed {
        /// The cycle being written.
        writing: u32,
        /// The cycle whose text is on screen.
        shown: u32,
        /// The answer streams (else the call has not sent anything yet).
        streaming: bool,
    },
    /// The text of a first cycle that failed or was cancelled.
    Partial(Partial),
}

impl Showing {
    /// The viewer's banner: `cycle 3 streaming · showing cycle 2`, or
    /// `cycle 1 failed · partial answer (6 KB)`.
    pub fn banner(&self) -> String {
        match *self {
            Showing::Committed {
                writing,
                shown,
                streaming,
            } => {
                let what = if streaming { "streaming" } else { "on its way" };
                format!("cycle {writing} {what} · showing cycle {shown}")
            }
            Showing::Partial(p) => p.banner(),
        }
    }
}

impl Partial {
    pub fn banner(&self) -> String {
        let how = match self.how {
            Halt::Failed => "failed",
            Halt::Cancelled => "cancelled",
        };
        format!(
            "cycle {} {how} · partial answer ({})",
            self.cycle,
            size(self.bytes)
        )
    }
}

/// `812 B`, `6 KB`, `1.2 MB`.
fn size(bytes: usize) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{} KB", (b + 512) / 1024),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}

impl Backdrop {
    /// The stream is about to write into `section`'s document `doc`: a committed text
    /// still there goes (when `clear`; an update's patch draws on it instead).
    pub(crate) fn replace(&mut self, section: Section, doc: &mut Document, clear: bool) {
        if self.stale[section] && clear {
            doc.clear();
        }
        self.stale[section] = false;
        self.replaced[section] = true;
    }

    /// A call of a new cycle was asked for (the phase says designing).
    pub(crate) fn asked(&mut self) {
        self.halted = false;
    }

    /// Whether `section`'s document still shows the committed text (the stream's
    /// follow leaves such a view at its top).
    pub(crate) fn is_stale(&self, section: Section) -> bool {
        self.stale[section]
    }
}

impl App {
    /// A cycle was committed (or restored): its text is what the tabs fall back to.
    pub(crate) fn backdrop_committed(&mut self, cycle: u32) {
        self.backdrop = Backdrop {
            committed_cycle: cycle,
            changed: self.changed.clone(),
            ..Backdrop::default()
        };
    }

    /// A design or update call begins: text a previous call of this cycle wrote goes
    /// back to the committed text, and every tab shows that until it is replaced.
    pub(crate) fn backdrop_begin(&mut self) {
        self.put_committed_back();
        self.backdrop.halted = false;
        self.backdrop.partial = None;
        for (section, stale) in self.backdrop.stale.iter_mut() {
            *stale = !self.docs[section.index()].is_empty();
        }
    }

    /// The call failed or was cancelled after `bytes` of its answer: the committed
    /// cycle is shown again, with its change marks. Without one (cycle 1), what
    /// arrived stays, marked as a partial answer.
    pub(crate) fn backdrop_restore(&mut self, how: Halt, bytes: usize) {
        let nothing_committed = self.backdrop.committed_cycle == 0
            && Section::ALL
                .iter()
                .all(|s| self.model.artifacts().get(*s).is_empty());
        if nothing_committed {
            let kept = Section::ALL
                .iter()
                .any(|s| !self.docs[s.index()].is_empty());
            self.backdrop.stale = PerSection::default();
            self.backdrop.halted = true;
            if kept && self.backdrop.partial.is_none() {
                self.backdrop.partial = Some(Partial {
                    cycle: self.model.cycle().max(1),
                    bytes,
                    how,
                });
            }
            return;
        }
        let any = self.put_committed_back();
        self.backdrop.stale = PerSection::default();
        self.backdrop.halted = true;
        self.changed = self.backdrop.changed.clone();
        if any {
            self.clamp_views();
        }
    }

    /// Sets the documents the stream wrote back to the committed artifacts; true when
    /// there were any.
    fn put_committed_back(&mut self) -> bool {
        let mut any = false;
        for section in Section::ALL {
            if std::mem::take(&mut self.backdrop.replaced[section]) {
                self.docs[section.index()].set_text(self.model.artifacts().get(section));
                self.marks[section].clear();
                any = true;
            }
        }
        any
    }

    /// Whether `section`'s tab shows the committed cycle while a newer one is written,
    /// and which cycles those are (for the banner and the dimmed text).
    pub fn backdrop_of(&self, section: Section) -> Option<Showing> {
        if self.old_cycle.is_some() || self.raw.shown() || self.docs[section.index()].is_empty() {
            return None;
        }
        if let Some(partial) = self.backdrop.partial {
            return Some(Showing::Partial(partial));
        }
        let Phase::Designing { cycle } = *self.model.phase() else {
            return None;
        };
        let b = &self.backdrop;
        if cycle <= b.committed_cycle || b.replaced[section] || b.halted {
            return None;
        }
        let streaming = self.is_streaming();
        (b.stale[section] || !streaming).then_some(Showing::Committed {
            writing: cycle,
            shown: b.committed_cycle,
            streaming,
        })
    }

    /// The first cycle that failed or was cancelled, whose partial text is shown.
    pub fn partial_answer(&self) -> Option<Partial> {
        self.backdrop.partial.filter(|_| self.old_cycle.is_none())
    }
}
