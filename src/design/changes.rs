//! The architect's account of an update: the lines of the `CHANGES:` part of its
//! answer, one per change, `- Q1.2 requirements: added FR-08 for CSV export`.
//!
//! The first word names the review thread that asked for the change, or `-` for a
//! change nobody asked for; the second names the artifact, or `none` for an answer that
//! needs no change (then the summary is the answer). volk checks these claims against
//! the real diff ([`crate::volk::threads`]), so reading them is lenient about bullets
//! and case but never guesses a thread or an artifact.

use crate::design::Section;

/// What a line says changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Artifact(Section),
    /// `none`: nothing needs to change; the summary explains why.
    Nothing,
}

/// One readable line of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeLine {
    /// `Q1.2`, or `None` for `-` (unrequested).
    pub thread: Option<String>,
    pub target: Target,
    pub summary: String,
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
    let thread = match thread_word.trim_end_matches(':') {
        "-" => None,
        id => Some(thread_id(id)?),
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
        thread,
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
                    thread: Some("Q1.2".into()),
                    target: Target::Artifact(Section::Requirements),
                    summary: "added FR-08 for CSV export".into(),
                },
                ChangeLine {
                    thread: None,
                    target: Target::Artifact(Section::ApiSpec),
                    summary: "renamed run() to start()".into(),
                },
                ChangeLine {
                    thread: Some("Q1.1".into()),
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
        assert_eq!(list.lines[0].thread.as_deref(), Some("Q2.10"));
        assert_eq!(list.lines[0].target, Target::Artifact(Section::FileTree));
        assert_eq!(
            list.lines[1].target,
            Target::Artifact(Section::ClassDiagram)
        );
    }

    #[test]
    fn unknown_artifacts_and_ids_are_unreadable_not_guessed() {
        let list = parse_changes("- Q1.1 database: added\n- T1 requirements: x\nprose\n");
        assert!(list.lines.is_empty());
        assert_eq!(list.unreadable.len(), 3);
    }
}
