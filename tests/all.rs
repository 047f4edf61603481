//! The integration tests, one binary: each file of `tests/` is a module here, so the
//! suite links once instead of once per file. A new file must be listed below; the test
//! at the end fails when one is not.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod activity;
mod answers;
mod broken_pipe;
mod bus;
mod context;
mod cycle_props;
mod design_reflection;
mod designs;
mod diagram_tab;
mod diff_view;
mod edit_props;
mod first_prompt;
mod guard;
mod hook_fails_open;
mod hook_install;
mod hostile_text;
mod hostile_tree;
mod offline_drafter;
mod parser_props;
mod paste;
mod patch;
mod plan_scale;
mod plans;
mod problems;
mod reading;
mod real_hosts;
mod reasoners;
mod reflection;
mod reflection_kept;
mod review_pane;
mod run;
mod session_guard;
mod signals;
mod threads;
mod tmux_threads;
mod trust;
mod untrusted_context;
mod workbench;
mod workbench_finish;
mod workbench_threads;
mod workbench_truth;

/// Every `tests/*.rs` file is a module of this binary (cargo no longer finds them itself:
/// `autotests = false`), so none is left out of the suite unnoticed.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let listed: Vec<&str> = include_str!("all.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let stem = path.file_stem().unwrap().to_str().unwrap();
            if stem != "all" {
                assert!(
                    listed.contains(&stem),
                    "tests/{stem}.rs is not a module of tests/all.rs"
                );
            }
        }
    }
}
