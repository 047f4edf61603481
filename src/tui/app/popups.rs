//! The workbench's side of its popups: opening each one, giving it a key with its
//! narrow context, and carrying out what it asks ([`Do`]). The popups themselves
//! (`crate::tui::popup`) never see the workbench's state.

use crate::brief::Question;
use crate::design::{Artifacts, Section};
use crate::tui::app::{App, Follow, Screen, Verdict};
use crate::tui::diff::Diff;
use crate::tui::event::{Action, Intent, Phase};
use crate::tui::popup::Popup;
use crate::tui::popup::composer::{Composer, ComposerTarget};
use crate::tui::popup::confirm::Confirm;
use crate::tui::popup::diff::{Base, DiffView, Layout};
use crate::tui::popup::history::History;
use crate::tui::popup::problems::ProblemList;
use crate::tui::popup::search::Search;
use crate::volk::protocol::Query;

impl App {
    /// Writes what the composer holds through to the draft, on every keystroke.
    pub(super) fn composer_changed(&mut self, target: &ComposerTarget, text: String) {
        match target {
            ComposerTarget::NewQuestion { .. } => self.draft.composer = text,
            ComposerTarget::EditQuestion(i) => {
                if let Some(q) = self.draft.questions.get_mut(*i) {
                    q.text = text;
                }
            }
            ComposerTarget::Answer { question } => self.draft.set_answer(question, text),
            ComposerTarget::Steer | ComposerTarget::FollowUp(_) => return,
        }
        self.draft_changed = true;
    }

    pub(super) fn submit_composer(&mut self, target: ComposerTarget, text: String) {
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
                    self.act(Action::SteerPlan(text));
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

    pub(crate) fn open_composer(&mut self, target: ComposerTarget) {
        if self.refuse_read_only("write") {
            return;
        }
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
        let composer = Composer::new(target, &initial, &self.theme.palette);
        self.popup = Some(Popup::Composer(composer));
    }

    /// `x` or Esc in the viewer: stops the running call, asking first once text has
    /// arrived (a call still waiting for its first token has cost nothing yet).
    pub(crate) fn ask_cancel(&mut self) {
        if self.is_streaming() {
            self.popup = Some(Popup::Confirm(Confirm::Cancel));
        } else {
            self.cancel_call();
        }
    }

    /// Ctrl-R: asks before answering READY.
    pub(crate) fn ask_ready(&mut self) {
        if self.refuse_read_only("answer READY") {
            return;
        }
        if !matches!(self.model.phase(), Phase::AwaitingReview { .. })
            || self.verdict == Verdict::Sent
        {
            self.say(self.no_review_now("Ctrl-R"));
            return;
        }
        self.popup = Some(Popup::Confirm(Confirm::Ready));
    }

    /// `q`: quits, asking first when a draft is unsent or a call runs.
    pub(crate) fn request_quit(&mut self) {
        fn sent_and_unanswered(phase: &Phase) -> bool {
            matches!(phase, Phase::Failed { resume, .. } | Phase::Cancelled { resume }
                if matches!(**resume, Phase::Designing { cycle } if cycle > 1))
        }
        // A draft that can never be sent (the design is final) is not worth a question.
        let unsent = self.draft.is_unsent() && !self.offers().closed;
        let reason = if unsent && self.screen == Screen::Workbench {
            Some("Your draft is not sent (it stays saved for `volk open`).")
        } else if self.model.phase().is_busy() && self.is_streaming() {
            Some("The architect is still working; quitting stops the call.")
        } else if sent_and_unanswered(self.model.phase()) {
            Some(
                "Your sent questions have no answer yet (the call failed); `volk open` keeps them and r sends them again.",
            )
        } else {
            None
        };
        match reason {
            Some(reason) => {
                self.popup = Some(Popup::Confirm(Confirm::Quit {
                    reason: reason.to_string(),
                }))
            }
            None => self.quit_now(),
        }
    }

    /// Ctrl-C: asks like `q`; a second Ctrl-C while it asks quits.
    pub(crate) fn interrupt(&mut self) {
        if matches!(self.popup, Some(Popup::Confirm(Confirm::Quit { .. }))) {
            self.popup = None;
            self.quit();
        } else {
            self.request_quit();
        }
    }

    /// Quits, stopping the running call first.
    pub(super) fn quit(&mut self) {
        if self.model.phase().is_busy() {
            self.act(Action::Cancel);
        }
        self.quit_now();
    }

    /// Quits without another word.
    pub(crate) fn quit_now(&mut self) {
        self.intents.push(Intent::Quit);
    }

    /// `d`: the diff of the current tab's artifact.
    pub(crate) fn open_diff(&mut self) {
        let Some(section) = self.tab.section() else {
            self.say("d: the journal has no diff".into());
            return;
        };
        self.open_diff_for(section, false);
    }

    /// The diff of `section` against the previous cycle; `at_change` scrolls to the
    /// first changed hunk (a thread's answer). When the last cycle took a hand edit
    /// of `section`, the previous cycle is the text the reviewer read before editing
    /// (the workbench's previous text may already hold the edit), so the reviewer's
    /// lines show, marked, beside the architect's.
    pub(crate) fn open_diff_for(&mut self, section: Section, at_change: bool) {
        let edit = self.model.review().last.reviewer_edit(section).cloned();
        let base = match (&edit, self.model.previous()) {
            (Some(edit), _) => edit.before.as_str(),
            (None, Some(previous)) => previous.get(section),
            (None, None) => {
                self.say("d: no earlier cycle to compare with yet".into());
                return;
            }
        };
        let diff = Diff::new(base, self.model.artifacts().get(section));
        let mut view = DiffView::new(section, Base::Previous, diff, Layout::ByWidth);
        view.reviewer = edit;
        if at_change {
            view.top = view.cursor.saturating_sub(2);
        }
        self.popup = Some(Popup::Diff(Box::new(view)));
    }

    /// An older cycle the runtime read: when the compare list asked for it, its diff
    /// against the newest text opens and `true` is returned.
    pub(crate) fn compared_cycle(
        &mut self,
        short_id: &str,
        summary: &str,
        artifacts: &Artifacts,
    ) -> bool {
        let Some(wanted) = self.compare_wanted.take_if(|w| w.short_id == short_id) else {
            return false;
        };
        let section = wanted.section;
        let diff = Diff::new(artifacts.get(section), self.model.artifacts().get(section));
        let base = Base::Cycle {
            short_id: short_id.to_string(),
            summary: summary.to_string(),
        };
        let view = DiffView::new(section, base, diff, wanted.layout);
        self.popup = Some(Popup::Diff(Box::new(view)));
        true
    }

    /// Puts the cursor on `line` (1-based, clamped to the document) of the current
    /// tab, scrolled into view by the next frame.
    pub(crate) fn go_to_line(&mut self, line: usize) {
        let len = self.current_doc().len();
        if len == 0 {
            self.say(":: this tab has no lines yet".into());
            return;
        }
        let target = line.min(len);
        let view = &mut self.views[self.tab.index()];
        view.cursor = target - 1;
        view.follow = Follow::Manual;
        if target < line {
            self.say(format!(
                ":{line}: the document has {len} lines; at the last"
            ));
        }
    }

    /// `h`: opens the list and asks the runtime for it.
    pub(crate) fn open_history(&mut self) {
        self.popup = Some(Popup::History(History::default()));
        self.intents.push(Intent::Ask(Query::History));
    }

    /// `p`: opens the list on its first problem.
    pub(crate) fn open_problems(&mut self) {
        self.popup = Some(Popup::Problems(ProblemList::default()));
    }

    /// `/`: opens the search bar, remembering where to go back to.
    pub(crate) fn open_search(&mut self) {
        self.search_origin = Some((
            self.views[self.tab.index()].cursor,
            std::mem::take(&mut self.last_search),
        ));
        self.last_find = crate::tui::trace::LastFind::Search;
        self.search_status = None;
        self.popup = Some(Popup::Search(Search::default()));
    }

    pub(crate) fn search_next(&mut self, backwards: bool) {
        if self.last_search.is_empty() {
            self.say("/: type a search first".into());
            return;
        }
        let from = self.views[self.tab.index()].cursor;
        let found = self.current_doc().find(&self.last_search, from, backwards);
        self.show_match(found, from, backwards);
    }

    /// Moves to the first match at or after where `/` was pressed, as the query grows.
    pub(super) fn search_as_typed(&mut self, query: &str) {
        let origin = self.search_origin.as_ref().map_or(0, |(c, _)| *c);
        self.last_search = query.to_string();
        if query.is_empty() {
            self.views[self.tab.index()].cursor = origin;
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
            self.say(status);
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
        let view = &mut self.views[self.tab.index()];
        view.cursor = line;
        view.follow = Follow::Manual;
        self.say(format!("/{} {status}", self.last_search));
        self.search_status = Some(status);
    }
}
