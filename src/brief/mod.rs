//! The words the design loop speaks in, whoever drives it: why a reasoner is called
//! ([`Purpose`]), what a call works from ([`Brief`]), a reviewer's question
//! ([`Question`], with the line it points at) and answer ([`Answer`]), and the
//! reflection kept at READY ([`reflected`]). They sit below the loop, packets and the
//! LLM adapter, because all of those use them and none should depend on another.

pub(crate) mod reflected;

/// Where an update prompt's changing part begins: everything before it (the
/// instructions, the task, the current design) is the same for every call of a
/// cycle, the prefix providers cache. The prompts write it and a provider that marks
/// its cache prefix finds it, so it lives below both.
pub const REVISION_HEADING: &str = "\n# This revision\n";

use serde::{Deserialize, Serialize};

use crate::design::{Artifacts, Section};

/// Why the architect is calling the reasoner; providers may tune limits by it and the
/// offline drafter decides what to write from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Purpose {
    /// First design of a scope.
    Design,
    /// A revision answering the reviewer's questions.
    Update,
    /// The one reflection pass before finalizing.
    Reflect,
    /// The execution plan that goes with the finalized design.
    Plan,
}

/// A reviewer's answer to one of the architect's own open questions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub question: String,
    pub answer: String,
}

/// Where a question points in an artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchor {
    pub section: Section,
    /// 1-based line number in the artifact.
    pub line: usize,
    /// The text of that line, quoted to the architect.
    #[serde(default)]
    pub quote: String,
}

/// One question for the architect. The workbench and a `design_feedback` packet
/// build the same value; only `volk::prompts` turns it into prompt text.
///
/// In a packet a question may be a plain string or an object
/// `{"text", "anchor": {"section", "line", "quote"}, "follows"}`; a string is
/// written back as a string, so journals and packets of unanchored questions keep
/// their shape.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "QuestionForm", into = "QuestionForm")]
pub struct Question {
    pub text: String,
    pub anchor: Option<Anchor>,
    /// The review thread this question reopens (`Q1.2`).
    pub follows: Option<String>,
    /// The thread the question is tracked as, once the core has opened it.
    pub thread: Option<String>,
    /// The earlier cycle it was asked after, when it is carried over unanswered.
    pub carried_from: Option<u32>,
}

impl Question {
    pub fn new(text: impl Into<String>) -> Question {
        Question {
            text: text.into(),
            ..Question::default()
        }
    }

    pub fn anchored(text: impl Into<String>, anchor: Anchor) -> Question {
        Question {
            text: text.into(),
            anchor: Some(anchor),
            ..Question::default()
        }
    }

    fn is_plain(&self) -> bool {
        self.anchor.is_none()
            && self.follows.is_none()
            && self.thread.is_none()
            && self.carried_from.is_none()
    }
}

impl From<&str> for Question {
    fn from(text: &str) -> Question {
        Question::new(text)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum QuestionForm {
    Text(String),
    Full {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        anchor: Option<Anchor>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        follows: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thread: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        carried_from: Option<u32>,
    },
}

impl From<QuestionForm> for Question {
    fn from(form: QuestionForm) -> Question {
        match form {
            QuestionForm::Text(text) => Question::new(text),
            QuestionForm::Full {
                text,
                anchor,
                follows,
                thread,
                carried_from,
            } => Question {
                text,
                anchor,
                follows,
                thread,
                carried_from,
            },
        }
    }
}

impl From<Question> for QuestionForm {
    fn from(q: Question) -> QuestionForm {
        if q.is_plain() {
            return QuestionForm::Text(q.text);
        }
        QuestionForm::Full {
            text: q.text,
            anchor: q.anchor,
            follows: q.follows,
            thread: q.thread,
            carried_from: q.carried_from,
        }
    }
}

/// The structured scope behind a prompt. HTTP providers only send the rendered
/// prompt; the offline drafter works from these fields directly.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Brief {
    pub task_summary: String,
    pub project_name: String,
    pub requirements: String,
    pub original_intent: String,
    pub structured_requirements: Vec<String>,
    pub nfrs: Vec<String>,
    pub ux_design: Option<String>,
    /// The design being revised (update, reflect and plan calls).
    pub current: Option<Artifacts>,
    /// The reviewer's questions for this update, each with its thread.
    pub questions: Vec<Question>,
    /// Answers to the architect's earlier open questions: binding decisions.
    pub answers: Vec<Answer>,
    /// Reflection questions to answer (reflect calls).
    pub reflection_questions: Vec<String>,
    /// Steering from the person and compiler diagnostics for a plan attempt.
    pub plan_feedback: Vec<String>,
    /// The architect's reflections, oldest first (plan calls): decision history.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reflections: Vec<reflected::Reflection>,
    /// The design compiler's findings on the current design (update calls).
    #[serde(default)]
    pub lint_feedback: Vec<String>,
    /// The cycle this call produces.
    pub cycle: u32,
    /// Set on the follow-up of an update whose edit blocks failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair: Option<crate::design::edit::repair::RepairRequest>,
    /// The review's binding parts for an update: the reviewer's hand edits and the
    /// settled text (rendered by `volk::review`).
    #[serde(default)]
    pub review: String,
    /// An answer of this call that had no section markers: the retry only asks the
    /// model to put it under the markers, a short prompt without the scope, the
    /// context or the current design.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reformat: Option<String>,
    /// Which request of its cycle this call is: a repair pass that fails, errs or
    /// changes nothing leaves the cycle as it was before the pass.
    #[serde(default)]
    pub pass: Pass,
    /// The sections a design-compiler repair pass asks about: those with findings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lint_sections: Vec<crate::design::Section>,
}

/// The request of a design cycle a call makes, besides the edit-block follow-ups
/// (those are [`Brief::repair`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    /// The cycle's own request: the design, or the update answering the review.
    #[default]
    Main,
    /// The design compiler found errors and asks the architect to fix them.
    LintRepair,
}

impl Brief {
    /// A follow-up of the cycle's main answer: a block repair, a section in full, or a
    /// design-compiler repair.
    pub fn is_repair(&self) -> bool {
        self.repair.is_some() || self.pass == Pass::LintRepair
    }

    /// The sections a follow-up asks for, so its answer may change only those;
    /// `None` for the cycle's own request, which may change any section. A block
    /// repair or a request in full names its sections; a design-compiler repair asks
    /// about the sections with findings.
    pub fn asked_sections(&self) -> Option<Vec<crate::design::Section>> {
        match (&self.repair, self.pass) {
            (Some(repair), _) => Some(repair.sections.iter().map(|s| s.section).collect()),
            (None, Pass::LintRepair) => Some(self.lint_sections.clone()),
            (None, Pass::Main) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_question_is_a_string_and_an_anchored_one_an_object() {
        let plain = Question::new("Which schema?");
        assert_eq!(serde_json::to_string(&plain).unwrap(), r#""Which schema?""#);
        let anchored = Question::anchored(
            "Why?",
            Anchor {
                section: Section::ApiSpec,
                line: 3,
                quote: "def f()".into(),
            },
        );
        let json = serde_json::to_string(&anchored).unwrap();
        assert_eq!(
            json,
            r#"{"text":"Why?","anchor":{"section":"api_spec","line":3,"quote":"def f()"}}"#
        );
        let back: Question = serde_json::from_str(&json).unwrap();
        assert_eq!(back, anchored);
        let back: Question = serde_json::from_str(r#""Which schema?""#).unwrap();
        assert_eq!(back, plain);
    }
}
