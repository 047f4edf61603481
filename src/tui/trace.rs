//! Trace in the workbench: `*` takes the requirement, ADR, class or module named on
//! the cursor line and finds it across the five tabs with the same code as
//! `volk trace`; `n`/`N` then step through the places, tab to tab. `n`/`N` follow
//! whichever of search and trace was started last.

use crate::design::Section;
use crate::design::lint::trace::Trace;
use crate::design::model::names::looks_like_module;
use crate::design::model::text::is_ident_char;
use crate::design::model::{DesignModel, ids};

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
    pub(crate) origin: (Section, usize, usize),
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
