//! The last committed cycle kept on screen while the next one is written: a call of a
//! new cycle leaves every tab's committed text in place (drawn dimmed, under a banner)
//! until the stream reaches that section, and a failed or cancelled call puts the
//! committed text back with its change marks. The state changes happen where the
//! stream is synced ([`crate::tui::stream`]); drawing only asks [`App::backdrop_of`].

use crate::design::Section;
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
    stale: [bool; 5],
    /// Per section: the running (or failed) call wrote into the document, so a
    /// failure must put the committed text back.
    replaced: [bool; 5],
    /// The change marks of the committed cycle, shown again after a failure.
    changed: Vec<Section>,
    /// The last call failed or was cancelled: nothing is on its way until the next
    /// call is asked for.
    halted: bool,
}

/// What a tab shows in place of text the running cycle has not written yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Showing {
    /// The cycle being written.
    pub writing: u32,
    /// The cycle whose text is on screen.
    pub shown: u32,
    /// The answer streams (else the call has not sent anything yet).
    pub streaming: bool,
}

impl Showing {
    /// The viewer's banner: `cycle 3 streaming · showing cycle 2`.
    pub fn banner(&self) -> String {
        let what = if self.streaming {
            "streaming"
        } else {
            "on its way"
        };
        format!(
            "cycle {} {what} · showing cycle {}",
            self.writing, self.shown
        )
    }
}

impl Backdrop {
    /// The stream is about to write into `section`'s document `doc`: a committed text
    /// still there goes (when `clear`; an update's patch draws on it instead).
    pub(crate) fn replace(&mut self, section: Section, doc: &mut Document, clear: bool) {
        let i = section.index();
        if self.stale[i] && clear {
            doc.clear();
        }
        self.stale[i] = false;
        self.replaced[i] = true;
    }

    /// A call of a new cycle was asked for (the phase says designing).
    pub(crate) fn asked(&mut self) {
        self.halted = false;
    }

    /// Whether `section`'s document still shows the committed text (the stream's
    /// follow leaves such a view at its top).
    pub(crate) fn is_stale(&self, section: Section) -> bool {
        self.stale[section.index()]
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
        for section in Section::ALL {
            let i = section.index();
            self.backdrop.stale[i] = !self.docs[i].is_empty();
        }
    }

    /// The call failed or was cancelled: the committed cycle is shown again, with its
    /// change marks.
    pub(crate) fn backdrop_restore(&mut self) {
        let any = self.put_committed_back();
        self.backdrop.stale = [false; 5];
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
            let i = section.index();
            if std::mem::take(&mut self.backdrop.replaced[i]) {
                self.docs[i].set_text(self.artifacts.get(section));
                self.marks[i].clear();
                any = true;
            }
        }
        any
    }

    /// Whether `section`'s tab shows the committed cycle while a newer one is written,
    /// and which cycles those are (for the banner and the dimmed text).
    pub fn backdrop_of(&self, section: Section) -> Option<Showing> {
        let i = section.index();
        if self.old_cycle.is_some() || self.raw.shown() || self.docs[i].is_empty() {
            return None;
        }
        let Phase::Designing { cycle } = self.phase else {
            return None;
        };
        let b = &self.backdrop;
        if cycle <= b.committed_cycle || b.replaced[i] || b.halted {
            return None;
        }
        let streaming = self.is_streaming();
        (b.stale[i] || !streaming).then_some(Showing {
            writing: cycle,
            shown: b.committed_cycle,
            streaming,
        })
    }
}
