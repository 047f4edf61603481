//! The stage graph as terminal lines: stages as boxes in run order, the edge to the
//! next stage as a down arrow, every other edge as a labelled branch under its box
//! (`↺` marks a loop back). Shared by `volk plan show` and the workbench.

use std::collections::HashMap;

use unicode_width::UnicodeWidthStr;

use super::model::{Endpoint, ExecutionPlan, Stage};

/// Prompts are shown on one line, cut to this many columns.
const PROMPT_COLUMNS: usize = 60;
/// Boxes are at least this wide, so short plans still read as boxes.
const MIN_INNER: usize = 28;
/// Indentation of arrows and branches under a box.
const STEM: &str = "    ";

/// Draws `plan`; works on plans that failed the rules too (unknown targets are
/// marked `?`), so the person sees what the diagnostics talk about.
pub fn draw(plan: &ExecutionPlan) -> Vec<String> {
    let index: HashMap<&str, usize> = plan
        .stages
        .iter()
        .enumerate()
        .rev()
        .map(|(i, s)| (s.id.as_str(), i))
        .collect();
    let bodies: Vec<Vec<String>> = plan.stages.iter().map(body).collect();
    let headers: Vec<String> = plan
        .stages
        .iter()
        .enumerate()
        .map(|(i, s)| format!(" {} · {} ─ {} ", i + 1, s.id, s.role))
        .collect();
    let inner = bodies
        .iter()
        .flatten()
        .chain(headers.iter())
        .map(|l| l.width() + 2)
        .max()
        .unwrap_or(0)
        .max(MIN_INNER);

    let mut out = vec![format!("goal: {}", plan.goal), String::new()];
    let mut outbound: Vec<Vec<usize>> = vec![Vec::new(); plan.stages.len()];
    let mut loose = Vec::new();
    for (e, edge) in plan.edges.iter().enumerate() {
        match &edge.from {
            Endpoint::Stage(id) if index.contains_key(id.as_str()) => {
                outbound[index[id.as_str()]].push(e);
            }
            _ => loose.push(e),
        }
    }

    for (i, header) in headers.iter().enumerate() {
        out.push(format!(
            "┌─{header}{}┐",
            "─".repeat(inner.saturating_sub(header.width() + 1))
        ));
        for line in &bodies[i] {
            out.push(format!(
                "│ {line}{}│",
                " ".repeat(inner.saturating_sub(line.width() + 1))
            ));
        }
        out.push(format!("└{}┘", "─".repeat(inner)));

        let edges = &outbound[i];
        let target_of = |e: usize| match &plan.edges[e].to {
            Endpoint::Done => Target::Done,
            Endpoint::Stage(id) => index
                .get(id.as_str())
                .map_or(Target::Unknown, |&t| Target::Stage(t)),
        };
        let next = Target::Stage(i + 1);
        if let [only] = edges.as_slice()
            && target_of(*only) == next
        {
            out.push(format!("{STEM}│ {}", plan.edges[*only].condition.label()));
            out.push(format!("{STEM}▼"));
            continue;
        }
        if edges.is_empty() {
            out.push(format!("{STEM}✗ no outbound edge"));
        }
        for (k, &e) in edges.iter().enumerate() {
            let branch = if k + 1 == edges.len() {
                "└─"
            } else {
                "├─"
            };
            let label = plan.edges[e].condition.label();
            let target = match target_of(e) {
                Target::Done => "▶ done".to_string(),
                Target::Stage(t) if t <= i => format!("↺ back to {}", name(t, &plan.stages[t])),
                Target::Stage(t) => format!("▶ {}", name(t, &plan.stages[t])),
                Target::Unknown => format!("▶ ? {}", plan.edges[e].to.as_str()),
            };
            out.push(format!("{STEM}{branch} {label} ─{target}"));
        }
        if i + 1 < plan.stages.len() {
            if edges.iter().any(|&e| target_of(e) == next) {
                out.push(format!("{STEM}▼"));
            } else {
                out.push(format!("{STEM}┆ (nothing leads to the next stage)"));
            }
        }
    }
    if !loose.is_empty() {
        out.push(String::new());
        out.push("edges from no declared stage:".to_string());
        for e in loose {
            let edge = &plan.edges[e];
            out.push(format!(
                "{STEM}{} ─ {} ─▶ {}",
                edge.from.as_str(),
                edge.condition.label(),
                edge.to.as_str()
            ));
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Stage(usize),
    Done,
    Unknown,
}

fn name(i: usize, stage: &Stage) -> String {
    format!("{} · {}", i + 1, stage.id)
}

fn body(stage: &Stage) -> Vec<String> {
    let mut lines = vec![format!("produces  {} ({})", stage.produces, stage.kind)];
    if !stage.needs.is_empty() {
        lines.push(format!("needs     {}", stage.needs.join(", ")));
    }
    if !stage.tools.is_empty() {
        lines.push(format!("tools     {}", stage.tools.join(", ")));
    }
    let prompt = stage
        .prompt
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    lines.push(format!("prompt    {}", cut(&prompt, PROMPT_COLUMNS)));
    lines
}

/// Cuts `text` to `columns` display columns, marking the cut with `…`.
fn cut(text: &str, columns: usize) -> String {
    if text.width() <= columns {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > columns {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::model::{Condition, Edge, Operator};

    fn stage(id: &str, role: &str, kind: &str) -> Stage {
        Stage {
            id: id.into(),
            role: role.into(),
            prompt: format!("Do the {id} work carefully."),
            produces: format!("{id}_out"),
            kind: kind.into(),
            needs: vec![],
            tools: vec![],
        }
    }

    fn edge(from: &str, to: &str, condition: Condition) -> Edge {
        Edge {
            from: from.into(),
            to: to.into(),
            condition,
        }
    }

    fn review_plan() -> ExecutionPlan {
        let verdict = |op| Condition::ArtifactFieldEquals {
            artifact_id: "review_out".into(),
            field: "verdict".into(),
            value: "approved".into(),
            operator: op,
        };
        ExecutionPlan {
            goal: "Ship it.".into(),
            stages: vec![
                stage("build", "implementer", "file_written"),
                stage("review", "reviewer", "review_report"),
            ],
            edges: vec![
                edge(
                    "build",
                    "review",
                    Condition::ArtifactValidated {
                        artifact_id: "build_out".into(),
                    },
                ),
                edge("review", "done", verdict(Operator::Eq)),
                edge("review", "build", verdict(Operator::Neq)),
            ],
        }
    }

    #[test]
    fn draws_boxes_arrows_and_loops() {
        let lines = draw(&review_plan());
        let text = lines.join("\n");
        insta::assert_snapshot!(text);
        // Every box line of one box has the same width.
        let widths: Vec<usize> = lines
            .iter()
            .filter(|l| l.starts_with(['┌', '│', '└']))
            .map(|l| l.width())
            .collect();
        assert!(widths.windows(2).all(|w| w[0] == w[1]), "{widths:?}");
    }

    #[test]
    fn marks_unknown_targets_and_missing_edges() {
        let mut plan = review_plan();
        plan.edges[0].to = "nowhere".into();
        plan.edges.push(edge(
            "ghost",
            "done",
            Condition::ArtifactValidated {
                artifact_id: "x".into(),
            },
        ));
        plan.edges.retain(|e| e.from.as_str() != "review");
        let text = draw(&plan).join("\n");
        assert!(text.contains("▶ ? nowhere"), "{text}");
        assert!(text.contains("(nothing leads to the next stage)"), "{text}");
        assert!(text.contains("✗ no outbound edge"), "{text}");
        assert!(text.contains("ghost ─ x validated ─▶ done"), "{text}");
    }

    #[test]
    fn long_prompts_are_cut() {
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 4), "abc");
    }
}
