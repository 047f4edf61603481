//! The review after an update on a 20,000-line design: a hand edit merged, settled
//! items restored, 50 threads checked against the diff; and the settled byte ranges an
//! edit-block applier asks for.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::fmt::Write as _;
use std::hint::black_box;
use volk::cxp::ReviewMarks;
use volk::design::settled::{Mark, settled_ranges};
use volk::design::{Artifacts, Section};
use volk::volk::review::{ReviewState, after_cycle, apply_marks, open_threads, record_edit};

const LINES: usize = 4_000;

/// Five artifacts of 4,000 lines each.
fn design() -> Artifacts {
    let mut a = Artifacts::default();
    let mut reqs = String::from("FUNCTIONAL:");
    for i in 1..LINES {
        let _ = write!(reqs, "\n{i}. FR-{i:02}: The system must handle case {i}.");
    }
    a.requirements = reqs;
    let mut arch = String::from("## Decisions");
    for i in 1..LINES / 4 {
        let _ = write!(
            arch,
            "\n### ADR-{i:03}: choice {i}\nWhy {i}.\nConsequence {i}."
        );
    }
    a.architecture = arch;
    for (section, line) in [
        (Section::FileTree, "  src/module_{}.py"),
        (Section::ApiSpec, "  def call_{}(x: int) -> int"),
        (Section::ClassDiagram, "  Class{} --> Store"),
    ] {
        let text: Vec<String> = (0..LINES)
            .map(|i| line.replace("{}", &i.to_string()))
            .collect();
        a.set(section, text.join("\n"));
    }
    a
}

fn bench(c: &mut Criterion) {
    let before = design();
    let mut edited = before.clone();
    edited.requirements = edited
        .requirements
        .replace("case 2000.", "case 2000, edited by the reviewer.");
    // The model drops the edit, rewrites FR-10 (settled) and adds to the API.
    let mut answer = before.clone();
    answer.requirements = answer.requirements.replace("case 10.", "case ten.");
    answer.api_spec.push_str("\n  def added() -> None");
    let mut changes = String::new();
    for i in 1..=50 {
        let _ = writeln!(changes, "- Q1.{i} api_spec: change {i}");
    }
    let questions: Vec<volk::brief::Question> = (1..=50)
        .map(|i| volk::brief::Question::new(format!("question {i}?")))
        .collect();
    let mut state = ReviewState::default();
    apply_marks(
        &mut state,
        &ReviewMarks {
            settled: (1..=10)
                .map(|i| format!("FR-{}", i * 10))
                .chain((1..=5).map(|i| format!("ADR-{i}")))
                .collect(),
            ..ReviewMarks::default()
        },
    )
    .unwrap();
    open_threads(&mut state, 1, &questions);
    record_edit(&mut state, &before, &edited);
    c.bench_function(
        "review/after_cycle 20k lines, 15 settled, 50 threads",
        |b| {
            b.iter(|| {
                let mut s = state.clone();
                black_box(after_cycle(
                    &mut s,
                    &edited,
                    answer.clone(),
                    Some(black_box(&changes)),
                ))
            })
        },
    );
    let marks: Vec<Mark> = state
        .settled
        .iter()
        .filter_map(|m| Mark::parse(m))
        .collect();
    c.bench_function("review/settled_ranges 4k-line requirements", |b| {
        b.iter(|| {
            black_box(settled_ranges(
                Section::Requirements,
                black_box(&before.requirements),
                &marks,
            ))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
