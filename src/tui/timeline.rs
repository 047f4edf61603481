//! The decision journal as a timeline a person reads: one line per entry with its
//! time, cycle, event, the call's duration and tokens, and what happened in words.
//! The JSON lines on disk stay the record; this is only how the Journal tab shows them.

use serde_json::Value;

use crate::volk::journal::{JournalEntry, JournalEvent};

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

/// The journal read in order. An entry carries the cycle last written, so the
/// entries of a call that writes the next cycle (its request, metrics, blocks, cost)
/// are labelled with the cycle being written, as the header counts it.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    writing: Option<u64>,
}

impl Timeline {
    /// One journal entry as a timeline line.
    pub fn line(&mut self, entry: &JournalEntry) -> String {
        self.parts(
            &entry.time,
            u64::from(entry.cycle),
            entry.event.name(),
            &entry.detail,
        )
    }

    /// The line of an entry from its parts; the event by its journal name, so a kind
    /// this version does not know still reads in words.
    fn parts(&mut self, time: &str, recorded: u64, event: &str, detail: &Value) -> String {
        let time = time.get(11..19).unwrap_or("--:--:--");
        if event == "reasoner_call" {
            // An update writes the cycle after the one under review; a first design
            // writes cycle 1 whatever the entry counted before it.
            self.writing = match detail["purpose"].as_str() {
                Some("update") => Some(recorded + 1),
                Some("design") => Some(recorded.max(1)),
                _ => None,
            };
        }
        let cycle = detail["cycle"]
            .as_u64()
            .unwrap_or_else(|| recorded.max(self.writing.unwrap_or(0)));
        if matches!(event, "cycle_written" | "call_failed" | "call_cancelled") {
            self.writing = None;
        }
        let metrics = &detail["metrics"];
        let duration = metrics["elapsed_ms"]
            .as_u64()
            .map(seconds)
            .unwrap_or_default();
        let tokens = tokens(metrics);
        let what = summary(event, detail, cycle);
        columns(time, &cycle.to_string(), event, &duration, &tokens, &what)
    }
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

/// What the entry says, in a few words (never JSON).
fn summary(event: &str, d: &Value, cycle: u64) -> String {
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
        E::CycleCost => {
            let cost = &d["cost"];
            let streamed = cost["streamed_tokens"].as_u64().unwrap_or(0);
            let full = cost["full_rewrite_tokens"].as_u64().unwrap_or(0);
            format!(
                "cycle {cycle} · {} tok streamed · full rewrite ≈ {}",
                crate::volk::patch_cycle::short(streamed),
                crate::volk::patch_cycle::short(full)
            )
        }
        E::DesignLinted => {
            let repair = match number("repair") {
                0 => String::new(),
                n => format!(" · after repair {n}"),
            };
            format!(
                "cycle {cycle} · {} · {}{repair}",
                plural(number("errors"), "error"),
                plural(number("warnings"), "warning")
            )
        }
        _ => compact(d),
    }
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Any other detail in words: `key value` for each field, lists by their items
/// (or their count when long), nested objects by their own fields. Never JSON, so a
/// new kind of entry reads like the others.
fn compact(d: &Value) -> String {
    let text = words(d);
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

fn words(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.replace(['\n', '\r'], " "),
        Value::Array(items) if items.len() > 4 || items.iter().any(|i| i.is_object()) => {
            plural(items.len() as u64, "item")
        }
        Value::Array(items) => items.iter().map(words).collect::<Vec<_>>().join(", "),
        Value::Object(map) => map
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| {
                let inner = words(v);
                if v.is_object() {
                    format!("{} ({inner})", k.replace('_', " "))
                } else {
                    format!("{} {inner}", k.replace('_', " "))
                }
            })
            .collect::<Vec<_>>()
            .join(" · "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One entry read on its own (no call before it to say which cycle it writes).
    fn line(entry: &JournalEntry) -> String {
        Timeline::default().line(entry)
    }

    /// An entry as `journal.jsonl` holds it.
    fn entry(value: Value) -> JournalEntry {
        let mut value = value;
        value["trace_id"] = json!("t");
        value["thread_id"] = json!("x");
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_call_shows_its_duration_and_tokens() {
        let entry = entry(json!({
            "time": "2026-12-01T09:12:03.512Z", "trace_id": "t", "thread_id": "x", "cycle": 2,
            "event": "reasoner_metrics",
            "detail": {"reasoner": "openai", "model": "gpt", "metrics": {
                "elapsed_ms": 12_340, "ttft_ms": 812, "completion_tokens": 2400,
                "estimated": false, "usage": {"prompt_tokens": 5100}
            }}
        }));
        let l = line(&entry);
        assert!(l.starts_with("09:12:03      2  reasoner_metrics"), "{l}");
        assert!(l.contains("12s"), "{l}");
        assert!(l.contains("5.1k→2.4k"), "{l}");
        assert!(l.contains("openai/gpt, first token 0.8s"), "{l}");
    }

    #[test]
    fn other_events_say_what_happened() {
        let entry = entry(
            json!({"time": "2026-12-01T09:12:05Z", "cycle": 1, "event": "feedback_received",
            "detail": {"verdict": "QUESTIONS", "questions": ["a", "b"], "answers": []}}),
        );
        let l = line(&entry);
        assert!(l.ends_with("QUESTIONS: 2 question(s), 0 answer(s)"), "{l}");
        assert_eq!(
            l.find("QUESTIONS"),
            header().find("what"),
            "columns align:\n{}\n{l}",
            header()
        );
        let unknown = Timeline::default().parts("x", 1, "something_new", &json!({"k": 1}));
        assert!(unknown.ends_with("k 1"), "{unknown}");
    }

    #[test]
    fn costs_and_compiler_runs_read_in_words_under_the_cycle_being_written() {
        let mut t = Timeline::default();
        let call = entry(
            json!({"time": "2026-12-01T09:12:05Z", "cycle": 2, "event": "reasoner_call",
            "detail": {"purpose": "update", "call": 4, "prompt_bytes": 9000}}),
        );
        assert!(
            t.line(&call).starts_with("09:12:05      3  reasoner_call"),
            "{}",
            t.line(&call)
        );
        let cost = entry(
            json!({"time": "2026-12-01T09:12:09Z", "cycle": 2, "event": "cycle_cost",
            "detail": {"cycle": 3, "cost": {"streamed_tokens": 1100, "full_rewrite_tokens": 9600}}}),
        );
        let l = t.line(&cost);
        assert!(
            l.ends_with("cycle 3 · 1.1k tok streamed · full rewrite ≈ 9.6k"),
            "{l}"
        );
        assert!(l.contains("      3  cycle_cost"), "{l}");
        let linted = entry(
            json!({"time": "2026-12-01T09:12:10Z", "cycle": 3, "event": "design_linted",
            "detail": {"ok": true, "errors": 0, "warnings": 30, "diagnostics": [{"code": "D011"}], "repair": 0}}),
        );
        assert!(
            t.line(&linted)
                .ends_with("cycle 3 · 0 errors · 30 warnings"),
            "{}",
            t.line(&linted)
        );
        // Every kind of entry, with a nested detail: words, never JSON.
        for name in crate::volk::journal::JournalEvent::ALL
            .iter()
            .map(|e| e.name())
        {
            let entry = entry(json!({"time": "x", "cycle": 1, "event": name,
                "detail": {"a": {"b": [1, 2]}, "list": [{"x": 1}], "purpose": "design"}}));
            let l = t.line(&entry);
            assert!(!l.contains("{\"") && !l.contains('{'), "{name}: {l}");
        }
    }
}
