//! The bus with the offline drafter: 100 new threads through 1 worker against 3 workers
//! (each sample is a batch of 10 threads, ten samples per side), and one packet through
//! `volk submit --wait` on a running worker against one `volk run`, both from process
//! start: the difference is the bus's per-packet overhead.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/support/nats.rs"]
#[allow(dead_code)]
mod nats;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use nats::{Nats, Worker, volk};

const EXAMPLE_1: &str = include_str!("../tests/fixtures/packets/example1_scope.json");

fn scope(thread: &str) -> String {
    EXAMPLE_1
        .replace("thread-042", thread)
        .replace("\"taskman\"", &format!("\"{thread}\""))
}

/// Publishes `packets` and waits until `CXP_OUT` holds `expected` replies.
fn run_batch(
    rt: &tokio::runtime::Runtime,
    js: &async_nats::jetstream::Context,
    packets: Vec<String>,
    expected: u64,
) {
    rt.block_on(async {
        for (i, packet) in packets.into_iter().enumerate() {
            js.send_publish(
                format!("cxp.in._new.b{i}"),
                async_nats::jetstream::message::PublishMessage::build()
                    .payload(packet.into_bytes().into())
                    .message_id(uuid::Uuid::new_v4().to_string()),
            )
            .await
            .unwrap()
            .await
            .unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            let stream = js.get_stream("CXP_OUT").await.unwrap();
            if stream.get_info().await.unwrap().state.messages >= expected {
                return;
            }
            assert!(Instant::now() < deadline, "the workers fell behind");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    });
}

fn throughput(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut group = c.benchmark_group("bus_100_threads");
    group.sample_size(10);
    for workers in [1usize, 3] {
        let nats = Nats::start();
        nats.init(60.0);
        let root = tempfile::tempdir().unwrap();
        let ws = root.path().join("ws");
        let _workers: Vec<Worker> = (0..workers)
            .map(|i| Worker::start(&nats.url, &ws, &format!("w{i}"), &["--reasoner", "offline"]))
            .collect();
        let client = rt.block_on(async_nats::connect(nats.url.as_str())).unwrap();
        let js = {
            let _inside = rt.enter();
            async_nats::jetstream::new(client)
        };
        let mut done = 0u64;
        group.bench_function(format!("{workers}_worker_batch_of_10"), |b| {
            b.iter(|| {
                let packets = (0..10).map(|i| scope(&format!("t{done}-{i}"))).collect();
                done += 10;
                run_batch(&rt, &js, packets, done);
            })
        });
    }
    group.finish();
}

fn overhead(c: &mut Criterion) {
    let mut group = c.benchmark_group("bus_per_packet");
    group.sample_size(10);
    let nats = Nats::start();
    nats.init(60.0);
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    let _worker = Worker::start(&nats.url, &ws, "w", &["--reasoner", "offline"]);
    let mut n = 0u64;
    group.bench_function("submit_wait_offline", |b| {
        b.iter(|| {
            n += 1;
            let packet = root.path().join(format!("p{n}.json"));
            std::fs::write(&packet, scope(&format!("s{n}"))).unwrap();
            let out = volk(&["submit", "--bus", &nats.url, "--wait", "60", "--packet"])
                .arg(&packet)
                .output()
                .unwrap();
            assert!(out.status.success());
        })
    });
    group.bench_function("volk_run_offline", |b| {
        b.iter(|| {
            n += 1;
            let packet = root.path().join(format!("p{n}.json"));
            std::fs::write(&packet, scope(&format!("r{n}"))).unwrap();
            let status = Command::new(env!("CARGO_BIN_EXE_volk"))
                .args(["run", "--reasoner", "offline", "--packet"])
                .arg(&packet)
                .arg("--workspace")
                .arg(root.path().join("run-ws"))
                .env("VOLK_LOG", root.path().join("volk.log"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success());
        })
    });
    group.finish();
}

criterion_group!(group, throughput, overhead);
criterion_main!(group);
