//! The review threads end to end in the real workbench, in tmux, against a scripted
//! provider on 127.0.0.1: two questions, one comes back addressed and one carried
//! over; a hand edit through `$EDITOR` (a script) is committed and kept.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use support::tmux::Tmux;

use support::provider::Provider as Server;

const REQS: &str = "FUNCTIONAL:\n1. FR-01: Add tasks.\n2. FR-02: List tasks.";

fn design(api: &str, changes: &str) -> String {
    format!(
        "ARCHITECTURE:\nA CLI over a SQLite store.\n\nREQUIREMENTS:\n{REQS}\n\nFILE_TREE:\nsrc/\n  cli.py\n\nAPI_SPEC:\n{api}\n\nCLASS_DIAGRAM:\nclassDiagram\n  Cli --> Store\n{changes}"
    )
}

fn commits(dir: &Path) -> Vec<(String, String)> {
    let repo = git2::Repository::open(dir).unwrap();
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    let mut out: Vec<_> = walk
        .map(|oid| {
            let c = repo.find_commit(oid.unwrap()).unwrap();
            (
                c.summary().ok().flatten().unwrap_or_default().to_string(),
                c.author().name().unwrap_or_default().to_string(),
            )
        })
        .collect();
    out.reverse();
    out
}

#[test]
fn threads_and_a_hand_edit_end_to_end_in_tmux() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    let server = Server::scripted(vec![
        design("add(name: str) -> int", ""),
        // Cycle 2 answers Q1.1, ignores Q1.2, and drops the reviewer's edit.
        design(
            "add(name: str) -> int\nlist() -> list",
            "\nCHANGES:\n- Q1.1 api_spec: added list()\n",
        ),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let scope = dir.path().join("tasks.md");
    std::fs::write(&scope, "# A task CLI\n1. Add tasks\n2. List tasks\n").unwrap();
    // The editor: records how it was called, makes the edit, exits.
    let editor = dir.path().join("editor.sh");
    let called = dir.path().join("editor-args");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\necho \"$@\" > {}\nsed -i 's/FR-02: List tasks./FR-02: List tasks by due date./' \"$2\"\n",
            called.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let tmux = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-threads".into(),
    };
    let command = design_command(dir.path(), &home, &scope, &ws, &server.v1(), Some(&editor));
    tmux.start(150, 44, &command);
    tmux.wait_for("your review", Duration::from_secs(60));
    // The project is named after the scope's title.
    let project = ws.join("a-task-cli");

    // E on the FR-02 line of the Requirements tab: the script edits the file.
    tmux.keys(&["2"]);
    tmux.keys(&["j"]);
    tmux.keys(&["j"]);
    tmux.keys(&["E"]);
    tmux.wait_for("FR-02: List tasks by due date.", Duration::from_secs(20));
    assert_eq!(
        std::fs::read_to_string(&called).unwrap().trim(),
        format!("+3 {}", project.join("design/requirements.md").display())
    );

    // Two questions, sent.
    for question in ["How are tasks listed?", "Time zones?"] {
        tmux.keys(&["a"]);
        tmux.wait_for("New question", Duration::from_secs(15));
        tmux.literal(question);
        tmux.keys(&["Enter"]);
    }
    tmux.wait_for("Your questions (2)", Duration::from_secs(15));
    tmux.keys(&["C-s"]);
    tmux.wait_for("cycle 2/", Duration::from_secs(30));
    tmux.wait_for("your review", Duration::from_secs(60));
    let shot = tmux.wait_for("[unaddressed] Q1.2", Duration::from_secs(20));
    assert!(
        shot.contains("[addressed] Q1.1 How are tasks listed?"),
        "{shot}"
    );
    assert!(shot.contains("carried over"), "{shot}");

    // The edit was committed as the reviewer's before cycle 2, and survived it.
    let log = commits(&project);
    let names: Vec<_> = log.iter().map(|(s, _)| s.as_str()).collect();
    let edit = names
        .iter()
        .position(|s| *s == "Reviewer edit: requirements")
        .unwrap_or_else(|| panic!("{names:?}"));
    assert!(names[edit + 1].starts_with("Design cycle 2"), "{names:?}");
    assert_eq!(log[edit].1, "volk reviewer");
    let reqs = std::fs::read_to_string(project.join("design/requirements.md")).unwrap();
    assert!(reqs.contains("FR-02: List tasks by due date."), "{reqs}");
    let prompts = server.prompts();
    assert!(prompts[1].contains("The reviewer's own edits (binding)"));
    assert!(prompts[1].contains("- Q1.2: Time zones?"), "{}", prompts[1]);

    tmux.keys(&["q"]);
    std::thread::sleep(Duration::from_millis(300));
    if tmux.screen().contains("Quit?") {
        tmux.keys(&["y"]);
    }
    let end = tmux.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    assert!(end.contains("VOLK-EXITED-0"), "{end}");
}

/// READY with things still open: the confirmation lists them and asks "finalize
/// anyway?"; Esc sends nothing.
#[test]
fn the_ready_confirmation_lists_what_is_still_open() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    // Cycle 1 draws a class nothing defines (a design error); cycle 2 rewrites the
    // reviewer's FR-02 its own way (a conflict) and accounts for nothing.
    let broken = design("add(name: str) -> int", "")
        .replace("Cli --> Store", "Cli --> Store\n  class Phantom");
    let rewrite = broken.replace("2. FR-02: List tasks.", "2. FR-02: List open tasks first.");
    let server = Server::scripted(vec![broken, rewrite]);
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let scope = dir.path().join("tasks.md");
    std::fs::write(&scope, "# A task CLI\n1. Add tasks\n2. List tasks\n").unwrap();
    let editor = dir.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nsed -i 's/FR-02: List tasks./FR-02: List tasks by due date./' \"$2\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let tmux = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-ready-open".into(),
    };
    let command = design_command(dir.path(), &home, &scope, &ws, &server.v1(), Some(&editor));
    tmux.start(150, 44, &command);
    tmux.wait_for("your review", Duration::from_secs(60));
    let project = ws.join("a-task-cli");
    tmux.keys(&["2"]);
    tmux.keys(&["j"]);
    tmux.keys(&["j"]);
    tmux.keys(&["E"]);
    tmux.wait_for("FR-02: List tasks by due date.", Duration::from_secs(20));
    for question in ["How are tasks listed?", "Time zones?"] {
        tmux.keys(&["a"]);
        tmux.wait_for("New question", Duration::from_secs(15));
        tmux.literal(question);
        tmux.keys(&["Enter"]);
    }
    tmux.wait_for("Your questions (2)", Duration::from_secs(15));
    tmux.keys(&["C-s"]);
    tmux.wait_for("cycle 2/", Duration::from_secs(30));
    tmux.wait_for("your review", Duration::from_secs(60));
    let reqs = std::fs::read_to_string(project.join("design/requirements.md")).unwrap();
    assert!(reqs.contains("<<<<<<< reviewer"), "{reqs}");

    tmux.keys(&["C-r"]);
    let shot = tmux.wait_for("finalize anyway?", Duration::from_secs(15));
    assert!(shot.contains("READY?"), "{shot}");
    assert!(
        shot.contains("1 unresolved edit conflict (D050) · 2 unaddressed threads"),
        "{shot}"
    );
    assert!(shot.contains(" error"), "{shot}");
    assert!(
        shot.contains("conflict at design/requirements.md:"),
        "{shot}"
    );
    tmux.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!tmux.screen().contains("finalize anyway?"));
    assert_eq!(server.prompts().len(), 2, "nothing sent");

    tmux.keys(&["q"]);
    std::thread::sleep(Duration::from_millis(300));
    if tmux.screen().contains("Quit?") {
        tmux.keys(&["y"]);
    }
    let end = tmux.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    assert!(end.contains("VOLK-EXITED-0"), "{end}");
}

/// `r` after a failed block repair sends that repair again, the one its message
/// names; the cycle then closes with the block that applied before it.
#[test]
fn r_after_a_failed_repair_sends_the_repair_again() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    use support::provider::{Provider, openai_stream, status};
    let first = design("add(name: str) -> int", "");
    let update = "API_SPEC:\n<<<<<<< SEARCH\nadd(name: str) -> int\n=======\nadd(name: str, due: str) -> int\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nnot in the spec\n=======\nx\n>>>>>>> REPLACE\nCHANGES:\n- Q1.1 api_spec: added the due date\n".to_string();
    let provider = Provider::start(std::sync::Arc::new(move |n, _| match n {
        0 => openai_stream(&first, 40),
        1 => openai_stream(&update, 40),
        // The block repair fails once, then answers that nothing more changes.
        2 => status(400, r#"{"error":{"message":"scripted outage"}}"#),
        _ => openai_stream("CHANGES:\n- Q1.1 api_spec: added the due date\n", 40),
    }));
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let scope = dir.path().join("tasks.md");
    std::fs::write(&scope, "# A task CLI\n1. Add tasks\n2. List tasks\n").unwrap();
    let tmux = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-retry-repair".into(),
    };
    let command = design_command(dir.path(), &home, &scope, &ws, &provider.v1(), None);
    tmux.start(150, 44, &command);
    tmux.wait_for("your review", Duration::from_secs(60));
    tmux.keys(&["a"]);
    tmux.wait_for("New question", Duration::from_secs(15));
    tmux.literal("When is a task due?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Your questions (1)", Duration::from_secs(15));
    tmux.keys(&["C-s"]);
    let popup = tmux.wait_for("r: retry", Duration::from_secs(60));
    let words: Vec<&str> = popup
        .split(|c: char| c.is_whitespace() || c == '│')
        .filter(|w| !w.is_empty())
        .collect();
    assert!(
        words.join(" ").contains("r sends the block repair again"),
        "the failure names the call r sends: {popup}"
    );
    assert_eq!(provider.hits(), 3);
    tmux.keys(&["r"]);
    tmux.wait_for("cycle 2/", Duration::from_secs(30));
    tmux.wait_for("your review", Duration::from_secs(60));
    let prompts = provider.prompts();
    assert_eq!(prompts.len(), 4, "one retry, nothing else");
    assert_eq!(prompts[3], prompts[2], "the retry sends the failed repair");
    assert!(prompts[3].contains("not in the spec"));
    let api = std::fs::read_to_string(ws.join("a-task-cli/design/api_spec.md")).unwrap();
    assert!(api.contains("add(name: str, due: str) -> int"), "{api}");

    tmux.keys(&["q"]);
    std::thread::sleep(Duration::from_millis(300));
    if tmux.screen().contains("Quit?") {
        tmux.keys(&["y"]);
    }
    let end = tmux.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    assert!(end.contains("VOLK-EXITED-0"), "{end}");
}

/// `volk design` on `scope` against the scripted server at `url`, in a home of its own,
/// with `editor` as `$EDITOR` when given; the shell says how volk exited and stays open.
fn design_command(
    dir: &Path,
    home: &Path,
    scope: &Path,
    ws: &Path,
    url: &str,
    editor: Option<&Path>,
) -> String {
    let editor = editor.map_or(String::new(), |e| format!("EDITOR={} ", e.display()));
    format!(
        "env -u VISUAL HOME={home} XDG_CONFIG_HOME={home}/.config GIT_CONFIG_NOSYSTEM=1 {editor}\
         OPENAI_API_KEY=sk-tmux-test VOLK_CONFIG_DIR={config} VOLK_LOG={log} \
         {volk} design {scope} --workspace {ws} --lint-repairs 0 --reasoner openai --model scripted --base-url {url}; \
         echo VOLK-EXITED-$?; sleep 30",
        home = home.display(),
        config = dir.join("config").display(),
        log = dir.join("volk.log").display(),
        volk = env!("CARGO_BIN_EXE_volk"),
        scope = scope.display(),
        ws = ws.display(),
    )
}
