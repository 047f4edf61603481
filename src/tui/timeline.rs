//! The decision journal as a timeline a person reads: one line per entry with its
//! time, cycle, event, the call's duration and tokens, and what happened in words.
//! The JSON lines on disk stay the record; this is only how the Journal tab shows them.

use serde_json::Value;

use crate::volk::journal::JournalEvent;

/// The timeline's column heads, aligned with [`line`].
pub fn header() -> String {
    columns("time", "cycle", "event", "duration", "tokens", "what")
}

fn columns(
    time: &str,
    cycle: &str,
    event: &str,
    duration: &str,
    tokens: &str,
    what: &str,
) -> String {
    format!("{time:<8}  {cycle:>5}  {event:<22}  {duration:>8}  {tokens:<12}  {what}")
        .trim_end()
        .to_string()
}

/// One journal entry (as written to `journal.jsonl`) as a timeline line.
pub fn line(entry: &Value) -> String {
    let time = entry["time"]
        .as_str()
        .and_then(|t| t.get(11..19))
        .unwrap_or("--:--:--");
    let cycle = entry["cycle"].as_u64().unwrap_or(0);
    let event = entry["event"].as_str().unwrap_or("?");
    let detail = &entry["detail"];
    let metrics = &detail["metrics"];
    let duration = metrics["elapsed_ms"]
        .as_u64()
        .map(seconds)
        .unwrap_or_default();
    let tokens = tokens(metrics);
    let what = summary(event, detail);
    columns(time, &cycle.to_string(), event, &duration, &tokens, &what)
}

fn seconds(ms: u64) -> String {
    if ms < 10_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{}s", ms / 1000)
    }
}

fn count(n: u64) -> String {
    if n >= 10_000 {
        format!("{}k", n / 1000)
    } else if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// `in→out` tokens of a call (`~` when the output is estimated from its bytes).
fn tokens(metrics: &Value) -> String {
    let Some(out) = metrics["completion_tokens"].as_u64() else {
        return String::new();
    };
    let approx = if metrics["estimated"].as_bool() == Some(true) {
        "~"
    } else {
        ""
    };
    match metrics["usage"]["prompt_tokens"].as_u64() {
        Some(prompt) => format!("{}→{approx}{}", count(prompt), count(out)),
        None => format!("{approx}{} out", count(out)),
    }
}

fn list(value: &Value) -> String {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

fn kb(bytes: u64) -> String {
    format!("{:.1} KB", bytes as f64 / 1024.0)
}

/// What the entry says, in a few words.
fn summary(event: &str, d: &Value) -> String {
    let text = |key: &str| d[key].as_str().unwrap_or("").to_string();
    let number = |key: &str| d[key].as_u64().unwrap_or(0);
    use JournalEvent as E;
    let Some(event) = JournalEvent::from_name(event) else {
        return compact(d);
    };
    match event {
        E::DesignStarted => format!(
            "{} (at most {} cycles)",
            text("task_summary"),
            number("max_cycles")
        ),
        E::ContextGathered => format!(
            "{} of context, {} symbols",
            kb(number("bytes")),
            d["symbols"].as_array().map_or(0, Vec::len)
        ),
        E::ReasonerCall => format!(
            "{} call {}, prompt {}",
            text("purpose"),
            number("call"),
            kb(number("prompt_bytes"))
        ),
        E::ReasonerMetrics => format!(
            "{}/{}{}",
            text("reasoner"),
            text("model"),
            d["metrics"]["ttft_ms"]
                .as_u64()
                .map(|ms| format!(", first token {}", seconds(ms)))
                .unwrap_or_default()
        ),
        E::CallFailed => text("message"),
        E::AnswerUnparsed => format!(
            "{} without sections, saved in {}",
            kb(number("bytes")),
            text("saved")
        ),
        E::CycleWritten => {
            let changed = list(&d["changed"]);
            let missing = list(&d["missing"]);
            match (changed.is_empty(), missing.is_empty()) {
                (true, true) => "no artifact changed".to_string(),
                (false, true) => format!("changed: {changed}"),
                (true, false) => format!("empty: {missing}"),
                (false, false) => format!("changed: {changed}; empty: {missing}"),
            }
        }
        E::Committed => format!("commit {}", text("commit")),
        E::FeedbackReceived => {
            let questions = d["questions"].as_array().map_or(0, Vec::len);
            let answers = d["answers"].as_array().map_or(0, Vec::len);
            format!(
                "{}: {questions} question(s), {answers} answer(s)",
                d["verdict"].as_str().unwrap_or("?")
            )
        }
        E::ForcedFinalize => format!("cycle limit {} reached", number("max_cycles")),
        E::ReflectionStarted | E::ReflectionDone => format!("{} question(s)", number("questions")),
        E::PlanSteered => text("note"),
        _ => compact(d),
    }
}

/// Any other detail, as short JSON.
fn compact(d: &Value) -> String {
    if d.is_null() || d.as_object().is_some_and(|o| o.is_empty()) {
        return String::new();
    }
    let text = d.to_string();
    match text.char_indices().nth(100) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_shows_its_duration_and_tokens() {
        let entry = json!({
            "time": "2026-12-01T09:12:03.512Z", "trace_id": "t", "thread_id": "x", "cycle": 2,
            "event": "reasoner_metrics",
            "detail": {"reasoner": "openai", "model": "gpt", "metrics": {
                "elapsed_ms": 12_340, "ttft_ms": 812, "completion_tokens": 2400,
                "estimated": false, "usage": {"prompt_tokens": 5100}
            }}
        });
        let l = line(&entry);
        assert!(l.starts_with("09:12:03      2  reasoner_metrics"), "{l}");
        assert!(l.contains("12s"), "{l}");
        assert!(l.contains("5.1k→2.4k"), "{l}");
        assert!(l.contains("openai/gpt, first token 0.8s"), "{l}");
    }

    #[test]
    fn other_events_say_what_happened() {
        let entry = json!({"time": "2026-12-01T09:12:05Z", "cycle": 1, "event": "feedback_received",
            "detail": {"verdict": "QUESTIONS", "questions": ["a", "b"], "answers": []}});
        let l = line(&entry);
        assert!(l.ends_with("QUESTIONS: 2 question(s), 0 answer(s)"), "{l}");
        assert_eq!(
            l.find("QUESTIONS"),
            header().find("what"),
            "columns align:\n{}\n{l}",
            header()
        );
        let unknown =
            json!({"time": "x", "cycle": 1, "event": "something_new", "detail": {"k": 1}});
        assert!(line(&unknown).ends_with("{\"k\":1}"), "{}", line(&unknown));
    }
}
