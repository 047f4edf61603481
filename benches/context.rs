//! Monorepo context: a cold index of a large real tree against `rg` running an
//! equivalent definition regex over the same tree, and a warm lookup.
//!
//! The tree is `$VOLK_BENCH_TREE`, else the local cargo registry sources
//! (`~/.cargo/registry/src`, tens of thousands of files). Without a tree the benchmarks
//! are skipped; without `rg` on PATH only the `rg` side is skipped.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{BatchSize, Criterion, SamplingMode, criterion_group, criterion_main};
use volk::context::{CacheLocation, Index, build_context_with};

/// Definitions as a line-oriented regex can see them, for the languages the index reads.
const DEFINITION_REGEX: &str = r#"^\s*(export\s+)?(pub(\([^)]*\))?\s+)?((async|const|unsafe|default|abstract|extern\s+"[^"]*")\s+)*(struct|enum|union|trait|type|fn|class|interface|def|func)\s+[A-Za-z_][A-Za-z0-9_]*"#;
const SOURCE_GLOB: &str = "*.{rs,py,pyi,ts,mts,cts,tsx,js,mjs,cjs,jsx,go,java}";

/// Requirements text naming a few types that exist in most cargo registries.
const REQUIREMENTS: &str = "The `Deserialize` impls feed a TaskQueue built on the \
    BytesMut buffer; errors carry a Backtrace. Requests go through the HeaderMap; the \
    Scheduler keeps a BinaryHeap of Instant deadlines.";

fn tree() -> Option<PathBuf> {
    let path = match std::env::var_os("VOLK_BENCH_TREE") {
        Some(path) => PathBuf::from(path),
        None => dirs::home_dir()?
            .join(".cargo")
            .join("registry")
            .join("src"),
    };
    path.is_dir().then_some(path)
}

fn rg_available() -> bool {
    Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `rg` and drains its output through a pipe (with stdout on /dev/null, rg stops
/// at the first match of each file, which would not be the same work).
fn run_rg(tree: &Path) -> std::io::Result<usize> {
    let mut child = Command::new("rg")
        .args([
            "--no-messages",
            "--no-heading",
            "-n",
            "-o",
            "-g",
            SOURCE_GLOB,
            "-e",
        ])
        .arg(DEFINITION_REGEX)
        .arg(tree)
        .stdout(Stdio::piped())
        .spawn()?;
    let mut out = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout.read_to_end(&mut out)?;
    }
    child.wait()?;
    Ok(memchr::memchr_iter(b'\n', &out).count())
}

fn benches(c: &mut Criterion) {
    let Some(tree) = tree() else {
        eprintln!(
            "context bench: no tree (set VOLK_BENCH_TREE or fill ~/.cargo/registry/src), skipped"
        );
        return;
    };
    let root = volk::context::root::absolute(&tree);

    let (index, stats) = Index::refresh(&root, None);
    eprintln!(
        "context bench: {}: {} source files, {} read and sketched, {} skipped, cold index {} ms",
        root.display(),
        stats.files,
        stats.scanned,
        stats.skipped,
        stats.elapsed_ms
    );
    drop(index);
    if rg_available() {
        match run_rg(&root) {
            Ok(lines) => eprintln!("context bench: rg finds {lines} definition lines"),
            Err(error) => eprintln!("context bench: rg failed: {error}"),
        }
    }

    let mut group = c.benchmark_group("context");
    // Each cold run takes seconds: the fewest samples criterion allows, one run each.
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    group.bench_function("cold_index", |b| {
        b.iter(|| Index::refresh(&root, None).1.symbols)
    });
    if rg_available() {
        group.bench_function("rg_definitions", |b| b.iter(|| run_rg(&root).unwrap_or(0)));
    } else {
        eprintln!("context bench: rg is not on PATH, its side is skipped");
    }
    // The first design's whole wait: walk, sketch, parse the files that may define the
    // names, render, write the cache.
    group.bench_function("cold_lookup", |b| {
        b.iter_batched(
            || tempfile::tempdir().ok(),
            |cache| {
                let location = cache.as_ref().map_or(CacheLocation::Off, |d| {
                    CacheLocation::Dir(d.path().to_path_buf())
                });
                build_context_with(&root, REQUIREMENTS, &location)
                    .section
                    .len()
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();

    let cache = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!("context bench: no temp dir for the cache ({error}), warm lookup skipped");
            return;
        }
    };
    let location = CacheLocation::Dir(cache.path().to_path_buf());
    let first = build_context_with(&root, REQUIREMENTS, &location);
    if let Some(file) = location.file_for(&root)
        && let Ok(meta) = std::fs::metadata(file)
    {
        eprintln!("context bench: cache file {} KB", meta.len() / 1024);
    }
    eprintln!(
        "context bench: cold lookup parsed {} files, injects {} of {} matches, {} bytes, {} ms",
        first.index.parsed,
        first.injected().count(),
        first.matches.len(),
        first.section.len(),
        first.index.elapsed_ms
    );
    let mut group = c.benchmark_group("context");
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("warm_lookup", |b| {
        b.iter(|| {
            build_context_with(&root, REQUIREMENTS, &location)
                .section
                .len()
        })
    });
    group.bench_function("cache_load", |b| {
        b.iter(|| volk::context::cache::load(&location, &root).map(|i| i.files.len()))
    });
    // The part of a warm lookup that proves the cache current: load it, stat every
    // known directory and file.
    group.bench_function("warm_verify", |b| {
        b.iter(|| {
            let cached = volk::context::cache::load(&location, &root);
            Index::refresh(&root, cached).1.reused
        })
    });
    group.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
