//! Settled parts: an artifact, or one requirement (`FR-02`, `NFR-01`) or ADR
//! (`ADR-001`), that the reviewer accepted and the architect may not rewrite. volk
//! shows settled text read-only in the prompt and, after the cycle, puts back byte
//! for byte whatever the model changed in it.
//!
//! [`settled_ranges`] is the one place that knows where settled text lies, so the
//! edit-block applier can refuse a block whose SEARCH falls inside it.

use std::ops::Range;

use crate::design::Section;

/// One settled mark, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mark {
    Artifact(Section),
    /// A requirement or ADR: its kind (`FR`, `NFR`, `ERR`, `ADR`) and number.
    Item {
        kind: String,
        number: u32,
    },
}

impl Mark {
    /// Reads `file_tree`, `FR-02`, `fr-2`, `ADR-001`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Mark> {
        let text = text.trim();
        if let Some(section) = Section::from_key(text) {
            return Some(Mark::Artifact(section));
        }
        let (kind, number) = text.split_once('-')?;
        let kind = kind.to_ascii_uppercase();
        if !matches!(kind.as_str(), "FR" | "NFR" | "ERR" | "ADR") {
            return None;
        }
        let number = number.parse().ok()?;
        Some(Mark::Item { kind, number })
    }

    /// The canonical spelling: `file_tree`, `FR-02`, `ADR-001`.
    pub fn label(&self) -> String {
        match self {
            Mark::Artifact(section) => section.key().to_string(),
            Mark::Item { kind, number } if kind == "ADR" => format!("ADR-{number:03}"),
            Mark::Item { kind, number } => format!("{kind}-{number:02}"),
        }
    }

    /// The artifact an item lives in.
    fn home(&self) -> Section {
        match self {
            Mark::Artifact(section) => *section,
            Mark::Item { kind, .. } if kind == "ADR" => Section::Architecture,
            Mark::Item { .. } => Section::Requirements,
        }
    }
}

/// The byte range of the item `mark` in `text`: the line that defines it (the id comes
/// first on the line, after any bullet, number, heading or bold) and what belongs to
/// it: indented continuation lines, or, under a heading, everything up to the next
/// heading of the same or a higher level.
pub fn item_range(text: &str, mark: &Mark) -> Option<Range<usize>> {
    let Mark::Item { kind, number } = mark else {
        return None;
    };
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let start = offset;
        offset += line.len();
        if !defines(line, kind, *number) {
            continue;
        }
        let heading = heading_level(line);
        let mut end = offset;
        while let Some(next) = lines.peek() {
            let continues = match heading {
                Some(level) => heading_level(next).is_none_or(|l| l > level),
                None => {
                    next.starts_with([' ', '\t']) && !next.trim().is_empty() && !defines_any(next)
                }
            };
            if !continues {
                break;
            }
            end += next.len();
            lines.next();
        }
        // The range ends before its last newline, so a trimmed artifact's last item
        // and a middle one read the same.
        while end > start && text.as_bytes()[end - 1] == b'\n' {
            end -= 1;
        }
        return Some(start..end);
    }
    None
}

fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    (hashes > 0 && hashes <= 6 && line[hashes..].starts_with(' ')).then_some(hashes)
}

/// The line with its lead-in (indent, `#`s, bullet, `1.`, `**`) removed.
fn lead_stripped(line: &str) -> &str {
    let mut rest = line.trim_start();
    loop {
        let before = rest;
        rest = rest.trim_start_matches('#').trim_start();
        rest = rest
            .strip_prefix("- ")
            .or_else(|| rest.strip_prefix("* "))
            .or_else(|| rest.strip_prefix("+ "))
            .unwrap_or(rest)
            .trim_start();
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with(['.', ')']) {
            rest = rest[digits + 1..].trim_start();
        }
        rest = rest.trim_start_matches(['*', '_', '`', '[']).trim_start();
        if rest == before {
            return rest;
        }
    }
}

/// The id a line starts with, as `(kind, number)`.
fn leading_id(line: &str) -> Option<(String, u32)> {
    let rest = lead_stripped(line);
    let kind_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
    let kind = rest[..kind_len].to_ascii_uppercase();
    if !matches!(kind.as_str(), "FR" | "NFR" | "ERR" | "ADR") {
        return None;
    }
    let digits = rest[kind_len..].strip_prefix('-')?;
    let len = digits.bytes().take_while(u8::is_ascii_digit).count();
    if digits[len..].starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return None;
    }
    Some((kind, digits[..len].parse().ok()?))
}

/// The requirement or ADR a line defines (`2. FR-02: …`, `### ADR-001: …`), if any.
pub fn item_on_line(line: &str) -> Option<Mark> {
    leading_id(line).map(|(kind, number)| Mark::Item { kind, number })
}

fn defines(line: &str, kind: &str, number: u32) -> bool {
    leading_id(line).is_some_and(|(k, n)| k == kind && n == number)
}

fn defines_any(line: &str) -> bool {
    leading_id(line).is_some()
}

/// The settled byte ranges of `section`'s `text` under `marks` (the whole text when
/// the artifact itself is settled), sorted, for refusing edits that touch them.
pub fn settled_ranges(section: Section, text: &str, marks: &[Mark]) -> Vec<Range<usize>> {
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for mark in marks.iter().filter(|m| m.home() == section) {
        match mark {
            Mark::Artifact(_) => return std::iter::once(0..text.len()).collect(),
            item => ranges.extend(item_range(text, item)),
        }
    }
    ranges.sort_by_key(|r| r.start);
    ranges
}

/// Puts settled text of `section` back as it was in `before`; returns the new text
/// and the marks it restored. An item the model deleted is put back where it was (by
/// line position); one the model never had is left alone.
pub fn restore(section: Section, before: &str, after: &str, marks: &[Mark]) -> (String, Vec<Mark>) {
    let mut text = after.to_string();
    let mut restored = Vec::new();
    for mark in marks.iter().filter(|m| m.home() == section) {
        match mark {
            Mark::Artifact(_) => {
                if text != before {
                    text = before.to_string();
                    restored.push(mark.clone());
                }
                return (text, restored);
            }
            item => {
                let Some(old) = item_range(before, item) else {
                    continue;
                };
                let old_text = &before[old.clone()];
                match item_range(&text, item) {
                    Some(new) if text[new.clone()] == *old_text => {}
                    Some(new) => {
                        text.replace_range(new, old_text);
                        restored.push(mark.clone());
                    }
                    None => {
                        insert_item(&mut text, before, old.clone());
                        restored.push(mark.clone());
                    }
                }
            }
        }
    }
    (text, restored)
}

/// Puts the item at `old` of `before` back into `text`, which lost it: after the item
/// that preceded it, else before the one that followed it, else where its line was.
/// Never between an item and its continuation lines.
fn insert_item(text: &mut String, before: &str, old: Range<usize>) {
    let item = &before[old.clone()];
    let neighbour = |lines: &mut dyn Iterator<Item = &str>| {
        lines
            .filter_map(item_on_line)
            .find_map(|mark| item_range(text, &mark))
    };
    let previous = neighbour(&mut before[..old.start].lines().rev());
    if let Some(range) = previous {
        text.insert_str(range.end, &format!("\n{item}"));
        return;
    }
    let next = neighbour(&mut before[old.end..].lines());
    if let Some(range) = next {
        text.insert_str(range.start, &format!("{item}\n"));
        return;
    }
    let line = before[..old.start].matches('\n').count();
    let at = text
        .split_inclusive('\n')
        .take(line)
        .map(str::len)
        .sum::<usize>()
        .min(text.len());
    if at < text.len() {
        text.insert_str(at, &format!("{item}\n"));
    } else if text.is_empty() || text.ends_with('\n') {
        text.push_str(item);
    } else {
        text.push('\n');
        text.push_str(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQS: &str = "FUNCTIONAL:\n1. FR-01: Add tasks.\n2. FR-02: List tasks.\n   Sorted by due date.\n3. FR-03: Complete tasks.\n\nNON-FUNCTIONAL:\n1. NFR-01: Fast.";

    #[test]
    fn marks_parse_and_print_canonically() {
        assert_eq!(
            Mark::parse("fr-2"),
            Some(Mark::Item {
                kind: "FR".into(),
                number: 2
            })
        );
        assert_eq!(Mark::parse("FR-2").unwrap().label(), "FR-02");
        assert_eq!(Mark::parse("ADR-1").unwrap().label(), "ADR-001");
        assert_eq!(
            Mark::parse("file_tree"),
            Some(Mark::Artifact(Section::FileTree))
        );
        assert_eq!(Mark::parse("database"), None);
    }

    #[test]
    fn an_item_runs_over_its_continuation_lines() {
        let r = item_range(REQS, &Mark::parse("FR-02").unwrap()).unwrap();
        assert_eq!(&REQS[r], "2. FR-02: List tasks.\n   Sorted by due date.");
        let r = item_range(REQS, &Mark::parse("NFR-01").unwrap()).unwrap();
        assert_eq!(&REQS[r], "1. NFR-01: Fast.");
        assert_eq!(item_range(REQS, &Mark::parse("FR-09").unwrap()), None);
    }

    #[test]
    fn an_adr_under_a_heading_runs_to_the_next_heading() {
        let arch =
            "## Decisions\n### ADR-001: SQLite\nOne file.\n- simple\n### ADR-002: CLI\nargparse";
        let r = item_range(arch, &Mark::parse("ADR-001").unwrap()).unwrap();
        assert_eq!(&arch[r], "### ADR-001: SQLite\nOne file.\n- simple");
    }

    #[test]
    fn changed_and_deleted_items_are_restored_byte_for_byte() {
        let marks = [Mark::parse("FR-02").unwrap(), Mark::parse("FR-03").unwrap()];
        let after = "FUNCTIONAL:\n1. FR-01: Add tasks.\n2. FR-02: List all tasks quickly.\n4. FR-04: Export.";
        let (text, restored) = restore(Section::Requirements, REQS, after, &marks);
        assert_eq!(restored.len(), 2);
        assert!(text.contains("2. FR-02: List tasks.\n   Sorted by due date."));
        assert!(text.contains("3. FR-03: Complete tasks."));
        assert!(text.contains("4. FR-04: Export."));
        let (same, none) = restore(Section::Requirements, REQS, REQS, &marks);
        assert_eq!(same, REQS);
        assert!(none.is_empty());
    }

    #[test]
    fn a_settled_artifact_is_restored_whole_and_its_range_is_everything() {
        let marks = [Mark::Artifact(Section::FileTree)];
        let (text, restored) = restore(Section::FileTree, "src/\n  a.rs", "src/\n  b.rs", &marks);
        assert_eq!(text, "src/\n  a.rs");
        assert_eq!(restored, marks.to_vec());
        let whole = settled_ranges(Section::FileTree, "abc", &marks);
        assert_eq!((whole.len(), whole[0].clone()), (1, 0..3));
        assert!(settled_ranges(Section::ApiSpec, "abc", &marks).is_empty());
        let ranges = settled_ranges(
            Section::Requirements,
            REQS,
            &[Mark::parse("FR-01").unwrap()],
        );
        assert_eq!(&REQS[ranges[0].clone()], "1. FR-01: Add tasks.");
    }
}

#[cfg(test)]
mod props {
    use proptest::prelude::*;

    use super::*;

    /// A requirements artifact: numbered FR lines, some with continuation lines.
    fn requirements() -> impl Strategy<Value = Vec<(u32, String, bool)>> {
        prop::collection::vec(("[a-z ]{1,20}", any::<bool>()), 1..12).prop_map(|items| {
            items
                .into_iter()
                .enumerate()
                .map(|(i, (text, more))| (i as u32 + 1, text, more))
                .collect()
        })
    }

    fn render(items: &[(u32, String, bool)]) -> String {
        let mut out = String::from("FUNCTIONAL:");
        for (n, text, more) in items {
            out.push_str(&format!("\n{n}. FR-{n:02}: {}.", text.trim()));
            if *more {
                out.push_str("\n   and more about it");
            }
        }
        out
    }

    proptest! {
        /// Whatever the model does to the other items (rewrite, drop, add), a settled
        /// item comes back byte for byte and the rest of the model's text stays.
        #[test]
        fn a_settled_item_survives_any_rewrite(
            before in requirements(),
            settled in 1u32..12,
            rewrites in prop::collection::vec(("[a-z ]{1,20}", any::<bool>(), any::<bool>()), 12),
        ) {
            let settled = settled.min(before.len() as u32);
            let old = render(&before);
            let after: Vec<(u32, String, bool)> = before
                .iter()
                .zip(&rewrites)
                .filter(|(_, (_, _, keep))| *keep)
                .map(|((n, text, more), (new, change, _))| {
                    if *change { (*n, new.clone(), !*more) } else { (*n, text.clone(), *more) }
                })
                .collect();
            let new = render(&after);
            let mark = Mark::Item { kind: "FR".into(), number: settled };
            let (text, _) = restore(Section::Requirements, &old, &new, std::slice::from_ref(&mark));
            let want = &old[item_range(&old, &mark).unwrap()];
            let got = &text[item_range(&text, &mark).unwrap()];
            prop_assert_eq!(got, want);
            for (n, text_of, _) in after.iter().filter(|(n, _, _)| *n != settled) {
                let line = format!("{n}. FR-{n:02}: {}.", text_of.trim());
                prop_assert!(text.contains(&line), "{} lost from {}", line, text);
            }
        }
    }
}
