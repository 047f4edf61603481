//! Properties of a whole update cycle: random sequences of answers (whole sections,
//! blocks that match, miss or touch settled text, answers with no section at all,
//! `CHANGES:` lines or none, calls that fail) driven through the state machine. For
//! every sequence the cycle ends committed or failed with a retry offered, no paid
//! call is repeated without the person asking, no applied block is lost, no `-`
//! line is dropped, and a repair's answer changes only the sections it asked for.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::Value;
use volk::brief::Question;
use volk::cxp::{Feedback, ReviewMarks, Scope, Verdict};
use volk::design::{Artifacts, Section};
use volk::reasoner::ReasonerRequest;
use volk::reasoner::offline::draft;
use volk::volk::machine::{Architect, Effect, Input, Mode};
use volk::volk::protocol::{Action, Phase};
use volk::volk::session::Session;

/// One part of an answer, rendered against the design the call showed.
#[derive(Debug, Clone)]
enum Op {
    /// The section written whole.
    Whole(usize),
    /// A block replacing one line of the section (never in REQUIREMENTS, whose FR-02
    /// is settled).
    Match(usize, usize),
    /// A block whose SEARCH text is nowhere.
    Miss(usize),
    /// A block on the settled FR-02.
    Settled,
}

#[derive(Debug, Clone)]
enum Line {
    Thread(usize),
    Minus(usize),
    Nothing,
}

#[derive(Debug, Clone)]
enum Answer {
    Text {
        ops: Vec<Op>,
        changes: Option<Vec<Line>>,
    },
    Prose,
    Empty,
    Fail {
        retryable: bool,
    },
}

fn answer() -> impl Strategy<Value = Answer> {
    let op = prop_oneof![
        (0usize..5).prop_map(Op::Whole),
        ((0usize..5), any::<usize>()).prop_map(|(s, l)| Op::Match(s, l)),
        (0usize..5).prop_map(Op::Miss),
        Just(Op::Settled),
    ];
    let line = prop_oneof![
        (0usize..5).prop_map(Line::Thread),
        (0usize..5).prop_map(Line::Minus),
        Just(Line::Nothing),
    ];
    prop_oneof![
        6 => (
            prop::collection::vec(op, 1..4),
            prop::option::of(prop::collection::vec(line, 0..3))
        )
            .prop_map(|(ops, changes)| Answer::Text { ops, changes }),
        1 => Just(Answer::Prose),
        1 => Just(Answer::Empty),
        1 => any::<bool>().prop_map(|retryable| Answer::Fail { retryable }),
    ]
}

fn scope() -> Scope {
    Scope {
        task_summary: "Build a task management CLI with SQLite storage".into(),
        project_name: "taskman".into(),
        requirements: "1. Add tasks\n2. List tasks\n3. Complete tasks".into(),
        subject: "scope_validated".into(),
        ..Scope::default()
    }
}

fn call_of(fx: &[Effect]) -> Option<(u64, ReasonerRequest)> {
    fx.iter().find_map(|e| match e {
        Effect::CallReasoner { call, request } => Some((*call, request.clone())),
        _ => None,
    })
}

fn block(search: &str, replace: &str) -> String {
    format!("<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n")
}

/// What the test remembers of the answers the machine read.
#[derive(Default)]
struct Expect {
    /// Tokens of blocks that must be in the final design, by section.
    applied: Vec<(Section, String)>,
    /// Summaries of `-` lines.
    minus: Vec<String>,
    /// Tokens a repair's answer wrote into sections it was not asked for.
    ignored: Vec<(Section, String)>,
}

/// Renders `answer` against the design the request showed; records what must hold.
fn render(answer: &Answer, request: &ReasonerRequest, n: usize, expect: &mut Expect) -> String {
    let current = request.brief.current.clone().unwrap_or_default();
    let Answer::Text { ops, changes } = answer else {
        return match answer {
            Answer::Prose => "The design already answers this; nothing to change.".into(),
            _ => String::new(),
        };
    };
    // A repair's answer may change only what the repair asked for; the rest is ignored.
    let asked = request.brief.asked_sections();
    let ignored = |s: Section| asked.as_ref().is_some_and(|a| !a.contains(&s));
    let mut out = String::new();
    let mut written: Vec<Section> = Vec::new();
    for (k, op) in ops.iter().enumerate() {
        let token = format!("NEW{n}x{k}");
        match op {
            Op::Whole(s) => {
                let section = Section::ALL[*s];
                if written.contains(&section) {
                    continue;
                }
                written.push(section);
                // A whole section replaces earlier blocks in it.
                if ignored(section) {
                    expect.ignored.push((section, token.clone()));
                } else {
                    expect.applied.retain(|(s, _)| *s != section);
                }
                let text = if section == Section::ClassDiagram {
                    format!("classDiagram\n  class {token}")
                } else {
                    format!("{}\n{token} line", current.get(section))
                };
                out.push_str(&format!("{}:\n{text}\n", section.marker()));
            }
            Op::Match(s, pick) => {
                let section = Section::ALL[*s];
                if section == Section::Requirements || written.contains(&section) {
                    continue;
                }
                let text = current.get(section);
                let lines: Vec<&str> = text
                    .lines()
                    .filter(|l| {
                        l.trim().len() > 3 && !l.contains("NEW") && text.matches(*l).count() == 1
                    })
                    .collect();
                if lines.is_empty() {
                    continue;
                }
                let line = lines[pick % lines.len()];
                out.push_str(&format!(
                    "{}:\n{}",
                    section.marker(),
                    block(line, &format!("{line} {token}"))
                ));
                written.push(section);
                if ignored(section) {
                    expect.ignored.push((section, token));
                } else {
                    expect.applied.push((section, token));
                }
            }
            Op::Miss(s) => {
                let section = Section::ALL[*s];
                if written.contains(&section) {
                    continue;
                }
                out.push_str(&format!(
                    "{}:\n{}",
                    section.marker(),
                    block("no such line anywhere zzq", "x")
                ));
                written.push(section);
            }
            Op::Settled => {
                let text = current.get(Section::Requirements);
                if written.contains(&Section::Requirements) {
                    continue;
                }
                if let Some(line) = text.lines().find(|l| l.contains("FR-02")) {
                    out.push_str(&format!(
                        "REQUIREMENTS:\n{}",
                        block(line, &format!("{line} {token}"))
                    ));
                    written.push(Section::Requirements);
                }
            }
        }
    }
    if let Some(lines) = changes {
        out.push_str("CHANGES:\n");
        for (k, line) in lines.iter().enumerate() {
            match line {
                Line::Thread(s) => {
                    out.push_str(&format!("- Q1.1 {}: changed it\n", Section::ALL[*s].key()))
                }
                Line::Minus(s) => {
                    let summary = format!("tidied {n}.{k}");
                    let section = Section::ALL[*s];
                    out.push_str(&format!("- - {}: {summary}\n", section.key()));
                    // A line about a section whose change was ignored does not count.
                    if !(written.contains(&section) && ignored(section)) {
                        expect.minus.push(summary);
                    }
                }
                Line::Nothing => out.push_str("- Q1.2 none: already so\n"),
            }
        }
    }
    out
}

fn designed() -> (Architect, Artifacts) {
    let session = Session::new("t", "r", "/tmp/p".into(), scope(), 9);
    let mut a = Architect::new(session, Mode::Headless);
    a.handle(Input::Begin).unwrap();
    let fx = a
        .handle(Input::ContextReady {
            section: String::new(),
            symbols: vec![],
        })
        .unwrap();
    let (call, request) = call_of(&fx).unwrap();
    let text = draft(request.purpose, &request.brief);
    a.handle(Input::ReasonerDone { call, text }).unwrap();
    assert_eq!(a.phase(), &Phase::AwaitingReview { cycle: 1 });
    let design = a.session.artifacts.clone();
    (a, design)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn every_sequence_of_answers_ends_well(answers in prop::collection::vec(answer(), 1..9)) {
        let (mut a, _) = designed();
        let feedback = Feedback {
            questions: vec![Question::new("Schema?"), Question::new("Delete or flag?")],
            marks: ReviewMarks { settled: vec!["FR-02".into()], ..ReviewMarks::default() },
            ..Feedback::questions(1, vec![], vec![])
        };
        let mut fx = a.handle(Input::Act(Action::Review(Feedback { verdict: Verdict::Questions, ..feedback }))).unwrap();
        let mut expect = Expect::default();
        let mut since_person: Vec<String> = Vec::new();
        let mut packet: Option<Value> = None;
        let mut failed = false;
        let mut script = answers.into_iter().enumerate();
        for _ in 0..40 {
            if let Some(p) = fx.iter().find_map(|e| match e {
                Effect::Emit(p) => Some(p.clone()),
                _ => None,
            }) {
                packet = Some(serde_json::to_value(&p).unwrap());
                break;
            }
            if fx.iter().any(|e| matches!(e, Effect::Failed { .. })) {
                // The failure names its next step: a retry, which the person asks for.
                let Phase::Failed { retryable, .. } = a.phase().clone() else {
                    panic!("a failure effect outside the failed phase: {:?}", a.phase())
                };
                if !retryable {
                    failed = true;
                    break;
                }
                since_person.clear();
                fx = a.handle(Input::Act(Action::Retry)).unwrap();
                continue;
            }
            let Some((call, request)) = call_of(&fx) else {
                panic!("the cycle stopped without a packet or a failure: {:?}", a.phase());
            };
            prop_assert!(
                !since_person.contains(&request.prompt),
                "a paid call repeated without anyone asking:\n{}",
                request.prompt
            );
            since_person.push(request.prompt.clone());
            prop_assert!(since_person.len() <= 8, "{} calls in a row", since_person.len());
            let (n, next) = script.next().unwrap_or((99, Answer::Empty));
            fx = match next {
                Answer::Fail { retryable } => a
                    .handle(Input::ReasonerFailed { call, message: "503".into(), retryable })
                    .unwrap(),
                other => {
                    let text = render(&other, &request, n, &mut expect);
                    a.handle(Input::ReasonerDone { call, text }).unwrap()
                }
            };
        }
        if failed {
            let is_failed = matches!(a.phase(), Phase::Failed { .. });
            prop_assert!(is_failed, "not failed: {:?}", a.phase());
            return Ok(());
        }
        let packet = packet.expect("the cycle ends with a review packet");
        prop_assert_eq!(&packet["payload"]["design_cycle"], 2);
        prop_assert_eq!(a.phase(), &Phase::AwaitingReview { cycle: 2 });
        let design = &a.session.artifacts;
        for (section, token) in &expect.applied {
            prop_assert!(
                design.get(*section).contains(token.as_str()),
                "applied block {} lost from {}:\n{}",
                token,
                section.key(),
                design.get(*section)
            );
        }
        for (section, token) in &expect.ignored {
            prop_assert!(
                !design.get(*section).contains(token.as_str()),
                "{} of a repair answer reached {}, which the repair did not ask for",
                token,
                section.key()
            );
        }
        let reported: Vec<&str> = packet["payload"]["unrequested_changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["summary"].as_str())
            .collect();
        for summary in &expect.minus {
            prop_assert!(reported.contains(&summary.as_str()), "- line {} dropped: {:?}", summary, reported);
        }
        prop_assert!(
            !design.get(Section::Requirements).lines().any(|l| l.contains("FR-02") && l.contains("NEW")),
            "settled FR-02 changed"
        );
    }
}
