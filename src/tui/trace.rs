//! Trace in the workbench: `*` takes the requirement, ADR, class or module named on
//! the cursor line and finds it across the five tabs with the same code as
//! `volk trace`; `n`/`N` then step through the places, tab to tab. `n`/`N` follow
//! whichever of search and trace was started last.

use crate::design::Section;
use crate::design::lint::trace::{Trace, trace};
use crate::design::model::names::looks_like_module;
use crate::design::model::text::is_ident_char;
use crate::design::model::{DesignModel, ids};
use crate::tui::app::App;
use crate::tui::popup::Popup;
use crate::tui::popup::trace::TraceList;

/// What `n`/`N` step through: the later of `/` and `*` wins.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LastFind {
    #[default]
    Search,
    Trace,
}

/// The trace `*` started last.
#[derive(Debug, Clone)]
pub struct TraceState {
    pub trace: Trace,
    /// The occurrence the cursor was last moved to.
    pub at: usize,
    /// Where `*` was pressed and which of that line's names it took: `*` again on the
    /// same line takes the next one.
    origin: (Section, usize, usize),
}

/// The names on `line` worth tracing, in the order they stand: requirement and ADR
/// ids, classes the design defines, module paths.
pub fn names_on_line(line: &str, model: &DesignModel) -> Vec<String> {
    let mut found: Vec<(usize, String)> = ids::scan(line)
        .into_iter()
        .map(|at| (at.span.start, line[at.span].to_string()))
        .collect();
    let is_class =
        |word: &str| model.api.class(word).is_some() || model.diagram.class(word).is_some();
    let mut start = None;
    for (i, c) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        match (start, is_ident_char(c)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                if is_class(&line[s..i]) {
                    found.push((s, line[s..i].to_string()));
                }
                start = None;
            }
            _ => {}
        }
    }
    let mut at = 0;
    for word in line.split_whitespace() {
        let offset = line[at..].find(word).map_or(at, |o| at + o);
        at = offset + word.len();
        let token = word.trim_matches(|c: char| !(is_ident_char(c) || c == '/' || c == '.'));
        let token = token.trim_end_matches('.');
        if looks_like_module(token) && !token.contains("://") {
            let lead = word.find(token).unwrap_or(0);
            found.push((offset + lead, token.to_string()));
        }
    }
    found.sort_by_key(|(i, _)| *i);
    let mut names: Vec<String> = Vec::new();
    for (_, name) in found {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::Artifacts;

    #[test]
    fn names_on_a_line_in_order() {
        let artifacts = Artifacts {
            api_spec: "Module: src/app/store.py\n  class Store:\n".into(),
            ..Artifacts::default()
        };
        let model = DesignModel::read(&artifacts);
        let names = names_on_line(
            "- **Store** (`app/store.py`) serves FR-01 and ADR-2, see https://x.io/a.",
            &model,
        );
        assert_eq!(names, ["Store", "app/store.py", "FR-01", "ADR-2"]);
        assert!(names_on_line("plain words only", &model).is_empty());
    }
}
