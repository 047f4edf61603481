//! Keeps the reviewer's hand edits: a three-way merge of the architect's new text
//! with the reviewer's edit, on the text both started from. `diffy` does the merge
//! (line based, git's rules); a conflict keeps both versions between markers, for the
//! person to resolve in an editor.

use similar::TextDiff;

/// The marker that opens a conflict; its line is the one diagnostic D050 points at.
pub const CONFLICT_OPEN: &str = "<<<<<<< reviewer";

/// The result of merging one artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub text: String,
    /// 1-based lines of each conflict's opening marker.
    pub conflicts: Vec<usize>,
}

/// Merges `edited` (the reviewer's, from `base`) into `theirs` (the architect's new
/// text, also written from a design that had the edit, or not). Artifacts are kept
/// without a final newline; the merge works on whole lines.
pub fn merge_edit(base: &str, edited: &str, theirs: &str) -> Merged {
    let line = |t: &str| {
        let mut s = t.to_string();
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        s
    };
    let (base, ours, theirs) = (line(base), line(edited), line(theirs));
    let text = match diffy::merge(&base, &ours, &theirs) {
        Ok(text) => text,
        Err(conflicted) => conflicted
            .lines()
            .map(|l| match l {
                "<<<<<<< ours" => CONFLICT_OPEN,
                ">>>>>>> theirs" => ">>>>>>> architect",
                other => other,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    };
    let text = text.trim_end().to_string();
    let conflicts = conflict_lines(&text);
    Merged { text, conflicts }
}

/// 1-based lines where a conflict left by [`merge_edit`] opens.
pub fn conflict_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| *l == CONFLICT_OPEN)
        .map(|(i, _)| i + 1)
        .collect()
}

/// The reviewer's edit as a unified diff of one artifact's file.
pub fn unified_diff(file: &str, base: &str, edited: &str) -> String {
    let base = format!("{base}\n");
    let edited = format!("{edited}\n");
    TextDiff::from_lines(&base, &edited)
        .unified_diff()
        .context_radius(2)
        .header(&format!("a/design/{file}"), &format!("b/design/{file}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "FR-01: add tasks\nFR-02: list tasks\nFR-03: complete tasks";

    #[test]
    fn an_edit_the_model_dropped_survives() {
        let edited = BASE.replace("list tasks", "list tasks sorted by due date");
        let theirs = format!("{BASE}\nFR-04: export CSV");
        let m = merge_edit(BASE, &edited, &theirs);
        assert!(m.conflicts.is_empty());
        assert_eq!(
            m.text,
            "FR-01: add tasks\nFR-02: list tasks sorted by due date\nFR-03: complete tasks\nFR-04: export CSV"
        );
    }

    #[test]
    fn an_edit_the_model_kept_is_not_doubled() {
        let edited = BASE.replace("add tasks", "add tasks with a name");
        let m = merge_edit(BASE, &edited, &edited);
        assert_eq!(m.text, edited);
    }

    #[test]
    fn a_conflict_keeps_both_versions_at_its_line() {
        let edited = BASE.replace("list tasks", "list tasks by date");
        let theirs = BASE.replace("list tasks", "list tasks by name");
        let m = merge_edit(BASE, &edited, &theirs);
        assert_eq!(m.conflicts, vec![2]);
        assert!(m.text.contains("list tasks by date"));
        assert!(m.text.contains("list tasks by name"));
        assert!(m.text.contains(">>>>>>> architect"));
    }

    #[test]
    fn the_diff_names_the_file() {
        let d = unified_diff("requirements.md", BASE, &BASE.replace("FR-03", "FR-3"));
        assert!(d.contains("--- a/design/requirements.md"));
        assert!(d.contains("-FR-03: complete tasks\n+FR-3: complete tasks"));
    }
}

#[cfg(test)]
mod props {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The reviewer edits one line; the architect rewrites another at least two
        /// lines away, or drops the edit by writing the base again: the merge has both,
        /// with no conflict.
        #[test]
        fn an_edit_survives_unrelated_or_dropping_revisions(
            lines in prop::collection::vec("[a-z]{1,8}", 6..30),
            edit_at in 0usize..30,
            model_at in 0usize..30,
            drop_it in any::<bool>(),
        ) {
            let n = lines.len();
            let (edit_at, model_at) = (edit_at % n, model_at % n);
            prop_assume!(edit_at.abs_diff(model_at) > 2);
            let base = lines.join("\n");
            let mut edited = lines.clone();
            edited[edit_at] = "REVIEWER".into();
            let mut theirs = lines.clone();
            if !drop_it {
                theirs[model_at] = "ARCHITECT".into();
            }
            let m = merge_edit(&base, &edited.join("\n"), &theirs.join("\n"));
            prop_assert!(m.conflicts.is_empty(), "{}", m.text);
            let merged: Vec<&str> = m.text.lines().collect();
            prop_assert_eq!(merged[edit_at], "REVIEWER");
            if !drop_it {
                prop_assert_eq!(merged[model_at], "ARCHITECT");
            }
            prop_assert_eq!(merged.len(), n);
        }
    }
}
