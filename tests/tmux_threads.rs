//! The review threads end to end in the real workbench, in tmux, against a scripted
//! provider on 127.0.0.1: two questions, one comes back addressed and one carried
//! over; a hand edit through `$EDITOR` (a script) is committed, kept, and marked
//! `reviewer` in the diff; READY lists what is open; and `r` after each kind of
//! failure (update, block repair, whole sections, design-compiler pass, reformat)
//! sends the one request its popup names, with the failed request's body.

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
    use support::provider::{openai_stream, status};
    let first = design("add(name: str) -> int", "");
    let update = "API_SPEC:\n<<<<<<< SEARCH\nadd(name: str) -> int\n=======\nadd(name: str, due: str) -> int\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nnot in the spec\n=======\nx\n>>>>>>> REPLACE\nCHANGES:\n- Q1.1 api_spec: added the due date\n".to_string();
    let provider = Server::start(std::sync::Arc::new(move |n, _| match n {
        0 => openai_stream(&first, 40),
        1 => openai_stream(&update, 40),
        // The block repair fails once, then answers that nothing more changes.
        2 => status(400, OUTAGE),
        _ => openai_stream("CHANGES:\n- Q1.1 api_spec: added the due date\n", 40),
    }));
    let dir = tempfile::tempdir().unwrap();
    let tmux = retry_session(dir.path(), &provider, 0);
    ask(&tmux);
    let after = r_sends(&tmux, &provider, "sends the block repair again", Some(2));
    tmux.wait_for("cycle 2/", Duration::from_secs(30));
    tmux.wait_for("your review", Duration::from_secs(60));
    assert_eq!((after, provider.hits()), (4, 4), "one retry, nothing else");
    assert!(provider.prompts()[3].contains("not in the spec"));
    let api = std::fs::read_to_string(dir.path().join("ws/a-task-cli/design/api_spec.md")).unwrap();
    assert!(api.contains("add(name: str, due: str) -> int"), "{api}");
    quit(&tmux);
}

/// The reviewer's hand edit is marked `reviewer` in the diff (`d`), apart from the
/// architect's change in the same artifact: in the workbench that ran the cycle (its
/// previous text already holds the edit), in a second, read-only one, and after
/// `volk open`.
#[test]
fn the_reviewers_edit_is_marked_in_the_diff_live_and_after_open() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    // The architect adds FR-03 under the reviewer's FR-02, as a block.
    let update = "REQUIREMENTS:\n<<<<<<< SEARCH\n2. FR-02: List tasks by due date.\n=======\n2. FR-02: List tasks by due date.\n3. FR-03: Delete done tasks.\n>>>>>>> REPLACE\nCHANGES:\n- Q1.1 requirements: added FR-03\n";
    let server = Server::scripted(vec![design("add(name: str) -> int", ""), update.into()]);
    let dir = tempfile::tempdir().unwrap();
    let (ws, home) = (dir.path().join("ws"), dir.path().join("home"));
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
        session: "volk-marks".into(),
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
    tmux.keys(&["a"]);
    tmux.wait_for("New question", Duration::from_secs(15));
    tmux.literal("Can done tasks go?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Your questions (1)", Duration::from_secs(15));
    tmux.keys(&["C-s"]);
    tmux.wait_for("cycle 2/", Duration::from_secs(30));
    tmux.wait_for("your review", Duration::from_secs(60));
    assert_eq!(server.hits(), 2);
    let reqs = std::fs::read_to_string(project.join("design/requirements.md")).unwrap();
    assert!(
        reqs.contains("FR-02: List tasks by due date.\n3. FR-03: Delete done tasks."),
        "{reqs}"
    );

    /// `d` on the Requirements tab: the reviewer's lines marked, the architect's not.
    fn marked(tmux: &Tmux, when: &str) {
        tmux.keys(&["2"]);
        tmux.keys(&["d"]);
        tmux.wait_for("changes since the previous cycle", Duration::from_secs(15));
        tmux.wait_for("+ 3. FR-03: Delete done tasks.", Duration::from_secs(15));
        // The frame whole, not one caught while it is drawn.
        std::thread::sleep(Duration::from_millis(200));
        let screen = tmux.screen();
        let row = |text: &str| {
            screen
                .lines()
                .find(|l| l.contains(text))
                .unwrap_or_else(|| panic!("{when}: {text:?} not in\n{screen}"))
                .to_string()
        };
        assert!(
            row("+ 2. FR-02: List tasks by due date.").contains("reviewer"),
            "{when}:\n{screen}"
        );
        assert!(
            row("- 2. FR-02: List tasks.").contains("reviewer"),
            "{when}:\n{screen}"
        );
        assert!(
            !row("+ 3. FR-03: Delete done tasks.").contains("reviewer"),
            "{when}: the architect's line\n{screen}"
        );
        tmux.keys(&["Escape"]);
    }
    marked(&tmux, "live");

    let open = |name: &str| {
        format!(
            "env HOME={home} XDG_CONFIG_HOME={home}/.config GIT_CONFIG_NOSYSTEM=1 \
             OPENAI_API_KEY=sk-tmux-test VOLK_CONFIG_DIR={config} VOLK_LOG={log} \
             {volk} open {project} --reasoner openai --model scripted --base-url {url}; \
             echo VOLK-{name}-EXITED-$?; sleep 30",
            home = home.display(),
            config = dir.path().join("config").display(),
            log = dir.path().join(format!("{name}.log")).display(),
            volk = env!("CARGO_BIN_EXE_volk"),
            project = project.display(),
            url = server.v1(),
        )
    };
    let second = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-marks-second".into(),
    };
    second.start(150, 44, &open("second"));
    second.wait_for("READ-ONLY", Duration::from_secs(30));
    marked(&second, "a second, read-only workbench");
    second.keys(&["q"]);
    second.wait_for("VOLK-second-EXITED-0", Duration::from_secs(15));

    tmux.keys(&["q"]);
    std::thread::sleep(Duration::from_millis(300));
    if tmux.screen().contains("Quit?") {
        tmux.keys(&["y"]);
    }
    let end = tmux.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    assert!(end.contains("VOLK-EXITED-0"), "{end}");
    let reopened = Tmux {
        socket: dir.path().join("tmux.sock"),
        session: "volk-marks-open".into(),
    };
    reopened.start(150, 44, &open("open"));
    reopened.wait_for("your review", Duration::from_secs(30));
    marked(&reopened, "after volk open");
    reopened.keys(&["q"]);
    reopened.wait_for("VOLK-open-EXITED-0", Duration::from_secs(15));
    assert_eq!(server.hits(), 2, "reading the diff sends nothing");
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
    design_command_with(dir, home, scope, ws, url, editor, 0)
}

/// [`design_command`] allowing `lint_repairs` repair passes of the design compiler.
fn design_command_with(
    dir: &Path,
    home: &Path,
    scope: &Path,
    ws: &Path,
    url: &str,
    editor: Option<&Path>,
    lint_repairs: u32,
) -> String {
    let editor = editor.map_or(String::new(), |e| format!("EDITOR={} ", e.display()));
    format!(
        "env -u VISUAL HOME={home} XDG_CONFIG_HOME={home}/.config GIT_CONFIG_NOSYSTEM=1 {editor}\
         OPENAI_API_KEY=sk-tmux-test VOLK_CONFIG_DIR={config} VOLK_LOG={log} \
         {volk} design {scope} --workspace {ws} --lint-repairs {lint_repairs} --reasoner openai --model scripted --base-url {url}; \
         echo VOLK-EXITED-$?; sleep 30",
        home = home.display(),
        config = dir.join("config").display(),
        log = dir.join("volk.log").display(),
        volk = env!("CARGO_BIN_EXE_volk"),
        scope = scope.display(),
        ws = ws.display(),
    )
}

/// A workbench in tmux designing against `provider`, with `lint_repairs` passes of
/// the design compiler allowed.
fn retry_session(dir: &Path, provider: &Server, lint_repairs: u32) -> Tmux {
    let (ws, home) = (dir.join("ws"), dir.join("home"));
    std::fs::create_dir_all(&home).unwrap();
    let scope = dir.join("tasks.md");
    std::fs::write(&scope, "# A task CLI\n1. Add tasks\n2. List tasks\n").unwrap();
    let tmux = Tmux {
        socket: dir.join("tmux.sock"),
        session: "volk-retry".into(),
    };
    let url = provider.v1();
    tmux.start(
        150,
        44,
        &design_command_with(dir, &home, &scope, &ws, &url, None, lint_repairs),
    );
    tmux
}

/// Cycle 1 under review: one question, sent.
fn ask(tmux: &Tmux) {
    tmux.wait_for("your review", Duration::from_secs(60));
    tmux.keys(&["a"]);
    tmux.wait_for("New question", Duration::from_secs(15));
    tmux.literal("When is a task due?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Your questions (1)", Duration::from_secs(15));
    tmux.keys(&["C-s"]);
}

/// The failure popup is up and its words say `r {says}`; `r` then sends exactly one
/// request, and, when `failed` names the request that failed, with its very body.
/// Returns the number of requests after the retry.
fn r_sends(tmux: &Tmux, provider: &Server, says: &str, failed: Option<usize>) -> usize {
    let words = |screen: &str| {
        screen
            .split(|c: char| c.is_whitespace() || c == '│')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let wanted = format!("r {says}.");
    let start = std::time::Instant::now();
    loop {
        let popup = tmux.wait_for("r: retry", Duration::from_secs(60));
        if words(&popup).contains(&wanted) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the failure names the call r sends ({wanted}): {popup}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let before = provider.hits();
    tmux.keys(&["r"]);
    let start = std::time::Instant::now();
    while provider.requests().len() == before && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // Whatever the answer leads to, the retry itself is one request.
    std::thread::sleep(Duration::from_millis(200));
    let requests = provider.requests();
    assert!(requests.len() > before, "r sent nothing");
    if let Some(failed) = failed {
        assert_eq!(
            requests[before].body, requests[failed].body,
            "r sends the failed request's body"
        );
    }
    before + 1
}

fn quit(tmux: &Tmux) {
    tmux.keys(&["q"]);
    std::thread::sleep(Duration::from_millis(300));
    if tmux.screen().contains("Quit?") {
        tmux.keys(&["y"]);
    }
    let end = tmux.wait_for("VOLK-EXITED-", Duration::from_secs(20));
    assert!(end.contains("VOLK-EXITED-0"), "{end}");
}

const OUTAGE: &str = r#"{"error":{"message":"scripted outage"}}"#;

/// The whole update fails: `r` sends the update again, byte for byte.
#[test]
fn r_after_a_failed_update_sends_the_update_again() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    use support::provider::{openai_stream, status};
    let first = design("add(name: str) -> int", "");
    let provider = Server::start(std::sync::Arc::new(move |n, _| match n {
        0 => openai_stream(&first, 400),
        1 => status(400, OUTAGE),
        _ => openai_stream("CHANGES:\n- Q1.1 none: on the day it is given\n", 400),
    }));
    let dir = tempfile::tempdir().unwrap();
    let tmux = retry_session(dir.path(), &provider, 0);
    ask(&tmux);
    let after = r_sends(&tmux, &provider, "sends the update again", Some(1));
    tmux.wait_for("cycle 2/", Duration::from_secs(30));
    tmux.wait_for("your review", Duration::from_secs(30));
    assert_eq!((after, provider.hits()), (3, 3), "one retry, nothing else");
    quit(&tmux);
}

/// Blocks miss, their repair misses too, and the request for whole sections fails:
/// `r` sends that request again, not the update or the block repair.
#[test]
fn r_after_a_failed_request_for_whole_sections_sends_it_again() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    use support::provider::{openai_stream, status};
    let first = design("add(name: str) -> int", "");
    let miss = |what: &str| {
        format!(
            "API_SPEC:\n<<<<<<< SEARCH\n{what}\n=======\nlist() -> list\n>>>>>>> REPLACE\nCHANGES:\n- Q1.1 api_spec: added list()\n"
        )
    };
    let (update, repair) = (miss("not in the spec"), miss("still not in the spec"));
    let provider = Server::start(std::sync::Arc::new(move |n, _| match n {
        0 => openai_stream(&first, 400),
        1 => openai_stream(&update, 400),
        2 => openai_stream(&repair, 400),
        3 => status(400, OUTAGE),
        _ => openai_stream("API_SPEC:\nadd(name: str) -> int\nlist() -> list\n", 400),
    }));
    let dir = tempfile::tempdir().unwrap();
    let tmux = retry_session(dir.path(), &provider, 0);
    ask(&tmux);
    let after = r_sends(
        &tmux,
        &provider,
        "sends the request for whole sections again",
        Some(3),
    );
    assert!(provider.prompts()[3].contains("in full"));
    tmux.wait_for("cycle 2/", Duration::from_secs(30));
    tmux.wait_for("your review", Duration::from_secs(30));
    assert_eq!((after, provider.hits()), (5, 5), "one retry, nothing else");
    let api = std::fs::read_to_string(dir.path().join("ws/a-task-cli/design/api_spec.md")).unwrap();
    assert!(api.contains("list() -> list"), "{api}");
    quit(&tmux);
}

/// The design compiler's repair pass of cycle 1 fails: `r` sends that pass again.
#[test]
fn r_after_a_failed_design_compiler_pass_sends_the_pass_again() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    use support::provider::{openai_stream, status};
    let broken = design("add(name: str) -> int", "")
        .replace("Cli --> Store", "Cli --> Store\n  class Phantom");
    let provider = Server::start(std::sync::Arc::new(move |n, _| match n {
        0 => openai_stream(&broken, 400),
        1 => status(400, OUTAGE),
        _ => openai_stream("CLASS_DIAGRAM:\nclassDiagram\n  Cli --> Store\n", 400),
    }));
    let dir = tempfile::tempdir().unwrap();
    let tmux = retry_session(dir.path(), &provider, 1);
    let after = r_sends(
        &tmux,
        &provider,
        "sends the design compiler's repair pass again",
        Some(1),
    );
    assert!(provider.prompts()[1].contains("Problems the design compiler found"));
    tmux.wait_for("your review", Duration::from_secs(30));
    assert_eq!((after, provider.hits()), (3, 3), "one retry, nothing else");
    quit(&tmux);
}

/// A first design without markers: `r` asks only for a reformat of it; when that
/// reformat fails, `r` sends the reformat again, byte for byte.
#[test]
fn r_after_an_unparseable_first_design_reformats_it() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    use support::provider::{openai_stream, status};
    let first = design("add(name: str) -> int", "");
    let prose = "A CLI over a SQLite store; tasks have names and due dates.";
    let provider = Server::start(std::sync::Arc::new(move |n, _| match n {
        0 => openai_stream(prose, 400),
        1 => status(400, OUTAGE),
        _ => openai_stream(&first, 400),
    }));
    let dir = tempfile::tempdir().unwrap();
    let tmux = retry_session(dir.path(), &provider, 0);
    let after = r_sends(
        &tmux,
        &provider,
        "asks the model only to put it under the markers",
        None,
    );
    assert_eq!(after, 2);
    let reformat = &provider.prompts()[1];
    assert!(reformat.contains(prose), "{reformat}");
    assert_ne!(provider.requests()[1].body, provider.requests()[0].body);
    let after = r_sends(
        &tmux,
        &provider,
        "sends the reformat request again",
        Some(1),
    );
    tmux.wait_for("your review", Duration::from_secs(30));
    assert_eq!(
        (after, provider.hits()),
        (3, 3),
        "one request per r, nothing else"
    );
    quit(&tmux);
}
