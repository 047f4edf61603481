//! The plan compiler on a large plan: 1,000 stages (a chain of implementers with a
//! review loop every tenth stage), about 450 KB of JSON. Target: under 5 ms.
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use volk::plan::{KindRegistry, compile, draw};

fn large_plan(n: usize) -> String {
    let mut stages = Vec::with_capacity(n);
    let mut edges = Vec::with_capacity(n + n / 10);
    for i in 0..n {
        let review = i % 10 == 9;
        let next: Value = if i + 1 == n {
            json!("done")
        } else {
            json!(format!("stage_{:04}", i + 1))
        };
        let mut needs = vec![json!("analysis")];
        if i > 0 {
            needs.push(json!(format!("artifact_{:04}", i - 1)));
        }
        let mut stage = json!({
            "id": format!("stage_{i:04}"),
            "role": if review { "reviewer" } else { "implementer" },
            "prompt": format!("Implement module number {i} exactly as the API spec and the file tree of the finalized design describe, with unit tests for every public function."),
            "produces": format!("artifact_{i:04}"),
            "kind": if review { "review_report" } else { "file_written" },
            "needs": needs,
        });
        if review {
            for (op, to) in [("eq", next), ("neq", json!(format!("stage_{:04}", i - 9)))] {
                edges.push(
                    json!({"from": format!("stage_{i:04}"), "to": to, "condition": {
                    "type": "artifact_field_equals", "artifact_id": format!("artifact_{i:04}"),
                    "field": "verdict", "value": "approved", "operator": op}}),
                );
            }
        } else {
            stage["tools"] = json!(["file_read", "file_write", "file_edit", "ShellTool"]);
            edges.push(json!({"from": format!("stage_{i:04}"), "to": next,
                "condition": {"type": "artifact_validated", "artifact_id": format!("artifact_{i:04}")}}));
        }
        stages.push(stage);
    }
    serde_json::to_string_pretty(
        &json!({"goal": "Build the large system.", "stages": stages, "edges": edges}),
    )
    .unwrap_or_default()
}

/// A model-written plan on one line: `n` stages, each with an unknown kind and an
/// unknown need (2n errors), chained by edges.
fn broken_plan_one_line(n: usize) -> String {
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
        .unwrap_or_default()
}

/// Nanoseconds this thread has spent on a processor (Linux `schedstat`); `None`
/// elsewhere. On a shared, loaded machine wall time includes waiting for a core,
/// so the benchmark also reports on-CPU time per compile.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn report_cpu_time(label: &str, runs: u32, mut f: impl FnMut()) {
    let Some(before) = thread_cpu_ns() else {
        return;
    };
    for _ in 0..runs {
        f();
    }
    if let Some(after) = thread_cpu_ns() {
        let per_run = (after - before) as f64 / f64::from(runs) / 1e6;
        eprintln!("{label}: {per_run:.2} ms on-CPU per run ({runs} runs)");
    }
}

fn benches(c: &mut Criterion) {
    let kinds = KindRegistry::builtin();
    let source = large_plan(1000);
    let compiled = compile(&source, &kinds, &[]);
    assert!(
        compiled.diagnostics.is_empty(),
        "the benchmark plan must compile clean"
    );
    let plan = compiled.plan.unwrap_or_else(|| unreachable!());
    eprintln!("plan source: {} bytes", source.len());
    report_cpu_time("serde_json::Value baseline", 200, || {
        std::hint::black_box(serde_json::from_str::<Value>(&source).ok());
    });
    report_cpu_time("compile 1000-stage plan", 200, || {
        std::hint::black_box(compile(&source, &kinds, &[]));
    });

    // Baseline on the same machine and load: serde_json reading the same text into a
    // `Value` (no positions, no rules).
    c.bench_function("serde_json::Value of the same plan (baseline)", |b| {
        b.iter(|| serde_json::from_str::<Value>(std::hint::black_box(&source)))
    });

    c.bench_function("span-tracking read of the same plan (no rules)", |b| {
        b.iter(|| volk::plan::json::parse(std::hint::black_box(&source)).map(|n| n.span))
    });

    c.bench_function("compile 1000-stage plan", |b| {
        b.iter(|| compile(std::hint::black_box(&source), &kinds, &[]))
    });

    let mut broken: Value = serde_json::from_str(&source).unwrap_or_default();
    broken["stages"][500]["needs"] = json!(["artifact_0900", "ghost"]);
    let broken = serde_json::to_string_pretty(&broken).unwrap_or_default();
    c.bench_function("compile 1000-stage plan with errors", |b| {
        b.iter(|| compile(std::hint::black_box(&broken), &kinds, &[]))
    });

    c.bench_function("draw 1000-stage plan", |b| {
        b.iter(|| draw(std::hint::black_box(&plan)))
    });

    // `volk plan check` on 100,000 stages with 200,000 errors, all on one line: the
    // compile and the human report (first errors shown, the rest counted).
    let huge = broken_plan_one_line(100_000);
    eprintln!("one-line plan source: {} bytes", huge.len());
    let mut slow = c.benchmark_group("plan check at scale");
    slow.sample_size(10);
    slow.bench_function("compile + report 100,000 stages, 200,000 errors", |b| {
        b.iter(|| {
            let compiled = compile(std::hint::black_box(&huge), &kinds, &[]);
            assert_eq!(compiled.error_count(), 200_000);
            volk::plan::render_human_styled(
                "plan.json",
                &huge,
                &compiled.diagnostics,
                volk::plan::render::Colour::Never,
            )
            .len()
        })
    });
    slow.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
