//! Workbench budgets: a full frame of a 20,000-line highlighted artifact at 200x60,
//! start to first frame, a keystroke drawn while a stream delivers 500 chunks a second,
//! a frame with 1 MB of thinking in the (wrapping) thinking pane, and resident memory
//! with five 200 KB artifacts loaded.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use volk::tui::event::LoopEvent;
use volk::tui::scene::Scene;

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use volk::brief::Purpose;
use volk::design::{Artifacts, Section};
use volk::reasoner::StreamEvent;
use volk::tui::app::{App, SessionInfo};
use volk::tui::event::{AppEvent, Phase};
use volk::tui::theme::Theme;
use volk::tui::{highlight, view};

fn info() -> SessionInfo {
    SessionInfo {
        project_name: "bench".into(),
        project_dir: PathBuf::from("/tmp/bench"),
        thread_id: "bench".into(),
        max_cycles: 99,
        reasoner: "offline".into(),
        model: "drafter".into(),
    }
}

/// Markdown with headings, lists, code fences and long lines: `lines` lines.
fn markdown(lines: usize) -> String {
    let mut out = String::with_capacity(lines * 60);
    for i in 0..lines {
        let line = match i % 10 {
            0 => format!("## Section {i}"),
            1 => String::new(),
            2 => format!(
                "- **Item {i}**: a component that handles `request {i}` and returns a result to its caller, logged."
            ),
            3 => "```python".to_string(),
            4 => format!("def handler_{i}(store: Store, value: int) -> str:  # {i}"),
            5 => "    return store.save({\"value\": value})".to_string(),
            6 => "```".to_string(),
            7 => {
                format!("1. FR-{i:05}: The system must record event {i} with its time and author.")
            }
            8 => format!("> Note {i}: decisions are binding once the reviewer answers them."),
            _ => format!("Plain prose line {i} describing how the parts fit together and why."),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// [`markdown`] with a table every 40 lines: a head, its rule row and six rows whose
/// last cell is a long sentence, so at a 140-column viewer its cells wrap.
fn markdown_with_tables(lines: usize) -> String {
    let mut out = String::with_capacity(lines * 80);
    for (i, line) in markdown(lines).lines().enumerate() {
        if i % 40 == 11 {
            out.push_str("| id | component | what it does |\n| --- | --- | --- |\n");
            for r in 0..6 {
                out.push_str(&format!(
                    "| FR-{i:05}-{r} | `Store{r}` | keeps the rows of table {r} in one SQLite file, writes them in one transaction, and reports every failure to its caller with the id of the row it was writing |\n"
                ));
            }
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn loaded_app(artifacts: Artifacts) -> App {
    Scene::new(info())
        .first_cycle(1, artifacts)
        .awaiting_review(1)
        .app()
}

fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn benches(c: &mut Criterion) {
    // Start to first frame: theme, state, and the first draw (syntax assets load on a
    // background thread and are not waited for).
    let start = Instant::now();
    highlight::warm_up();
    let mut app = App::new(
        info(),
        Theme::load("dark").unwrap_or_else(|_| Theme::dark()),
    );
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    view::render(&mut terminal, &mut app).unwrap();
    eprintln!("start to first frame: {:?}", start.elapsed());
    highlight::warm_now();
    // Memory (measured first, in a fresh process) with five 200 KB artifacts loaded and fully highlighted.
    let before = rss_kib();
    let big = markdown(4_700); // about 200 KB
    let mut artifacts = Artifacts::default();
    for s in Section::ALL {
        artifacts.set(s, big.clone());
    }
    let mut big_app = loaded_app(artifacts);
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    for tab in 0..5 {
        big_app.select_tab(volk::tui::tab::Tab::ALL[tab]);
        big_app.on_key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE));
        let len = big_app.docs[tab].len();
        big_app.docs[tab].highlight_until(len, None);
        view::render(&mut terminal, &mut big_app).unwrap();
    }
    let highlighted: usize = big_app.docs.iter().map(|d| d.highlighted()).sum();
    eprintln!(
        "five artifacts of {} KB, {highlighted} lines highlighted: VmRSS {} KiB (before loading: {} KiB)",
        big.len() / 1024,
        rss_kib().unwrap_or(0),
        before.unwrap_or(0)
    );
    drop(big_app);

    c.bench_function("start_to_first_frame_200x60", |b| {
        b.iter(|| {
            let mut app = App::new(
                info(),
                Theme::load("dark").unwrap_or_else(|_| Theme::dark()),
            );
            let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
            view::render(&mut terminal, &mut app).unwrap();
            black_box(terminal.backend().buffer().area);
        })
    });

    highlight::warm_now();

    // A full frame of a 20,000-line highlighted artifact, scrolled to the middle.
    let artifacts = Artifacts {
        architecture: markdown(20_000),
        ..Artifacts::default()
    };
    let mut app = loaded_app(artifacts);
    for _ in 0..10_000 {
        app.on_key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE));
    }
    // Warm: the lines up to the viewport are highlighted once, as after scrolling there.
    app.docs[0].highlight_until(10_100, None);
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    view::render(&mut terminal, &mut app).unwrap();
    let mut down = true;
    c.bench_function("frame_20k_line_artifact_200x60", |b| {
        b.iter(|| {
            // Alternate between two positions so each frame really changes.
            let code = if down { KeyCode::Down } else { KeyCode::Up };
            down = !down;
            app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
            view::render(&mut terminal, &mut app).unwrap();
        })
    });

    // The same frame of an artifact with a table every 40 lines (cells that wrap).
    let artifacts = Artifacts {
        architecture: markdown_with_tables(20_000),
        ..Artifacts::default()
    };
    let mut tables = loaded_app(artifacts);
    for _ in 0..10_000 {
        tables.on_key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE));
    }
    view::render(&mut terminal, &mut tables).unwrap();
    tables.docs[0].highlight_until(12_000, None);
    view::render(&mut terminal, &mut tables).unwrap();
    c.bench_function("frame_20k_line_artifact_with_tables_200x60", |b| {
        b.iter(|| {
            let code = if down { KeyCode::Down } else { KeyCode::Up };
            down = !down;
            tables.on_key(KeyEvent::new(code, KeyModifiers::NONE));
            view::render(&mut terminal, &mut tables).unwrap();
        })
    });
    drop(tables);

    // The same frame with the Markdown drawn as highlighted source (`m`), for the
    // cost of rendering it as a document.
    app.on_key(KeyEvent::new(KeyCode::Char('m'), KeyModifiers::NONE));
    app.docs[0].highlight_until(10_100, None);
    view::render(&mut terminal, &mut app).unwrap();
    c.bench_function("frame_20k_line_artifact_200x60_source", |b| {
        b.iter(|| {
            let code = if down { KeyCode::Down } else { KeyCode::Up };
            down = !down;
            app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
            view::render(&mut terminal, &mut app).unwrap();
        })
    });
    // The same frame while cycle 2 is on its way: the committed text stays on screen,
    // dimmed under a banner (before that feature: the same text, undimmed).
    app.on_key(KeyEvent::new(KeyCode::Char('m'), KeyModifiers::NONE));
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 2,
    })));
    view::render(&mut terminal, &mut app).unwrap();
    c.bench_function("frame_20k_line_artifact_200x60_backdrop", |b| {
        b.iter(|| {
            let code = if down { KeyCode::Down } else { KeyCode::Up };
            down = !down;
            app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
            view::render(&mut terminal, &mut app).unwrap();
        })
    });
    // Every line of a 20,000-line artifact once (what the cache then keeps), rendered
    // as a document and highlighted as source; and one with tables, rendered.
    let with_tables = markdown_with_tables(20_000);
    let mut group = c.benchmark_group("whole_artifact");
    group.sample_size(10);
    group.bench_function("render_20k_lines_with_tables_once", |b| {
        b.iter(|| {
            let mut doc = volk::tui::document::Document::new(
                volk::tui::highlight::Grammar::Markdown,
                "base16-ocean.dark",
            );
            doc.set_text(&with_tables);
            doc.highlight_until(usize::MAX, None);
            doc.highlighted()
        })
    });
    group.finish();
    let text = markdown(20_000);
    for (name, rendering) in [
        (
            "render_20k_lines_once",
            volk::tui::document::Rendering::Rendered,
        ),
        (
            "highlight_source_20k_lines_once",
            volk::tui::document::Rendering::Source,
        ),
    ] {
        let mut group = c.benchmark_group("whole_artifact");
        group.sample_size(10);
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut doc = volk::tui::document::Document::new(
                    volk::tui::highlight::Grammar::Markdown,
                    "base16-ocean.dark",
                );
                doc.set_rendering(rendering);
                doc.set_text(&text);
                doc.highlight_until(20_000, None);
                doc.highlighted()
            })
        });
        group.finish();
    }

    // A keystroke while a stream delivers 500 chunks a second: one frame's worth of
    // work is 8 chunks, the key, the sync and the draw.
    let text = markdown(4_000);
    let chunks: Vec<String> = {
        let mut v = Vec::new();
        let mut rest = text.as_str();
        while !rest.is_empty() {
            let mut end = rest.len().min(24);
            while !rest.is_char_boundary(end) {
                end += 1;
            }
            v.push(rest[..end].to_string());
            rest = &rest[end..];
        }
        v
    };
    let mut app = App::new(info(), Theme::dark());
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 1,
    })));
    app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
        call: 1,
        purpose: Purpose::Design,
        event: StreamEvent::Text {
            text: "ARCHITECTURE:\n".into(),
        },
    }));
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    let mut next = 0usize;
    let mut worst = Duration::ZERO;
    c.bench_function("keystroke_frame_during_500_chunks_per_s", |b| {
        b.iter(|| {
            let started = Instant::now();
            for _ in 0..8 {
                let text = chunks[next % chunks.len()].clone();
                next += 1;
                app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
                    call: 1,
                    purpose: Purpose::Design,
                    event: StreamEvent::Text { text },
                }));
            }
            app.on_key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::NONE));
            view::render(&mut terminal, &mut app).unwrap();
            worst = worst.max(started.elapsed());
        })
    });
    eprintln!("keystroke frame during stream: worst {worst:?} (budget 16 ms)");

    // A frame while a model thinks: 1 MB of thinking so far (long lines the pane wraps),
    // the pane shown, the activity line ticking; each frame brings one more thought.
    let mut app = App::new(info(), Theme::dark());
    app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Designing {
        cycle: 1,
    })));
    app.on_app_event(AppEvent::Loop(LoopEvent::CallStarted {
        call: 1,
        purpose: Purpose::Design,
    }));
    let thought = "Weighing a single SQLite file against a server process: the file keeps backups a copy and needs no supervision, the server scales writers. ".repeat(3);
    for _ in 0..(1 << 20) / thought.len() {
        app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
            call: 1,
            purpose: Purpose::Design,
            event: StreamEvent::Thinking {
                text: format!("{thought}\n"),
            },
        }));
    }
    app.on_key(KeyEvent::new(KeyCode::Char('t'), KeyModifiers::NONE));
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    c.bench_function("frame_thinking_1mb_shown_200x60", |b| {
        b.iter(|| {
            app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
                call: 1,
                purpose: Purpose::Design,
                event: StreamEvent::Thinking {
                    text: "One more thought. ".into(),
                },
            }));
            app.tick();
            view::render(&mut terminal, &mut app).unwrap();
        })
    });
    let stats = keystrokes_during_a_stream();
    eprintln!(
        "real loop, 500 chunks/s and a key every 20 ms: {} inputs, {} frames in ~2 s, worst input-to-frame {:?} (budget 16 ms)",
        stats.inputs, stats.frames, stats.worst_input_to_frame
    );
}

/// The diff view (`d`) between two 20,000-line cycles of one artifact: opening it
/// (the line diff, the changed words, the first frame) and a frame scrolled in it,
/// side by side at 200x60 and unified at 120x40; and a full rewrite, the worst case.
fn diff_benches(c: &mut Criterion) {
    let old = markdown(20_000);
    // A word changed on every 40th line and a line added every 500th: 540 hunks.
    let mut new = String::with_capacity(old.len() + 4_096);
    for (i, line) in old.lines().enumerate() {
        if i % 40 == 4 {
            new.push_str(&line.replacen("handler", "worker", 1));
        } else {
            new.push_str(line);
        }
        new.push('\n');
        if i % 500 == 250 {
            new.push_str(&format!("An added note {i} on the decision above.\n"));
        }
    }
    let rewrite: String = old.lines().map(|l| format!("{l} (rewritten)\n")).collect();
    let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
    let d = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::NONE);
    let mut group = c.benchmark_group("diff_20k_lines");
    group.sample_size(10);
    // Where opening spends its time: the line diff alone, then with the changed words.
    group.bench_function("line_diff_only_540_hunks", |b| {
        b.iter(|| {
            let diff = similar::TextDiff::from_lines(old.as_str(), new.as_str());
            black_box(diff.grouped_ops(3).len())
        })
    });
    group.bench_function("model_540_hunks", |b| {
        b.iter(|| black_box(volk::tui::diff::Diff::new(&old, &new).lines.len()))
    });
    // What opening would cost if every hunk's words were marked up front (they are
    // marked only for the hunks on screen).
    group.bench_function("model_and_words_of_all_540_hunks", |b| {
        b.iter(|| {
            let mut diff = volk::tui::diff::Diff::new(&old, &new);
            diff.refine(0..diff.lines.len());
            black_box(diff.refined())
        })
    });
    for (name, second, width, height) in [
        ("open_540_hunks_side_by_side_200x60", &new, 200, 60),
        ("open_540_hunks_unified_120x40", &new, 120, 40),
        ("open_full_rewrite_200x60", &rewrite, 200, 60),
    ] {
        let mut app = loaded_app(Artifacts {
            architecture: old.clone(),
            ..Artifacts::default()
        });
        app.on_app_event(AppEvent::Loop(LoopEvent::CycleReady {
            cycle: 2,
            artifacts: Artifacts {
                architecture: second.clone(),
                ..Artifacts::default()
            },
            changed: vec![Section::Architecture],
        }));
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        view::render(&mut terminal, &mut app).unwrap();
        let started = Instant::now();
        app.on_key(d);
        view::render(&mut terminal, &mut app).unwrap();
        eprintln!("{name}: first open {:?}", started.elapsed());
        app.on_key(esc);
        group.bench_function(name, |b| {
            b.iter(|| {
                app.on_key(d);
                view::render(&mut terminal, &mut app).unwrap();
                app.on_key(esc);
            })
        });
        // A frame in the open diff: the next hunk, drawn.
        app.on_key(d);
        let next = KeyEvent::new(KeyCode::Char(']'), KeyModifiers::NONE);
        let top = KeyEvent::new(KeyCode::Char('g'), KeyModifiers::NONE);
        let mut count = 0u32;
        group.bench_function(format!("{name}_frame_next_hunk"), |b| {
            b.iter(|| {
                count += 1;
                app.on_key(if count.is_multiple_of(400) { top } else { next });
                view::render(&mut terminal, &mut app).unwrap();
            })
        });
        app.on_key(esc);
    }
    group.finish();
}

/// The real event loop on a TestBackend: a stream delivers 500 chunks a second while a
/// key arrives every 20 ms; returns the loop's worst input-to-frame time.
fn keystrokes_during_a_stream() -> volk::tui::runloop::LoopStats {
    use ratatui::crossterm::event::Event;
    use tokio::sync::mpsc::unbounded_channel;
    use volk::tui::runloop::{Channels, run};

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (term_tx, term_rx) = unbounded_channel();
        let (event_tx, event_rx) = unbounded_channel();
        let (_job_tx, job_rx) = unbounded_channel();
        let (answer_tx, _answers) = unbounded_channel();
        let session = volk::volk::runtime::SessionHandle::reader(".".into(), answer_tx);
        let text = markdown(4_000);
        tokio::spawn(async move {
            let _ = event_tx.send(LoopEvent::Phase(Phase::Designing { cycle: 1 }));
            let mut tick = tokio::time::interval(Duration::from_millis(2));
            let mut rest = format!("ARCHITECTURE:\n{text}");
            while !rest.is_empty() {
                tick.tick().await;
                let mut end = rest.len().min(24);
                while !rest.is_char_boundary(end) {
                    end += 1;
                }
                let chunk: String = rest.drain(..end).collect();
                let event = LoopEvent::Delta {
                    call: 1,
                    purpose: Purpose::Design,
                    event: StreamEvent::Text { text: chunk },
                };
                if event_tx.send(event).is_err() {
                    return;
                }
            }
        });
        tokio::spawn(async move {
            for i in 0..100 {
                tokio::time::sleep(Duration::from_millis(20)).await;
                let code = if i % 2 == 0 {
                    KeyCode::Char('w')
                } else {
                    KeyCode::Char('l')
                };
                let _ = term_tx.send(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
            }
            let _ = term_tx.send(Event::Key(KeyEvent::new(
                KeyCode::Char('q'),
                KeyModifiers::NONE,
            )));
            tokio::time::sleep(Duration::from_millis(20)).await;
            let _ = term_tx.send(Event::Key(KeyEvent::new(
                KeyCode::Char('y'),
                KeyModifiers::NONE,
            )));
        });
        let mut app = App::new(info(), Theme::dark());
        let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
        let channels = Channels {
            terminal: term_rx,
            events: event_rx,
            jobs: job_rx,
            session,
        };
        let (_, stats) = run(&mut terminal, &mut app, channels, None).await.unwrap();
        stats
    })
}

criterion_group! {
    name = group;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = benches, diff_benches
}
criterion_main!(group);
