//! `volk run` on the spec's example 1 with the offline drafter: a fresh workspace each
//! time, so scaffold, git init, the design, the docs and the commit are all counted.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};

const EXAMPLE_1: &str = include_str!("../tests/fixtures/packets/example1_scope.json");

fn benches(c: &mut Criterion) {
    let root = tempfile::tempdir().expect("temp dir");
    let packet = root.path().join("example1.json");
    std::fs::write(&packet, EXAMPLE_1).expect("write packet");
    let mut n = 0u64;
    let mut group = c.benchmark_group("volk_run");
    group.sample_size(30);
    group.bench_function("example1_offline_wall", |b| {
        b.iter(|| {
            n += 1;
            let ws = root.path().join(format!("ws{n}"));
            let status = Command::new(env!("CARGO_BIN_EXE_volk"))
                .current_dir(root.path())
                .args(["run", "--reasoner", "offline", "--packet"])
                .arg(&packet)
                .arg("--workspace")
                .arg(&ws)
                .env("VOLK_LOG", root.path().join("volk.log"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("run volk");
            assert!(status.success());
        })
    });
    group.bench_function("true_baseline", |b| {
        b.iter(|| Command::new("true").status().expect("run true"))
    });
    group.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
