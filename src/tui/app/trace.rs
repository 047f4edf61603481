//! The workbench's side of `*`: tracing the name under the cursor and moving
//! between the places it appears.

use crate::design::lint::trace::trace;
use crate::design::model::DesignModel;
use crate::tui::app::App;
use crate::tui::popup::Popup;
use crate::tui::popup::trace::TraceList;
use crate::tui::trace::{LastFind, TraceState, names_on_line};

impl App {
    /// `*`: traces a name on the cursor line and lists where it appears.
    pub(crate) fn trace_at_cursor(&mut self) {
        let Some(section) = self.tab.section() else {
            self.say("*: trace works on the artifact tabs".into());
            return;
        };
        let cursor = self.views[self.tab.index()].cursor;
        // The line as shown (an older cycle's, when one is open); the places are
        // the current design's.
        let Some(line) = self.current_doc().lines().get(cursor).cloned() else {
            self.say("*: nothing on this line to trace".into());
            return;
        };
        let artifacts = self.shown_artifacts();
        let model = DesignModel::read(&artifacts);
        let names = names_on_line(&line, &model);
        if names.is_empty() {
            self.say("*: no requirement, ADR, class or module on this line".into());
            return;
        }
        // A second `*` on the same line takes the line's next name.
        let nth = match &self.trace {
            Some(t) if (t.origin.0, t.origin.1) == (section, cursor) => {
                (t.origin.2 + 1) % names.len()
            }
            _ => 0,
        };
        let found = trace(&artifacts, &names[nth], |s| {
            format!("design/{}", s.file_name())
        });
        let at = found
            .occurrences
            .iter()
            .position(|o| o.artifact == section && o.line == cursor + 1)
            .unwrap_or(0);
        self.say(format!(
            "*: {} in {} places · n N step through them",
            found.id,
            found.occurrences.len()
        ));
        self.trace = Some(TraceState {
            trace: found,
            at,
            origin: (section, cursor, nth),
        });
        self.last_find = LastFind::Trace;
        self.popup = Some(Popup::Trace(TraceList { selected: at }));
    }

    /// `n`/`N`: the next place of the last search or trace, whichever came later.
    pub(crate) fn find_next(&mut self, backwards: bool) {
        match (self.last_find, &self.trace) {
            (LastFind::Trace, Some(_)) => self.trace_step(backwards),
            _ => self.search_next(backwards),
        }
    }

    /// Moves to the next (or previous) place of the trace, across tabs, wrapping.
    fn trace_step(&mut self, backwards: bool) {
        let Some(state) = self.trace.as_mut() else {
            return;
        };
        let count = state.trace.occurrences.len();
        if count == 0 {
            let text = format!("*: {} appears nowhere", state.trace.id);
            self.say(text);
            return;
        }
        let next = if backwards {
            (state.at + count - 1) % count
        } else {
            (state.at + 1) % count
        };
        let wrapped = if backwards {
            next > state.at
        } else {
            next < state.at
        };
        state.at = next;
        let place = state.trace.occurrences[next].clone();
        let mut notice = format!(
            "*{} {}/{count} · {} line {}",
            state.trace.id,
            next + 1,
            place.artifact.title(),
            place.line
        );
        if wrapped {
            notice.push_str(" · wrapped");
        }
        self.jump_to(place.artifact, place.line);
        self.say(notice);
    }

    /// Shows the trace's place `index` (from the list's Enter).
    pub(crate) fn trace_go(&mut self, index: usize) {
        let Some(state) = self.trace.as_mut() else {
            return;
        };
        let Some(place) = state.trace.occurrences.get(index).cloned() else {
            return;
        };
        state.at = index;
        self.jump_to(place.artifact, place.line);
    }
}
