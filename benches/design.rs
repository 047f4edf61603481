//! The design compiler on a large design: the model plus every rule, as run after
//! each streamed frame.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use volk::design::lint::{lint, rules};
use volk::design::model::DesignModel;
use volk::design::{Artifacts, Section};

/// About `lines` lines over the five artifacts, consistent except for a few
/// findings, so every rule does its full work.
fn design(lines: usize) -> Artifacts {
    let modules = lines / 17 + 1;
    let mut a = Artifacts::default();
    a.architecture.push_str("# big\n\n## Components\n\n");
    a.requirements.push_str("FUNCTIONAL:\n");
    a.file_tree.push_str("src/\n└── big/\n");
    let mut tests = String::from("tests/\n");
    a.class_diagram.push_str("```mermaid\nclassDiagram\n");
    for m in 0..modules {
        let _ = writeln!(
            a.architecture,
            "{m}. **C{m}** (`big.m{m}`): serves FR-{m:03}, ADR-001."
        );
        let _ = writeln!(a.requirements, "{m}. FR-{m:03}: requirement number {m}.");
        let _ = writeln!(a.file_tree, "    ├── m{m}.py");
        let _ = writeln!(tests, "├── test_m{m}.py");
        let _ = writeln!(a.api_spec, "Module: src/big/m{m}.py\n  class C{m}(Base):");
        for k in 0..4 {
            let _ = writeln!(a.api_spec, "    op{k}(self, x: int) -> int   # FR-{m}");
        }
        let _ = writeln!(a.api_spec, "  helper{m}(a: str) -> str\n");
        let _ = writeln!(
            a.class_diagram,
            "  class C{m} {{\n    +op0(x) int\n    +op1(x) int\n  }}\n  Base <|-- C{m}"
        );
    }
    a.file_tree.push_str(&tests);
    a.architecture.push_str(
        "\n## Decisions\n\n- ADR-001: one.\n\n## Open questions\n\n1. Why? Assumed: because.\n",
    );
    a.class_diagram.push_str("```\n");
    a
}

fn bench(c: &mut Criterion) {
    let a = design(20_000);
    let total: usize = a.iter().map(|(_, t)| t.lines().count()).sum();
    assert!(total >= 20_000, "{total} lines");
    let linted = lint(&a);
    assert!(
        !linted.has_errors(),
        "{:?}",
        &linted.diagnostics[..3.min(linted.diagnostics.len())]
    );
    // CPU time per lint (user + system, from /proc), which a loaded machine
    // inflates far less than the wall time criterion reports.
    if let Some(before) = cpu_ticks() {
        let runs = 300;
        for _ in 0..runs {
            black_box(lint(black_box(&a)));
        }
        if let Some(after) = cpu_ticks() {
            let ms = (after - before) as f64 * 10.0 / f64::from(runs);
            eprintln!("lint_20000_line_design: {ms:.2} ms CPU per lint ({total} lines)");
        }
    }
    c.bench_function("lint_20000_line_design", |b| b.iter(|| lint(black_box(&a))));
    stages(c, &a);
}

/// Where the time goes: the model read from each artifact alone, then the rules
/// over a model already read.
fn stages(c: &mut Criterion, a: &Artifacts) {
    let mut group = c.benchmark_group("design_stages");
    for section in Section::ALL {
        let mut only = Artifacts::default();
        *only.get_mut(section) = a.get(section).to_string();
        group.bench_function(format!("model/{}", section.file_name()), |b| {
            b.iter(|| DesignModel::read(black_box(&only)))
        });
    }
    let model = DesignModel::read(a);
    group.bench_function("rules", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            rules::check(black_box(a), black_box(&model), &mut out);
            out
        })
    });
    group.finish();
}

/// utime + stime of this process in clock ticks (1/100 s on Linux).
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = stat.rsplit(')').next()?;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

criterion_group!(benches, bench);
criterion_main!(benches);
