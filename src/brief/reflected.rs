//! The architect's reflection as it is kept: the answer to each question, split out of
//! the model's numbered reply, so that the journal, `design/reflection.md`, the
//! `implement` packet and the plan prompt all carry the same conclusions. A reopened
//! design keeps its earlier reflections; the newest is the one the plan answers to.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// One reflection question and what the architect answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReflectionAnswer {
    /// The question's `RFQ-` id (empty when the question had none).
    pub id: String,
    pub question: String,
    pub answer: String,
}

/// One reflection pass, after READY on `cycle`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reflection {
    pub cycle: u32,
    pub answers: Vec<ReflectionAnswer>,
}

/// `[RFQ-010] text` (the form the machine asks in) as its id and text.
fn split_question(question: &str) -> (String, String) {
    let q = question.trim();
    if let Some(rest) = q.strip_prefix('[')
        && let Some(end) = rest.find(']')
    {
        return (
            rest[..end].trim().to_string(),
            rest[end + 1..].trim().to_string(),
        );
    }
    (String::new(), q.to_string())
}

/// The number an answer line starts with (`1.`, `2)`, `**3.**`, `### 4:`), and the
/// rest of the line.
fn numbered_line(line: &str) -> Option<(usize, &str)> {
    let bare = line
        .trim_start()
        .trim_start_matches('#')
        .trim_start()
        .trim_start_matches("**")
        .trim_start();
    let digits = bare.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 2 {
        return None;
    }
    let n: usize = bare[..digits].parse().ok()?;
    let rest = bare[digits..].strip_prefix(['.', ')', ':'])?;
    // `**3.** text`: the bold closes right after the number.
    let rest = rest.strip_prefix("**").unwrap_or(rest).trim();
    Some((n, rest))
}

/// The question an answer line opens, by its id: `[RFQ-010]`, `RFQ-010:`, `(RFQ-010)`.
fn id_line(line: &str, ids: &[String]) -> Option<usize> {
    let bare = line
        .trim_start()
        .trim_start_matches(['#', '*', '-', ' ', '['])
        .trim_start();
    ids.iter()
        .position(|id| !id.is_empty() && bare.starts_with(id.as_str()))
}

/// Splits the architect's reply into one answer per question. Answers are found by
/// their number (in increasing order, so a numbered list inside an answer stays in
/// it) or by the question's id. A reply with no recognisable numbering is kept whole
/// as the answer to the first question, never dropped.
pub fn split(questions: &[String], reply: &str) -> Vec<ReflectionAnswer> {
    let asked: Vec<(String, String)> = questions.iter().map(|q| split_question(q)).collect();
    let ids: Vec<String> = asked.iter().map(|(id, _)| id.clone()).collect();
    let mut texts: Vec<Vec<&str>> = vec![Vec::new(); asked.len()];
    let mut preamble: Vec<&str> = Vec::new();
    let mut current: Option<usize> = None;
    for line in reply.lines() {
        let by_number = numbered_line(line).and_then(|(n, rest)| {
            let index = n.checked_sub(1)?;
            (index < asked.len() && current.is_none_or(|c| index > c)).then_some((index, rest))
        });
        let opened = by_number.or_else(|| {
            let index = id_line(line, &ids)?;
            current
                .is_none_or(|c| index > c)
                .then_some((index, line.trim()))
        });
        match (opened, current) {
            (Some((index, rest)), _) => {
                current = Some(index);
                if !rest.is_empty() {
                    texts[index].push(rest);
                }
            }
            (None, Some(index)) => texts[index].push(line),
            (None, None) => preamble.push(line),
        }
    }
    let mut answers: Vec<ReflectionAnswer> = asked
        .into_iter()
        .zip(texts)
        .map(|((id, question), lines)| ReflectionAnswer {
            id,
            question,
            answer: lines.join("\n").trim().to_string(),
        })
        .collect();
    let preamble = preamble.join("\n").trim().to_string();
    if !preamble.is_empty() {
        match answers.first_mut() {
            Some(first) if first.answer.is_empty() => first.answer = preamble,
            Some(first) => first.answer = format!("{preamble}\n{}", first.answer),
            None => answers.push(ReflectionAnswer {
                answer: preamble,
                ..ReflectionAnswer::default()
            }),
        }
    }
    answers
}

fn heading(a: &ReflectionAnswer) -> String {
    match (a.id.is_empty(), a.question.is_empty()) {
        (false, false) => format!("{}: {}", a.id, a.question),
        (false, true) => a.id.clone(),
        (true, false) => a.question.clone(),
        (true, true) => "Reflection".to_string(),
    }
}

fn answer_or_gap(a: &ReflectionAnswer) -> &str {
    if a.answer.trim().is_empty() {
        "(no answer given)"
    } else {
        a.answer.trim()
    }
}

/// `design/reflection.md`: the newest reflection first, then those of designs that
/// were reopened after it.
pub fn markdown(reflections: &[Reflection]) -> String {
    let mut out = String::from(
        "# Reflection before finalizing\n\nThe architect's answers about its own design, asked each time the reviewer said READY. \
         The execution plan covers or explicitly declines every gap named here.\n",
    );
    for (n, r) in reflections.iter().rev().enumerate() {
        if n == 0 {
            let _ = write!(out, "\n## After READY on cycle {}\n", r.cycle);
        } else {
            let _ = write!(
                out,
                "\n## Earlier: after READY on cycle {} (the design was reopened)\n",
                r.cycle
            );
        }
        for a in &r.answers {
            let _ = write!(out, "\n### {}\n\n{}\n", heading(a), answer_or_gap(a));
        }
    }
    out
}

fn bullets(out: &mut String, answers: &[ReflectionAnswer]) {
    for a in answers {
        let answer = answer_or_gap(a).replace('\n', "\n  ");
        let _ = writeln!(out, "- {}\n  {answer}", heading(a));
    }
}

/// The decision history a plan must honour: the architect's reflection (the newest,
/// then earlier ones of a reopened design) and the person's steering notes, oldest
/// first. Empty when there is neither.
pub fn plan_history(reflections: &[Reflection], notes: &[String]) -> String {
    let mut out = String::new();
    if let Some((latest, earlier)) = reflections.split_last() {
        let _ = writeln!(
            out,
            "The architect's reflection on the finalized design (after READY on cycle {}):\n",
            latest.cycle
        );
        bullets(&mut out, &latest.answers);
        for r in earlier.iter().rev() {
            let _ = writeln!(
                out,
                "\nAn earlier reflection, after READY on cycle {} (the design was reopened since):\n",
                r.cycle
            );
            bullets(&mut out, &r.answers);
        }
        out.push_str(
            "\nEvery reflection answer that names a gap (a missing test, load test or spec, a part \
             nobody builds, an unchecked requirement) must be covered visibly or declined \
             explicitly: covered by a stage whose prompt names the gap and what closes it, or \
             declined in the prompt of the final review stage with a line \
             `Declined: <gap> (<reason>)`.\n",
        );
    }
    if !notes.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("The person's steering of the plan, oldest first (it wins over your own judgement and over the reflection; say so in the affected stage prompts):\n\n");
        for note in notes {
            let _ = writeln!(out, "- Note from the person: {}", note.trim());
        }
    }
    out
}

/// A kept reflection as the plan tab shows one: the questions (`[id] text`) and the
/// numbered answers.
pub fn shown(reflection: &Reflection) -> (Vec<String>, String) {
    let questions = reflection
        .answers
        .iter()
        .map(|a| {
            if a.id.is_empty() {
                a.question.clone()
            } else {
                format!("[{}] {}", a.id, a.question)
            }
        })
        .collect();
    let answers = reflection
        .answers
        .iter()
        .enumerate()
        .map(|(n, a)| format!("{}. {}", n + 1, answer_or_gap(a)))
        .collect::<Vec<_>>()
        .join("\n");
    (questions, answers)
}

/// The `implement` payload's `reflection`: the newest pass's answers.
pub fn payload(reflections: &[Reflection]) -> serde_json::Value {
    serde_json::json!(
        reflections
            .last()
            .map(|r| r.answers.clone())
            .unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn questions() -> Vec<String> {
        vec![
            "[RFQ-010] What would a junior developer still have to guess?".into(),
            "[RFQ-011] Which requirement does the API spec cover least?".into(),
            "[RFQ-012] Which decision is the riskiest?".into(),
        ]
    }

    #[test]
    fn numbered_answers_are_split_and_inner_lists_stay() {
        let reply = "Here is my reflection.\n\n1. No load test for NFR-01.\n   1. the latency budget\n2. **The Redis client has no spec.**\n3) ADR-002: the cache; a benchmark proves it wrong.";
        let a = split(&questions(), reply);
        assert_eq!(a.len(), 3);
        assert_eq!(a[0].id, "RFQ-010");
        assert_eq!(
            a[0].question,
            "What would a junior developer still have to guess?"
        );
        assert_eq!(
            a[0].answer,
            "Here is my reflection.\nNo load test for NFR-01.\n   1. the latency budget"
        );
        assert_eq!(a[1].answer, "**The Redis client has no spec.**");
        assert!(a[2].answer.starts_with("ADR-002"));
    }

    #[test]
    fn answers_by_id_and_an_unnumbered_reply_are_kept() {
        let reply = "[RFQ-010] guess the schema\n[RFQ-012] the cache";
        let a = split(&questions(), reply);
        assert_eq!(a[0].answer, "[RFQ-010] guess the schema");
        assert_eq!(a[1].answer, "");
        assert_eq!(a[2].answer, "[RFQ-012] the cache");
        let a = split(&questions(), "All fine, nothing to add.");
        assert_eq!(a[0].answer, "All fine, nothing to add.");
        assert_eq!(a.len(), 3);
    }

    #[test]
    fn the_history_names_every_answer_and_the_notes() {
        let reflections = vec![
            Reflection {
                cycle: 2,
                answers: split(&questions(), "1. old gap"),
            },
            Reflection {
                cycle: 3,
                answers: split(&questions(), "1. no load test\n2. no Redis spec\n3. cache"),
            },
        ];
        let text = plan_history(&reflections, &["one stage per module".into()]);
        let newest = text.find("no load test").unwrap();
        let older = text.find("old gap").unwrap();
        assert!(newest < older, "{text}");
        assert!(text.contains("Declined: <gap>"));
        assert!(text.contains("- Note from the person: one stage per module"));
        assert_eq!(plan_history(&[], &[]), "");
        let md = markdown(&reflections);
        assert!(md.contains("## After READY on cycle 3"));
        assert!(md.contains("## Earlier: after READY on cycle 2 (the design was reopened)"));
        assert!(md.contains("### RFQ-011: Which requirement"));
        assert_eq!(payload(&reflections)[1]["answer"], "no Redis spec");
    }
}
