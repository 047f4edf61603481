//! Edit blocks: 100 blocks applied to a 20,000-line design (five sections of 4,000
//! lines, 20 blocks each), from the section texts to the patched texts; and the same
//! answer read as a stream through the section parser.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use volk::design::edit::EditBlock;
use volk::design::edit::apply::apply_blocks;
use volk::design::edit::stream::{PatchStream, Settled};
use volk::design::{Artifacts, Section};

const LINES: usize = 4_000;
const BLOCKS: usize = 20;

fn section(s: Section) -> String {
    (0..LINES)
        .map(|i| match i % 4 {
            0 => format!("Module: src/{}/m{i}.py", s.key()),
            1 => format!("  class Thing{i}:"),
            2 => format!("    run(self, args: dict[str, str]) -> str  # line {i}"),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Blocks spread over the section: two lines out, three in; every fifth block is
/// written with a shifted indentation and every seventh with trailing white space.
fn blocks(s: Section) -> Vec<EditBlock> {
    (0..BLOCKS)
        .map(|b| {
            let i = b * (LINES / BLOCKS) + 1;
            let (pad, tail) = match (b % 5, b % 7) {
                (0, _) => ("  ", ""),
                (_, 0) => ("", "  "),
                _ => ("", ""),
            };
            EditBlock::new(
                format!(
                    "{pad}  class Thing{i}:{tail}\n{pad}    run(self, args: dict[str, str]) -> str  # line {}{tail}\n",
                    i + 1
                ),
                format!(
                    "{pad}  class Thing{i}:\n{pad}    run(self, args: dict[str, str]) -> int\n{pad}    stop(self) -> None  # {}\n",
                    s.key()
                ),
            )
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let texts: Vec<(String, Vec<EditBlock>)> = Section::ALL
        .iter()
        .map(|s| (section(*s), blocks(*s)))
        .collect();
    let mut group = c.benchmark_group("edit");
    group.bench_function("apply 100 blocks to 20,000 lines", |b| {
        b.iter(|| {
            for (text, blocks) in &texts {
                let (out, outcomes) = apply_blocks(black_box(text), black_box(blocks), &[]);
                assert!(outcomes.iter().all(Result::is_ok));
                black_box(out);
            }
        })
    });
    let base = Artifacts::from(Section::ALL.map(section));
    let mut answer = String::new();
    for s in Section::ALL {
        answer.push_str(s.marker());
        answer.push_str(":\n");
        for block in blocks(s) {
            answer.push_str(&block.render());
        }
    }
    group.bench_function("stream the 100-block answer in 64-byte chunks", |b| {
        b.iter(|| {
            let mut stream = PatchStream::with_settled(base.clone(), Settled::default());
            let bytes = answer.as_bytes();
            let mut from = 0;
            while from < bytes.len() {
                let mut to = (from + 64).min(bytes.len());
                while !answer.is_char_boundary(to) {
                    to += 1;
                }
                stream.feed(&answer[from..to]);
                from = to;
            }
            let out = stream.finish();
            assert!(out.clean());
            black_box(out);
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
