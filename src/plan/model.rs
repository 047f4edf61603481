//! The execution plan as the implementer pipeline runs it: ordered stages and the
//! conditional edges between them.

use serde::{Deserialize, Serialize};

/// The stage graph handed to the code director with the finalized design.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExecutionPlan {
    pub goal: String,
    pub stages: Vec<Stage>,
    pub edges: Vec<Edge>,
}

/// One unit of work: who does it, with which prompt, producing which artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stage {
    pub id: String,
    pub role: String,
    pub prompt: String,
    /// The artifact id this stage emits; `needs` and edge conditions refer to it.
    pub produces: String,
    /// An id from the kind registry.
    pub kind: String,
    #[serde(default)]
    pub needs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
}

/// A transition taken when its condition holds on the from-stage's artifact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub from: Endpoint,
    pub to: Endpoint,
    pub condition: Condition,
}

/// An edge end: a stage, or the end of the workflow.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Endpoint {
    Stage(String),
    Done,
}

/// The literal that names the end of the workflow in `from`/`to`.
pub const DONE: &str = "done";

impl From<String> for Endpoint {
    fn from(s: String) -> Self {
        if s == DONE {
            Endpoint::Done
        } else {
            Endpoint::Stage(s)
        }
    }
}

impl From<&str> for Endpoint {
    fn from(s: &str) -> Self {
        Endpoint::from(s.to_string())
    }
}

impl From<Endpoint> for String {
    fn from(e: Endpoint) -> Self {
        match e {
            Endpoint::Stage(s) => s,
            Endpoint::Done => DONE.to_string(),
        }
    }
}

impl Endpoint {
    pub fn as_str(&self) -> &str {
        match self {
            Endpoint::Stage(s) => s,
            Endpoint::Done => DONE,
        }
    }
}

/// When an edge fires.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Condition {
    /// The artifact passed its kind's validation.
    ArtifactValidated { artifact_id: String },
    /// A field of the artifact compares equal (or not) to a value: review loops.
    ArtifactFieldEquals {
        artifact_id: String,
        field: String,
        value: serde_json::Value,
        #[serde(default)]
        operator: Operator,
    },
}

impl Condition {
    pub fn artifact_id(&self) -> &str {
        match self {
            Condition::ArtifactValidated { artifact_id }
            | Condition::ArtifactFieldEquals { artifact_id, .. } => artifact_id,
        }
    }

    /// Short text for graphs and messages: `verdict = "approved"`, `report validated`.
    pub fn label(&self) -> String {
        match self {
            Condition::ArtifactValidated { artifact_id } => format!("{artifact_id} validated"),
            Condition::ArtifactFieldEquals {
                field,
                value,
                operator,
                ..
            } => {
                let shown = match value {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                format!("{field} {} {shown}", operator.symbol())
            }
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    #[default]
    Eq,
    Neq,
}

impl Operator {
    pub fn symbol(self) -> &'static str {
        match self {
            Operator::Eq => "=",
            Operator::Neq => "≠",
        }
    }

    pub fn from_name(name: &str) -> Option<Operator> {
        match name {
            "eq" => Some(Operator::Eq),
            "neq" => Some(Operator::Neq),
            _ => None,
        }
    }
}

/// The only tool names a file-writing stage may list.
pub const ALLOWED_TOOLS: [&str; 4] = ["file_read", "file_write", "file_edit", "ShellTool"];

/// Artifact ids that exist before any stage runs, unless the caller adds more.
pub const DEFAULT_GIVEN: &str = "analysis";

/// What the design loop gives a plan besides `analysis`: the finalized design itself.
/// `volk plan check` on a project made before the loop recorded its given set assumes
/// the same, so it reports what the loop reported.
pub const LOOP_GIVEN: &str = "design_docs";

/// `lower_snake_case`: a lowercase letter, then lowercase letters and digits in
/// groups separated by single underscores.
pub fn is_snake_case(s: &str) -> bool {
    let mut chars = s.chars();
    if !matches!(chars.next(), Some('a'..='z')) {
        return false;
    }
    let mut previous_underscore = false;
    for c in chars {
        match c {
            'a'..='z' | '0'..='9' => previous_underscore = false,
            '_' if !previous_underscore => previous_underscore = true,
            _ => return false,
        }
    }
    !previous_underscore
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case() {
        for ok in ["a", "implement_app", "stage2", "a_1_b"] {
            assert!(is_snake_case(ok), "{ok}");
        }
        for bad in [
            "",
            "A",
            "implementApp",
            "_a",
            "a_",
            "a__b",
            "1a",
            "a-b",
            "a b",
        ] {
            assert!(!is_snake_case(bad), "{bad}");
        }
    }

    #[test]
    fn round_trips_through_serde() {
        let plan = ExecutionPlan {
            goal: "g".into(),
            stages: vec![Stage {
                id: "s".into(),
                role: "r".into(),
                prompt: "p".into(),
                produces: "o".into(),
                kind: "analysis".into(),
                needs: vec![],
                tools: vec![],
            }],
            edges: vec![Edge {
                from: "s".into(),
                to: Endpoint::Done,
                condition: Condition::ArtifactFieldEquals {
                    artifact_id: "o".into(),
                    field: "verdict".into(),
                    value: "approved".into(),
                    operator: Operator::Neq,
                },
            }],
        };
        let text = serde_json::to_string(&plan).unwrap();
        assert!(text.contains(r#""to":"done""#));
        assert!(text.contains(r#""type":"artifact_field_equals""#));
        assert!(text.contains(r#""operator":"neq""#));
        let back: ExecutionPlan = serde_json::from_str(&text).unwrap();
        assert_eq!(back, plan);
    }
}
