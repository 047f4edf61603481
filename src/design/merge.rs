//! Keeps the reviewer's hand edits: a three-way merge of the architect's new text
//! with the reviewer's edit, on the text both started from. libgit2's file merge
//! (through `git2`, already there for commits) does it as `git merge-file` does:
//! zealous, so a hunk both sides changed alike, or where the architect already wrote
//! the reviewer's text, merges cleanly; only a true overlap keeps both versions
//! between markers, for the person to resolve in an editor.

use similar::TextDiff;

/// The marker that opens a conflict; its line is the one diagnostic D050 points at.
pub const CONFLICT_OPEN: &str = "<<<<<<< reviewer";
/// The marker that closes a conflict.
const CONFLICT_CLOSE: &str = ">>>>>>> architect";

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
    let text = three_way(&base, &ours, &theirs).unwrap_or_else(|| {
        // libgit2 could not merge at all (it never fails on text): keep every word,
        // the reviewer's version against the architect's, for the person to choose.
        format!("{CONFLICT_OPEN}\n{ours}=======\n{theirs}{CONFLICT_CLOSE}\n")
    });
    let text = text.trim_end().to_string();
    let conflicts = conflict_lines(&text);
    Merged { text, conflicts }
}

/// `git merge-file` on three texts, then every conflict settled that only looks
/// like one: where one side left the base as it was, or where the two sides differ
/// line by line in places the other left alone. What is left is a true overlap,
/// kept between markers.
fn three_way(base: &str, ours: &str, theirs: &str) -> Option<String> {
    fn input(text: &str) -> git2::MergeFileInput<'_> {
        let mut input = git2::MergeFileInput::new();
        input.content(text.as_bytes());
        input
    }
    // libgit2's allocator is set up by its global init, which `merge_file` itself
    // does not run; any call that runs it will do.
    let _ = git2::Oid::from_bytes(&[0; 20]);
    let (base_in, ours_in, theirs_in) = (input(base), input(ours), input(theirs));
    let mut options = git2::MergeFileOptions::new();
    options
        .our_label("reviewer")
        .their_label("architect")
        .ancestor_label("base")
        .favor(git2::FileFavor::Normal)
        .style_diff3(true);
    let merged = git2::merge_file(&base_in, &ours_in, &theirs_in, Some(&mut options)).ok()?;
    let text = String::from_utf8(merged.content().to_vec()).ok()?;
    Some(settle_conflicts(&text))
}

/// Rewrites the diff3 conflicts of `text`: each one resolved where it can be, else
/// written with the reviewer's and the architect's sides only.
fn settle_conflicts(text: &str) -> String {
    enum Part {
        Outside,
        Ours,
        Base,
        Theirs,
    }
    let mut out = String::with_capacity(text.len());
    let mut part = Part::Outside;
    let (mut ours, mut base, mut theirs): (Vec<&str>, Vec<&str>, Vec<&str>) =
        (Vec::new(), Vec::new(), Vec::new());
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        match part {
            Part::Outside if bare == CONFLICT_OPEN => part = Part::Ours,
            Part::Outside => out.push_str(line),
            Part::Ours if bare.starts_with("||||||| ") => part = Part::Base,
            Part::Ours => ours.push(line),
            Part::Base if bare == "=======" => part = Part::Theirs,
            Part::Base => base.push(line),
            Part::Theirs if bare == CONFLICT_CLOSE => {
                out.push_str(&resolve(&base, &ours, &theirs));
                (ours, base, theirs) = (Vec::new(), Vec::new(), Vec::new());
                part = Part::Outside;
            }
            Part::Theirs => theirs.push(line),
        }
    }
    out
}

/// One conflict: the merged lines, or both sides between markers.
fn resolve(base: &[&str], ours: &[&str], theirs: &[&str]) -> String {
    let join = |lines: &[&str]| lines.concat();
    if ours == theirs || ours == base {
        return join(theirs);
    }
    if theirs == base {
        return join(ours);
    }
    // The architect wrote from the edited text and kept every line the reviewer
    // wrote here, in order, adding its own beside them (FR-03 under the reviewer's
    // FR-02): nothing of the reviewer's is lost, so this is no overlap. A side that
    // only deleted lines is not covered: there the architect may have rewritten the
    // line the reviewer took out.
    if ours.iter().any(|l| !l.trim().is_empty()) && keeps_in_order(ours, theirs) {
        return join(theirs);
    }
    if ours.len() == base.len() && theirs.len() == base.len() {
        let merged: Option<Vec<&str>> = (0..base.len())
            .map(|i| match (ours[i], base[i], theirs[i]) {
                (o, _, t) if o == t => Some(o),
                (o, b, t) if o == b => Some(t),
                (o, b, t) if t == b => Some(o),
                _ => None,
            })
            .collect();
        if let Some(lines) = merged {
            return lines.concat();
        }
    }
    let mut out = format!("{CONFLICT_OPEN}\n");
    out.push_str(&join(ours));
    out.push_str("=======\n");
    out.push_str(&join(theirs));
    out.push_str(CONFLICT_CLOSE);
    out.push('\n');
    out
}

/// Whether `all` holds every line of `part`, in the same order.
fn keeps_in_order(part: &[&str], all: &[&str]) -> bool {
    let mut rest = all.iter();
    part.iter().all(|line| rest.any(|l| l == line))
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
    fn the_same_change_on_both_sides_merges_cleanly() {
        // The architect's rewrite already took the reviewer's edit and changed the
        // line right after it.
        let edited = BASE.replace("list tasks", "list tasks by due date");
        let theirs = edited.replace("complete tasks", "complete or reopen tasks");
        let m = merge_edit(BASE, &edited, &theirs);
        assert!(m.conflicts.is_empty(), "{}", m.text);
        assert_eq!(m.text, theirs);
        // Both made exactly the same change.
        let m = merge_edit(BASE, &edited, &edited);
        assert!(m.conflicts.is_empty());
        assert_eq!(m.text, edited);
        // The architect left the reviewer's line as it was and changed its neighbour.
        let theirs = BASE.replace("complete tasks", "complete or reopen tasks");
        let m = merge_edit(BASE, &edited, &theirs);
        assert!(m.conflicts.is_empty(), "{}", m.text);
        assert_eq!(
            m.text,
            theirs.replace("list tasks", "list tasks by due date")
        );
    }

    /// Found by the workbench: the architect's block added FR-03 under the
    /// reviewer's edited FR-02 (it answered from the edited text), and the merge
    /// called that a conflict of the reviewer's line against itself.
    #[test]
    fn lines_the_architect_adds_beside_the_reviewers_merge_cleanly() {
        let edited = BASE.replace("list tasks", "list tasks by due date");
        for theirs in [
            edited.replace("list tasks by due date", "list tasks by due date\nFR-09: x"),
            edited.replace(
                "FR-02: list tasks by due date",
                "FR-09: x\nFR-02: list tasks by due date",
            ),
        ] {
            let m = merge_edit(BASE, &edited, &theirs);
            assert!(m.conflicts.is_empty(), "{}", m.text);
            assert_eq!(m.text, theirs);
        }
        // Beside the old line, not the reviewer's: still a true overlap.
        let theirs = BASE.replace("list tasks", "list tasks\nFR-09: x");
        assert_eq!(merge_edit(BASE, &edited, &theirs).conflicts.len(), 1);
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
