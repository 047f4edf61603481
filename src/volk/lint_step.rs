//! The design compiler in the loop: each cycle's artifacts are checked as they will be
//! written to `design/`, the findings journaled and sent with the review, and a cycle
//! with errors gets a bounded repair pass before the person sees it.

use serde_json::Value;

use crate::design::lint::{Linted, lint, report};
use crate::design::write::as_written;
use crate::design::{Artifacts, Section};

/// Lints the artifacts in their on-disk form, so lines match `design/*.md`.
pub fn check(artifacts: &Artifacts) -> Linted {
    lint(&as_written(artifacts))
}

/// `design_review.payload.diagnostics`: the list of `volk lint --format json`.
pub fn payload(linted: &Linted) -> Value {
    serde_json::to_value(&linted.diagnostics).unwrap_or(Value::Array(Vec::new()))
}

/// The journal's record: the whole `volk lint --format json` object.
pub fn journal_detail(linted: &Linted, repair: u32) -> Value {
    let mut detail = report::json(&linted.diagnostics);
    if let Some(map) = detail.as_object_mut() {
        map.insert("repair".into(), repair.into());
    }
    detail
}

/// One line per finding, errors first, for the architect's prompt.
pub fn notes(linted: &Linted) -> Vec<String> {
    report::repair_notes(&linted.diagnostics)
}

/// The sections with findings, and those where an error's fix may rightly go (a class
/// drawn but not specified is fixed in the API spec as often as in the diagram), in
/// design order: what a repair pass of the design compiler asks about. Warnings do not
/// start a repair, so they widen nothing.
pub fn sections(linted: &Linted) -> Vec<Section> {
    Section::ALL
        .into_iter()
        .filter(|s| {
            linted.diagnostics.iter().any(|d| {
                d.artifact == *s
                    || (d.severity == crate::plan::Severity::Error && d.code.fixed_in().contains(s))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brief::Purpose;
    use crate::cxp::{Feedback, Scope, Verdict};
    use crate::reasoner::ReasonerRequest;
    use crate::reasoner::offline::draft;
    use crate::volk::machine::{Architect, Effect, Input, Mode};
    use crate::volk::protocol::Action;
    use crate::volk::protocol::Phase;
    use crate::volk::session::Session;

    fn started(repairs: u32) -> (Architect, Vec<Effect>) {
        let scope = Scope {
            task_summary: "Build a task CLI".into(),
            requirements: "1. Add tasks\n2. List tasks".into(),
            ..Scope::default()
        };
        let session = Session::new("t-1", "tr-1", "/tmp/p".into(), scope, 9);
        let mut a = Architect::new(session, Mode::Headless).with_lint_repairs(repairs);
        a.handle(Input::Begin).unwrap();
        let fx = a
            .handle(Input::ContextReady {
                section: String::new(),
                symbols: vec![],
            })
            .unwrap();
        (a, fx)
    }

    fn call_of(fx: &[Effect]) -> Option<(u64, ReasonerRequest)> {
        fx.iter().find_map(|e| match e {
            Effect::CallReasoner { call, request } => Some((*call, request.clone())),
            _ => None,
        })
    }

    fn journaled<'a>(fx: &'a [Effect], event: &str) -> Option<&'a Value> {
        fx.iter().find_map(|e| match e {
            Effect::Journal(j) if j.event.name() == event => Some(&j.detail),
            _ => None,
        })
    }

    /// The offline design with a class the API spec lacks (D030).
    /// A whole design whose class diagram draws a class no signature defines. Whole
    /// sections, also for an update request: the offline drafter answers those with
    /// edit blocks, which a text replacement would break.
    fn broken(request: &ReasonerRequest) -> String {
        draft(Purpose::Design, &request.brief)
            .replace("classDiagram\n", "classDiagram\n  class Phantom\n")
    }

    #[test]
    fn a_cycle_with_errors_gets_one_repair_pass_carrying_the_findings() {
        let (mut a, fx) = started(1);
        let (call, request) = call_of(&fx).unwrap();
        let fx = a
            .handle(Input::ReasonerDone {
                call,
                text: broken(&request),
            })
            .unwrap();
        assert_eq!(journaled(&fx, "design_linted").unwrap()["errors"], 1);
        assert!(
            !fx.iter().any(|e| matches!(e, Effect::Emit(_))),
            "the person does not see it yet"
        );
        let (call, repair) = call_of(&fx).expect("a repair call");
        assert_eq!(repair.purpose, Purpose::Update);
        assert!(
            repair.prompt.contains("Problems the design compiler found"),
            "{}",
            repair.prompt
        );
        assert!(
            repair
                .prompt
                .contains("error[D030] design/class_diagram.md:3:9"),
            "{}",
            repair.prompt
        );
        assert!(
            repair
                .brief
                .current
                .as_ref()
                .unwrap()
                .class_diagram
                .contains("Phantom")
        );
        // Still broken after the repair: the cycle goes to the reviewer with its findings.
        let fx = a
            .handle(Input::ReasonerDone {
                call,
                text: broken(&repair),
            })
            .unwrap();
        let packet = fx
            .iter()
            .find_map(|e| match e {
                Effect::Emit(p) => Some(p),
                _ => None,
            })
            .unwrap();
        assert_eq!(packet.header.subject, "design_review");
        let diags = packet.payload["diagnostics"].as_array().unwrap();
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0]["code"], "D030");
        assert_eq!(diags[0]["artifact"], "class_diagram");
        assert_eq!(diags[0]["line"], 3);
        assert_eq!(a.phase(), &Phase::AwaitingReview { cycle: 1 });
        // What remains goes into the next update prompt.
        let fx = a
            .handle(Input::Act(Action::Review(Feedback {
                verdict: Verdict::Questions,
                questions: vec!["Why?".into()],
                design_cycle: None,
                answers: vec![],
                project_dir: None,
                marks: Default::default(),
                force: false,
            })))
            .unwrap();
        let (_, update) = call_of(&fx).unwrap();
        assert!(update.prompt.contains("error[D030]"), "{}", update.prompt);
        assert!(update.prompt.contains("- Q1.1: Why?"));
    }

    #[test]
    fn zero_repairs_shows_the_cycle_at_once_and_a_clean_cycle_needs_none() {
        let (mut a, fx) = started(0);
        let (call, request) = call_of(&fx).unwrap();
        let fx = a
            .handle(Input::ReasonerDone {
                call,
                text: broken(&request),
            })
            .unwrap();
        assert!(fx.iter().any(|e| matches!(e, Effect::Emit(_))));
        let (mut a, fx) = started(1);
        let (call, request) = call_of(&fx).unwrap();
        let text = draft(request.purpose, &request.brief);
        let fx = a.handle(Input::ReasonerDone { call, text }).unwrap();
        let detail = journaled(&fx, "design_linted").unwrap();
        assert_eq!(detail["ok"], true);
        assert_eq!(detail["diagnostics"], serde_json::json!([]));
        let packet = fx
            .iter()
            .find_map(|e| match e {
                Effect::Emit(p) => Some(p),
                _ => None,
            })
            .unwrap();
        assert_eq!(packet.payload["diagnostics"], serde_json::json!([]));
    }

    #[test]
    fn lines_are_those_of_the_written_files() {
        let artifacts = Artifacts {
            class_diagram: "classDiagram\n  A -> B".into(),
            ..Artifacts::default()
        };
        let linted = check(&artifacts);
        let d001 = linted
            .diagnostics
            .iter()
            .find(|d| d.code.id() == "D001")
            .unwrap();
        // Line 1 of the file is the ```mermaid fence.
        assert_eq!((d001.line, d001.column), (3, 5));
        assert_eq!(
            payload(&linted).as_array().unwrap().len(),
            linted.diagnostics.len()
        );
        assert!(notes(&linted)[0].starts_with("error["));
    }

    #[test]
    fn a_repair_of_a_class_drawn_but_not_specified_may_also_change_the_api_spec() {
        let design = crate::design::Artifacts {
            api_spec: "Module: src/a.py\n  class Store:\n    save() -> None\n".into(),
            class_diagram: "classDiagram\n  class Store\n  class Phantom\n".into(),
            ..crate::design::Artifacts::default()
        };
        let linted = lint(&design);
        assert!(
            linted
                .diagnostics
                .iter()
                .any(|d| d.code == crate::design::lint::Code::ClassNotInApi),
            "{:?}",
            linted.diagnostics
        );
        let asked = sections(&linted);
        assert!(asked.contains(&Section::ClassDiagram), "{asked:?}");
        assert!(asked.contains(&Section::ApiSpec), "{asked:?}");
    }
}
