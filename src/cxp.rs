//! CXP packets: the envelope agents exchange (`header` + `payload`), the subjects the
//! architect handles, and the validation that turns bad input into one clear line.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::brief::{Answer, Question};

/// The architect's own agent id.
pub const ARCHITECT: &str = "U:Ar";
/// The reviewer that receives `design_review` packets.
pub const JUNIOR: &str = "J:Junior";
/// The code director that receives the `implement` packet.
pub const CODE_DIRECTOR: &str = "U:Cd";
/// Only these agents may send to the architect.
pub const ALLOWED_SENDERS: [&str; 3] = ["U:PM", "U:Ux", JUNIOR];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    pub from_agent: String,
    pub to_agent: String,
    pub subject: String,
    pub thread_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Packet {
    pub header: Header,
    #[serde(default)]
    pub payload: Map<String, Value>,
}

/// Why a packet was refused. Every message names the source and the field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CxpError {
    #[error("{source_name}:{line}:{column}: {message}")]
    Syntax {
        source_name: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{source_name}: {field}: {message}")]
    Field {
        source_name: String,
        field: String,
        message: String,
    },
    #[error(
        "{source_name}: header.from_agent: sender '{sender}' may not send to U:Ar (allowed: U:PM, U:Ux, J:Junior)"
    )]
    RefusedSender { source_name: String, sender: String },
}

/// What an inbound packet asks the architect to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    /// `scope_validated`, `ux_complete` or `implement`: design this scope.
    Design(Box<Scope>),
    /// `design_feedback` from the reviewer.
    Feedback(Feedback),
    /// A subject the architect does not handle, or a packet for another agent:
    /// ignored with a notice (never an error).
    Ignored { reason: String },
}

/// Everything a design needs from the inbound scope packet. Structured fields are kept
/// as JSON so they travel to the code director exactly as they came.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Scope {
    pub task_summary: String,
    pub project_name: String,
    pub requirements: String,
    pub original_intent: String,
    pub structured_requirements: Vec<Value>,
    pub user_stories: Vec<Value>,
    pub nfrs: Vec<Value>,
    pub spec_metadata: Map<String, Value>,
    pub ux_design: Option<String>,
    pub impact_report: Option<Value>,
    pub subject: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    #[serde(rename = "READY")]
    Ready,
    #[serde(rename = "QUESTIONS")]
    Questions,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feedback {
    pub verdict: Verdict,
    #[serde(default)]
    pub questions: Vec<Question>,
    #[serde(default)]
    pub design_cycle: Option<u32>,
    #[serde(default)]
    pub answers: Vec<Answer>,
    #[serde(default)]
    pub project_dir: Option<String>,
    #[serde(default)]
    pub marks: ReviewMarks,
    /// READY finalizes even with an edit conflict left (`payload.force`).
    #[serde(default)]
    pub force: bool,
}

/// What a reviewer may do to the review itself besides asking: close threads by id,
/// settle or unsettle artifacts, requirements and ADRs (`file_tree`, `FR-02`, `ADR-001`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReviewMarks {
    #[serde(default)]
    pub close: Vec<String>,
    #[serde(default)]
    pub settled: Vec<String>,
    #[serde(default)]
    pub unsettled: Vec<String>,
}

impl ReviewMarks {
    pub fn is_empty(&self) -> bool {
        self.close.is_empty() && self.settled.is_empty() && self.unsettled.is_empty()
    }
}

impl Feedback {
    /// Verdict QUESTIONS on `cycle`, as the workbench sends it.
    pub fn questions(cycle: u32, questions: Vec<Question>, answers: Vec<Answer>) -> Feedback {
        Feedback {
            verdict: Verdict::Questions,
            questions,
            design_cycle: Some(cycle),
            answers,
            project_dir: None,
            marks: ReviewMarks::default(),
            force: false,
        }
    }

    /// Verdict READY on `cycle`, as the workbench sends it.
    pub fn ready(cycle: u32) -> Feedback {
        Feedback {
            verdict: Verdict::Ready,
            questions: Vec::new(),
            design_cycle: Some(cycle),
            answers: Vec::new(),
            project_dir: None,
            marks: ReviewMarks::default(),
            force: false,
        }
    }
}

impl Packet {
    /// Parses packet JSON. `source_name` (a file name or `<stdin>`) prefixes every error.
    pub fn parse(source_name: &str, text: &str) -> Result<Packet, CxpError> {
        let value: Value = serde_json::from_str(text).map_err(|e| CxpError::Syntax {
            source_name: source_name.to_string(),
            line: e.line(),
            column: e.column(),
            message: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or_default()
                .to_string(),
        })?;
        let field = |field: &str, message: String| CxpError::Field {
            source_name: source_name.to_string(),
            field: field.to_string(),
            message,
        };
        let Value::Object(mut object) = value else {
            return Err(field("(root)", "expected a JSON object".into()));
        };
        if let Some((pointer, line, column)) = crate::intake::duplicate_key(text) {
            return Err(CxpError::Syntax {
                source_name: source_name.to_string(),
                line,
                column,
                message: format!("duplicate key {pointer} (a packet states each field once)"),
            });
        }
        let header = object
            .remove("header")
            .ok_or_else(|| field("header", "missing".into()))?;
        let header = parse_header(header).map_err(|(f, m)| field(&f, m))?;
        let payload = match object.remove("payload") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => map,
            Some(other) => {
                return Err(field(
                    "payload",
                    format!("expected an object, got {}", kind(&other)),
                ));
            }
        };
        Ok(Packet { header, payload })
    }

    /// Builds an outbound packet from the architect.
    pub fn outbound(
        to: &str,
        subject: &str,
        thread_id: &str,
        trace_id: &str,
        payload: Map<String, Value>,
    ) -> Packet {
        Packet {
            header: Header {
                from_agent: ARCHITECT.to_string(),
                to_agent: to.to_string(),
                subject: subject.to_string(),
                thread_id: thread_id.to_string(),
                trace_id: Some(trace_id.to_string()),
            },
            payload,
        }
    }

    /// The trace id, generating one when the sender left it out.
    pub fn ensure_trace_id(&mut self) -> String {
        match &self.header.trace_id {
            Some(id) if !id.is_empty() => id.clone(),
            _ => {
                let id = uuid::Uuid::new_v4().to_string();
                self.header.trace_id = Some(id.clone());
                id
            }
        }
    }

    /// Routes the packet: refuses unknown senders, ignores what is not for the architect,
    /// validates the payload of what is.
    pub fn classify(&self, source_name: &str) -> Result<Inbound, CxpError> {
        let field = |field: &str, message: String| CxpError::Field {
            source_name: source_name.to_string(),
            field: field.to_string(),
            message,
        };
        if !ALLOWED_SENDERS.contains(&self.header.from_agent.as_str()) {
            return Err(CxpError::RefusedSender {
                source_name: source_name.to_string(),
                sender: self.header.from_agent.clone(),
            });
        }
        if self.header.to_agent != ARCHITECT {
            return Ok(Inbound::Ignored {
                reason: format!("addressed to {}, not {ARCHITECT}", self.header.to_agent),
            });
        }
        if self.header.thread_id.trim().is_empty() {
            return Err(field("header.thread_id", "must not be empty".into()));
        }
        if let Some(allowed) = senders_of(&self.header.subject)
            && !allowed.contains(&self.header.from_agent.as_str())
        {
            return Err(field(
                "header.from_agent",
                format!(
                    "'{}' may not send '{}' (only {})",
                    self.header.from_agent,
                    self.header.subject,
                    allowed.join(", ")
                ),
            ));
        }
        match self.header.subject.as_str() {
            "scope_validated" | "ux_complete" | "implement" => {
                let mut scope = scope_from(&self.payload).map_err(|(f, m)| field(&f, m))?;
                scope.subject = self.header.subject.clone();
                Ok(Inbound::Design(Box::new(scope)))
            }
            "design_feedback" => {
                let feedback = feedback_from(&self.payload).map_err(|(f, m)| field(&f, m))?;
                Ok(Inbound::Feedback(feedback))
            }
            other => Ok(Inbound::Ignored {
                reason: format!("subject '{other}' is not handled by {ARCHITECT}"),
            }),
        }
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Who may send a subject the architect handles: design subjects come from the
/// product or UX side, feedback from the reviewer.
fn senders_of(subject: &str) -> Option<&'static [&'static str]> {
    match subject {
        "scope_validated" | "ux_complete" | "implement" => Some(&["U:PM", "U:Ux"]),
        "design_feedback" => Some(&[JUNIOR]),
        _ => None,
    }
}

type FieldError = (String, String);

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn parse_header(value: Value) -> Result<Header, FieldError> {
    let Value::Object(map) = value else {
        return Err((
            "header".into(),
            format!("expected an object, got {}", kind(&value)),
        ));
    };
    for key in map.keys() {
        if !["from_agent", "to_agent", "subject", "thread_id", "trace_id"].contains(&key.as_str()) {
            return Err((format!("header.{key}"), "unknown field".into()));
        }
    }
    let text = |key: &str, required: bool| -> Result<Option<String>, FieldError> {
        match map.get(key) {
            None | Some(Value::Null) if required => {
                Err((format!("header.{key}"), "missing".into()))
            }
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err((
                format!("header.{key}"),
                format!("expected a string, got {}", kind(other)),
            )),
        }
    };
    Ok(Header {
        from_agent: text("from_agent", true)?.unwrap_or_default(),
        to_agent: text("to_agent", true)?.unwrap_or_default(),
        subject: text("subject", true)?.unwrap_or_default(),
        thread_id: text("thread_id", true)?.unwrap_or_default(),
        trace_id: text("trace_id", false)?,
    })
}

fn opt_string(payload: &Map<String, Value>, key: &str) -> Result<String, FieldError> {
    match payload.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err((
            format!("payload.{key}"),
            format!("expected a string, got {}", kind(other)),
        )),
    }
}

fn opt_array(payload: &Map<String, Value>, key: &str) -> Result<Vec<Value>, FieldError> {
    match payload.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => Ok(items.clone()),
        Some(other) => Err((
            format!("payload.{key}"),
            format!("expected an array, got {}", kind(other)),
        )),
    }
}

/// Requirements may come as one text or as a list of lines.
fn requirements_text(payload: &Map<String, Value>) -> Result<String, FieldError> {
    match payload.get("requirements") {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(items)) => Ok(items
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{}. {}", i + 1, value_text(v)))
            .collect::<Vec<_>>()
            .join("\n")),
        Some(other) => Err((
            "payload.requirements".into(),
            format!("expected a string or an array, got {}", kind(other)),
        )),
    }
}

/// A JSON value as prompt text: strings bare, anything else as compact JSON.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn scope_from(payload: &Map<String, Value>) -> Result<Scope, FieldError> {
    let task_summary = opt_string(payload, "task_summary")?;
    let requirements = requirements_text(payload)?;
    if task_summary.trim().is_empty() && requirements.trim().is_empty() {
        return Err((
            "payload.task_summary".into(),
            "missing: a design needs task_summary or requirements".into(),
        ));
    }
    let spec_metadata = match payload.get("spec_metadata") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => {
            return Err((
                "payload.spec_metadata".into(),
                format!("expected an object, got {}", kind(other)),
            ));
        }
    };
    let ux_design = match payload.get("ux_design") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(serde_json::to_string_pretty(other).unwrap_or_default()),
    };
    let impact_report = payload
        .get("parameters")
        .and_then(|p| p.get("_impact_report"))
        .cloned();
    Ok(Scope {
        task_summary,
        project_name: opt_string(payload, "project_name")?,
        requirements,
        original_intent: opt_string(payload, "original_intent")?,
        structured_requirements: opt_array(payload, "structured_requirements")?,
        user_stories: opt_array(payload, "user_stories")?,
        nfrs: opt_array(payload, "nfrs")?,
        spec_metadata,
        ux_design,
        impact_report,
        subject: String::new(),
    })
}

pub(crate) fn feedback_from(payload: &Map<String, Value>) -> Result<Feedback, FieldError> {
    let verdict = match payload.get("verdict") {
        None | Some(Value::Null) => {
            return Err((
                "payload.verdict".into(),
                "missing (READY or QUESTIONS)".into(),
            ));
        }
        Some(Value::String(s)) if s == "READY" => Verdict::Ready,
        Some(Value::String(s)) if s == "QUESTIONS" => Verdict::Questions,
        Some(other) => {
            return Err((
                "payload.verdict".into(),
                format!("expected \"READY\" or \"QUESTIONS\", got {other}"),
            ));
        }
    };
    let mut questions = Vec::new();
    for (i, q) in opt_array(payload, "questions")?.into_iter().enumerate() {
        match q {
            Value::String(s) if !s.trim().is_empty() => questions.push(Question::new(s)),
            Value::String(_) => {}
            Value::Object(_) => {
                let q: Question = serde_json::from_value(q).map_err(|e| {
                    (
                        format!("payload.questions[{i}]"),
                        format!(
                            "expected a string or {{text, anchor: {{section, line, quote}}}}: {e}"
                        ),
                    )
                })?;
                if !q.text.trim().is_empty() {
                    questions.push(q);
                }
            }
            other => {
                return Err((
                    format!("payload.questions[{i}]"),
                    format!("expected a string or an object, got {}", kind(&other)),
                ));
            }
        }
    }
    let design_cycle = match payload.get("design_cycle") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_u64() {
            Some(c) if c >= 1 && c <= u32::MAX as u64 => Some(c as u32),
            _ => {
                return Err((
                    "payload.design_cycle".into(),
                    format!("expected an integer >= 1, got {n}"),
                ));
            }
        },
        Some(other) => {
            return Err((
                "payload.design_cycle".into(),
                format!("expected an integer, got {}", kind(other)),
            ));
        }
    };
    let mut answers = Vec::new();
    for (i, a) in opt_array(payload, "answers")?.into_iter().enumerate() {
        let answer: Answer = serde_json::from_value(a).map_err(|e| {
            (
                format!("payload.answers[{i}]"),
                format!("expected {{question, answer}}: {e}"),
            )
        })?;
        answers.push(answer);
    }
    let marks = ReviewMarks {
        close: string_list(payload, "close")?,
        settled: string_list(payload, "settled")?,
        unsettled: string_list(payload, "unsettled")?,
    };
    if verdict == Verdict::Questions
        && questions.is_empty()
        && answers.is_empty()
        && marks.is_empty()
    {
        return Err((
            "payload.questions".into(),
            "verdict QUESTIONS needs at least one question".into(),
        ));
    }
    Ok(Feedback {
        verdict,
        questions,
        design_cycle,
        answers,
        project_dir: opt_string(payload, "project_dir")
            .ok()
            .filter(|s| !s.is_empty()),
        marks,
        force: match payload.get("force") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err((
                    "payload.force".into(),
                    format!("expected true or false, got {}", kind(other)),
                ));
            }
        },
    })
}

/// An optional array of non-empty strings.
fn string_list(payload: &Map<String, Value>, key: &str) -> Result<Vec<String>, FieldError> {
    let mut out = Vec::new();
    for (i, item) in opt_array(payload, key)?.into_iter().enumerate() {
        match item {
            Value::String(s) if !s.trim().is_empty() => out.push(s.trim().to_string()),
            other => {
                return Err((
                    format!("payload.{key}[{i}]"),
                    format!("expected a non-empty string, got {}", kind(&other)),
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE_1: &str = r#"{
      "header": {"from_agent": "U:PM", "to_agent": "U:Ar", "subject": "scope_validated", "thread_id": "thread-042"},
      "payload": {
        "task_summary": "Build a task management CLI with SQLite storage",
        "project_name": "taskman",
        "requirements": "1. Add tasks with name and due date\n2. List all tasks\n3. Mark tasks complete",
        "original_intent": "A simple task manager for personal use",
        "structured_requirements": ["Add task", "List tasks", "Complete task"],
        "user_stories": [], "nfrs": ["Response time < 200ms"], "spec_metadata": {},
        "scope_data": {"complexity_score": 0.3, "estimated_files": 5}
      }
    }"#;

    fn with_subject(subject: &str, from: &str) -> Packet {
        let mut p = Packet::parse("t.json", EXAMPLE_1).unwrap();
        p.header.subject = subject.into();
        p.header.from_agent = from.into();
        p
    }

    #[test]
    fn design_subjects_route_to_design() {
        for (subject, from) in [
            ("scope_validated", "U:PM"),
            ("ux_complete", "U:Ux"),
            ("implement", "U:PM"),
        ] {
            match with_subject(subject, from).classify("t.json").unwrap() {
                Inbound::Design(scope) => {
                    assert_eq!(scope.project_name, "taskman");
                    assert_eq!(scope.subject, subject);
                    assert_eq!(scope.structured_requirements.len(), 3);
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn unknown_subject_is_ignored_not_an_error() {
        assert!(matches!(
            with_subject("unknown_subject", "U:PM")
                .classify("t.json")
                .unwrap(),
            Inbound::Ignored { .. }
        ));
    }

    #[test]
    fn refused_sender() {
        let err = with_subject("scope_validated", "U:Evil")
            .classify("t.json")
            .unwrap_err();
        assert!(err.to_string().contains("'U:Evil'"), "{err}");
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let err = Packet::parse("bad.json", "{\n  \"header\": {,\n}")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("bad.json:2:"), "{err}");
    }

    #[test]
    fn missing_header_field_is_named() {
        let err = Packet::parse(
            "p.json",
            r#"{"header": {"from_agent": "U:PM", "to_agent": "U:Ar", "subject": "x"}}"#,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(err, "p.json: header.thread_id: missing");
    }

    #[test]
    fn trace_id_is_generated_when_missing() {
        let mut p = Packet::parse("t.json", EXAMPLE_1).unwrap();
        let id = p.ensure_trace_id();
        assert!(!id.is_empty());
        assert_eq!(p.ensure_trace_id(), id);
    }

    #[test]
    fn feedback_is_validated() {
        let mut p = with_subject("design_feedback", "J:Junior");
        p.payload = serde_json::from_str(r#"{"verdict": "MAYBE"}"#).unwrap();
        let err = p.classify("f.json").unwrap_err().to_string();
        assert!(err.contains("payload.verdict"), "{err}");
        p.payload = serde_json::from_str(
            r#"{"verdict": "QUESTIONS", "design_cycle": 1, "questions": ["a?", "b?"],
            "answers": [{"question": "q", "answer": "a"}]}"#,
        )
        .unwrap();
        match p.classify("f.json").unwrap() {
            Inbound::Feedback(f) => {
                assert_eq!(f.verdict, Verdict::Questions);
                assert_eq!(f.questions, vec![Question::new("a?"), Question::new("b?")]);
                assert_eq!(f.design_cycle, Some(1));
                assert_eq!(f.answers.len(), 1);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn impact_report_and_ux_design_are_extracted() {
        let mut p = with_subject("ux_complete", "U:Ux");
        p.payload
            .insert("ux_design".into(), serde_json::json!({"screens": ["list"]}));
        p.payload.insert(
            "parameters".into(),
            serde_json::json!({"_impact_report": {"severity": "low"}}),
        );
        let Inbound::Design(scope) = p.classify("t.json").unwrap() else {
            panic!()
        };
        assert!(scope.ux_design.unwrap().contains("screens"));
        assert_eq!(scope.impact_report.unwrap()["severity"], "low");
    }
}
