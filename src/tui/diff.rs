//! A line diff between two cycles of one artifact, with the `similar` crate.

use similar::{ChangeTag, TextDiff};

/// What a diff line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffKind {
    Same,
    Added,
    Removed,
    /// A marker for skipped unchanged lines.
    Gap,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    pub kind: DiffKind,
    pub text: String,
}

/// Unchanged lines kept around each change.
const CONTEXT: usize = 3;

/// The changes from `old` to `new` with a little context; long unchanged runs are
/// folded into one gap line so the changes are what the eye finds.
pub fn diff_lines(old: &str, new: &str) -> Vec<DiffLine> {
    let diff = TextDiff::from_lines(old, new);
    let mut out = Vec::new();
    for (i, group) in diff.grouped_ops(CONTEXT).iter().enumerate() {
        if i > 0 {
            out.push(DiffLine {
                kind: DiffKind::Gap,
                text: "⋯".into(),
            });
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let kind = match change.tag() {
                    ChangeTag::Equal => DiffKind::Same,
                    ChangeTag::Insert => DiffKind::Added,
                    ChangeTag::Delete => DiffKind::Removed,
                };
                out.push(DiffLine {
                    kind,
                    text: change.value().trim_end_matches('\n').to_string(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_tagged_and_far_context_is_folded() {
        let old: String = (0..20).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 2\n", "line two\n")
            .replace("line 17\n", "");
        let lines = diff_lines(&old, &new);
        assert!(lines.contains(&DiffLine {
            kind: DiffKind::Removed,
            text: "line 2".into()
        }));
        assert!(lines.contains(&DiffLine {
            kind: DiffKind::Added,
            text: "line two".into()
        }));
        assert!(lines.contains(&DiffLine {
            kind: DiffKind::Removed,
            text: "line 17".into()
        }));
        assert_eq!(lines.iter().filter(|l| l.kind == DiffKind::Gap).count(), 1);
        assert!(diff_lines("same\n", "same\n").is_empty());
    }
}
