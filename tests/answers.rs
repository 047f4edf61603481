//! Answers as models really write them, through `volk run` against an
//! OpenAI-compatible server on 127.0.0.1 that streams a scripted answer: headings
//! in title case without colons fill the sections, and an answer with no section at
//! all is kept under `.volk/` and reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::support;
use support::provider::Provider;

const EXAMPLE_1: &str = include_str!("fixtures/packets/example1_scope.json");

fn run(workspace: &Path, base_url: &str) -> Output {
    run_with(workspace, base_url, &[])
}

fn run_with(workspace: &Path, base_url: &str, extra: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(["run", "--packet", "-", "--workspace"])
        .arg(workspace)
        .args(["--reasoner", "openai", "--base-url", base_url])
        .args(extra)
        .current_dir(workspace)
        .env("VOLK_LOG", workspace.join("volk.log"))
        .env("VOLK_CONFIG_DIR", workspace.join("no-user-config"))
        .env_remove("VOLK_REASONER")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(EXAMPLE_1.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn project(workspace: &Path) -> PathBuf {
    std::fs::read_dir(workspace)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join(".volk").is_dir())
        .expect("a project directory")
}

const HEADINGS: &str = "Here is the design you asked for.\n\n\
## ARCHITECTURE\n\nA CLI over one SQLite store.\n\n\
## Requirements\n\n1. FR-01: The system must register a book.\n\n\
### 3. File tree:\n\nsrc/\n└── main.py\n\n\
**API spec**\n\nModule: src/main.py\n  main() -> int\n\n\
# Class Diagram #\n\nclassDiagram\n  Cli --> Store\n";

#[test]
fn heading_markers_in_title_case_fill_every_section() {
    let workspace = tempfile::tempdir().unwrap();
    let out = run(workspace.path(), &Provider::repeating(HEADINGS).v1());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let packet: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let payload = &packet["payload"];
    assert_eq!(payload["architecture"], "A CLI over one SQLite store.");
    assert_eq!(
        payload["requirements"],
        "1. FR-01: The system must register a book."
    );
    assert_eq!(payload["file_tree"], "src/\n└── main.py");
    assert_eq!(payload["api_spec"], "Module: src/main.py\n  main() -> int");
    assert_eq!(payload["class_diagram"], "classDiagram\n  Cli --> Store");
    let dir = project(workspace.path());
    assert_eq!(
        std::fs::read_to_string(dir.join("design/architecture.md"))
            .unwrap()
            .trim(),
        "A CLI over one SQLite store."
    );
}

const NO_SECTIONS: &str = "I would structure this as a small CLI.\n\n\
## Overview\n\nOne SQLite store, three commands.\n\n\
## Risks\n\nConcurrent writers.\n";

#[test]
fn an_answer_without_sections_is_kept_and_reported() {
    let workspace = tempfile::tempdir().unwrap();
    let out = run(workspace.path(), &Provider::repeating(NO_SECTIONS).v1());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty());
    let dir = project(workspace.path());
    let kept: Vec<PathBuf> = std::fs::read_dir(dir.join(".volk/unparsed"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(std::fs::read_to_string(&kept[0]).unwrap(), NO_SECTIONS);
    let name = kept[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        stderr.contains("none of the five section markers")
            && stderr.contains(&format!(".volk/unparsed/{name}")),
        "{stderr}"
    );
    let journal = std::fs::read_to_string(dir.join(".volk/journal.jsonl")).unwrap();
    assert!(journal.contains("\"answer_unparsed\""), "{journal}");
}

#[test]
fn the_retry_of_an_answer_without_sections_only_asks_for_the_markers() {
    let workspace = tempfile::tempdir().unwrap();
    let provider = Provider::scripted(vec![NO_SECTIONS.to_string(), HEADINGS.to_string()]);
    let url = provider.v1();
    let first = run_with(workspace.path(), &url, &["--lint-repairs", "0"]);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("a retry asks the model only to put it under the markers"),
        "{stderr}"
    );
    // The same packet again is the retry.
    let second = run_with(workspace.path(), &url, &["--lint-repairs", "0"]);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(0), "{stderr}");
    let packet: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(packet["payload"]["design_cycle"], 1);
    assert_eq!(
        packet["payload"]["architecture"],
        "A CLI over one SQLite store."
    );
    let prompts = provider.prompts();
    assert_eq!(prompts.len(), 2, "one design call, one reformat call");
    let reformat = &prompts[1];
    assert!(reformat.contains(NO_SECTIONS.trim()), "{reformat}");
    assert!(
        reformat.contains("ARCHITECTURE:\nREQUIREMENTS:"),
        "{reformat}"
    );
    // Only the answer and the markers: a fraction of the design prompt.
    assert!(
        reformat.len() * 3 < prompts[0].len(),
        "reformat {} bytes vs design {} bytes",
        reformat.len(),
        prompts[0].len()
    );
}
