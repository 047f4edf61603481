//! The review that carries across cycles, as the state machine sees it: question
//! threads, hand edits and settled parts, kept in the session, turned into prompt
//! text before an update and into a report after it. Pure, except
//! the edit guard, which reads `design/` at the runtime's edge.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::brief::Question;
use crate::cxp::ReviewMarks;
use crate::design::changes::parse_changes;
use crate::design::merge::{merge_edit, unified_diff};
use crate::design::settled::{Mark, item_range, restore};
use crate::design::{Artifacts, PerSection, Section};
use crate::volk::journal::JournalEvent;
use crate::volk::threads::{self, Change, Reconciled, StatusChange, Thread};

/// Diagnostic code of an edit conflict left in an artifact.
pub const UNRESOLVED_CONFLICT: &str = "D050";

/// Everything the review keeps between cycles (in `session.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReviewState {
    #[serde(default)]
    pub threads: Vec<Thread>,
    /// Settled marks in their canonical spelling (`file_tree`, `FR-02`, `ADR-001`).
    #[serde(default)]
    pub settled: Vec<String>,
    /// The reviewer's hand edit awaiting the next cycle's merge.
    #[serde(default)]
    pub edit: Option<ReviewerEdit>,
    /// What the last cycle's check found, for its `design_review` packet.
    #[serde(default)]
    pub last: CycleReport,
    /// What the answers of the cycle in progress said so far (main answer, block
    /// repair, full-section repair, design-compiler repair): judged together against
    /// the cycle's final diff when it closes.
    #[serde(default, skip_serializing_if = "Held::is_empty")]
    pub held: Held,
}

/// The accounts of the answers of one cycle, gathered until it closes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Held {
    /// Each answer's `CHANGES:` part, in the order answered.
    #[serde(default)]
    pub changes: Vec<String>,
    /// Blocks dropped because they touched settled text.
    #[serde(default)]
    pub dropped: Vec<Restored>,
}

impl Held {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.dropped.is_empty()
    }
}

/// Keeps an answer's `CHANGES:` until its cycle closes: a follow-up answer may
/// leave them out, or add its own.
pub fn hold_changes(state: &mut ReviewState, changes: Option<String>) {
    if let Some(changes) = changes {
        state.held.changes.push(changes);
    }
}

/// Forgets what an abandoned cycle held (a new update starts).
pub fn clear_held(state: &mut ReviewState) {
    state.held = Held::default();
}

/// Every `CHANGES:` line the cycle's answers gave, each once, or `None` when no
/// answer had the part.
pub fn take_changes(state: &mut ReviewState) -> Option<String> {
    let held = std::mem::take(&mut state.held.changes);
    if held.is_empty() {
        return None;
    }
    let mut lines: Vec<&str> = Vec::new();
    for line in held.iter().flat_map(|c| c.lines()) {
        let line = line.trim_end();
        if !line.trim().is_empty() && !lines.contains(&line) {
            lines.push(line);
        }
    }
    Some(lines.join("\n"))
}

/// Records a block dropped for touching settled text: which settled item it touched
/// (found by where its SEARCH text lies), for the cycle's `restored` report.
pub fn hold_dropped(
    state: &mut ReviewState,
    design: &Artifacts,
    section: Section,
    search: &str,
) -> Restored {
    let text = design.get(section);
    let settled = marks(state);
    let at = text.find(search.trim()).map(|i| i..i + search.trim().len());
    let item = settled
        .iter()
        .find(|m| match m {
            Mark::Artifact(s) => *s == section,
            item => item_range(text, item).is_some_and(|r| {
                at.as_ref()
                    .is_some_and(|a| a.start < r.end && r.start < a.end)
            }),
        })
        .or_else(|| {
            settled
                .iter()
                .find(|m| !matches!(m, Mark::Artifact(_)) && item_range(text, m).is_some())
        })
        .map_or_else(|| section.key().to_string(), |m| m.label());
    let restored = Restored {
        artifact: section.key().to_string(),
        item,
    };
    if !state.held.dropped.contains(&restored) {
        state.held.dropped.push(restored.clone());
    }
    restored
}

/// A hand edit: the artifacts before it; the edited text is the session's design.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewerEdit {
    pub base: Artifacts,
    pub sections: Vec<Section>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CycleReport {
    #[serde(default)]
    pub unrequested: Vec<Change>,
    #[serde(default)]
    pub restored: Vec<Restored>,
    #[serde(default)]
    pub conflicts: Vec<Conflict>,
    /// What the reviewer's hand edit did to each artifact it touched, as the cycle
    /// kept it: the diff view compares with the text the reviewer read and marks
    /// the reviewer's own lines, apart from the architect's changes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reviewer: Vec<ReviewerLines>,
}

/// One artifact's hand edit, as the cycle that took it kept it. Recorded from the
/// edit itself (the text before it against the text after it, which is what the
/// `Reviewer edit:` commit holds), so every workbench shows the same marks: the one
/// that ran the cycle, one opened later, and a second, read-only one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewerLines {
    pub artifact: String,
    /// The artifact as the reviewer read it, before the edit. A diff from the text
    /// after the edit would not show the reviewer's lines at all.
    #[serde(default)]
    pub before: String,
    /// Lines of the cycle's text the reviewer wrote, and the merge kept.
    #[serde(default)]
    pub added: Vec<NumberedLine>,
    /// Lines of `before` the reviewer deleted.
    #[serde(default)]
    pub removed: Vec<NumberedLine>,
}

/// A line by its number (from 1) and its text: a mark holds only where both match,
/// so a line the architect wrote with the same words elsewhere is not the reviewer's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberedLine {
    pub line: usize,
    pub text: String,
}

impl CycleReport {
    /// The hand edit of `section` the last cycle took, if any. A record that says
    /// nothing (a session written before the text was kept, which held only the
    /// lines' words) is none: a diff from an empty text would call every line new.
    pub fn reviewer_edit(&self, section: Section) -> Option<&ReviewerLines> {
        self.reviewer.iter().find(|r| {
            r.artifact == section.key()
                && !(r.before.is_empty() && r.added.is_empty() && r.removed.is_empty())
        })
    }
}

impl ReviewerLines {
    /// Whether line `index` (from 0) of the text after the cycle, reading `text`, is
    /// one the reviewer wrote.
    pub fn wrote(&self, index: usize, text: &str) -> bool {
        self.added
            .iter()
            .any(|l| l.line == index + 1 && l.text == text)
    }

    /// Whether line `index` (from 0) of [`ReviewerLines::before`], reading `text`,
    /// is one the reviewer deleted.
    pub fn deleted(&self, index: usize, text: &str) -> bool {
        self.removed
            .iter()
            .any(|l| l.line == index + 1 && l.text == text)
    }
}

/// What the reviewer's edit of one artifact (`before` → `edited`) left in `after`,
/// the cycle's text: the lines the edit added that `after` still has, found by
/// following the edit's diff through the diff from `edited` to `after` (a line the
/// architect wrote alike elsewhere stays the architect's), and the lines it deleted.
pub fn reviewer_lines(section: Section, before: &str, edited: &str, after: &str) -> ReviewerLines {
    use similar::ChangeTag;
    // Artifacts are kept without a final newline: without one added, the last line
    // would differ from the same words followed by more lines.
    let line_ended = |t: &str| {
        if t.is_empty() || t.ends_with('\n') {
            t.to_string()
        } else {
            format!("{t}\n")
        }
    };
    let (ended_before, edited, after) = (line_ended(before), line_ended(edited), line_ended(after));
    let edit = similar::TextDiff::from_lines(&ended_before, &edited);
    let mut inserted = vec![false; edited.lines().count() + 1];
    let mut removed = Vec::new();
    for change in edit.iter_all_changes() {
        match (change.tag(), change.old_index(), change.new_index()) {
            (ChangeTag::Insert, _, Some(at)) => {
                if let Some(slot) = inserted.get_mut(at) {
                    *slot = true;
                }
            }
            (ChangeTag::Delete, Some(at), _) => removed.push(NumberedLine {
                line: at + 1,
                text: line_text(change.value()),
            }),
            _ => {}
        }
    }
    let kept = similar::TextDiff::from_lines(&edited, &after);
    let added = kept
        .iter_all_changes()
        .filter(|c| c.tag() == ChangeTag::Equal)
        .filter_map(|c| {
            let (from, to) = (c.old_index()?, c.new_index()?);
            let text = line_text(c.value());
            (inserted.get(from) == Some(&true) && !text.trim().is_empty())
                .then_some(NumberedLine { line: to + 1, text })
        })
        .collect();
    ReviewerLines {
        artifact: section.key().to_string(),
        before: before.to_string(),
        added,
        removed,
    }
}

fn line_text(value: &str) -> String {
    value
        .trim_end_matches('\n')
        .trim_end_matches('\r')
        .to_string()
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Restored {
    pub artifact: String,
    pub item: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflict {
    pub artifact: String,
    pub line: usize,
}

/// A journal line the machine writes: event name and detail.
pub type Note = (JournalEvent, Value);

fn status_notes(changes: &[StatusChange]) -> Vec<Note> {
    changes
        .iter()
        .map(|c| (JournalEvent::ThreadStatus, c.detail()))
        .collect()
}

/// Applies the reviewer's marks from a feedback (close, settle, unsettle), all or
/// nothing: an unknown thread or an unreadable mark changes nothing and names the field.
pub fn apply_marks(state: &mut ReviewState, marks: &ReviewMarks) -> Result<Vec<Note>, String> {
    threads::check_ids(&state.threads, &marks.close).map_err(|e| format!("payload.close: {e}"))?;
    let parse = |field: &str, items: &[String]| -> Result<Vec<Mark>, String> {
        items
            .iter()
            .map(|m| {
                Mark::parse(m).ok_or_else(|| {
                    format!(
                        "payload.{field}: '{m}' is neither an artifact (architecture, requirements, file_tree, api_spec, class_diagram) nor a requirement or ADR id (FR-02, ADR-001)"
                    )
                })
            })
            .collect()
    };
    let settle = parse("settled", &marks.settled)?;
    let unsettle = parse("unsettled", &marks.unsettled)?;
    let mut notes = status_notes(&threads::close(&mut state.threads, &marks.close));
    for mark in settle {
        let label = mark.label();
        if !state.settled.contains(&label) {
            notes.push((JournalEvent::Settled, json!({ "item": label })));
            state.settled.push(label);
        }
    }
    for mark in unsettle {
        let label = mark.label();
        if let Some(i) = state.settled.iter().position(|s| *s == label) {
            state.settled.remove(i);
            notes.push((JournalEvent::Unsettled, json!({ "item": label })));
        }
    }
    Ok(notes)
}

/// Whether [`apply_marks`] would take `marks`, changing nothing: a packet with a mark
/// that names nothing is refused before it is recorded as taken.
pub fn check_marks(state: &ReviewState, marks: &ReviewMarks) -> Result<(), String> {
    apply_marks(&mut state.clone(), marks).map(|_| ())
}

/// Opens the threads of the questions sent after `cycle`.
pub fn open_threads(state: &mut ReviewState, cycle: u32, questions: &[Question]) -> Vec<Note> {
    let opened = threads::open(&mut state.threads, cycle, questions);
    opened
        .iter()
        .map(|c| {
            let question = state
                .threads
                .iter()
                .find(|t| t.id == c.id)
                .map(|t| t.question.clone());
            let mut detail = c.detail();
            detail["question"] = json!(question);
            (JournalEvent::ThreadStatus, detail)
        })
        .collect()
}

fn marks(state: &ReviewState) -> Vec<Mark> {
    state
        .settled
        .iter()
        .filter_map(|s| Mark::parse(s))
        .collect()
}

/// The settled byte ranges of each section of `design`, in section order: the text
/// the edit-block applier refuses to touch.
pub fn settled_byte_ranges(
    state: &ReviewState,
    design: &Artifacts,
) -> crate::design::edit::stream::Settled {
    let marks = marks(state);
    PerSection::from_fn(|s| crate::design::settled::settled_ranges(s, design.get(s), &marks))
}

/// What the update prompt carries for the review: the question lines (ids, anchors,
/// carried-over threads first) and the binding parts (the reviewer's edit, the
/// settled text). `reviewed` is the cycle the reviewer just read.
pub fn prompt(state: &ReviewState, design: &Artifacts, reviewed: u32) -> (Vec<Question>, String) {
    let questions = threads::pending_questions(&state.threads, reviewed);
    let mut section = String::new();
    if let Some(edit) = &state.edit {
        section.push_str(
            "\n# The reviewer's own edits (binding)\nThe reviewer edited these artifacts by hand; the current design below already contains the edits. They are binding decisions: keep every edited line as the reviewer wrote it and build on it.\n\n```diff\n",
        );
        for s in &edit.sections {
            section.push_str(&unified_diff(
                s.file_name(),
                edit.base.get(*s),
                design.get(*s),
            ));
        }
        section.push_str("```\n");
    }
    let settled = marks(state);
    if !settled.is_empty() {
        section.push_str(
            "\n# Settled parts (read-only)\nThe reviewer settled these parts. Repeat each one in your answer exactly as it stands, byte for byte, and do not move it; volk restores any change made to them.\n",
        );
        for mark in &settled {
            match mark {
                Mark::Artifact(s) => {
                    let _ = writeln!(
                        section,
                        "- {} ({}): the whole artifact, as in the current design",
                        s.marker(),
                        s.key()
                    );
                }
                item => {
                    let home = if item.label().starts_with("ADR") {
                        Section::Architecture
                    } else {
                        Section::Requirements
                    };
                    let text = design.get(home);
                    if let Some(range) = item_range(text, item) {
                        let _ = writeln!(
                            section,
                            "- {} in {}:\n```text\n{}\n```",
                            item.label(),
                            home.marker(),
                            &text[range]
                        );
                    }
                }
            }
        }
    }
    (questions, section)
}

/// Records a hand edit of the design (the runtime found `edited` in `design/`):
/// remembers the text before it for the merge and returns the edited artifacts.
pub fn record_edit(
    state: &mut ReviewState,
    before: &Artifacts,
    edited: &Artifacts,
) -> Vec<Section> {
    let sections = edited.changed_since(before);
    // A second edit before the cycle keeps the first base: the merge then carries
    // both edits at once.
    let base = state
        .edit
        .take()
        .map_or_else(|| before.clone(), |earlier| earlier.base);
    state.edit = Some(ReviewerEdit {
        sections: edited.changed_since(&base),
        base,
    });
    sections
}

/// The commit message of a hand edit.
pub fn edit_message(sections: &[Section]) -> String {
    let names: Vec<&str> = sections.iter().map(|s| s.key()).collect();
    format!("Reviewer edit: {}", names.join(", "))
}

/// What an update cycle's answer became once the review had its say.
#[derive(Debug, Clone)]
pub struct AfterCycle {
    pub artifacts: Artifacts,
    pub reconciled: Reconciled,
    /// Lines for the person, in plain words.
    pub warnings: Vec<String>,
    pub notes: Vec<Note>,
}

/// After an update: merges the reviewer's edit into the model's text, restores
/// settled text, then checks the `CHANGES:` claims against what really changed from
/// `shown` (the design the prompt showed).
pub fn after_cycle(
    state: &mut ReviewState,
    shown: &Artifacts,
    answer: Artifacts,
    changes: Option<&str>,
) -> AfterCycle {
    let mut artifacts = answer;
    let mut warnings = Vec::new();
    let mut notes: Vec<Note> = Vec::new();
    let mut report = CycleReport::default();
    let edit = state.edit.take();
    if let Some(edit) = &edit {
        for s in &edit.sections {
            let merged = merge_edit(edit.base.get(*s), shown.get(*s), artifacts.get(*s));
            // Lines as the file has them (the class diagram gains a fence line).
            let on_disk = crate::design::write::file_body(*s, &merged.text);
            for line in &crate::design::merge::conflict_lines(&on_disk) {
                report.conflicts.push(Conflict {
                    artifact: s.key().to_string(),
                    line: *line,
                });
                warnings.push(format!(
                    "{UNRESOLVED_CONFLICT} design/{}:{line}: the reviewer's edit conflicts with the architect's revision; both versions are kept between markers",
                    s.file_name()
                ));
            }
            artifacts.set(*s, merged.text);
        }
        notes.push((
            JournalEvent::ReviewerEditMerged,
            json!({ "artifacts": edit.sections.iter().map(|s| s.key()).collect::<Vec<_>>(), "conflicts": report.conflicts }),
        ));
    }
    report.restored = std::mem::take(&mut state.held.dropped);
    let settled = marks(state);
    for s in Section::ALL {
        let (text, restored) = restore(s, shown.get(s), artifacts.get(s), &settled);
        for mark in restored {
            let item = mark.label();
            warnings.push(format!(
                "restored settled {item} in {}: the architect changed it",
                s.key()
            ));
            notes.push((
                JournalEvent::SettledRestored,
                json!({ "artifact": s.key(), "item": item }),
            ));
            let restored = Restored {
                artifact: s.key().to_string(),
                item,
            };
            if !report.restored.contains(&restored) {
                report.restored.push(restored);
            }
        }
        artifacts.set(s, text);
    }
    // The reviewer's lines, in the text as it ends (merged, settled text restored).
    if let Some(edit) = &edit {
        for s in &edit.sections {
            report.reviewer.push(reviewer_lines(
                *s,
                edit.base.get(*s),
                shown.get(*s),
                artifacts.get(*s),
            ));
        }
    }
    let changed = artifacts.changed_since(shown);
    let list = changes.map(parse_changes);
    let reconciled = threads::reconcile(&mut state.threads, list.as_ref(), &changed);
    if list.is_none() {
        warnings.push("the answer has no CHANGES section: every thread stays unaddressed".into());
    }
    for note in &reconciled.notes {
        warnings.push(note.to_string());
    }
    notes.extend(status_notes(&reconciled.changes));
    if !reconciled.unrequested.is_empty() {
        notes.push((
            JournalEvent::UnrequestedChanges,
            json!({ "changes": reconciled.unrequested }),
        ));
    }
    report.unrequested = reconciled.unrequested.clone();
    state.last = report;
    AfterCycle {
        artifacts,
        reconciled,
        warnings,
        notes,
    }
}

/// The review's fields of a `design_review` payload.
pub fn payload_into(state: &ReviewState, payload: &mut Map<String, Value>) {
    payload.insert("threads".into(), threads::payload(&state.threads));
    payload.insert("unrequested_changes".into(), json!(state.last.unrequested));
    payload.insert("restored".into(), json!(state.last.restored));
    payload.insert("conflicts".into(), json!(state.last.conflicts));
    payload.insert("settled".into(), json!(state.settled));
    // D050 itself is in `diagnostics`: the design compiler reports every conflict left.
}

#[cfg(test)]
mod tests {
    use super::*;

    fn design() -> Artifacts {
        Artifacts {
            architecture: "A".into(),
            requirements: "1. FR-01: add\n2. FR-02: list".into(),
            file_tree: "src/".into(),
            api_spec: "run()".into(),
            class_diagram: "classDiagram".into(),
        }
    }

    #[test]
    fn marks_are_all_or_nothing() {
        let mut state = ReviewState::default();
        let bad = ReviewMarks {
            settled: vec!["FR-02".into(), "database".into()],
            ..ReviewMarks::default()
        };
        let err = apply_marks(&mut state, &bad).unwrap_err();
        assert!(err.starts_with("payload.settled: 'database'"), "{err}");
        assert!(state.settled.is_empty());
        let good = ReviewMarks {
            settled: vec!["fr-2".into(), "file_tree".into()],
            ..ReviewMarks::default()
        };
        apply_marks(&mut state, &good).unwrap();
        assert_eq!(state.settled, ["FR-02", "file_tree"]);
        let (_, section) = prompt(&state, &design(), 2);
        assert!(
            section.contains("```text\n2. FR-02: list\n```"),
            "{section}"
        );
        assert!(section.contains("FILE_TREE (file_tree)"));
    }

    #[test]
    fn a_dropped_edit_is_merged_back_and_settled_text_restored() {
        let mut state = ReviewState::default();
        apply_marks(
            &mut state,
            &ReviewMarks {
                settled: vec!["file_tree".into()],
                ..ReviewMarks::default()
            },
        )
        .unwrap();
        let before = design();
        let mut edited = before.clone();
        edited.requirements = "1. FR-01: add with a name\n2. FR-02: list".into();
        assert_eq!(
            record_edit(&mut state, &before, &edited),
            vec![Section::Requirements]
        );
        let (_, section) = prompt(&state, &edited, 2);
        assert!(section.contains("+1. FR-01: add with a name"), "{section}");
        let mut answer = before.clone();
        answer.file_tree = "lib/".into();
        answer.api_spec = "start()".into();
        let out = after_cycle(
            &mut state,
            &edited,
            answer,
            Some("- - api_spec: renamed run"),
        );
        assert_eq!(out.artifacts.requirements, edited.requirements);
        let edit = state.last.reviewer_edit(Section::Requirements).unwrap();
        assert_eq!(
            edit.before, before.requirements,
            "the text the reviewer read"
        );
        assert!(
            edit.wrote(0, "1. FR-01: add with a name"),
            "the merged-back line is the reviewer's: {edit:?}"
        );
        assert!(edit.deleted(0, "1. FR-01: add"), "{edit:?}");
        assert!(
            !state
                .last
                .unrequested
                .iter()
                .any(|c| c.artifact == "requirements"),
            "the reviewer's edit is never the architect's unrequested change"
        );
        assert_eq!(out.artifacts.file_tree, "src/");
        assert_eq!(state.last.restored[0].item, "file_tree");
        assert_eq!(state.last.unrequested[0].summary, "renamed run");
        assert!(state.edit.is_none());
        let mut payload = Map::new();
        payload_into(&state, &mut payload);
        assert_eq!(payload["restored"][0]["artifact"], "file_tree");
        assert!(payload.get("diagnostics").is_none());
    }

    /// The reviewer's lines come from the edit (the text before it against the text
    /// after it), followed into the cycle's text: lines the architect added above
    /// move them, and a line the architect wrote with the same words elsewhere stays
    /// the architect's.
    #[test]
    fn the_reviewers_lines_are_found_from_the_edit_not_from_their_words() {
        let mut state = ReviewState::default();
        let before = Artifacts {
            architecture: "# shelf\nThe store keeps books.\nA\nB\nShelves hold books.\nC\nDone."
                .into(),
            ..design()
        };
        let mut edited = before.clone();
        edited.architecture = "# shelf\nThe store keeps books by title.\n- Limit: 40.\nA\nB\nShelves hold books.\nC\nDone.".into();
        record_edit(&mut state, &before, &edited);
        // The architect writes a line on top in the reviewer's words, and changes the
        // shelves (it answered from the edited text).
        let mut answer = edited.clone();
        answer.architecture = format!("- Limit: 40.\n{}", edited.architecture)
            .replace("Shelves hold books.", "Shelves hold 40 books.");
        let out = after_cycle(
            &mut state,
            &edited,
            answer.clone(),
            Some("- edit architecture: x"),
        );
        assert_eq!(
            out.artifacts.architecture, answer.architecture,
            "merged cleanly"
        );
        let edit = state.last.reviewer_edit(Section::Architecture).unwrap();
        assert_eq!(edit.before, before.architecture);
        let lines = |l: &[NumberedLine]| -> Vec<(usize, String)> {
            l.iter().map(|n| (n.line, n.text.clone())).collect()
        };
        assert_eq!(
            lines(&edit.added),
            [
                (3, "The store keeps books by title.".to_string()),
                (4, "- Limit: 40.".to_string())
            ],
            "line 1 has the same words and is the architect's"
        );
        assert_eq!(
            lines(&edit.removed),
            [(2, "The store keeps books.".to_string())]
        );
        assert!(edit.wrote(3, "- Limit: 40.") && !edit.wrote(0, "- Limit: 40."));
        assert!(!edit.wrote(6, "Shelves hold 40 books."));
        assert!(state.last.reviewer_edit(Section::Requirements).is_none());
        // The reviewer's line last, the architect's added under it.
        let mut state = ReviewState::default();
        let mut edited = before.clone();
        edited.architecture = before.architecture.replace("Done.", "Done by title.");
        record_edit(&mut state, &before, &edited);
        let mut answer = edited.clone();
        answer.architecture.push_str("\nMore.");
        after_cycle(&mut state, &edited, answer, None);
        let edit = state.last.reviewer_edit(Section::Architecture).unwrap();
        assert!(edit.wrote(6, "Done by title."), "{edit:?}");
        assert!(!edit.wrote(7, "More."), "{edit:?}");
        // A session written before the text was kept: no record.
        let old: CycleReport = serde_json::from_str(
            r#"{"reviewer":[{"artifact":"architecture","lines":["Done by title."]}]}"#,
        )
        .unwrap();
        assert!(old.reviewer_edit(Section::Architecture).is_none());
        // The record survives the session file.
        let json = serde_json::to_string(&state).unwrap();
        let back: ReviewState = serde_json::from_str(&json).unwrap();
        assert_eq!(back.last, state.last);
    }
}
