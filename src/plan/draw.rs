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

/// How much of each stage's prompt a box shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prompts {
    /// One line, cut (`volk plan show`, the overview).
    Cut,
    /// The whole prompt, wrapped at words to this many columns (the workbench's plan
    /// tab, where the person reads it before approving).
    Full(usize),
}

/// Draws `plan`; works on plans that failed the rules too (unknown targets are
/// marked `?`), so the person sees what the diagnostics talk about.
pub fn draw(plan: &ExecutionPlan) -> Vec<String> {
    draw_with(plan, Prompts::Cut)
}

/// The stage ids' positions (the first stage of a duplicated id wins).
fn stage_index(plan: &ExecutionPlan) -> HashMap<&str, usize> {
    plan.stages
        .iter()
        .enumerate()
        .rev()
        .map(|(i, s)| (s.id.as_str(), i))
        .collect()
}

/// One line per stage: its number, id and role, and where each of its edges leads
/// (`↺` for a loop back), so a long plan reads at a glance before its boxes.
pub fn outline(plan: &ExecutionPlan) -> Vec<String> {
    let index = stage_index(plan);
    let names: Vec<String> = plan
        .stages
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{} · {} ─ {}", i + 1, s.id, s.role))
        .collect();
    let widest = names.iter().map(|n| n.width()).max().unwrap_or(0);
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let edges: Vec<String> = plan
                .edges
                .iter()
                .filter(|e| matches!(&e.from, Endpoint::Stage(id) if index.get(id.as_str()) == Some(&i)))
                .map(|e| {
                    let target = match &e.to {
                        Endpoint::Done => "▶ done".to_string(),
                        Endpoint::Stage(id) => match index.get(id.as_str()) {
                            Some(&t) if t <= i => format!("↺ {}", name_of(t, &plan.stages[t])),
                            Some(&t) => format!("▶ {}", name_of(t, &plan.stages[t])),
                            None => format!("▶ ? {id}"),
                        },
                    };
                    format!("{target} ({})", e.condition.label())
                })
                .collect();
            let pad = " ".repeat(widest - name.width());
            let indent = " ".repeat(widest + 2);
            match edges.split_first() {
                None => vec![format!("{name}{pad}  ✗ no outbound edge")],
                // Each further edge on a row of its own, under the first.
                Some((first, rest)) => std::iter::once(format!("{name}{pad}  {first}"))
                    .chain(rest.iter().map(|e| format!("{indent}{e}")))
                    .collect(),
            }
        })
        .collect::<Vec<Vec<String>>>()
        .concat()
}

/// [`draw`] with the prompts shown as `prompts` says.
pub fn draw_with(plan: &ExecutionPlan, prompts: Prompts) -> Vec<String> {
    let mut out = vec![format!("goal: {}", plan.goal), String::new()];
    out.extend(boxes(plan, prompts));
    out
}

/// The stages as boxes and the edges between them, without the goal.
pub fn boxes(plan: &ExecutionPlan, prompts: Prompts) -> Vec<String> {
    let index = stage_index(plan);
    let bodies: Vec<Vec<String>> = plan.stages.iter().map(|s| body(s, prompts)).collect();
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

    let mut out = Vec::new();
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
                Target::Stage(t) if t <= i => {
                    format!("↺ back to {}", name_of(t, &plan.stages[t]))
                }
                Target::Stage(t) => format!("▶ {}", name_of(t, &plan.stages[t])),
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

fn name_of(i: usize, stage: &Stage) -> String {
    format!("{} · {}", i + 1, stage.id)
}

fn body(stage: &Stage, prompts: Prompts) -> Vec<String> {
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
    match prompts {
        Prompts::Cut => lines.push(format!("prompt    {}", cut(&prompt, PROMPT_COLUMNS))),
        Prompts::Full(columns) => {
            for (k, row) in wrap_words(&prompt, columns.max(8)).into_iter().enumerate() {
                let label = if k == 0 { "prompt" } else { "" };
                lines.push(format!("{label:<10}{row}"));
            }
        }
    }
    lines
}

/// Greedy word wrap to `columns` display columns; a word longer than a row is split.
fn wrap_words(text: &str, columns: usize) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    let mut row = String::new();
    for word in text.split_whitespace() {
        let mut word = word.to_string();
        loop {
            let gap = usize::from(!row.is_empty());
            if row.width() + gap + word.width() <= columns {
                if gap == 1 {
                    row.push(' ');
                }
                row.push_str(&word);
                break;
            }
            if !row.is_empty() {
                rows.push(std::mem::take(&mut row));
                continue;
            }
            // Alone and still too wide: split it at the column.
            let mut head = String::new();
            let mut rest = word.chars();
            for c in rest.by_ref() {
                if head.width() + unicode_width::UnicodeWidthChar::width(c).unwrap_or(0) > columns {
                    word = std::iter::once(c).chain(rest).collect();
                    break;
                }
                head.push(c);
            }
            rows.push(head);
        }
    }
    if !row.is_empty() || rows.is_empty() {
        rows.push(row);
    }
    rows
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
    fn full_prompts_wrap_inside_the_box_and_the_outline_shows_the_loop() {
        let mut plan = review_plan();
        plan.stages[0].prompt = "Write every module the design names, with its tests, \
            keeping each public function documented and each error path covered."
            .into();
        let lines = draw_with(&plan, Prompts::Full(30));
        let text = lines.join("\n");
        let words: Vec<&str> = text.split_whitespace().filter(|w| *w != "│").collect();
        assert!(
            words.join(" ").contains(&plan.stages[0].prompt),
            "the whole prompt: {text}"
        );
        assert!(!text.contains('…'), "{text}");
        let widths: Vec<usize> = lines
            .iter()
            .filter(|l| l.starts_with(['┌', '│', '└']))
            .map(|l| l.width())
            .collect();
        assert!(widths.windows(2).all(|w| w[0] == w[1]), "{widths:?}");
        assert!(widths[0] <= 30 + 10 + 4, "{text}");
        let outline = outline(&plan);
        assert_eq!(outline.len(), 3, "{outline:?}");
        assert!(
            outline[0].starts_with("1 · build ─ implementer"),
            "{outline:?}"
        );
        assert!(outline[1].contains("▶ done"), "{outline:?}");
        assert!(
            outline[2].trim_start().starts_with("↺ 1 · build"),
            "{outline:?}"
        );
    }

    #[test]
    fn words_wrap_and_long_words_split() {
        assert_eq!(wrap_words("ab cd ef", 5), ["ab cd", "ef"]);
        assert_eq!(wrap_words("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(wrap_words("", 3), [""]);
    }

    #[test]
    fn long_prompts_are_cut() {
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 4), "abc");
    }
}
