//! Execution plans end to end: the fixture corpus through the real binary, the
//! compiler's rules as properties over generated plans, and the offline drafter's plan.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use proptest::prelude::*;
use serde_json::{Value, json};
use volk::plan::{Code, KindRegistry, compile, draw, extract_json, render_human};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plans")
}

fn volk(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn check_json(path: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["plan", "check", path.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let out = volk(&args);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: stdout is not JSON ({e}): {}",
            path.display(),
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (out.status.code().unwrap(), report)
}

#[test]
fn valid_corpus_compiles_clean() {
    let files = json_files(&fixtures().join("valid"));
    assert!(files.len() >= 3);
    for path in files {
        let args_file = path.with_extension("args");
        let extra = std::fs::read_to_string(&args_file).unwrap_or_default();
        let extra: Vec<&str> = extra.split_whitespace().collect();
        let (code, report) = check_json(&path, &extra);
        assert_eq!(report["diagnostics"], json!([]), "{}", path.display());
        assert_eq!(code, 0, "{}", path.display());
        assert_eq!(report["ok"], true);
    }
}

/// The text of `source` at 1-based `line` and character `column`.
fn text_at(source: &str, line: usize, column: usize) -> &str {
    let line_text = source.split('\n').nth(line - 1).unwrap_or("");
    let offset = line_text
        .char_indices()
        .nth(column - 1)
        .map_or(line_text.len(), |(i, _)| i);
    &line_text[offset..]
}

#[test]
fn invalid_corpus_reports_each_rule_where_it_is_broken() {
    let mut covered = BTreeSet::new();
    let files = json_files(&fixtures().join("invalid"));
    for path in &files {
        let source = std::fs::read_to_string(path).unwrap();
        let expect = std::fs::read_to_string(path.with_extension("expect"))
            .unwrap_or_else(|_| panic!("{} has no .expect file", path.display()));
        let mut expected = Vec::new();
        for line in expect.lines().filter(|l| !l.trim().is_empty()) {
            let mut parts = line.splitn(3, ' ');
            let (code, place, snippet) = (
                parts.next().unwrap(),
                parts.next().unwrap(),
                parts.next().unwrap(),
            );
            let (l, c) = place.split_once(':').unwrap();
            let (l, c): (usize, usize) = (l.parse().unwrap(), c.parse().unwrap());
            // The expectation itself is checked against the file, independently of volk.
            assert!(
                text_at(&source, l, c).starts_with(snippet),
                "{}: {line} does not point at {snippet:?}",
                path.display()
            );
            expected.push((code.to_string(), l as u64, c as u64));
        }
        let (status, report) = check_json(path, &[]);
        let mut got: Vec<(String, u64, u64)> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap().to_string(),
                    d["line"].as_u64().unwrap(),
                    d["column"].as_u64().unwrap(),
                )
            })
            .collect();
        got.sort();
        expected.sort();
        assert_eq!(got, expected, "{}", path.display());
        let has_error = report["errors"].as_u64().unwrap() > 0;
        assert_eq!(status, if has_error { 1 } else { 0 }, "{}", path.display());
        for d in report["diagnostics"].as_array().unwrap() {
            for key in ["severity", "code", "message", "path", "line", "column"] {
                assert!(d.get(key).is_some(), "{key} missing in {d}");
            }
        }
        covered.extend(expected.into_iter().map(|(code, _, _)| code));
    }
    let missing: Vec<&str> = Code::ALL
        .iter()
        .map(|c| c.id())
        .filter(|id| !covered.contains(*id))
        .collect();
    assert!(missing.is_empty(), "no invalid fixture for {missing:?}");
}

#[test]
fn human_output_shows_the_offending_source_line() {
    let path = fixtures().join("invalid/p015_needs_later.json");
    let out = volk(&["plan", "check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("error[P015]: stage `implement_storage` needs `cli_files`"),
        "{text}"
    );
    assert!(text.contains(&format!("{}:12:9", path.display())), "{text}");
    assert!(text.contains("12 │         \"cli_files\""), "{text}");
    assert!(text.contains("^^^^^^^^^^^"), "{text}");
    assert!(text.contains("produced here"), "{text}");
    assert!(text.contains("= at /stages/0/needs/1"), "{text}");
    assert!(!text.contains('\u{1b}'), "colour despite NO_COLOR");
    assert!(text.trim_end().ends_with(": 1 error, 0 warnings"), "{text}");

    let coloured = volk(&["plan", "check", path.to_str().unwrap(), "--color", "always"]);
    assert!(
        String::from_utf8(coloured.stdout)
            .unwrap()
            .contains('\u{1b}')
    );
}

#[test]
fn clean_plan_with_warnings_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plan.json");
    let mut plan: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("valid/chain.json")).unwrap(),
    )
    .unwrap();
    plan["stages"][1]["notes"] = json!("not part of the schema");
    std::fs::write(&path, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let out = volk(&["plan", "check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("warning[P004]"), "{text}");
    assert!(
        text.trim_end()
            .ends_with("plan.json: ok, 2 stages, 2 edges, 1 warning"),
        "{text}"
    );
}

fn assert_bad_input(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("volk: ") && stderr.contains(needle),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn unreadable_input_exits_two_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    assert_bad_input(
        &volk(&["plan", "check", missing.to_str().unwrap()]),
        "missing.json: cannot read",
    );

    let binary = dir.path().join("binary.json");
    std::fs::write(&binary, b"{\"goal\": \"\xff\"}").unwrap();
    assert_bad_input(
        &volk(&["plan", "check", binary.to_str().unwrap()]),
        "binary.json: not UTF-8",
    );

    let kinds = dir.path().join("kinds.json");
    std::fs::write(&kinds, r#"{"report": {"fields": {"score": "float"}}}"#).unwrap();
    let plan = fixtures().join("valid/chain.json");
    assert_bad_input(
        &volk(&[
            "plan",
            "check",
            plan.to_str().unwrap(),
            "--kinds",
            kinds.to_str().unwrap(),
        ]),
        "kinds.json: kind `report`, field `score`: unknown type `float`",
    );
    assert_bad_input(
        &volk(&[
            "plan",
            "show",
            plan.to_str().unwrap(),
            "--given",
            "design-docs",
        ]),
        "--given: `design-docs` is not a snake_case",
    );
}

#[test]
fn kinds_file_and_given_ids_extend_the_language() {
    let dir = tempfile::tempdir().unwrap();
    let plan = json!({
        "goal": "Measure the parser's speed.",
        "stages": [{
            "id": "benchmark_parser", "role": "tester", "prompt": "Run the parser benchmark.",
            "produces": "parser_benchmark", "kind": "benchmark_report", "needs": ["parser_files"]
        }],
        "edges": [
            {"from": "benchmark_parser", "to": "done", "condition": {"type": "artifact_field_equals",
             "artifact_id": "parser_benchmark", "field": "fast_enough", "value": true}},
            {"from": "benchmark_parser", "to": "benchmark_parser", "condition": {"type": "artifact_field_equals",
             "artifact_id": "parser_benchmark", "field": "fast_enough", "value": true, "operator": "neq"}}
        ]
    });
    let path = dir.path().join("plan.json");
    std::fs::write(&path, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let kinds = dir.path().join("kinds.json");
    std::fs::write(
        &kinds,
        r#"{"benchmark_report": {"fields": {"fast_enough": "boolean"}}}"#,
    )
    .unwrap();

    let (code, report) = check_json(&path, &[]);
    assert_eq!(code, 1);
    let codes: BTreeSet<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains("P014") && codes.contains("P016"),
        "{codes:?}"
    );

    let (_, report) = check_json(
        &path,
        &[
            "--kinds",
            kinds.to_str().unwrap(),
            "--given",
            "parser_files",
        ],
    );
    let codes: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    // Only the self-loop remains: a `neq` edge must go to an earlier stage.
    assert_eq!(codes, ["P024"]);
}

#[test]
fn plan_reads_standard_input() {
    let source = std::fs::read(fixtures().join("valid/chain.json")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(["plan", "check", "-", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&source).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["file"], "<stdin>");
    assert_eq!(report["ok"], true);
}

#[test]
fn show_draws_the_stage_graph() {
    let path = fixtures().join("valid/review_loop.json");
    let out = volk(&["plan", "show", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let order: Vec<usize> = [
        "1 · implement_storage",
        "2 · implement_cli",
        "3 · review_implementation",
    ]
    .iter()
    .map(|s| {
        text.find(s)
            .unwrap_or_else(|| panic!("{s} missing:\n{text}"))
    })
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert!(text.contains("│ storage_files validated\n    ▼"), "{text}");
    assert!(text.contains("├─ verdict = approved ─▶ done"), "{text}");
    assert!(
        text.contains("└─ verdict ≠ approved ─↺ back to 1 · implement_storage"),
        "{text}"
    );
    assert!(out.stderr.is_empty());

    let broken = fixtures().join("invalid/p033_early_done.json");
    let out = volk(&["plan", "show", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let drawn = String::from_utf8(out.stdout).unwrap();
    assert!(
        drawn.contains("└─ storage_files validated ─▶ done"),
        "{drawn}"
    );
    assert!(
        drawn.contains("(nothing leads to the next stage)"),
        "{drawn}"
    );
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("error[P033]")
    );
}

#[test]
fn offline_drafter_plan_compiles_clean() {
    use volk::brief::{Brief, Purpose};
    use volk::reasoner::offline::draft;
    let mut brief = Brief {
        task_summary: "Build a task management CLI with SQLite storage".into(),
        project_name: "taskman".into(),
        requirements: "1. Add tasks with name and due date\n2. List all tasks\n3. Mark tasks complete\n4. Delete tasks".into(),
        cycle: 1,
        ..Brief::default()
    };
    let design = volk::design::parser::parse(&draft(Purpose::Design, &brief));
    assert!(design.file_tree.contains(".py"));
    brief.current = Some(design);
    let reply = draft(Purpose::Plan, &brief);
    let source = extract_json(&reply).expect("a JSON object in the drafted plan");
    let compiled = compile(source, &KindRegistry::builtin(), &[]);
    assert!(
        compiled.diagnostics.is_empty(),
        "{}",
        render_human("offline plan", source, &compiled.diagnostics)
    );
    let plan = compiled.valid_plan().unwrap();
    assert!(plan.stages.len() >= 4, "{plan:?}");
    assert!(
        draw(plan)
            .iter()
            .any(|l| l.contains("↺ back to 1 · implement_"))
    );

    // Without a design the drafter still emits a valid one-module plan.
    brief.current = None;
    let reply = draft(Purpose::Plan, &brief);
    let compiled = compile(extract_json(&reply).unwrap(), &KindRegistry::builtin(), &[]);
    assert!(
        compiled.diagnostics.is_empty(),
        "{:?}",
        compiled.diagnostics
    );
}

#[test]
fn plan_in_a_chatty_reply_is_found_and_compiled() {
    let plan = std::fs::read_to_string(fixtures().join("valid/chain.json")).unwrap();
    let reply = format!(
        "Here is the execution plan you asked for.\n\n```json\n{plan}```\n\nIt has two stages."
    );
    let compiled = compile(extract_json(&reply).unwrap(), &KindRegistry::builtin(), &[]);
    assert!(!compiled.has_errors());
    assert_eq!(compiled.valid_plan().unwrap().stages.len(), 2);
}

// ---------------------------------------------------------------------------
// Properties: generated valid plans compile clean, and each single mutation of a
// rule is reported with that rule's code.

/// One generated stage: a file-writing or read-only worker, or a reviewer that
/// loops back to an earlier stage.
#[derive(Debug, Clone)]
enum Unit {
    Work { writes: bool, tools: u8 },
    Review { back: u8 },
}

fn unit() -> impl Strategy<Value = Unit> {
    prop_oneof![
        3 => (any::<bool>(), any::<u8>()).prop_map(|(writes, tools)| Unit::Work { writes, tools }),
        1 => any::<u8>().prop_map(|back| Unit::Review { back }),
    ]
}

const TOOLS: [&str; 4] = ["file_read", "file_write", "file_edit", "ShellTool"];
const READ_ONLY_KINDS: [&str; 3] = ["process_result", "design_docs", "execution_plan"];

fn build(units: &[Unit], needs_seed: u64) -> Value {
    let mut stages = Vec::new();
    let mut edges = Vec::new();
    let n = units.len();
    let mut seed = needs_seed;
    for (i, u) in units.iter().enumerate() {
        let id = format!("stage_{i}");
        let produces = format!("artifact_{i}");
        let mut needs = vec![json!("analysis")];
        for j in 0..i {
            seed = seed.rotate_left(7) ^ 0x9e37_79b9_7f4a_7c15;
            if seed.is_multiple_of(3) {
                needs.push(json!(format!("artifact_{j}")));
            }
        }
        let next = if i + 1 == n {
            "done".to_string()
        } else {
            format!("stage_{}", i + 1)
        };
        let mut stage = json!({
            "id": id, "role": "worker", "prompt": format!("Do step {i}."),
            "produces": produces, "needs": needs,
        });
        match u {
            Unit::Work {
                writes: true,
                tools,
            } => {
                stage["kind"] = json!("file_written");
                let chosen: Vec<&str> = TOOLS
                    .iter()
                    .enumerate()
                    .filter(|(b, _)| tools >> b & 1 == 1)
                    .map(|(_, t)| *t)
                    .collect();
                if !chosen.is_empty() {
                    stage["tools"] = json!(chosen);
                }
            }
            Unit::Work {
                writes: false,
                tools,
            } => {
                stage["kind"] = json!(READ_ONLY_KINDS[*tools as usize % 3]);
            }
            Unit::Review { .. } => stage["kind"] = json!("review_report"),
        }
        match u {
            Unit::Review { back } if i > 0 => {
                let verdict = |op: &str, to: &str| {
                    json!({"from": format!("stage_{i}"), "to": to, "condition": {"type": "artifact_field_equals",
                        "artifact_id": format!("artifact_{i}"), "field": "verdict", "value": "approved", "operator": op}})
                };
                edges.push(verdict("eq", &next));
                edges.push(verdict("neq", &format!("stage_{}", *back as usize % i)));
            }
            _ => edges.push(json!({"from": format!("stage_{i}"), "to": next,
                "condition": {"type": "artifact_validated", "artifact_id": format!("artifact_{i}")}})),
        }
        stages.push(stage);
    }
    json!({"goal": "Carry out the generated plan.", "stages": stages, "edges": edges})
}

fn compile_codes(text: &str) -> BTreeSet<Code> {
    compile(text, &KindRegistry::builtin(), &[])
        .diagnostics
        .iter()
        .map(|d| d.code)
        .collect()
}

fn stages(v: &mut Value) -> &mut Vec<Value> {
    v["stages"].as_array_mut().unwrap()
}

fn edges(v: &mut Value) -> &mut Vec<Value> {
    v["edges"].as_array_mut().unwrap()
}

fn rename_stage(v: &mut Value, old: &str, new: &str) {
    for s in stages(v) {
        if s["id"] == old {
            s["id"] = json!(new);
        }
    }
    for e in edges(v) {
        for end in ["from", "to"] {
            if e[end] == old {
                e[end] = json!(new);
            }
        }
    }
}

fn rename_artifact(v: &mut Value, old: &str, new: &str) {
    for s in stages(v) {
        if s["produces"] == old {
            s["produces"] = json!(new);
        }
        for need in s["needs"].as_array_mut().unwrap() {
            if need == old {
                *need = json!(new);
            }
        }
    }
    for e in edges(v) {
        if e["condition"]["artifact_id"] == old {
            e["condition"]["artifact_id"] = json!(new);
        }
    }
}

fn find_edge(v: &Value, pred: impl Fn(&Value) -> bool) -> Option<usize> {
    v["edges"].as_array().unwrap().iter().position(pred)
}

fn is_op(e: &Value, op: &str) -> bool {
    e["condition"]["operator"] == op
}

/// Breaks exactly one rule of a valid generated plan; `None` when this plan has
/// nothing the mutation applies to. Returns the new source text.
fn mutate(code: Code, plan: &Value) -> Option<String> {
    let mut v = plan.clone();
    let n = v["stages"].as_array().unwrap().len();
    let id = |i: usize| format!("stage_{i}");
    match code {
        Code::JsonSyntax => {
            let text = v.to_string();
            return Some(text[..text.len() - 1].to_string());
        }
        Code::DuplicateKey => {
            return Some(
                v.to_string()
                    .replacen("\"goal\":", "\"goal\":\"x\",\"goal\":", 1),
            );
        }
        Code::MissingField => {
            stages(&mut v)[n - 1]
                .as_object_mut()
                .unwrap()
                .remove("kind");
        }
        Code::WrongType => stages(&mut v)[0]["needs"] = json!("analysis"),
        Code::UnknownField => stages(&mut v)[0]["colour"] = json!("blue"),
        Code::EmptyGoal => v["goal"] = json!(""),
        Code::NoStages => {
            v["stages"] = json!([]);
            v["edges"] = json!([]);
        }
        Code::UnknownName => edges(&mut v)[0]["condition"]["type"] = json!("artifact_ready"),
        Code::GoalNotOneSentence => v["goal"] = json!("Do it. Then stop."),
        Code::StageIdNotSnakeCase => rename_stage(&mut v, &id(n - 1), "Stage-Last"),
        Code::DuplicateStageId if n >= 2 => stages(&mut v)[1]["id"] = json!(id(0)),
        Code::ProducesNotSnakeCase => rename_artifact(&mut v, "artifact_0", "Artifact-0"),
        Code::DuplicateProduces if n >= 2 => stages(&mut v)[1]["produces"] = json!("artifact_0"),
        Code::UnknownKind => stages(&mut v)[0]["kind"] = json!("mystery_kind"),
        Code::NeedsLaterArtifact if n >= 2 => {
            stages(&mut v)[0]["needs"]
                .as_array_mut()
                .unwrap()
                .push(json!(format!("artifact_{}", n - 1)));
        }
        Code::UnknownArtifact => stages(&mut v)[0]["needs"]
            .as_array_mut()
            .unwrap()
            .push(json!("ghost_artifact")),
        Code::ToolsOnReadOnlyStage => {
            let s = stages(&mut v)
                .iter_mut()
                .find(|s| s["kind"] != "file_written")?;
            s["tools"] = json!(["file_read"]);
        }
        Code::UnknownTool => {
            let s = stages(&mut v)
                .iter_mut()
                .find(|s| s["kind"] == "file_written")?;
            s["tools"] = json!(["file_read", "Bash"]);
        }
        Code::EmptyText => stages(&mut v)[0]["prompt"] = json!(" "),
        Code::UnknownEndpoint => edges(&mut v)[0]["to"] = json!("nowhere_stage"),
        Code::ForeignArtifact if n >= 2 => {
            let e = find_edge(&v, |e| e["condition"]["type"] == "artifact_validated")?;
            let own = v["edges"][e]["condition"]["artifact_id"].clone();
            let other = if own == "artifact_0" {
                "artifact_1"
            } else {
                "artifact_0"
            };
            edges(&mut v)[e]["condition"]["artifact_id"] = json!(other);
        }
        Code::UndeclaredField => {
            let e = find_edge(&v, |e| is_op(e, "eq"))?;
            edges(&mut v)[e]["condition"]["field"] = json!("mystery_field");
        }
        Code::ValueNotAllowed => {
            let e = find_edge(&v, |e| is_op(e, "eq"))?;
            edges(&mut v)[e]["condition"]["value"] = json!("aproved");
        }
        Code::LoopNotBackward => {
            let e = find_edge(&v, |e| is_op(e, "neq"))?;
            edges(&mut v)[e]["to"] = json!("done");
        }
        Code::ApprovalGoesBack => {
            let neq = find_edge(&v, |e| is_op(e, "neq"))?;
            let back = v["edges"][neq]["to"].clone();
            edges(&mut v)[neq - 1]["to"] = back;
        }
        Code::HalfLoop => {
            let e = find_edge(&v, |e| is_op(e, "neq"))?;
            edges(&mut v).remove(e);
        }
        Code::AmbiguousEdges => {
            let mut twin = v["edges"][0].clone();
            twin["to"] = if twin["to"] == "done" {
                json!(id(0))
            } else {
                json!("done")
            };
            edges(&mut v).push(twin);
        }
        Code::EdgeFromDone => edges(&mut v).push(json!({"from": "done", "to": id(0),
            "condition": {"type": "artifact_validated", "artifact_id": "artifact_0"}})),
        Code::NoInbound if n >= 2 => {
            let e = find_edge(&v, |e| e["to"] == id(1))?;
            edges(&mut v).remove(e);
        }
        Code::NoOutbound => {
            let last = id(n - 1);
            edges(&mut v).retain(|e| e["from"] != last.as_str());
        }
        Code::Unreachable if n >= 2 => {
            // Two stages after the first: the first is never entered, the second is
            // entered only from it.
            let extra = |name: &str| {
                json!({"id": name, "role": "worker", "prompt": "Extra step.",
                "produces": format!("{name}_out"), "kind": "design_docs"})
            };
            stages(&mut v).splice(1..1, [extra("orphan_a"), extra("orphan_b")]);
            edges(&mut v).push(json!({"from": "orphan_a", "to": "orphan_b",
                "condition": {"type": "artifact_validated", "artifact_id": "orphan_a_out"}}));
            edges(&mut v).push(json!({"from": "orphan_b", "to": id(1),
                "condition": {"type": "artifact_validated", "artifact_id": "orphan_b_out"}}));
        }
        Code::EarlyDone if n >= 2 => {
            let e = find_edge(&v, |e| e["from"] == id(0) && e["to"] == id(1))?;
            edges(&mut v)[e]["to"] = json!("done");
        }
        Code::NeverFinishes => {
            for e in edges(&mut v) {
                if e["to"] == "done" {
                    e["to"] = json!(id(0));
                }
            }
        }
        _ => return None,
    }
    Some(serde_json::to_string_pretty(&v).unwrap())
}

fn assert_mutations(plan: &Value) -> BTreeSet<Code> {
    let mut applied = BTreeSet::new();
    for &code in Code::ALL {
        if let Some(text) = mutate(code, plan) {
            let codes = compile_codes(&text);
            assert!(
                codes.contains(&code),
                "mutation for {code} gave {codes:?}\n{text}"
            );
            applied.insert(code);
        }
    }
    applied
}

#[test]
fn every_rule_has_a_mutation_that_trips_it() {
    let units = [
        Unit::Work {
            writes: true,
            tools: 0b1111,
        },
        Unit::Work {
            writes: false,
            tools: 0,
        },
        Unit::Review { back: 0 },
        Unit::Work {
            writes: true,
            tools: 0b0011,
        },
        Unit::Review { back: 3 },
    ];
    let plan = build(&units, 42);
    assert!(compile_codes(&plan.to_string()).is_empty());
    let applied = assert_mutations(&plan);
    let missing: Vec<&Code> = Code::ALL.iter().filter(|c| !applied.contains(c)).collect();
    assert!(missing.is_empty(), "no mutation for {missing:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn generated_plans_compile_clean_and_mutations_are_caught(
        units in prop::collection::vec(unit(), 1..10),
        seed in any::<u64>(),
        pretty in any::<bool>(),
    ) {
        let plan = build(&units, seed);
        let text = if pretty { serde_json::to_string_pretty(&plan).unwrap() } else { plan.to_string() };
        let compiled = compile(&text, &KindRegistry::builtin(), &[]);
        prop_assert!(compiled.diagnostics.is_empty(), "{}", render_human("generated", &text, &compiled.diagnostics));
        let read = compiled.valid_plan().unwrap();
        prop_assert_eq!(serde_json::to_value(read).unwrap()["stages"].as_array().unwrap().len(), units.len());
        assert_mutations(&plan);
    }
}

#[test]
fn plan_docs_list_every_code() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/plans.md"))
            .unwrap();
    let start = readme.find("<!-- section:plans -->").unwrap();
    let end = readme.find("<!-- /section:plans -->").unwrap();
    let section = &readme[start..end];
    for code in Code::ALL {
        assert!(
            section.contains(&format!("| {} |", code.id())),
            "docs/plans.md misses {code}"
        );
    }
}

#[test]
fn offline_plan_keeps_stage_ids_unique_across_directories() {
    use volk::brief::{Brief, Purpose};
    use volk::reasoner::offline::draft;
    let brief = Brief {
        task_summary: "Admin and public API".into(),
        current: Some(volk::design::Artifacts {
            file_tree: "```\napi/\n  models.py\n  views.py\nadmin/\n  models.py\n  views.py\ntests/\n  test_models.py\n```".into(),
            ..Default::default()
        }),
        ..Brief::default()
    };
    let reply = draft(Purpose::Plan, &brief);
    let compiled = compile(extract_json(&reply).unwrap(), &KindRegistry::builtin(), &[]);
    assert!(
        compiled.diagnostics.is_empty(),
        "{:?}",
        compiled.diagnostics
    );
    let ids: Vec<String> = compiled
        .plan
        .unwrap()
        .stages
        .iter()
        .map(|s| s.id.clone())
        .collect();
    assert_eq!(
        ids,
        [
            "implement_models",
            "implement_views",
            "review_implementation"
        ]
    );
}
