//! The design compiler end to end: the fixture corpus through the real `volk lint`
//! and `volk trace`, and the rules as properties over generated designs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use proptest::prelude::*;
use serde_json::Value;
use volk::design::lint::{Code, lint};
use volk::design::model::mermaid;
use volk::design::{Artifacts, Section};

use crate::support;
use support::provider::Provider;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/designs")
}

fn volk_in(dir: Option<&Path>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_volk"));
    cmd.args(args).env("NO_COLOR", "1");
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    cmd.output().unwrap()
}

fn volk(args: &[&str]) -> Output {
    volk_in(None, args)
}

fn lint_json(dir: &Path) -> (i32, Value) {
    let out = volk(&["lint", dir.to_str().unwrap(), "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: not JSON ({e}): {}{}",
            dir.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap(), report)
}

fn codes(diags: &Value) -> Vec<String> {
    diags
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn clean_and_loose_designs_compile_without_findings() {
    for name in ["clean", "loose"] {
        let (status, report) = lint_json(&fixtures().join(name));
        assert_eq!(
            codes(&report["diagnostics"]),
            Vec::<String>::new(),
            "{name}"
        );
        assert_eq!(report["ok"], true);
        assert_eq!(report["errors"], 0);
        assert_eq!(report["warnings"], 0);
        assert_eq!(status, 0, "{name}");
    }
}

#[test]
fn each_rule_fixture_triggers_exactly_its_code_at_its_line() {
    let mut seen = BTreeSet::new();
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(expect) = std::fs::read_to_string(dir.join("expect.json")) else {
            continue;
        };
        let expect: Value = serde_json::from_str(&expect).unwrap();
        let (status, report) = lint_json(&dir);
        let diags = report["diagnostics"].as_array().unwrap();
        assert_eq!(diags.len(), 1, "{}: {diags:#?}", dir.display());
        let d = &diags[0];
        let code = Code::from_id(expect["code"].as_str().unwrap()).unwrap();
        assert_eq!(d["code"], expect["code"], "{}", dir.display());
        assert_eq!(d["artifact"], expect["artifact"], "{}", dir.display());
        assert_eq!(d["line"], expect["line"], "{}", dir.display());
        assert!(d["column"].as_u64().unwrap() >= 1);
        let file = format!("design/{}.md", expect["artifact"].as_str().unwrap());
        assert!(d["file"].as_str().unwrap().ends_with(&file), "{d}");
        let keys: BTreeSet<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            BTreeSet::from([
                "severity", "code", "message", "artifact", "file", "line", "column"
            ])
        );
        let error = code.severity() == volk::plan::Severity::Error;
        assert_eq!(d["severity"], if error { "error" } else { "warning" });
        assert_eq!(report["ok"], !error);
        assert_eq!(status, if error { 1 } else { 0 }, "{}", dir.display());
        seen.insert(code);
    }
    let all: BTreeSet<Code> = Code::ALL.iter().copied().collect();
    assert_eq!(seen, all, "one fixture per rule");
}

#[test]
fn human_output_draws_the_snippet_like_plan_check() {
    let out = volk(&["lint", fixtures().join("d011").to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("error[D011]: API spec cites FR-09"), "{text}");
    assert!(text.contains("d011/design/api_spec.md:10:"), "{text}");
    assert!(text.contains("^^^^^ rule: cited requirement ids"), "{text}");
    assert!(text.trim_end().ends_with("1 error, 0 warnings"), "{text}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn the_project_is_found_from_the_current_directory_or_a_design_dir() {
    let project = fixtures().join("d040");
    let out = volk_in(Some(&project), &["lint", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(codes(&report["diagnostics"]), ["D040"]);
    assert_eq!(report["diagnostics"][0]["file"], "design/architecture.md");
    let nested = project.join("design");
    let (status, report) = lint_json(&nested);
    assert_eq!((status, report["warnings"].as_u64()), (0, Some(1)));
}

#[test]
fn nothing_readable_is_status_2_with_one_line() {
    let empty = tempfile::tempdir().unwrap();
    for dir in [empty.path().to_path_buf(), empty.path().join("missing")] {
        let out = volk(&["lint", dir.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(dir.to_str().unwrap()), "{err}");
    }
    let out = volk(&["trace", "FR-01", empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn trace_lists_every_place_an_id_or_name_appears() {
    let clean = fixtures().join("clean");
    let out = volk(&["trace", "FR-1", clean.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["kind"], "requirement");
    let places: Vec<(String, u64)> = t["occurrences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["artifact"].as_str().unwrap().to_string(),
                o["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        places,
        [
            ("architecture".to_string(), 5),
            ("architecture".to_string(), 6),
            ("requirements".to_string(), 2),
            ("api_spec".to_string(), 2),
            ("api_spec".to_string(), 9)
        ]
    );
    assert_eq!(
        t["occurrences"][2]["text"],
        "1. FR-01: Add a task with a title."
    );

    let out = volk(&["trace", "taskman.storage", clean.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("design/file_tree.md:5:"), "{text}");
    assert!(text.contains("design/api_spec.md:4:"), "{text}");
    assert!(text.contains("[architecture]"), "{text}");

    let out = volk(&[
        "trace",
        "TaskStore",
        clean.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["kind"], "class");
    let arts: BTreeSet<&str> = t["occurrences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["artifact"].as_str().unwrap())
        .collect();
    assert_eq!(
        arts,
        BTreeSet::from(["architecture", "api_spec", "class_diagram"])
    );

    let out = volk(&["trace", "ADR-9", clean.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
}

/// A consistent design: modules with classes and methods, each requirement served by
/// one method, each ADR cited, a test per module, every class drawn.
#[derive(Debug, Clone)]
struct Shape {
    /// Per module: per class: method count.
    modules: Vec<Vec<usize>>,
    decisions: usize,
    questions: usize,
    fenced: bool,
}

fn shape() -> impl Strategy<Value = Shape> {
    (
        prop::collection::vec(prop::collection::vec(1usize..4, 1..4), 1..5),
        1usize..4,
        0usize..3,
        any::<bool>(),
    )
        .prop_map(|(modules, decisions, questions, fenced)| Shape {
            modules,
            decisions,
            questions,
            fenced,
        })
}

fn render(s: &Shape) -> Artifacts {
    let mut a = Artifacts::default();
    let mut req = 0;
    let _ = writeln!(a.architecture, "# demo\n\n## Components\n");
    let _ = writeln!(a.requirements, "FUNCTIONAL:");
    let _ = writeln!(a.file_tree, "src/\n  demo/");
    let mut tests = String::from("tests/\n");
    let mut diagram = String::from("classDiagram\n");
    for (m, classes) in s.modules.iter().enumerate() {
        let _ = writeln!(a.file_tree, "    mod{m}.py");
        let _ = writeln!(tests, "  test_mod{m}.py");
        let _ = writeln!(a.api_spec, "Module: src/demo/mod{m}.py");
        let _ = writeln!(
            a.architecture,
            "- **Mod{m}** (`demo.mod{m}`): ADR-{:03}.",
            1 + m % s.decisions
        );
        for (c, methods) in classes.iter().enumerate() {
            let _ = writeln!(a.api_spec, "  class C{m}x{c}:");
            let _ = writeln!(diagram, "  class C{m}x{c} {{");
            for k in 0..*methods {
                req += 1;
                let _ = writeln!(a.requirements, "{req}. FR-{req:02}: requirement {req}.");
                let _ = writeln!(a.api_spec, "    op{k}(self) -> int   # FR-{req}");
                let _ = writeln!(diagram, "    +op{k}() int");
            }
            let _ = writeln!(diagram, "  }}");
            if c > 0 {
                let _ = writeln!(diagram, "  C{m}x0 --> C{m}x{c} : uses");
            }
        }
    }
    a.file_tree.push_str(&tests);
    let _ = writeln!(a.architecture, "\n## Decisions\n");
    for d in 1..=s.decisions {
        let _ = writeln!(a.architecture, "- ADR-{d:03}: decision {d}.");
    }
    let _ = writeln!(a.architecture, "\n## Open questions\n");
    for q in 1..=s.questions {
        let _ = writeln!(a.architecture, "{q}. Question {q}? Assumed: yes.");
    }
    a.class_diagram = if s.fenced {
        format!("```mermaid\n{diagram}```\n")
    } else {
        diagram
    };
    a
}

/// One change that breaks exactly one rule, and that rule.
fn mutate(a: &mut Artifacts, s: &Shape, which: usize) -> Code {
    let classes: usize = s.modules.iter().map(Vec::len).sum();
    match which % 13 {
        0 => {
            a.class_diagram = a
                .class_diagram
                .replace("classDiagram\n", "classDiagram\n  A -> B\n");
            Code::DiagramSyntax
        }
        1 => {
            a.file_tree.clear();
            Code::EmptyArtifact
        }
        2 => {
            a.requirements.push_str("99. FR-1: the first again.\n");
            Code::DuplicateRequirement
        }
        3 => {
            a.api_spec.push_str("  extra(self) -> None   # ERR-07\n");
            Code::UnknownRequirement
        }
        4 => {
            a.requirements.push_str("FR-900: nobody serves this.\n");
            Code::UntracedRequirement
        }
        5 => {
            a.api_spec.push_str("  # see ADR-77\n");
            Code::UnknownDecision
        }
        6 => {
            a.api_spec.push_str("Module: demo/elsewhere.py\n");
            Code::ModuleWithoutFile
        }
        7 => {
            a.file_tree = a
                .file_tree
                .replace("tests/\n", "    stray.py\ntests/\n  test_stray.py\n");
            Code::FileWithoutApi
        }
        8 => {
            a.file_tree = a.file_tree.replace("  test_mod0.py\n", "");
            Code::ModuleWithoutTest
        }
        9 => {
            a.class_diagram = a
                .class_diagram
                .replace("classDiagram\n", "classDiagram\n  class Phantom\n");
            Code::ClassNotInApi
        }
        10 => {
            a.api_spec.push_str(&format!("  class Undrawn{classes}:\n"));
            Code::ClassNotInDiagram
        }
        11 => {
            a.class_diagram = a
                .class_diagram
                .replace("    +op0() int\n", "    +op0() int\n    +ghost() int\n");
            Code::DiagramContradictsApi
        }
        _ => {
            a.architecture.push_str("9. What about this?\n");
            Code::UnassumedQuestion
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn consistent_designs_compile_clean(s in shape()) {
        let a = render(&s);
        let linted = lint(&a);
        let notes: Vec<String> = linted.diagnostics.iter().map(|d| d.one_line()).collect();
        prop_assert!(linted.diagnostics.is_empty(), "{:#?}\n{:#?}", notes, a);
    }

    #[test]
    fn each_single_mutation_yields_its_code(s in shape(), which in 0usize..13) {
        let mut a = render(&s);
        let code = mutate(&mut a, &s, which);
        let linted = lint(&a);
        let found: BTreeSet<Code> = linted.diagnostics.iter().map(|d| d.code).collect();
        prop_assert!(found.contains(&code), "{code}: {found:?}");
        if code != Code::EmptyArtifact {
            prop_assert_eq!(found.len(), 1, "{}: {:?}", code, found);
        }
    }

    #[test]
    fn reading_never_panics_on_any_text(texts in prop::collection::vec(".{0,300}", 5)) {
        let a = Artifacts::from(<[String; 5]>::try_from(texts).unwrap());
        let linted = lint(&a);
        for d in &linted.diagnostics {
            prop_assert!(d.line >= 1 && d.column >= 1);
            prop_assert!(d.span.end <= a.get(d.artifact).len());
        }
    }

    #[test]
    fn a_broken_diagram_line_is_reported_on_that_line(s in shape(), at in 0usize..40, junk in "[ -~]{0,12}") {
        let a = render(&Shape { fenced: false, ..s });
        let mut lines: Vec<&str> = a.class_diagram.lines().collect();
        let at = 1 + at % lines.len();
        let body_depth = lines[..at].iter().filter(|l| l.ends_with('{')).count()
            - lines[..at].iter().filter(|l| l.trim() == "}").count();
        prop_assume!(body_depth == 0);
        let bad = format!("  -> {junk}");
        lines.insert(at, &bad);
        let text = lines.join("\n");
        let d = mermaid::parse(&text);
        let e = d.error.expect("an error");
        let line = text[..e.span.start].matches('\n').count();
        prop_assert_eq!(line, at);
    }

    #[test]
    fn generated_diagrams_read_back(s in shape()) {
        let a = render(&s);
        let d = mermaid::parse(&a.class_diagram);
        let classes: usize = s.modules.iter().map(Vec::len).sum();
        prop_assert_eq!(d.classes.len(), classes);
        let members: usize = s.modules.iter().flatten().sum();
        prop_assert_eq!(d.classes.iter().map(|c| c.members.len()).sum::<usize>(), members);
        prop_assert_eq!(d.relations.len(), classes - s.modules.len());
        prop_assert_eq!(d.fenced, s.fenced);
    }
}

#[test]
fn every_section_is_linted() {
    let linted = lint(&Artifacts::default());
    let empty: Vec<Section> = linted.diagnostics.iter().map(|d| d.artifact).collect();
    assert_eq!(empty, Section::ALL);
}

/// The reply text of a design: the fixture's five files under their markers.
fn reply_of(dir: &str) -> String {
    reply_of_design(&fixtures().join(dir))
}

fn reply_of_design(dir: &Path) -> String {
    let design = dir.join("design");
    let mut out = String::new();
    for section in Section::ALL {
        let text = std::fs::read_to_string(design.join(section.file_name())).unwrap();
        let text = text.trim_end();
        // A diagram fenced for GitHub goes bare into the reply; other fences stay.
        let text = match text.strip_prefix("```mermaid\n") {
            Some(inner) => inner.trim_end_matches("```").trim_end(),
            None => text,
        };
        let _ = writeln!(out, "{}:\n{text}\n", section.marker());
    }
    out
}

fn cassette_call(purpose: &str, text: &str) -> String {
    let call = serde_json::json!({"call": {"provider": "p", "model": "m", "purpose": purpose, "cycle": 1,
        "max_tokens": 5, "system": "", "prompt": "p"}});
    let text = serde_json::json!({"t_ms": 0, "event": {"type": "text", "text": text}});
    let end = serde_json::json!({"t_ms": 0, "event": {"type": "finished", "stop_reason": "stop"}});
    format!("{call}\n{text}\n{end}\n")
}

fn run_with_cassette(repairs: Option<&str>) -> (Value, Vec<Value>, PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("calls.jsonl");
    let body = format!(
        "{{\"volk_cassette\":1,\"created\":\"x\"}}\n{}{}",
        cassette_call("design", &reply_of("d030")),
        cassette_call("update", &reply_of("clean"))
    );
    std::fs::write(&cassette, body).unwrap();
    let packet =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packets/example1_scope.json");
    let work = dir.path().join("work");
    let reasoner = format!("replay:{}", cassette.display());
    let mut args = vec![
        "run",
        "--workspace",
        work.to_str().unwrap(),
        "--packet",
        packet.to_str().unwrap(),
        "--reasoner",
        &reasoner,
        "--replay-speed",
        "0",
    ];
    if let Some(n) = repairs {
        args.extend(["--lint-repairs", n]);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_volk"))
        .args(&args)
        .current_dir(dir.path())
        .env("VOLK_LOG", dir.path().join("volk.log"))
        .env("VOLK_CONFIG_DIR", dir.path().join("no-user-config"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let packet: Value = serde_json::from_slice(&out.stdout).unwrap();
    let project = PathBuf::from(packet["payload"]["project_dir"].as_str().unwrap());
    let journal = std::fs::read_to_string(project.join(".volk/journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (packet, journal, project, dir)
}

#[test]
fn headless_cycle_with_errors_is_repaired_before_the_review() {
    let (packet, journal, project, _dir) = run_with_cassette(None);
    assert_eq!(packet["header"]["subject"], "design_review");
    assert_eq!(packet["payload"]["diagnostics"], serde_json::json!([]));
    assert!(
        !packet["payload"]["class_diagram"]
            .as_str()
            .unwrap()
            .contains("Report")
    );
    let linted: Vec<&Value> = journal
        .iter()
        .filter(|e| e["event"] == "design_linted")
        .collect();
    assert_eq!(linted.len(), 2, "{journal:#?}");
    assert_eq!(linted[0]["detail"]["errors"], 1);
    assert_eq!(linted[0]["detail"]["diagnostics"][0]["code"], "D030");
    assert_eq!(linted[1]["detail"]["ok"], true);
    // The file on disk is fenced for GitHub, and `volk lint` agrees with the packet.
    let diagram = std::fs::read_to_string(project.join("design/class_diagram.md")).unwrap();
    assert!(
        diagram.starts_with("```mermaid\nclassDiagram\n"),
        "{diagram}"
    );
    let (status, report) = lint_json(&project);
    assert_eq!((status, report["errors"].as_u64()), (0, Some(0)));
}

#[test]
fn lint_repairs_0_sends_the_findings_with_the_review() {
    let (packet, journal, project, _dir) = run_with_cassette(Some("0"));
    let diags = packet["payload"]["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0]["code"], "D030");
    assert_eq!(diags[0]["file"], "design/class_diagram.md");
    assert_eq!(
        journal
            .iter()
            .filter(|e| e["event"] == "design_linted")
            .count(),
        1
    );
    // Same shape and place as `volk lint --format json` on the written files.
    let (status, report) = lint_json(&project);
    assert_eq!(status, 1);
    let on_disk = &report["diagnostics"][0];
    for key in ["severity", "code", "message", "artifact", "line", "column"] {
        assert_eq!(on_disk[key], diags[0][key], "{key}");
    }
}

// ---------------------------------------------------------------------------------
// The corpus: designs written the way different models and architects write them,
// in seven languages, each clean by a careful reading, and mutated copies with one
// real gap each.

fn corpus() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures().join("corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("design").is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn read_artifacts(dir: &Path) -> Artifacts {
    let design = dir.join("design");
    Artifacts::from(
        Section::ALL.map(|s| std::fs::read_to_string(design.join(s.file_name())).unwrap()),
    )
}

fn line_of_offset(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// One injected gap and the finding it must produce.
struct Mutation {
    design: String,
    name: String,
    artifacts: Artifacts,
    code: Code,
    at: Section,
    line: usize,
}

fn section(key: &str) -> Section {
    Section::ALL.into_iter().find(|s| s.key() == key).unwrap()
}

/// The mutations a design's `mutations.json` states: text replacements, the code
/// expected and the line (the `nth` line containing `line_of` in artifact `at`).
fn stated_mutations(dir: &Path, clean: &Artifacts, out: &mut Vec<Mutation>) {
    let Ok(text) = std::fs::read_to_string(dir.join("mutations.json")) else {
        return;
    };
    let design = dir.file_name().unwrap().to_string_lossy().to_string();
    let list: Value = serde_json::from_str(&text).unwrap();
    for m in list.as_array().unwrap() {
        let name = m["name"].as_str().unwrap();
        let mut a = clean.clone();
        let target = section(m["artifact"].as_str().unwrap());
        let pairs: Vec<(String, String)> = match &m["replace"][0] {
            Value::String(_) => vec![(
                m["replace"][0].as_str().unwrap().into(),
                m["replace"][1].as_str().unwrap().into(),
            )],
            _ => m["replace"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into()))
                .collect(),
        };
        for (old, new) in pairs {
            let text = a.get(target).to_string();
            assert_eq!(text.matches(&old).count(), 1, "{design}/{name}: {old:?}");
            *a.get_mut(target) = text.replacen(&old, &new, 1);
        }
        let at = section(m["at"].as_str().unwrap());
        let needle = m["line_of"].as_str().unwrap();
        let nth = m["nth"].as_u64().unwrap_or(0) as usize;
        let text = a.get(at);
        let line = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains(needle))
            .nth(nth)
            .unwrap_or_else(|| panic!("{design}/{name}: no line with {needle:?}"))
            .0
            + 1;
        out.push(Mutation {
            design: design.clone(),
            name: name.to_string(),
            artifacts: a,
            code: Code::from_id(m["code"].as_str().unwrap()).unwrap(),
            at,
            line,
        });
    }
}

/// Generated mutations. Each functional requirement's definition deleted: D011 at
/// its first citation. Each class the diagram declares renamed to one the spec
/// lacks: D030 on that line.
fn generated_mutations(dir: &Path, clean: &Artifacts, out: &mut Vec<Mutation>) {
    let design = dir.file_name().unwrap().to_string_lossy().to_string();
    let model = volk::design::model::DesignModel::read(clean);
    for r in &model.requirements {
        let req = &clean.requirements;
        let start = req[..r.span.start].rfind('\n').map_or(0, |i| i + 1);
        let end = req[r.span.start..]
            .find('\n')
            .map_or(req.len(), |i| r.span.start + i + 1);
        let line_text = &req[start..end];
        if volk::design::model::ids::scan(line_text).len() != 1
            || model.requirements.iter().filter(|o| o.id == r.id).count() != 1
        {
            continue;
        }
        let Some(first) = model
            .citations
            .iter()
            .filter(|c| c.id == r.id && c.section != Section::Requirements)
            .min_by_key(|c| (c.section, c.span.start))
        else {
            continue;
        };
        let mut a = clean.clone();
        a.requirements = format!("{}{}", &req[..start], &req[end..]);
        let line = line_of_offset(a.get(first.section), first.span.start);
        out.push(Mutation {
            design: design.clone(),
            name: format!("definition of {} deleted", r.written),
            artifacts: a,
            code: Code::UnknownRequirement,
            at: first.section,
            line,
        });
    }
    let diagram = &clean.class_diagram;
    let mut offset = 0;
    for l in diagram.split_inclusive('\n') {
        let trimmed = l.trim_start();
        if let Some(rest) = trimmed.strip_prefix("class ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                let mut a = clean.clone();
                let at = offset + (l.len() - trimmed.len()) + "class ".len();
                a.class_diagram = format!(
                    "{}{}Phantom{}",
                    &diagram[..at],
                    name,
                    &diagram[at + name.len()..]
                );
                out.push(Mutation {
                    design: design.clone(),
                    name: format!("diagram class {name} not in the spec"),
                    artifacts: a,
                    code: Code::ClassNotInApi,
                    at: Section::ClassDiagram,
                    line: line_of_offset(diagram, offset),
                });
            }
        }
        offset += l.len();
    }
}

#[test]
fn the_corpus_designs_lint_clean_through_the_binary() {
    let mut lines = 0;
    let mut findings = Vec::new();
    let designs = corpus();
    assert!(designs.len() >= 12, "{designs:?}");
    let mut large = 0;
    for dir in &designs {
        let expect: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expect.json")).unwrap())
                .unwrap();
        assert_eq!(expect["findings"], serde_json::json!([]));
        let a = read_artifacts(dir);
        let n: usize = Section::ALL.iter().map(|s| a.get(*s).lines().count()).sum();
        large += usize::from(n > 1500);
        lines += n;
        let (status, report) = lint_json(dir);
        for d in report["diagnostics"].as_array().unwrap() {
            findings.push(format!(
                "{}: {} {}:{} {}",
                dir.file_name().unwrap().to_string_lossy(),
                d["code"],
                d["artifact"],
                d["line"],
                d["message"]
            ));
        }
        assert_eq!(status, 0, "{}", dir.display());
    }
    assert!(large >= 2, "two designs over 1,500 lines");
    eprintln!(
        "corpus: {} designs, {lines} lines, {} findings ({:.2} per 1,000 lines)",
        designs.len(),
        findings.len(),
        findings.len() as f64 * 1000.0 / lines as f64
    );
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn injected_gaps_are_found_with_their_code_and_line() {
    let mut mutations = Vec::new();
    for dir in corpus() {
        let clean = read_artifacts(&dir);
        stated_mutations(&dir, &clean, &mut mutations);
        generated_mutations(&dir, &clean, &mut mutations);
    }
    assert!(mutations.len() >= 100, "{}", mutations.len());
    let mut missed = Vec::new();
    for m in &mutations {
        let linted = lint(&m.artifacts);
        let hit = linted
            .diagnostics
            .iter()
            .any(|d| d.code == m.code && d.artifact == m.at && d.line == m.line);
        if !hit {
            let got: Vec<String> = linted.diagnostics.iter().map(|d| d.one_line()).collect();
            missed.push(format!(
                "{}/{}: want {} {}:{}, got {got:#?}",
                m.design,
                m.name,
                m.code,
                m.at.key(),
                m.line
            ));
        }
    }
    let found = mutations.len() - missed.len();
    eprintln!(
        "mutations: {found} of {} found with their code and line ({:.1}%)",
        mutations.len(),
        found as f64 * 100.0 / mutations.len() as f64
    );
    assert!(missed.is_empty(), "{missed:#?}");
}

/// In the loop: a model that answers with a clean corpus design gets exactly one
/// request (the design), never a design-compiler repair pass, and the review
/// carries no findings.
#[test]
fn a_clean_design_sends_no_repair_request() {
    for dir in corpus() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let provider = Provider::scripted(vec![reply_of_design(&dir)]);
        let work = tempfile::tempdir().unwrap();
        let packet = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/packets/example1_scope.json");
        let out = Command::new(env!("CARGO_BIN_EXE_volk"))
            .args(["run", "--packet"])
            .arg(&packet)
            .arg("--workspace")
            .arg(work.path().join("w"))
            .args(["--reasoner", "openai", "--base-url", &provider.v1()])
            .current_dir(work.path())
            .env("VOLK_LOG", work.path().join("volk.log"))
            .env("VOLK_CONFIG_DIR", work.path().join("no-user-config"))
            .env_remove("VOLK_REASONER")
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap();
        let prompts = provider.prompts();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            prompts.last().map_or("", |p| &p[..p.len().min(3000)])
        );
        let review: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            review["payload"]["diagnostics"],
            serde_json::json!([]),
            "{name}"
        );
        assert_eq!(provider.hits(), 1, "{name}: a repair request was sent");
    }
}
