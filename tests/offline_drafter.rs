//! The offline drafter on a real scope, through the real binary: `volk design
//! shortener.md` with no reasoner named, in a real terminal (tmux).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use support::tmux::{Tmux, tmux_available};

const SCOPE: &str = include_str!("fixtures/scopes/shortener.md");

/// The list items of the scope's requirement sections, as the person wrote them
/// (an item over two lines reads as one, joined by a space).
fn scope_items() -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    let mut keep = false;
    let mut open = false;
    for line in SCOPE.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix("## ") {
            keep = !h.starts_with("Out of scope");
            open = false;
            continue;
        }
        let item = t
            .strip_prefix("- ")
            .or_else(|| t.get(3..).filter(|_| t.as_bytes()[0].is_ascii_digit()));
        match item {
            Some(text) if keep => {
                items.push(text.to_string());
                open = true;
            }
            None if keep && open && !t.is_empty() => {
                let last = items.last_mut().unwrap();
                last.push(' ');
                last.push_str(t);
            }
            _ => open = false,
        }
    }
    items
}

fn wait_for_file(path: &Path, timeout: Duration) -> String {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.is_empty()
        {
            return text;
        }
        assert!(
            start.elapsed() < timeout,
            "{} never written",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_web_service_scope_is_drafted_from_its_requirement_items_only() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("shortener.md"), SCOPE).unwrap();
    let config = dir.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let stderr = dir.path().join("stderr.txt");
    let tmux = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-offline".into(),
    };
    let command = format!(
        "cd {} && env -u VOLK_REASONER VOLK_CONFIG_DIR={} VOLK_LOG={} {} design shortener.md 2>{}; sleep 30",
        workspace.display(),
        config.display(),
        dir.path().join("volk.log").display(),
        env!("CARGO_BIN_EXE_volk"),
        stderr.display()
    );
    tmux.start(140, 40, &command);
    let screen = tmux.wait_for("your review", Duration::from_secs(60));
    let header = screen.lines().next().unwrap();
    assert!(header.contains("offline drafter (no model)"), "{header}");

    // Said once, before the workbench started: how to pick a model.
    let notice = std::fs::read_to_string(&stderr).unwrap();
    assert_eq!(
        notice.matches("offline drafter (no model)").count(),
        1,
        "{notice}"
    );
    assert!(notice.contains("--reasoner openai"), "{notice}");
    assert!(
        notice.contains("reasoner = \"openai\" in volk.toml"),
        "{notice}"
    );

    let design = workspace.join("short-links").join("design");
    let requirements = wait_for_file(&design.join("requirements.md"), Duration::from_secs(30));
    let items = scope_items();
    assert_eq!(items.len(), 10, "{items:#?}");
    for item in &items {
        assert!(
            requirements
                .lines()
                .any(|l| l.ends_with(&format!(": {item}"))),
            "{item:?} is not in requirements.md verbatim:\n{requirements}"
        );
    }
    assert!(requirements.contains("NFR-01: 2,000 redirects/s on one 2-core instance"));
    assert!(
        !requirements.contains("User accounts"),
        "out of scope is no requirement"
    );

    // Components come from the functional items only: not from headings or prose.
    let architecture = std::fs::read_to_string(design.join("architecture.md")).unwrap();
    let components: Vec<&str> = architecture
        .lines()
        .skip_while(|l| *l != "## Components")
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| l.split("**").nth(1))
        .collect();
    assert_eq!(
        components,
        [
            "Api",
            "ShortenUrl",
            "RedirectCode",
            "PickAlias",
            "CountRedirect",
            "ExpireLink",
            "Store"
        ],
        "{architecture}"
    );
    // A web service has no command line.
    for name in ["architecture", "file_tree", "api_spec", "class_diagram"] {
        let text = std::fs::read_to_string(design.join(format!("{name}.md"))).unwrap();
        assert!(
            !text.contains("Cli") && !text.contains("cli.py"),
            "{name}:\n{text}"
        );
    }

    // And the design compiles without a finding.
    let lint = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(["lint", "--format", "json"])
        .arg(workspace.join("short-links"))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&lint.stdout).unwrap();
    assert_eq!(lint.status.code(), Some(0), "{report:#}");
    assert_eq!(report["diagnostics"], serde_json::json!([]), "{report:#}");
}
