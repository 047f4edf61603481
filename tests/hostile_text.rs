//! A design volk did not write (a model's answer, a cloned repository) may hold terminal
//! escape sequences. `volk lint` and `volk trace` quote its lines: they must never pass
//! those sequences to the terminal (a title rewrite, a cleared screen, reversed text).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

const HOSTILE: [char; 4] = ['\x1b', '\x07', '\u{9b}', '\u{202e}'];

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn volk(cwd: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(args)
        .current_dir(cwd)
        .env("VOLK_LOG", cwd.join("volk.log"))
        .env("VOLK_CONFIG_DIR", cwd.join("config"))
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn lint_and_trace_never_print_the_designs_control_characters() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("project");
    let clean = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/designs/clean");
    copy_dir(&clean, &dir);
    let req = dir.join("design/requirements.md");
    let text = std::fs::read_to_string(&req).unwrap().replacen(
        "FR-01: Add a task",
        "FR-01: \x1b]0;pwned\x07\x1b[2J\u{9b}31m\u{202e}Add a task (see FR-99)",
        1,
    );
    std::fs::write(&req, text).unwrap();
    let dir_arg = dir.to_str().unwrap();

    let (code, out) = volk(tmp.path(), &["trace", "FR-01", dir_arg]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Add a task"), "{out}");
    assert!(!out.contains(HOSTILE), "trace printed a control: {out:?}");

    let (code, out) = volk(tmp.path(), &["lint", dir_arg]);
    assert_eq!(code, 1, "FR-99 is cited but not defined: {out}");
    assert!(out.contains("D011") && out.contains("Add a task"), "{out}");
    assert!(!out.contains(HOSTILE), "lint printed a control: {out:?}");
    // The span marker still sits under FR-99 in the snippet.
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("(see FR-99)"))
        .unwrap();
    let chars_before =
        |line: &str, needle: &str| line[..line.find(needle).unwrap()].chars().count();
    assert_eq!(
        chars_before(lines[at], "FR-99"),
        chars_before(lines[at + 1], "^^^^^"),
        "{out}"
    );
}
