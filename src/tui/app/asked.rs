//! What a component (a popup, or a pane off `&mut App`) sees of the workbench, and
//! the workbench carrying out what it asks (see [`crate::tui::ctx`]).

use ratatui::crossterm::event::KeyEvent;

use crate::tui::app::{App, Screen, Verdict};
use crate::tui::ctx::{Ctx, Do, SearchStep, View, Wanted};
use crate::tui::event::Intent;
use crate::tui::keymap::Handled;
use crate::tui::popup::Popup;

impl App {
    /// What components read of the workbench, for one key or one frame.
    pub(crate) fn view(&self) -> View<'_> {
        View {
            model: &self.model,
            offers: self.offers(),
            info: &self.info,
            theme: &self.theme,
            size: self.size,
            notices: &self.notice,
            problems: &self.problems,
            draft: &self.draft,
            trace: self.trace.as_ref(),
            doc_lines: self.current_doc().len(),
            search_status: self.search_status.as_deref(),
            can_cancel: crate::tui::pane::viewer::can_cancel(self),
            side_stream: &self.side_stream,
            thinking: &self.thinking,
        }
    }

    /// Runs a component's key with its context, then does what it asked.
    pub(crate) fn with_ctx(&mut self, act: impl FnOnce(&mut Ctx) -> Handled) -> Handled {
        let mut cx = Ctx::new(self.view());
        let handled = act(&mut cx);
        for what in cx.asked() {
            self.carry_out(what);
        }
        handled
    }

    /// Gives a key to the open popup, then does what it asked. It stays open unless
    /// it closes or opened another in its place.
    pub(crate) fn on_popup_key(&mut self, key: KeyEvent) -> Handled {
        self.with_popup(|popup, cx| popup.on_key(key, cx))
    }

    /// Pasted text, for the composer.
    pub(crate) fn on_paste(&mut self, text: &str) {
        if matches!(self.popup, Some(Popup::Composer(_))) {
            self.with_popup(|popup, cx| {
                if let Popup::Composer(composer) = popup {
                    composer.paste(text, cx);
                }
                Handled::Consumed
            });
        }
    }

    fn with_popup(&mut self, act: impl FnOnce(&mut Popup, &mut Ctx) -> Handled) -> Handled {
        let Some(mut popup) = self.popup.take() else {
            return Handled::Ignored;
        };
        // The popup is out of the workbench while it acts, so it may open another.
        let handled = self.with_ctx(|cx| act(&mut popup, cx));
        if handled != Handled::Close && self.popup.is_none() {
            self.popup = Some(popup);
        }
        handled
    }

    /// Does what a component asked.
    fn carry_out(&mut self, what: Do) {
        match what {
            Do::Say(text) => self.say(text),
            Do::Warn(text) => self.warn(text),
            Do::ClearNotices => self.notice.clear(),
            Do::Act(action) => self.act(action),
            Do::Verdict(action) => {
                self.act(action);
                self.verdict = Verdict::Sent;
            }
            Do::Ask(query) => self.intents.push(Intent::Ask(query)),
            Do::Open(popup) => self.popup = Some(popup),
            Do::Quit => self.quit(),
            Do::QuitNow => self.quit_now(),
            Do::BackToWorkbench => self.screen = Screen::Workbench,
            Do::OpenHelp => self.open_help(),
            Do::OpenComposer(target) => self.open_composer(target),
            Do::RequestQuit => self.request_quit(),
            Do::CancelCall => self.cancel_call(),
            Do::SendNow(cycle) => self.send_now(cycle),
            Do::SendQuestions => self.send_questions(),
            Do::Compose(target, text) => self.composer_changed(&target, text),
            Do::Submit(target, text) => self.submit_composer(target, text),
            Do::GoToLine(line) => self.go_to_line(line),
            Do::JumpTo(section, line) => self.jump_to(section, line),
            Do::TraceGo(index) => self.trace_go(index),
            Do::Want(wanted) => {
                (self.wanted_commit, self.compare_wanted) = match wanted {
                    Wanted::Nothing => (None, None),
                    Wanted::Commit(short_id) => (Some(short_id), None),
                    Wanted::Compare(compare) => (None, Some(compare)),
                }
            }
            Do::Search(SearchStep::Back) => {
                if let Some((cursor, previous)) = self.search_origin.take() {
                    self.views[self.tab.index()].cursor = cursor;
                    self.last_search = previous;
                }
                self.search_status = None;
            }
            Do::Search(SearchStep::Keep(query)) => {
                self.search_origin = None;
                self.last_search = query;
            }
            Do::Search(SearchStep::Typed(query)) => self.search_as_typed(&query),
        }
    }
}
