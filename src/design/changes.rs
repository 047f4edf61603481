//! The architect's account of an update: the lines of the `CHANGES:` part of its
//! answer, one per change, `- Q1.2 requirements: added FR-08 for CSV export`.
//!
//! The first word names the review thread that asked for the change, `-` for a
//! change nobody asked for, or a reason that is no thread (a design-compiler code
//! `D022`, the reviewer's `edit`, an answered open question `OQ2`); the second names the artifact, or `none` for an answer that
//! needs no change (then the summary is the answer). volk checks these claims against
//! the real diff (the loop's thread reconciliation), so reading them is lenient about bullets
//! and case but never guesses a thread or an artifact.

use crate::design::Section;

/// What a line says changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Artifact(Section),
    /// `none`: nothing needs to change; the summary explains why.
    Nothing,
}

/// What a line says a change answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A review thread, `Q1.2`.
    Thread(String),
    /// `-`: nobody asked for it.
    Unrequested,
    /// A reason that is no thread but accounts for the change: a design-compiler
    /// code (`D022`), the reviewer's hand edit (`edit`), or one of the architect's own
    /// open questions the reviewer answered (`OQ2`).
    Reason(String),
}

/// One readable line of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeLine {
    pub source: Source,
    pub target: Target,
    pub summary: String,
}

impl ChangeLine {
    /// The thread the line names, if it names one.
    pub fn thread(&self) -> Option<&str> {
        match &self.source {
            Source::Thread(id) => Some(id),
            _ => None,
        }
    }
}

/// The list, and the lines that could not be read (reported, never guessed at).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangeList {
    pub lines: Vec<ChangeLine>,
    pub unreadable: Vec<String>,
}

/// Reads the `CHANGES:` part (without its marker).
pub fn parse_changes(text: &str) -> ChangeList {
    let mut list = ChangeList::default();
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        match parse_line(line) {
            Some(change) => list.lines.push(change),
            None => list.unreadable.push(line.to_string()),
        }
    }
    list
}

fn parse_line(line: &str) -> Option<ChangeLine> {
    let line = strip_bullet(line);
    let (thread_word, rest) = split_word(line)?;
    let thread_word = thread_word.trim_matches(|c: char| matches!(c, '*' | '`' | '[' | ']'));
    let source = match thread_word.trim_end_matches(':') {
        "-" => Source::Unrequested,
        word => match thread_id(word) {
            Some(id) => Source::Thread(id),
            None => Source::Reason(reason(word)?),
        },
    };
    let (target_word, summary) = rest.split_once(':')?;
    let target_word = target_word
        .trim()
        .trim_matches(|c: char| matches!(c, '*' | '`'))
        .to_ascii_lowercase();
    let target =
        if target_word == "none" {
            Target::Nothing
        } else {
            Target::Artifact(Section::ALL.into_iter().find(|s| {
                s.key() == target_word || s.marker().eq_ignore_ascii_case(&target_word)
            })?)
        };
    Some(ChangeLine {
        source,
        target,
        summary: summary.trim().to_string(),
    })
}

/// Drops one list bullet (`-`, `*`, `+`) when a word follows it.
fn strip_bullet(line: &str) -> &str {
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return rest.trim_start();
        }
    }
    line
}

fn split_word(line: &str) -> Option<(&str, &str)> {
    let end = line.find(char::is_whitespace)?;
    Some((&line[..end], line[end..].trim_start()))
}

/// A reason word in its canonical spelling: `D022`, `edit`, `OQ2`.
fn reason(word: &str) -> Option<String> {
    if word.eq_ignore_ascii_case("edit") {
        return Some("edit".into());
    }
    let upper = word.to_ascii_uppercase();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(n) = upper.strip_prefix("OQ")
        && digits(n)
    {
        return Some(upper);
    }
    match upper.strip_prefix('D') {
        Some(n) if n.len() == 3 && digits(n) => Some(upper),
        _ => None,
    }
}

/// `Q1.2` (any case) in its canonical spelling; anything else is no thread id.
pub fn thread_id(word: &str) -> Option<String> {
    let rest = word.strip_prefix(['Q', 'q'])?;
    let (cycle, index) = rest.split_once('.')?;
    let cycle: u32 = cycle.parse().ok()?;
    let index: u32 = index.parse().ok()?;
    Some(format!("Q{cycle}.{index}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_kinds_of_line() {
        let list = parse_changes(
            "- Q1.2 requirements: added FR-08 for CSV export\n\
             - - api_spec: renamed run() to start()\n\
             - Q1.1 none: the schema is already in API_SPEC (TaskStore.create_table)\n",
        );
        assert!(list.unreadable.is_empty());
        assert_eq!(
            list.lines,
            vec![
                ChangeLine {
                    source: Source::Thread("Q1.2".into()),
                    target: Target::Artifact(Section::Requirements),
                    summary: "added FR-08 for CSV export".into(),
                },
                ChangeLine {
                    source: Source::Unrequested,
                    target: Target::Artifact(Section::ApiSpec),
                    summary: "renamed run() to start()".into(),
                },
                ChangeLine {
                    source: Source::Thread("Q1.1".into()),
                    target: Target::Nothing,
                    summary: "the schema is already in API_SPEC (TaskStore.create_table)".into(),
                },
            ]
        );
    }

    #[test]
    fn lenient_about_bullets_case_and_markers() {
        let list = parse_changes("* q2.10 FILE_TREE: moved tests\n**Q3.1** Class_Diagram: x\n");
        assert_eq!(list.lines.len(), 2, "{list:?}");
        assert_eq!(list.lines[0].thread(), Some("Q2.10"));
        assert_eq!(list.lines[0].target, Target::Artifact(Section::FileTree));
        assert_eq!(
            list.lines[1].target,
            Target::Artifact(Section::ClassDiagram)
        );
    }

    #[test]
    fn a_line_may_name_its_reason_instead_of_a_thread() {
        let list = parse_changes(
            "- D022 file_tree: added tests/test_store.py\n\
             - edit requirements: followed the reviewer's FR-12 change in ADR-002\n\
             - oq2 api_spec: paged list as answered\n",
        );
        assert!(list.unreadable.is_empty(), "{list:?}");
        let sources: Vec<_> = list.lines.iter().map(|l| l.source.clone()).collect();
        assert_eq!(
            sources,
            [
                Source::Reason("D022".into()),
                Source::Reason("edit".into()),
                Source::Reason("OQ2".into())
            ]
        );
    }

    #[test]
    fn unknown_artifacts_and_ids_are_unreadable_not_guessed() {
        let list = parse_changes("- Q1.1 database: added\n- T1 requirements: x\nprose\n");
        assert!(list.lines.is_empty());
        assert_eq!(list.unreadable.len(), 3);
    }
}
