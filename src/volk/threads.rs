//! Review threads: every question the reviewer sends after cycle N becomes thread
//! `Q{N}.{i}`, kept in the session with its status until it is addressed, answered or
//! closed. After each update volk checks the architect's `CHANGES:` claims against the
//! artifacts that really changed, so nobody has to take the model's word for it.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::brief::{Anchor, Question};
use crate::design::Section;
use crate::design::changes::{ChangeList, Source, Target, thread_id};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadStatus {
    /// Asked; the cycle that answers it has not been written yet.
    Open,
    /// A claimed change in an artifact that really changed.
    Addressed,
    /// A `none` line explained why nothing changes.
    Answered,
    /// No line for it, or only claims in artifacts that did not change: asked again.
    Unaddressed,
    /// The reviewer closed it.
    Closed,
}

impl ThreadStatus {
    pub fn label(self) -> &'static str {
        match self {
            ThreadStatus::Open => "open",
            ThreadStatus::Addressed => "addressed",
            ThreadStatus::Answered => "answered",
            ThreadStatus::Unaddressed => "unaddressed",
            ThreadStatus::Closed => "closed",
        }
    }

    /// Still waiting for the architect: goes into the next update prompt.
    pub fn is_pending(self) -> bool {
        matches!(self, ThreadStatus::Open | ThreadStatus::Unaddressed)
    }
}

/// A change the architect claimed (or volk found) in one artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub artifact: String,
    pub summary: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thread {
    pub id: String,
    pub question: String,
    /// `requirements:12`: the artifact and 1-based line the question points at.
    #[serde(default)]
    pub anchor: Option<String>,
    /// The text of the anchored line, quoted to the architect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    pub cycle_asked: u32,
    pub status: ThreadStatus,
    #[serde(default)]
    pub answer: Option<String>,
    #[serde(default)]
    pub changes: Vec<Change>,
    /// The thread this one follows up (a reopened question).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follows: Option<String>,
    /// The follow-up that closed this thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_by: Option<String>,
}

/// One status change, for the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusChange {
    pub id: String,
    /// `None` when the thread was just opened.
    pub from: Option<ThreadStatus>,
    pub to: ThreadStatus,
}

impl StatusChange {
    pub fn detail(&self) -> Value {
        json!({
            "thread": self.id,
            "from": self.from.map(ThreadStatus::label),
            "to": self.to.label(),
        })
    }
}

/// What checking one cycle's claims found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reconciled {
    pub changes: Vec<StatusChange>,
    pub unrequested: Vec<Change>,
    /// The threads this cycle was asked to answer, in prompt order.
    pub asked: Vec<String>,
    /// CHANGES lines volk could not read or that name no thread it asked.
    pub notes: Vec<String>,
    /// Changes a reason line accounts for (not unrequested).
    pub accounted: Vec<Accounted>,
}

/// A change accounted for by a reason instead of a thread: `D022`, `edit`, `OQ2`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accounted {
    pub reason: String,
    pub artifact: String,
    pub summary: String,
}

/// Splits a question as the workbench sends it, `[API spec line 3: "run()"] Async?`,
/// or as a pipeline may write it, `[api_spec:3] Async?`, into anchor, quote and text.
fn split_anchor(question: &str) -> (Option<String>, Option<String>, String) {
    let text = question.trim();
    let Some(rest) = text.strip_prefix('[') else {
        return (None, None, text.to_string());
    };
    let Some(end) = rest.find("] ") else {
        return (None, None, text.to_string());
    };
    let (inside, body) = (&rest[..end], rest[end + 2..].trim());
    let (place, quote) = match inside.split_once(": \"") {
        Some((place, quote)) => (place, Some(quote.trim_end_matches('"').to_string())),
        None => (inside, None),
    };
    let found = Section::ALL.into_iter().find_map(|s| {
        let line = place
            .strip_prefix(&format!("{} line ", s.title()))
            .or_else(|| place.strip_prefix(&format!("{}:", s.key())))?;
        let line: usize = line.trim().parse().ok()?;
        Some(format!("{}:{line}", s.key()))
    });
    match found {
        Some(anchor) if !body.is_empty() => (Some(anchor), quote, body.to_string()),
        _ => (None, None, text.to_string()),
    }
}

/// A follow-up question starts `(follows up Q1.2) `: the thread it reopens, and the
/// question.
fn split_follow_up(text: &str) -> (Option<String>, &str) {
    let Some(rest) = text.strip_prefix("(follows up ") else {
        return (None, text);
    };
    let Some((id, question)) = rest.split_once(") ") else {
        return (None, text);
    };
    match thread_id(id) {
        Some(id) => (Some(id), question.trim()),
        None => (None, text),
    }
}

/// Opens one thread per question sent after `cycle`, numbered after the ones that
/// cycle already has (a resent or follow-up question never reuses an id). A
/// follow-up is linked to the thread it reopens, which closes. A question that came
/// as bare text may still carry its anchor or follow-up in the written forms
/// (`[API spec line 3: "…"] …`, `(follows up Q1.2) …`) an agent types in a packet.
pub fn open(threads: &mut Vec<Thread>, cycle: u32, questions: &[Question]) -> Vec<StatusChange> {
    let mut next = threads.iter().filter(|t| t.cycle_asked == cycle).count() + 1;
    let mut opened = Vec::new();
    for q in questions {
        let (written_follows, rest) = split_follow_up(q.text.trim());
        let (written_anchor, written_quote, text) = split_anchor(rest);
        let (anchor, quote, text) = match &q.anchor {
            Some(a) => (
                Some(format!("{}:{}", a.section.key(), a.line)),
                Some(a.quote.clone()).filter(|q| !q.trim().is_empty()),
                rest.trim().to_string(),
            ),
            None => (written_anchor, written_quote, text),
        };
        let follows = q
            .follows
            .as_deref()
            .and_then(thread_id)
            .or(written_follows)
            .filter(|id| threads.iter().any(|t| &t.id == id));
        if text.is_empty() {
            continue;
        }
        let id = format!("Q{cycle}.{next}");
        if let Some(old) = &follows {
            opened.extend(close(threads, std::slice::from_ref(old)));
            if let Some(t) = threads.iter_mut().find(|t| &t.id == old) {
                t.closed_by = Some(id.clone());
            }
        }
        next += 1;
        threads.push(Thread {
            id: id.clone(),
            question: text,
            anchor,
            quote,
            cycle_asked: cycle,
            status: ThreadStatus::Open,
            answer: None,
            changes: Vec::new(),
            follows,
            closed_by: None,
        });
        opened.push(StatusChange {
            id,
            from: None,
            to: ThreadStatus::Open,
        });
    }
    opened
}

/// Why a reviewer's thread command was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no thread {0} in this session")]
pub struct UnknownThread(pub String);

/// Checks that every id names a thread, before anything changes.
pub fn check_ids(threads: &[Thread], ids: &[String]) -> Result<(), UnknownThread> {
    for id in ids {
        let canonical = thread_id(id.trim()).unwrap_or_else(|| id.clone());
        if !threads.iter().any(|t| t.id == canonical) {
            return Err(UnknownThread(id.clone()));
        }
    }
    Ok(())
}

/// Closes threads by id (an already closed one stays as it is).
pub fn close(threads: &mut [Thread], ids: &[String]) -> Vec<StatusChange> {
    let mut changes = Vec::new();
    for id in ids {
        let canonical = thread_id(id.trim()).unwrap_or_else(|| id.clone());
        if let Some(t) = threads.iter_mut().find(|t| t.id == canonical)
            && t.status != ThreadStatus::Closed
        {
            changes.push(StatusChange {
                id: t.id.clone(),
                from: Some(t.status),
                to: ThreadStatus::Closed,
            });
            t.status = ThreadStatus::Closed;
        }
    }
    changes
}

/// Reopens a thread with a follow-up question: a new thread (asked after `cycle`)
/// linked to the old one, which is closed.
pub fn follow_up(
    threads: &mut Vec<Thread>,
    cycle: u32,
    old: &str,
    question: &str,
) -> Result<Vec<StatusChange>, UnknownThread> {
    check_ids(threads, &[old.to_string()])?;
    let id = thread_id(old).unwrap_or_else(|| old.to_string());
    Ok(open(
        threads,
        cycle,
        &[Question {
            follows: Some(id),
            ..Question::new(question.trim())
        }],
    ))
}

/// The threads the next update must answer: earlier unresolved ones first, under
/// their original ids, then the new ones, each in the order asked.
pub fn pending(threads: &[Thread]) -> Vec<&Thread> {
    let mut list: Vec<&Thread> = threads.iter().filter(|t| t.status.is_pending()).collect();
    list.sort_by_key(|t| (t.cycle_asked, index_of(&t.id)));
    list
}

fn index_of(id: &str) -> u32 {
    id.rsplit('.')
        .next()
        .and_then(|i| i.parse().ok())
        .unwrap_or(0)
}

/// The questions the next update must answer, each under its thread id, with its
/// anchor and a note on threads carried over from a cycle before `reviewed` (the one
/// the reviewer just read). `volk::prompts` writes them out.
pub fn pending_questions(threads: &[Thread], reviewed: u32) -> Vec<Question> {
    pending(threads)
        .into_iter()
        .map(|t| Question {
            text: t.question.clone(),
            anchor: t.anchor.as_deref().and_then(|a| {
                let (key, line) = a.split_once(':')?;
                Some(Anchor {
                    section: Section::from_key(key)?,
                    line: line.parse().ok()?,
                    quote: t.quote.clone().unwrap_or_default(),
                })
            }),
            follows: t.follows.clone(),
            thread: Some(t.id.clone()),
            carried_from: (t.cycle_asked < reviewed).then_some(t.cycle_asked),
        })
        .collect()
}

/// Checks the architect's claims for the pending threads against `changed` (the
/// artifacts that really differ from the design the prompt showed). `list` is `None`
/// when the answer had no `CHANGES:` part: then every thread is unaddressed and every
/// change unrequested.
pub fn reconcile(
    threads: &mut [Thread],
    list: Option<&ChangeList>,
    changed: &[Section],
) -> Reconciled {
    let mut out = Reconciled::default();
    let empty = ChangeList::default();
    let lines = list.unwrap_or(&empty);
    let asked: Vec<String> = pending(threads).iter().map(|t| t.id.clone()).collect();
    for line in &lines.unreadable {
        out.notes.push(format!("unreadable CHANGES line: {line}"));
    }
    let mut claimed: Vec<Section> = Vec::new();
    for thread in threads.iter_mut().filter(|t| asked.contains(&t.id)) {
        let mine: Vec<_> = lines
            .lines
            .iter()
            .filter(|l| l.thread() == Some(thread.id.as_str()))
            .collect();
        let real: Vec<Change> = mine
            .iter()
            .filter_map(|l| match l.target {
                Target::Artifact(s) if changed.contains(&s) => Some(Change {
                    artifact: s.key().to_string(),
                    summary: l.summary.clone(),
                }),
                _ => None,
            })
            .collect();
        let answer = mine
            .iter()
            .find(|l| l.target == Target::Nothing)
            .map(|l| l.summary.clone());
        for l in &mine {
            if let Target::Artifact(s) = l.target {
                if changed.contains(&s) {
                    claimed.push(s);
                } else {
                    out.notes.push(format!(
                        "{} claims a change in {} that did not happen",
                        thread.id,
                        s.key()
                    ));
                }
            }
        }
        let status = if !real.is_empty() {
            ThreadStatus::Addressed
        } else if answer.is_some() {
            ThreadStatus::Answered
        } else {
            ThreadStatus::Unaddressed
        };
        thread.changes = real;
        if status == ThreadStatus::Answered {
            thread.answer = answer;
        }
        if thread.status != status {
            out.changes.push(StatusChange {
                id: thread.id.clone(),
                from: Some(thread.status),
                to: status,
            });
            thread.status = status;
        }
    }
    // A `-` line is the architect's own word that nobody asked for the change: it
    // is reported whatever other lines say about the artifact. A reason line (a
    // design-compiler code, the reviewer's edit, an answered open question) accounts
    // for a change. A line naming a thread this cycle did not ask claims nothing.
    for line in &lines.lines {
        let Target::Artifact(s) = line.target else {
            continue;
        };
        match &line.source {
            Source::Unrequested => {
                // Reported even when the diff shows nothing: the person reads the
                // architect's own account, and a note says the change is not there.
                if !changed.contains(&s) {
                    out.notes.push(format!(
                        "a - line claims a change in {} that did not happen",
                        s.key()
                    ));
                }
                claimed.push(s);
                out.unrequested.push(Change {
                    artifact: s.key().to_string(),
                    summary: line.summary.clone(),
                });
            }
            Source::Reason(reason) => {
                if changed.contains(&s) {
                    claimed.push(s);
                    out.accounted.push(Accounted {
                        reason: reason.clone(),
                        artifact: s.key().to_string(),
                        summary: line.summary.clone(),
                    });
                }
            }
            Source::Thread(id) if asked.contains(id) => {}
            Source::Thread(id) => {
                out.notes
                    .push(format!("CHANGES names {id}, which this cycle did not ask"));
                if changed.contains(&s) && !claimed.contains(&s) {
                    claimed.push(s);
                    out.unrequested.push(Change {
                        artifact: s.key().to_string(),
                        summary: line.summary.clone(),
                    });
                }
            }
        }
    }
    for s in changed {
        if !claimed.contains(s) {
            out.unrequested.push(Change {
                artifact: s.key().to_string(),
                summary: match list {
                    Some(_) => "changed, and no CHANGES line accounts for it".into(),
                    None => "changed; the answer had no CHANGES section".into(),
                },
            });
        }
    }
    out.asked = asked;
    out
}

/// The threads as the `design_review` payload carries them: exactly these fields.
pub fn payload(threads: &[Thread]) -> Value {
    Value::Array(
        threads
            .iter()
            .map(|t| {
                json!({
                    "id": t.id,
                    "question": t.question,
                    "anchor": t.anchor,
                    "cycle_asked": t.cycle_asked,
                    "status": t.status.label(),
                    "answer": t.answer,
                    "changes": t.changes,
                    "follows": t.follows,
                    "closed_by": t.closed_by,
                })
            })
            .collect(),
    )
}

/// The commit message body: each thread this cycle answered (or failed to), with its
/// status, and the changes nobody asked for.
pub fn commit_body(threads: &[Thread], reconciled: &Reconciled) -> String {
    let mut out = String::new();
    if !reconciled.asked.is_empty() {
        out.push_str("Threads:\n");
        for id in &reconciled.asked {
            if let Some(t) = threads.iter().find(|t| &t.id == id) {
                let _ = writeln!(out, "- {} {}: {}", t.id, t.status.label(), t.question);
            }
        }
    }
    if !reconciled.unrequested.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("Unrequested changes:\n");
        for c in &reconciled.unrequested {
            let _ = writeln!(out, "- {}: {}", c.artifact, c.summary);
        }
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::changes::parse_changes;

    fn prompt_lines(threads: &[Thread], reviewed: u32) -> Vec<String> {
        pending_questions(threads, reviewed)
            .iter()
            .map(crate::volk::prompts::question_line)
            .collect()
    }

    fn asked(questions: &[&str]) -> Vec<Thread> {
        let mut threads = Vec::new();
        let qs: Vec<Question> = questions.iter().map(|q| Question::new(*q)).collect();
        open(&mut threads, 1, &qs);
        threads
    }

    #[test]
    fn ids_follow_the_cycle_and_the_order_sent() {
        let mut threads = asked(&["a?", "b?"]);
        open(&mut threads, 1, &["c?".into()]);
        open(&mut threads, 2, &["d?".into()]);
        let ids: Vec<_> = threads.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["Q1.1", "Q1.2", "Q1.3", "Q2.1"]);
    }

    #[test]
    fn anchors_are_read_from_both_spellings() {
        let threads = asked(&[
            "[API spec line 3: \"run() -> None\"] Async?",
            "[requirements:12] Why?",
            "[not an anchor] text",
        ]);
        assert_eq!(threads[0].anchor.as_deref(), Some("api_spec:3"));
        assert_eq!(threads[0].quote.as_deref(), Some("run() -> None"));
        assert_eq!(threads[0].question, "Async?");
        assert_eq!(threads[1].anchor.as_deref(), Some("requirements:12"));
        assert_eq!(threads[2].anchor, None);
        assert_eq!(threads[2].question, "[not an anchor] text");
    }

    #[test]
    fn claims_are_checked_against_the_real_diff() {
        let mut threads = asked(&["schema?", "flag?", "ignored?", "lied about?"]);
        let list = parse_changes(
            "- Q1.1 api_spec: added create_table\n\
             - Q1.2 none: deletion is already a flag (FR-03)\n\
             - Q1.4 file_tree: added migrations/\n\
             - - architecture: reworded the overview\n",
        );
        let changed = [
            Section::ApiSpec,
            Section::Architecture,
            Section::Requirements,
        ];
        let r = reconcile(&mut threads, Some(&list), &changed);
        let status: Vec<_> = threads.iter().map(|t| t.status).collect();
        assert_eq!(
            status,
            [
                ThreadStatus::Addressed,
                ThreadStatus::Answered,
                ThreadStatus::Unaddressed,
                ThreadStatus::Unaddressed
            ]
        );
        assert_eq!(threads[0].changes[0].artifact, "api_spec");
        assert_eq!(
            threads[1].answer.as_deref(),
            Some("deletion is already a flag (FR-03)")
        );
        let unrequested: Vec<_> = r.unrequested.iter().map(|c| c.artifact.as_str()).collect();
        assert_eq!(unrequested, ["architecture", "requirements"]);
        assert_eq!(r.unrequested[0].summary, "reworded the overview");
        assert!(r.notes.iter().any(|n| n.contains("Q1.4 claims")));
        assert_eq!(r.changes.len(), 4);
        // The unaddressed ones come back first next time, under their ids.
        open(&mut threads, 2, &["new?".into()]);
        let lines = prompt_lines(&threads, 2);
        assert!(
            lines[0].starts_with("Q1.3 (asked after cycle 1"),
            "{lines:?}"
        );
        assert!(lines[1].starts_with("Q1.4"));
        assert!(lines[2].starts_with("Q2.1: new?"));
        assert_eq!(pending_questions(&threads, 2)[0].text, "ignored?");
    }

    #[test]
    fn no_changes_section_means_nothing_addressed_everything_unrequested() {
        let mut threads = asked(&["a?", "b?"]);
        let r = reconcile(&mut threads, None, &[Section::Requirements]);
        assert!(
            threads
                .iter()
                .all(|t| t.status == ThreadStatus::Unaddressed)
        );
        assert_eq!(r.unrequested.len(), 1);
        assert!(r.unrequested[0].summary.contains("no CHANGES section"));
        let body = commit_body(&threads, &r);
        assert!(body.contains("- Q1.1 unaddressed: a?"), "{body}");
        assert!(body.contains("Unrequested changes:\n- requirements:"));
    }

    #[test]
    fn closing_and_following_up() {
        let mut threads = asked(&["a?"]);
        assert!(check_ids(&threads, &["Q9.9".into()]).is_err());
        let changes = follow_up(&mut threads, 2, "Q1.1", "and b?").unwrap();
        assert_eq!(threads[0].status, ThreadStatus::Closed);
        assert_eq!(threads[1].follows.as_deref(), Some("Q1.1"));
        assert_eq!(changes.len(), 2);
        assert!(prompt_lines(&threads, 2)[0].contains("(follows up Q1.1)"));
        let mut anchored = asked(&["[API spec line 3: \"a: \"b\"] Async?"]);
        open(&mut anchored, 1, &[]);
        let line = &prompt_lines(&anchored, 2)[0];
        assert_eq!(
            line,
            "Q1.1 [api_spec line 3: \"a: \"b\"] (asked after cycle 1, still not addressed): Async?"
        );
        let q = &pending_questions(&anchored, 2)[0];
        assert_eq!(
            (q.text.as_str(), q.thread.as_deref()),
            ("Async?", Some("Q1.1"))
        );
        let value = payload(&threads);
        let keys: Vec<_> = value[0].as_object().unwrap().keys().cloned().collect();
        assert_eq!(
            keys,
            [
                "id",
                "question",
                "anchor",
                "cycle_asked",
                "status",
                "answer",
                "changes",
                "follows",
                "closed_by"
            ]
        );
        assert_eq!(value[0]["closed_by"], "Q2.1");
        assert_eq!(value[1]["follows"], "Q1.1");
    }
}
