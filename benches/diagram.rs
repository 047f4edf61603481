//! The class diagram drawn: a 200-class diagram (a tree of inheritance, composition
//! and association with dependencies across it, members on every class) laid out,
//! and one 100x30 window of it painted, as the workbench does per frame. Target for
//! the layout: under 20 ms.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use volk::design::diagram::{Budget, layout, layout_within};
use volk::design::model::mermaid::parse;
use volk::tui::diagram::{DiagramStyles, paint};

fn diagram(n: usize) -> String {
    let mut t = String::from("```mermaid\nclassDiagram\n");
    for i in 0..n {
        let _ = writeln!(
            t,
            "  class C{i} {{\n    +int id\n    -String name\n    +run(task) bool\n    +stop()\n  }}"
        );
        if i > 0 {
            let arrow = ["<|--", "*--", "-->", "o--"][i % 4];
            let _ = writeln!(t, "  C{} {arrow} C{i} : r{i}", (i - 1) / 3);
        }
        if i % 5 == 4 {
            let _ = writeln!(t, "  C{i} ..> C{}", i / 2);
        }
    }
    t.push_str("```\n");
    t
}

/// `n` classes, each with an association to the `per` classes after it.
fn dense(n: usize, per: usize) -> String {
    let mut t = String::from("classDiagram\n");
    for i in 0..n {
        for k in 1..=per {
            let _ = writeln!(t, "  C{i} --> C{} : r{k}", (i + k) % n);
        }
    }
    t
}

fn bench(c: &mut Criterion) {
    let d = parse(&diagram(200));
    assert_eq!(d.classes.len(), 200);
    assert!(d.error.is_none(), "{:?}", d.error);
    let drawn = layout(&d);
    assert_eq!(drawn.boxes.len(), 200);
    eprintln!(
        "layout_200_classes: {}x{} cells, {} routes",
        drawn.width,
        drawn.height,
        drawn.edges.len()
    );
    // CPU time per layout (user + system from /proc), which a loaded machine
    // inflates far less than the wall time criterion reports.
    if let Some(before) = cpu_ticks() {
        let runs = 200;
        for _ in 0..runs {
            black_box(layout(black_box(&d)));
        }
        if let Some(after) = cpu_ticks() {
            let ms = (after - before) as f64 * 10.0 / f64::from(runs);
            eprintln!("layout_200_classes: {ms:.2} ms CPU per layout");
        }
    }
    c.bench_function("layout_200_classes", |b| b.iter(|| layout(black_box(&d))));
    // At the size limit (classes × relationships = 120,000) in three shapes: how
    // long a layout the workbench admits may take, and whether it keeps to the
    // 200 ms budget.
    for (n, per) in [(100, 12), (346, 1), (40, 75)] {
        let dense = parse(&dense(n, per));
        let size = dense.classes.len() * dense.relations.len();
        let started = std::time::Instant::now();
        let before = cpu_ticks();
        let outcome = layout_within(&dense, &Budget::standard());
        let wall = started.elapsed();
        let cpu = before.zip(cpu_ticks()).map(|(a, b)| (b - a) * 10);
        eprintln!(
            "at the limit: {n} classes × {} relationships ({size}): {wall:?} wall, {cpu:?} ms CPU, {}",
            dense.relations.len(),
            match outcome {
                Ok(l) => format!("drawn {}x{}", l.width, l.height),
                Err(why) => format!("refused: {why}"),
            }
        );
    }
    let area = Rect::new(0, 0, 100, 30);
    let mut buf = Buffer::empty(area);
    let styles = DiagramStyles::default();
    let origin = (drawn.width / 2, drawn.height / 2);
    c.bench_function("paint_200_classes_100x30_window", |b| {
        b.iter(|| paint(black_box(&drawn), origin, area, &mut buf, &styles))
    });
}

/// utime + stime of this process in clock ticks (1/100 s on Linux).
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some(user + system)
}

criterion_group!(benches, bench);
criterion_main!(benches);
