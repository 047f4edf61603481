//! Wall time of one `volk hook stop` call, next to the cost of starting `/bin/true`:
//! a Stop hook runs as a fresh process on every Stop, so process start-up is the
//! floor and the ratio says what volk adds on top of it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

const VOLK: &str = env!("CARGO_BIN_EXE_volk");

fn run_hook(root: &Path, input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(VOLK)
        .args(["hook", "stop"])
        .current_dir(root)
        .env("VOLK_LOG", root.join("volk.log"))
        .env_remove("PRD_REFLECTION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap().stdout
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".prd_plugin")).unwrap();
    let stop = serde_json::json!({
        "session_id": "bench-session",
        "cwd": root,
        "hook_event_name": "Stop",
        "stop_hook_active": false
    })
    .to_string();
    let subagent = stop.replace("\"Stop\"", "\"SubagentStop\"");

    let mut group = c.benchmark_group("hook");
    group.sample_size(60);
    group.bench_function("/bin/true", |b| {
        b.iter(|| {
            let status = Command::new("/bin/true").status().unwrap();
            assert!(status.success());
        })
    });
    group.bench_function("stop, alternating block and allow", |b| {
        b.iter(|| run_hook(root, stop.as_bytes()))
    });
    group.bench_function("stop, SubagentStop (allow at once)", |b| {
        b.iter(|| {
            let out = run_hook(root, subagent.as_bytes());
            assert!(out.is_empty());
        })
    });
    group.finish();
}

criterion_group! {
    name = group;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = benches
}
criterion_main!(group);
