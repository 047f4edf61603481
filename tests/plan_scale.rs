//! `volk plan check` stays linear on a huge model-written plan: every stage broken
//! twice, the whole plan on one line (as models often write JSON), and early `done`
//! edges whose messages would each list every stage after them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// `n` stages, each with an unknown kind and an unknown need, chained; on one line.
fn broken_one_line(n: usize) -> String {
    let stages: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("stage_{i}"), "role": "implementer", "prompt": "Do the work.",
                "produces": format!("art_{i}"), "kind": "nosuch_kind", "needs": [format!("missing_{i}")]})
        })
        .collect();
    let edges: Vec<Value> = (0..n)
        .map(|i| {
            let to = if i + 1 == n {
                "done".to_string()
            } else {
                format!("stage_{}", i + 1)
            };
            json!({"from": format!("stage_{i}"), "to": to,
                "condition": {"type": "artifact_validated", "artifact_id": format!("art_{i}")}})
        })
        .collect();
    serde_json::to_string(&json!({"goal": "Do a big thing.", "stages": stages, "edges": edges}))
        .unwrap()
}

/// The first half chained, each of its stages also exiting to `done`: every one of
/// those edges cuts off the whole second half.
fn early_done(n: usize) -> String {
    let stages: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("stage_{i}"), "role": "implementer", "prompt": "Do the work.",
                "produces": format!("art_{i}"), "kind": "file_written", "needs": []})
        })
        .collect();
    let mut edges = Vec::new();
    for i in 0..n / 2 {
        edges.push(
            json!({"from": format!("stage_{i}"), "to": format!("stage_{}", i + 1),
            "condition": {"type": "artifact_validated", "artifact_id": format!("art_{i}")}}),
        );
        edges.push(json!({"from": format!("stage_{i}"), "to": "done",
            "condition": {"type": "artifact_field_equals", "artifact_id": format!("art_{i}"),
                "field": "ok", "value": false}}));
    }
    serde_json::to_string_pretty(
        &json!({"goal": "Do a big thing.", "stages": stages, "edges": edges}),
    )
    .unwrap()
}

fn check(source: &str, format: &str) -> (std::process::Output, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plan.json");
    std::fs::write(&path, source).unwrap();
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(["plan", "check", "--format", format])
        .arg(&path)
        .env("VOLK_LOG", dir.path().join("volk.log"))
        .output()
        .unwrap();
    (out, start.elapsed())
}

/// Generous for a debug build on a shared machine; the quadratic version took over ten
/// minutes on the 20,000-stage one-line plan.
const LIMIT: Duration = Duration::from_secs(10);

#[test]
fn twenty_thousand_stages_on_one_line_with_forty_thousand_errors() {
    let source = broken_one_line(20_000);
    let (out, took) = check(&source, "human");
    assert_eq!(out.status.code(), Some(1));
    assert!(took < LIMIT, "took {took:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    // The first errors are shown, the rest counted, and the summary counts them all.
    assert!(
        text.contains("error[P014]"),
        "{}",
        &text[..500.min(text.len())]
    );
    assert!(
        text.contains("39950 more not shown (39950 errors, 0 warnings)"),
        "{}",
        &text[text.len().saturating_sub(500)..]
    );
    assert!(
        text.trim_end()
            .ends_with("plan.json: 40000 errors, 0 warnings")
    );
    assert!(text.len() < 100_000, "{} bytes of report", text.len());

    let (out, took) = check(&source, "json");
    assert!(took < LIMIT, "json took {took:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["errors"], 40_000);
    assert_eq!(report["diagnostics"].as_array().unwrap().len(), 40_000);
    // Columns on the one long line are character columns.
    let last = &report["diagnostics"][39_999];
    assert_eq!(last["line"], 1);
    assert_eq!(
        last["column"].as_u64().unwrap(),
        last["start"].as_u64().unwrap() + 1
    );
}

#[test]
fn early_done_edges_name_a_few_stages_and_count_the_rest() {
    let (out, took) = check(&early_done(8_000), "json");
    assert!(took < LIMIT, "took {took:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let early: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["message"].as_str().unwrap().contains("ends the workflow"))
        .collect();
    assert_eq!(early.len(), 4_000, "one per early edge");
    let message = early[0]["message"].as_str().unwrap();
    assert!(
        message.contains("`stage_4001`") && message.contains("and 3991 more"),
        "{message}"
    );
    assert!(message.len() < 400, "{message}");
}
