//! The first design prompt, as a model server on 127.0.0.1 receives it from `volk run`
//! on the bundled example: it names the project, the language the scope names, the
//! test naming the design compiler accepts for it and the rules it checks, and prints
//! no empty section.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::{Command, Stdio};

use crate::support;
use support::provider::Provider;

const BUNDLED_EXAMPLE: &str = include_str!("../assets/demo/scope.json");

const DESIGN: &str = "ARCHITECTURE:\nA CLI over SQLite (FR-01).\n\nREQUIREMENTS:\n1. FR-01: Register a book.\n\n\
FILE_TREE:\nsrc/\n  shelf.py\ntests/\n  test_shelf.py\n\nAPI_SPEC:\nModule: src/shelf.py\n  def add(title: str) -> int  # FR-01\n\n\
CLASS_DIAGRAM:\nclassDiagram\n  class Shelf\n";

#[test]
fn the_first_prompt_of_the_bundled_example_states_the_rules() {
    let ws = tempfile::tempdir().unwrap();
    let provider = Provider::repeating(DESIGN);
    let mut child = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(["run", "--packet", "-", "--workspace"])
        .arg(ws.path())
        .args(["--reasoner", "openai", "--base-url", &provider.v1()])
        .args(["--lint-repairs", "0"])
        .current_dir(ws.path())
        .env("VOLK_LOG", ws.path().join("volk.log"))
        .env("VOLK_CONFIG_DIR", ws.path().join("no-user-config"))
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
        .write_all(BUNDLED_EXAMPLE.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let prompt = provider.prompts().remove(0);
    if std::env::var_os("SHOW_PROMPT").is_some() {
        eprintln!("{prompt}");
    }
    for needle in [
        "The project is called `bookshelf`",
        "Target language: Python",
        "Runs on Python 3.11+ with the standard library only",
        "SQLite",
        "test_<module>.py (or <module>_test.py) in a tests/ tree that mirrors the package path",
        "Every class in CLASS_DIAGRAM appears in API_SPEC",
        "Every requirement is cited by its id",
    ] {
        assert!(prompt.contains(needle), "{needle}: {prompt}");
    }
    assert!(!prompt.contains("(none)"), "{prompt}");
    assert!(!prompt.contains("(not given)"), "{prompt}");
}
