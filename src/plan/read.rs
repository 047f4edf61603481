//! From a JSON tree to an [`ExecutionPlan`], keeping the source range of every field
//! so that the rules can point at it. Shape problems (a missing field, a number where
//! a string belongs) are reported here; when there is one, the rules do not run.

use std::ops::Range;

use super::diagnostic::{Code, Diagnostic, pointer_segment};
use super::json::{Member, Node, Value};
use super::model::{Condition, Edge, Endpoint, ExecutionPlan, Operator, Stage};

/// Where each field of the plan sits in the source, index-aligned with the plan.
#[derive(Debug, Clone, Default)]
pub struct PlanSpans {
    pub goal: Range<usize>,
    pub stages: Range<usize>,
    pub edges: Range<usize>,
    pub stage: Vec<StageSpans>,
    pub edge: Vec<EdgeSpans>,
}

#[derive(Debug, Clone, Default)]
pub struct StageSpans {
    pub id: Range<usize>,
    pub role: Range<usize>,
    pub prompt: Range<usize>,
    pub produces: Range<usize>,
    pub kind: Range<usize>,
    pub needs: Vec<Range<usize>>,
    /// The `tools` array, when present.
    pub tools: Option<Range<usize>>,
    pub tool: Vec<Range<usize>>,
}

#[derive(Debug, Clone, Default)]
pub struct EdgeSpans {
    pub whole: Range<usize>,
    pub from: Range<usize>,
    pub to: Range<usize>,
    pub condition: Range<usize>,
    pub artifact_id: Range<usize>,
    pub field: Option<Range<usize>>,
    pub value: Option<Range<usize>>,
}

/// An optional string array as read: values, their spans, and the array's span
/// when present.
type StringList = (Vec<String>, Vec<Range<usize>>, Option<Range<usize>>);

/// Reads the plan; `None` when its shape is wrong (the reasons are in `diags`).
pub fn read(root: &Node<'_>, diags: &mut Vec<Diagnostic>) -> Option<(ExecutionPlan, PlanSpans)> {
    let mut reader = Reader {
        diags,
        broken: false,
    };
    let result = reader.plan(root);
    if reader.broken { None } else { result }
}

struct Reader<'d> {
    diags: &'d mut Vec<Diagnostic>,
    /// Set by any shape error, so that a partly read plan is never checked.
    broken: bool,
}

/// The members of one object, checked for duplicate and unknown keys.
struct Fields<'n, 's> {
    members: &'n [Member<'s>],
    span: Range<usize>,
    pointer: Ptr,
    what: &'static str,
}

/// Where an object sits, rendered as a JSON pointer only when a diagnostic needs it.
#[derive(Debug, Clone, Copy)]
enum Ptr {
    Root,
    Stage(usize),
    Edge(usize),
    Condition(usize),
}

impl Ptr {
    fn render(self) -> String {
        match self {
            Ptr::Root => String::new(),
            Ptr::Stage(i) => format!("/stages/{i}"),
            Ptr::Edge(i) => format!("/edges/{i}"),
            Ptr::Condition(i) => format!("/edges/{i}/condition"),
        }
    }
}

impl<'n, 's> Fields<'n, 's> {
    fn get(&self, key: &str) -> Option<&'n Member<'s>> {
        self.members.iter().find(|m| m.key == key)
    }

    fn child(&self, key: &str) -> String {
        format!("{}/{key}", self.pointer.render())
    }

    /// The opening brace: where "missing field" errors point.
    fn brace(&self) -> Range<usize> {
        self.span.start..self.span.start + 1
    }
}

impl Reader<'_> {
    fn report(&mut self, d: Diagnostic) {
        if d.is_error() {
            self.broken = true;
        }
        self.diags.push(d);
    }

    fn wrong_type(&mut self, node: &Node<'_>, pointer: &str, expected: &str, what: &str) {
        self.report(Diagnostic::new(
            Code::WrongType,
            format!(
                "{what} must be {expected}, found {}",
                node.value.type_name()
            ),
            pointer,
            node.span.clone(),
        ));
    }

    fn object<'n, 's>(
        &mut self,
        node: &'n Node<'s>,
        pointer: Ptr,
        what: &'static str,
        known: &[&str],
    ) -> Option<Fields<'n, 's>> {
        let Value::Object(members) = &node.value else {
            self.wrong_type(node, &pointer.render(), "an object", what);
            return None;
        };
        let path = |m: &Member<'_>| format!("{}/{}", pointer.render(), pointer_segment(&m.key));
        for (i, m) in members.iter().enumerate() {
            if let Some(first) = members[..i].iter().find(|f| f.key == m.key) {
                let path = path(m);
                self.report(
                    Diagnostic::new(
                        Code::DuplicateKey,
                        format!("key `{}` appears twice in {what}", m.key),
                        path.clone(),
                        m.key_span.clone(),
                    )
                    .with_related(
                        "first given here",
                        path,
                        first.key_span.clone(),
                    ),
                );
            } else if !known.contains(&m.key.as_ref()) {
                self.report(
                    Diagnostic::new(
                        Code::UnknownField,
                        format!("{what} has no field `{}`; it is ignored", m.key),
                        path(m),
                        m.key_span.clone(),
                    )
                    .with_help(format!("known fields: {}", known.join(", "))),
                );
            }
        }
        Some(Fields {
            members,
            span: node.span.clone(),
            pointer,
            what,
        })
    }

    /// One diagnostic naming every absent key, rather than one per key.
    fn require(&mut self, fields: &Fields<'_, '_>, keys: &[&str]) {
        let absent: Vec<String> = keys
            .iter()
            .filter(|k| fields.get(k).is_none())
            .map(|k| format!("`{k}`"))
            .collect();
        if absent.is_empty() {
            return;
        }
        let named = match fields.get("id").map(|m| &m.value.value) {
            Some(Value::String(id)) => format!("{} `{id}`", fields.what.trim_start_matches("a ")),
            _ => fields.what.to_string(),
        };
        self.report(Diagnostic::new(
            Code::MissingField,
            format!("{named} lacks {}", absent.join(", ")),
            fields.pointer.render(),
            fields.brace(),
        ));
    }

    /// A key that [`Self::require`] has already checked.
    fn required<'n, 's>(&mut self, fields: &Fields<'n, 's>, key: &str) -> Option<&'n Node<'s>> {
        fields.get(key).map(|m| &m.value)
    }

    fn string(&mut self, fields: &Fields<'_, '_>, key: &str) -> Option<(String, Range<usize>)> {
        let node = self.required(fields, key)?;
        self.string_node(node, || fields.child(key), || format!("`{key}`"))
    }

    /// The pointer and description are only built when the node is not a string:
    /// a large plan has tens of thousands of fields and nearly all of them are fine.
    fn string_node(
        &mut self,
        node: &Node<'_>,
        pointer: impl FnOnce() -> String,
        what: impl FnOnce() -> String,
    ) -> Option<(String, Range<usize>)> {
        match &node.value {
            Value::String(s) => Some((s.to_string(), node.span.clone())),
            _ => {
                self.wrong_type(node, &pointer(), "a string", &what());
                None
            }
        }
    }

    /// An optional array of strings: absent reads as empty.
    fn string_list(&mut self, fields: &Fields<'_, '_>, key: &str) -> Option<StringList> {
        let Some(member) = fields.get(key) else {
            return Some((Vec::new(), Vec::new(), None));
        };
        let Value::Array(items) = &member.value.value else {
            self.wrong_type(
                &member.value,
                &fields.child(key),
                "an array of strings",
                &format!("`{key}`"),
            );
            return None;
        };
        let mut values = Vec::with_capacity(items.len());
        let mut spans = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match self.string_node(
                item,
                || format!("{}/{i}", fields.child(key)),
                || format!("each entry of `{key}`"),
            ) {
                Some((s, span)) => {
                    values.push(s);
                    spans.push(span);
                }
                None => ok = false,
            }
        }
        ok.then_some((values, spans, Some(member.value.span.clone())))
    }

    fn array<'n, 's>(
        &mut self,
        fields: &Fields<'n, 's>,
        key: &str,
    ) -> Option<(&'n [Node<'s>], Range<usize>)> {
        let node = self.required(fields, key)?;
        match &node.value {
            Value::Array(items) => Some((items, node.span.clone())),
            _ => {
                self.wrong_type(node, &fields.child(key), "an array", &format!("`{key}`"));
                None
            }
        }
    }

    fn plan(&mut self, root: &Node<'_>) -> Option<(ExecutionPlan, PlanSpans)> {
        let fields = self.object(root, Ptr::Root, "the plan", &["goal", "stages", "edges"])?;
        let goal = self.string(&fields, "goal");
        let stage_nodes = self.array(&fields, "stages");
        let edge_nodes = self.array(&fields, "edges");

        let stage_count = stage_nodes.as_ref().map_or(0, |(n, _)| n.len());
        let mut stages = Vec::with_capacity(stage_count);
        let mut stage_spans = Vec::with_capacity(stage_count);
        if let Some((nodes, _)) = &stage_nodes {
            for (i, node) in nodes.iter().enumerate() {
                if let Some((stage, spans)) = self.stage(node, i) {
                    stages.push(stage);
                    stage_spans.push(spans);
                }
            }
        }
        let edge_count = edge_nodes.as_ref().map_or(0, |(n, _)| n.len());
        let mut edges = Vec::with_capacity(edge_count);
        let mut edge_spans = Vec::with_capacity(edge_count);
        if let Some((nodes, _)) = &edge_nodes {
            for (i, node) in nodes.iter().enumerate() {
                if let Some((edge, spans)) = self.edge(node, i) {
                    edges.push(edge);
                    edge_spans.push(spans);
                }
            }
        }
        let (goal, goal_span) = goal?;
        let (_, stages_span) = stage_nodes?;
        let (_, edges_span) = edge_nodes?;
        Some((
            ExecutionPlan {
                goal,
                stages,
                edges,
            },
            PlanSpans {
                goal: goal_span,
                stages: stages_span,
                edges: edges_span,
                stage: stage_spans,
                edge: edge_spans,
            },
        ))
    }

    fn stage(&mut self, node: &Node<'_>, index: usize) -> Option<(Stage, StageSpans)> {
        let fields = self.object(
            node,
            Ptr::Stage(index),
            "a stage",
            &["id", "role", "prompt", "produces", "kind", "needs", "tools"],
        )?;
        self.require(&fields, &["id", "role", "prompt", "produces", "kind"]);
        let id = self.string(&fields, "id");
        let role = self.string(&fields, "role");
        let prompt = self.string(&fields, "prompt");
        let produces = self.string(&fields, "produces");
        let kind = self.string(&fields, "kind");
        let needs = self.string_list(&fields, "needs");
        let tools = self.string_list(&fields, "tools");
        let ((id, id_span), (role, role_span), (prompt, prompt_span)) = (id?, role?, prompt?);
        let ((produces, produces_span), (kind, kind_span)) = (produces?, kind?);
        let ((needs, needs_spans, _), (tools, tool_spans, tools_span)) = (needs?, tools?);
        Some((
            Stage {
                id,
                role,
                prompt,
                produces,
                kind,
                needs,
                tools,
            },
            StageSpans {
                id: id_span,
                role: role_span,
                prompt: prompt_span,
                produces: produces_span,
                kind: kind_span,
                needs: needs_spans,
                tools: tools_span,
                tool: tool_spans,
            },
        ))
    }

    fn edge(&mut self, node: &Node<'_>, index: usize) -> Option<(Edge, EdgeSpans)> {
        let fields = self.object(
            node,
            Ptr::Edge(index),
            "an edge",
            &["from", "to", "condition"],
        )?;
        self.require(&fields, &["from", "to", "condition"]);
        let from = self.string(&fields, "from");
        let to = self.string(&fields, "to");
        let condition = self
            .required(&fields, "condition")
            .and_then(|c| self.condition(c, Ptr::Condition(index)));
        let ((from, from_span), (to, to_span)) = (from?, to?);
        let (condition, mut spans) = condition?;
        spans.whole = node.span.clone();
        spans.from = from_span;
        spans.to = to_span;
        Some((
            Edge {
                from: Endpoint::from(from),
                to: Endpoint::from(to),
                condition,
            },
            spans,
        ))
    }

    fn condition(&mut self, node: &Node<'_>, pointer: Ptr) -> Option<(Condition, EdgeSpans)> {
        let fields = self.object(
            node,
            pointer,
            "a condition",
            &["type", "artifact_id", "field", "value", "operator"],
        )?;
        let compares = matches!(
            fields.get("type").map(|m| &m.value.value),
            Some(Value::String(t)) if t == "artifact_field_equals"
        );
        if compares {
            self.require(&fields, &["type", "artifact_id", "field", "value"]);
        } else {
            self.require(&fields, &["type", "artifact_id"]);
        }
        let (kind, kind_span) = self.string(&fields, "type")?;
        let artifact = self.string(&fields, "artifact_id");
        let mut spans = EdgeSpans {
            condition: node.span.clone(),
            ..EdgeSpans::default()
        };
        match kind.as_str() {
            "artifact_validated" => {
                let (artifact_id, artifact_span) = artifact?;
                spans.artifact_id = artifact_span;
                Some((Condition::ArtifactValidated { artifact_id }, spans))
            }
            "artifact_field_equals" => {
                let field = self.string(&fields, "field");
                let value = self.required(&fields, "value");
                let operator = match fields.get("operator") {
                    None => Some(Operator::Eq),
                    Some(m) => {
                        let name = self.string_node(
                            &m.value,
                            || fields.child("operator"),
                            || "`operator`".into(),
                        )?;
                        let op = Operator::from_name(&name.0);
                        if op.is_none() {
                            self.report(Diagnostic::new(
                                Code::UnknownName,
                                format!("unknown operator `{}`; use `eq` or `neq`", name.0),
                                fields.child("operator"),
                                name.1,
                            ));
                        }
                        op
                    }
                };
                let ((artifact_id, artifact_span), (field, field_span)) = (artifact?, field?);
                let value = value?;
                spans.artifact_id = artifact_span;
                spans.field = Some(field_span);
                spans.value = Some(value.span.clone());
                Some((
                    Condition::ArtifactFieldEquals {
                        artifact_id,
                        field,
                        value: value.to_json(),
                        operator: operator?,
                    },
                    spans,
                ))
            }
            other => {
                self.report(Diagnostic::new(
                    Code::UnknownName,
                    format!(
                        "unknown condition type `{other}`; use `artifact_validated` or `artifact_field_equals`"
                    ),
                    fields.child("type"),
                    kind_span,
                ));
                None
            }
        }
    }
}
