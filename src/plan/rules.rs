//! The rules a well-shaped plan must obey. Each finding carries its stable code; the
//! checks are linear in the size of the plan (hash maps, one pass per concern).

use std::collections::{HashMap as StdHashMap, HashSet as StdHashSet};

use foldhash::fast::FixedState;
use std::ops::Range;

use super::diagnostic::{Code, Diagnostic};
use super::kinds::KindRegistry;
use super::model::{
    ALLOWED_TOOLS, Condition, DONE, Endpoint, ExecutionPlan, Operator, is_snake_case,
};
use super::read::PlanSpans;

/// Keys are ids from a file the person or the model wrote; there is no adversary to
/// defend against, so a fixed fast hash replaces SipHash (a third of the rule time).
type HashMap<K, V> = StdHashMap<K, V, FixedState>;
type HashSet<K> = StdHashSet<K, FixedState>;

/// A field test leaving one stage: (from, artifact, field, value as JSON text).
type FieldCheck<'a> = (usize, &'a str, &'a str, String);
/// What makes two edges leave a stage on the same condition: (from, artifact, and
/// for field tests the field, value as JSON text and operator).
type EdgeKey<'a> = (usize, &'a str, Option<(&'a str, String, Operator)>);
/// The first `eq` and the first `neq` edge of one field test.
type LoopHalves = (Option<usize>, Option<usize>);

/// Where an edge end resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Stage(usize),
    Done,
}

struct Checker<'a> {
    plan: &'a ExecutionPlan,
    spans: &'a PlanSpans,
    kinds: &'a KindRegistry,
    given: HashSet<&'a str>,
    /// Stage id -> index of its first declaration.
    stage_index: HashMap<&'a str, usize>,
    /// Artifact id -> index of the first stage producing it.
    producer: HashMap<&'a str, usize>,
    out: &'a mut Vec<Diagnostic>,
    /// The help line of unknown-artifact findings, built once.
    given_list: Option<String>,
}

/// Runs every rule; `given` lists the artifacts that exist before the first stage.
pub fn check(
    plan: &ExecutionPlan,
    spans: &PlanSpans,
    kinds: &KindRegistry,
    given: &[String],
    out: &mut Vec<Diagnostic>,
) {
    let mut checker = Checker {
        plan,
        spans,
        kinds,
        given: given.iter().map(String::as_str).collect(),
        stage_index: HashMap::with_capacity_and_hasher(plan.stages.len(), FixedState::default()),
        producer: HashMap::with_capacity_and_hasher(plan.stages.len(), FixedState::default()),
        out,
        given_list: None,
    };
    checker.goal();
    for (i, stage) in plan.stages.iter().enumerate() {
        checker.producer.entry(stage.produces.as_str()).or_insert(i);
    }
    if plan.stages.is_empty() {
        checker.out.push(Diagnostic::new(
            Code::NoStages,
            "the plan has no stages",
            "/stages",
            spans.stages.clone(),
        ));
    }
    for i in 0..plan.stages.len() {
        checker.stage(i);
    }
    let targets = checker.edges();
    if !plan.stages.is_empty() {
        checker.flow(&targets);
    }
}

fn stage_path(i: usize, field: &str) -> String {
    format!("/stages/{i}/{field}")
}

fn edge_path(i: usize, field: &str) -> String {
    format!("/edges/{i}/{field}")
}

/// Stages quoted in one message at most; the rest are counted, so that a message stays
/// short however many stages it is about.
const LISTED: usize = 8;

/// Every one of a short, fixed set of names (kinds, tools, given artifacts).
fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first [`LISTED`] of `names` (which holds `total`), then how many more.
fn list_of<'n>(names: impl Iterator<Item = &'n str>, total: usize) -> String {
    let mut text = names
        .take(LISTED)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if total > LISTED {
        text.push_str(&format!(" and {} more", total - LISTED));
    }
    text
}

impl<'a> Checker<'a> {
    fn push(&mut self, d: Diagnostic) {
        self.out.push(d);
    }

    fn goal(&mut self) {
        let goal = self.plan.goal.trim();
        let span = self.spans.goal.clone();
        if goal.is_empty() {
            self.push(
                Diagnostic::new(Code::EmptyGoal, "the goal is empty", "/goal", span)
                    .with_help("state in one sentence what the pipeline delivers"),
            );
            return;
        }
        let bytes = goal.as_bytes();
        let more_sentences = bytes.windows(3).any(|w| {
            matches!(w[0], b'.' | b'!' | b'?') && w[1] == b' ' && w[2].is_ascii_uppercase()
        });
        if more_sentences {
            self.push(
                Diagnostic::new(
                    Code::GoalNotOneSentence,
                    "the goal is more than one sentence",
                    "/goal",
                    span,
                )
                .with_help("keep the goal to one sentence; details belong in stage prompts"),
            );
        }
    }

    fn stage(&mut self, i: usize) {
        let plan = self.plan;
        let stage = &plan.stages[i];
        let spans = &self.spans.stage[i];

        if stage.id == DONE {
            self.push(Diagnostic::new(
                Code::StageIdNotSnakeCase,
                "`done` is reserved for the end of the workflow and cannot name a stage",
                stage_path(i, "id"),
                spans.id.clone(),
            ));
        } else if !is_snake_case(&stage.id) {
            self.push(Diagnostic::new(
                Code::StageIdNotSnakeCase,
                format!("stage id `{}` is not snake_case", stage.id),
                stage_path(i, "id"),
                spans.id.clone(),
            ));
        }
        match self.stage_index.get(stage.id.as_str()) {
            Some(&first) => self.push(
                Diagnostic::new(
                    Code::DuplicateStageId,
                    format!("stage id `{}` is declared twice", stage.id),
                    stage_path(i, "id"),
                    spans.id.clone(),
                )
                .with_related(
                    "first declared here",
                    stage_path(first, "id"),
                    self.spans.stage[first].id.clone(),
                ),
            ),
            None => {
                self.stage_index.insert(stage.id.as_str(), i);
            }
        }

        if !is_snake_case(&stage.produces) {
            self.push(Diagnostic::new(
                Code::ProducesNotSnakeCase,
                format!("artifact id `{}` is not snake_case", stage.produces),
                stage_path(i, "produces"),
                spans.produces.clone(),
            ));
        }
        if self.given.contains(stage.produces.as_str()) {
            self.push(
                Diagnostic::new(
                    Code::DuplicateProduces,
                    format!(
                        "`{}` exists before the plan runs; a stage cannot produce it again",
                        stage.produces
                    ),
                    stage_path(i, "produces"),
                    spans.produces.clone(),
                )
                .with_help("give this stage's artifact a name of its own"),
            );
        } else if let Some(&first) = self.producer.get(stage.produces.as_str())
            && first != i
        {
            self.push(
                Diagnostic::new(
                    Code::DuplicateProduces,
                    format!(
                        "artifact `{}` is already produced by stage `{}`",
                        stage.produces, plan.stages[first].id
                    ),
                    stage_path(i, "produces"),
                    spans.produces.clone(),
                )
                .with_related(
                    "first produced here",
                    stage_path(first, "produces"),
                    self.spans.stage[first].produces.clone(),
                ),
            );
        }

        let kind = self.kinds.get(&stage.kind);
        if kind.is_none() {
            let known: Vec<&str> = self.kinds.ids().collect();
            self.push(
                Diagnostic::new(
                    Code::UnknownKind,
                    format!("unknown artifact kind `{}`", stage.kind),
                    stage_path(i, "kind"),
                    spans.kind.clone(),
                )
                .with_help(format!("available kinds: {}", list(&known))),
            );
        }

        if let (Some(kind), Some(tools_span)) = (kind, &spans.tools)
            && !kind.writes_files
            && !stage.tools.is_empty()
        {
            self.push(
                Diagnostic::new(
                    Code::ToolsOnReadOnlyStage,
                    format!(
                        "stage `{}` lists tools, but kind `{}` does not write files",
                        stage.id, kind.id
                    ),
                    stage_path(i, "tools"),
                    tools_span.clone(),
                )
                .with_help(
                    "only stages whose kind writes files (such as `file_written`) may list tools",
                ),
            );
        }
        for (j, tool) in stage.tools.iter().enumerate() {
            if !ALLOWED_TOOLS.contains(&tool.as_str()) {
                self.push(
                    Diagnostic::new(
                        Code::UnknownTool,
                        format!("unknown tool `{tool}`"),
                        format!("/stages/{i}/tools/{j}"),
                        spans.tool[j].clone(),
                    )
                    .with_help(format!("allowed tools: {}", list(&ALLOWED_TOOLS))),
                );
            }
        }

        for (field, text, span) in [
            ("role", &stage.role, &spans.role),
            ("prompt", &stage.prompt, &spans.prompt),
        ] {
            if text.trim().is_empty() {
                self.push(Diagnostic::new(
                    Code::EmptyText,
                    format!("stage `{}` has an empty `{field}`", stage.id),
                    stage_path(i, field),
                    span.clone(),
                ));
            }
        }

        for (j, need) in stage.needs.iter().enumerate() {
            let path = || format!("/stages/{i}/needs/{j}");
            let span = spans.needs[j].clone();
            if self.given.contains(need.as_str()) {
                continue;
            }
            match self.producer.get(need.as_str()) {
                Some(&k) if k < i => {}
                Some(&k) if k == i => self.push(Diagnostic::new(
                    Code::NeedsLaterArtifact,
                    format!("stage `{}` needs `{need}`, which it produces itself", stage.id),
                    path(),
                    span,
                )),
                Some(&k) => self.push(
                    Diagnostic::new(
                        Code::NeedsLaterArtifact,
                        format!(
                            "stage `{}` needs `{need}`, but `{need}` is produced later, by stage `{}`",
                            stage.id, plan.stages[k].id
                        ),
                        path(),
                        span,
                    )
                    .with_related("produced here", stage_path(k, "produces"), self.spans.stage[k].produces.clone())
                    .with_help("move the producing stage before this one, or drop the need"),
                ),
                None => self.unknown_artifact(need, path(), span),
            }
        }
    }

    fn unknown_artifact(&mut self, artifact: &str, path: String, span: Range<usize>) {
        let given = self.given_list.get_or_insert_with(|| {
            let mut given: Vec<&str> = self.given.iter().copied().collect();
            given.sort_unstable();
            list(&given)
        });
        let given = given.clone();
        self.push(
            Diagnostic::new(
                Code::UnknownArtifact,
                format!("no stage produces `{artifact}`, and it is not given before the plan runs"),
                path,
                span,
            )
            .with_help(format!("given artifacts: {given}")),
        );
    }

    fn resolve(&mut self, endpoint: &Endpoint, path: String, span: Range<usize>) -> Option<Target> {
        match endpoint {
            Endpoint::Done => Some(Target::Done),
            Endpoint::Stage(id) => match self.stage_index.get(id.as_str()) {
                Some(&i) => Some(Target::Stage(i)),
                None => {
                    self.push(Diagnostic::new(
                        Code::UnknownEndpoint,
                        format!("`{id}` is neither a declared stage id nor `done`"),
                        path,
                        span,
                    ));
                    None
                }
            },
        }
    }

    /// Edge rules; returns each edge's resolved (from, to) for the flow rules.
    fn edges(&mut self) -> Vec<Option<(usize, Target)>> {
        let plan = self.plan;
        let mut resolved = Vec::with_capacity(plan.edges.len());
        // (from, artifact, field, value) -> (first eq edge, first neq edge)
        let mut checks: HashMap<FieldCheck<'a>, LoopHalves> = HashMap::default();
        // (from, condition) -> first edge leaving on it
        let mut seen: HashMap<EdgeKey<'a>, usize> =
            HashMap::with_capacity_and_hasher(plan.edges.len(), FixedState::default());

        for (e, edge) in plan.edges.iter().enumerate() {
            let spans = &self.spans.edge[e];
            let from = self.resolve(&edge.from, edge_path(e, "from"), spans.from.clone());
            let to = self.resolve(&edge.to, edge_path(e, "to"), spans.to.clone());
            let f = match from {
                Some(Target::Stage(f)) => f,
                Some(Target::Done) => {
                    self.push(Diagnostic::new(
                        Code::EdgeFromDone,
                        "an edge leaving `done` never fires: the workflow has ended",
                        edge_path(e, "from"),
                        spans.from.clone(),
                    ));
                    resolved.push(None);
                    continue;
                }
                None => {
                    resolved.push(None);
                    continue;
                }
            };
            resolved.push(to.map(|t| (f, t)));
            let from_stage = &plan.stages[f];
            let artifact = edge.condition.artifact_id();
            let artifact_path = || edge_path(e, "condition/artifact_id");

            let own_artifact = artifact == from_stage.produces;
            if !own_artifact {
                if !self.given.contains(artifact) && !self.producer.contains_key(artifact) {
                    self.unknown_artifact(artifact, artifact_path(), spans.artifact_id.clone());
                } else {
                    self.push(
                        Diagnostic::new(
                            Code::ForeignArtifact,
                            format!(
                                "the condition tests `{artifact}`, but the edge leaves stage `{}`, which produces `{}`",
                                from_stage.id, from_stage.produces
                            ),
                            artifact_path(),
                            spans.artifact_id.clone(),
                        )
                        .with_related("the from-stage's artifact", stage_path(f, "produces"), self.spans.stage[f].produces.clone()),
                    );
                }
            }

            let key = match &edge.condition {
                Condition::ArtifactValidated { artifact_id } => (f, artifact_id.as_str(), None),
                Condition::ArtifactFieldEquals {
                    artifact_id,
                    field,
                    value,
                    operator,
                } => (
                    f,
                    artifact_id.as_str(),
                    Some((field.as_str(), value.to_string(), *operator)),
                ),
            };
            match seen.get(&key) {
                Some(&first) if plan.edges[first].to != edge.to => self.push(
                    Diagnostic::new(
                        Code::AmbiguousEdges,
                        format!(
                            "two edges leave stage `{}` on the same condition ({}) for different stages",
                            from_stage.id,
                            edge.condition.label()
                        ),
                        edge_path(e, "condition"),
                        spans.condition.clone(),
                    )
                    .with_related("the other edge", edge_path(first, "condition"), self.spans.edge[first].condition.clone()),
                ),
                Some(_) => {}
                None => {
                    seen.insert(key, e);
                }
            }

            let Condition::ArtifactFieldEquals {
                field,
                value,
                operator,
                ..
            } = &edge.condition
            else {
                continue;
            };
            let field_span = spans
                .field
                .clone()
                .unwrap_or_else(|| spans.condition.clone());
            let value_span = spans
                .value
                .clone()
                .unwrap_or_else(|| spans.condition.clone());
            if own_artifact && let Some(kind) = self.kinds.get(&from_stage.kind) {
                match kind.fields.get(field) {
                    None => {
                        let declared: Vec<&str> = kind.fields.keys().map(String::as_str).collect();
                        let help = if declared.is_empty() {
                            format!(
                                "kind `{}` declares no fields; check a `review_report` instead",
                                kind.id
                            )
                        } else {
                            format!("kind `{}` declares {}", kind.id, list(&declared))
                        };
                        self.push(
                            Diagnostic::new(
                                Code::UndeclaredField,
                                format!(
                                    "stage `{}` produces a {} artifact, which has no field `{field}`",
                                    from_stage.id, kind.id
                                ),
                                edge_path(e, "condition/field"),
                                field_span,
                            )
                            .with_help(help),
                        );
                    }
                    Some(ty) => {
                        if let Err(why) = ty.accepts(value) {
                            self.push(Diagnostic::new(
                                Code::ValueNotAllowed,
                                format!(
                                    "`{field}` of a {} artifact can never equal {value}: {why}",
                                    kind.id
                                ),
                                edge_path(e, "condition/value"),
                                value_span,
                            ));
                        }
                    }
                }
            }

            if let Some(to) = to {
                let to_span = spans.to.clone();
                match (operator, to) {
                    (Operator::Neq, Target::Stage(t)) if t < f => {}
                    (Operator::Neq, Target::Done) => self.push(
                        Diagnostic::new(
                            Code::LoopNotBackward,
                            format!("when `{}` fails, this edge ends the workflow instead of looping back", edge.condition.label().replace('≠', "=")),
                            edge_path(e, "to"),
                            to_span,
                        )
                        .with_help("point the `neq` edge back to the stage whose work is reviewed"),
                    ),
                    (Operator::Neq, Target::Stage(t)) => self.push(
                        Diagnostic::new(
                            Code::LoopNotBackward,
                            format!(
                                "the `neq` edge of a review loop must go back to an earlier stage; `{}` is not before `{}`",
                                plan.stages[t].id, from_stage.id
                            ),
                            edge_path(e, "to"),
                            to_span,
                        ),
                    ),
                    (Operator::Eq, Target::Stage(t)) if t <= f => self.push(
                        Diagnostic::new(
                            Code::ApprovalGoesBack,
                            format!(
                                "the `eq` edge of a review loop must go forward or to `done`; `{}` is not after `{}`",
                                plan.stages[t].id, from_stage.id
                            ),
                            edge_path(e, "to"),
                            to_span,
                        )
                        .with_help("swap the targets of the `eq` and `neq` edges"),
                    ),
                    (Operator::Eq, _) => {}
                }
            }
            let slot = checks
                .entry((f, artifact, field.as_str(), value.to_string()))
                .or_insert((None, None));
            match operator {
                Operator::Eq => slot.0 = slot.0.or(Some(e)),
                Operator::Neq => slot.1 = slot.1.or(Some(e)),
            }
        }

        let mut halves: Vec<(usize, Operator)> = checks
            .values()
            .filter_map(|pair| match *pair {
                (Some(e), None) => Some((e, Operator::Eq)),
                (None, Some(e)) => Some((e, Operator::Neq)),
                _ => None,
            })
            .collect();
        halves.sort_unstable_by_key(|(e, _)| *e);
        for (e, present) in halves {
            let edge = &plan.edges[e];
            let (missing, consequence) = match present {
                Operator::Eq => ("neq", "otherwise"),
                Operator::Neq => ("eq", "once it holds"),
            };
            let label = edge.condition.label().replace('≠', "=");
            self.push(
                Diagnostic::new(
                    Code::HalfLoop,
                    format!(
                        "stage `{}` checks `{label}` but has no `{missing}` edge: {consequence}, the workflow has nowhere to go",
                        edge.from.as_str()
                    ),
                    edge_path(e, "condition"),
                    self.spans.edge[e].condition.clone(),
                )
                .with_help(format!("add the matching edge with \"operator\": \"{missing}\"")),
            );
        }
        resolved
    }

    fn flow(&mut self, edges: &[Option<(usize, Target)>]) {
        let plan = self.plan;
        let n = plan.stages.len();
        let mut outbound: Vec<Vec<Target>> = vec![Vec::new(); n];
        let mut entered = vec![false; n];
        let mut inbound: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut to_done: Vec<usize> = Vec::new();
        for (from, to) in edges.iter().flatten() {
            outbound[*from].push(*to);
            match to {
                Target::Stage(t) => {
                    inbound[*t].push(*from);
                    if from < t {
                        entered[*t] = true;
                    }
                }
                Target::Done => to_done.push(*from),
            }
        }
        for i in 0..n {
            let stage = &plan.stages[i];
            let span = self.spans.stage[i].id.clone();
            if i > 0 && !entered[i] {
                self.push(
                    Diagnostic::new(
                        Code::NoInbound,
                        format!("stage `{}` is never entered: no edge from an earlier stage leads to it", stage.id),
                        stage_path(i, "id"),
                        span.clone(),
                    )
                    .with_help(format!("add an edge from `{}` to `{}`", plan.stages[i - 1].id, stage.id)),
                );
            }
            if outbound[i].is_empty() {
                self.push(
                    Diagnostic::new(
                        Code::NoOutbound,
                        format!(
                            "stage `{}` has no outbound edge: the workflow would stop there",
                            stage.id
                        ),
                        stage_path(i, "id"),
                        span,
                    )
                    .with_help(if i + 1 < n {
                        format!("add an edge to `{}`", plan.stages[i + 1].id)
                    } else {
                        "add an edge to `done`".to_string()
                    }),
                );
            }
        }

        // Forward reachability from the first stage.
        let mut reached = vec![false; n];
        let mut stack = vec![0];
        reached[0] = true;
        while let Some(s) = stack.pop() {
            for target in &outbound[s] {
                if let Target::Stage(t) = *target
                    && !reached[t]
                {
                    reached[t] = true;
                    stack.push(t);
                }
            }
        }

        // Unreached stages after each index, and the next one, so that each early
        // `done` edge is judged in constant time instead of a pass over the rest.
        let mut unreached_after = vec![0usize; n + 1];
        let mut next_unreached = vec![n; n + 1];
        for s in (0..n).rev() {
            unreached_after[s] = unreached_after[s + 1] + usize::from(!reached[s]);
            next_unreached[s] = if reached[s] { next_unreached[s + 1] } else { s };
        }
        // Every unreached stage after the earliest early `done` is explained by it.
        let mut explained_from = n;
        for (e, pair) in edges.iter().enumerate() {
            let Some((f, Target::Done)) = *pair else {
                continue;
            };
            if f + 1 == n || !reached[f] {
                continue;
            }
            let total = unreached_after[f + 1];
            if total == 0 {
                continue;
            }
            explained_from = explained_from.min(f + 1);
            let mut at = next_unreached[f + 1];
            let cut = std::iter::from_fn(|| {
                (at < n).then(|| {
                    let id = plan.stages[at].id.as_str();
                    at = next_unreached[at + 1];
                    id
                })
            });
            let cut_text = list_of(cut, total);
            self.push(
                Diagnostic::new(
                    Code::EarlyDone,
                    format!(
                        "this edge ends the workflow after `{}`, so {} never {}",
                        plan.stages[f].id,
                        cut_text,
                        if total == 1 { "runs" } else { "run" }
                    ),
                    edge_path(e, "to"),
                    self.spans.edge[e].to.clone(),
                )
                .with_help(format!(
                    "point it to `{}`; only the last stage goes to `done`",
                    plan.stages[f + 1].id
                )),
            );
        }
        for i in 1..n {
            if !reached[i] && entered[i] && i < explained_from {
                self.push(Diagnostic::new(
                    Code::Unreachable,
                    format!(
                        "stage `{}` is unreachable: it is entered only from stages that never run",
                        plan.stages[i].id
                    ),
                    stage_path(i, "id"),
                    self.spans.stage[i].id.clone(),
                ));
            }
        }

        // Backward reachability from `done`.
        // Dead ends are already reported (P031); counting them as exits keeps this
        // rule to cycles that have no way out.
        let mut finishes = vec![false; n];
        let mut stack = to_done;
        stack.extend((0..n).filter(|&i| outbound[i].is_empty()));
        for &s in &stack {
            finishes[s] = true;
        }
        while let Some(s) = stack.pop() {
            for &p in &inbound[s] {
                if !finishes[p] {
                    finishes[p] = true;
                    stack.push(p);
                }
            }
        }
        if !edges.iter().flatten().any(|(_, t)| *t == Target::Done) {
            self.push(
                Diagnostic::new(
                    Code::NeverFinishes,
                    "no edge goes to `done`: the workflow never finishes",
                    "/edges",
                    self.spans.edges.clone(),
                )
                .with_help(format!(
                    "add an edge from `{}` to `done`",
                    plan.stages[n - 1].id
                )),
            );
            return;
        }
        let trapped: Vec<usize> = (0..n)
            .filter(|&i| reached[i] && !finishes[i] && !outbound[i].is_empty())
            .collect();
        if let Some(&first) = trapped.first() {
            let names: Vec<&str> = trapped
                .iter()
                .map(|&i| plan.stages[i].id.as_str())
                .collect();
            self.push(Diagnostic::new(
                Code::NeverFinishes,
                format!(
                    "no path leads from {} to `done`: the workflow would loop forever",
                    list_of(names.iter().copied(), names.len())
                ),
                stage_path(first, "id"),
                self.spans.stage[first].id.clone(),
            ));
        }
    }
}
