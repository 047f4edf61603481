//! Which questions a Stop (or the architect) is asked: the enabled questions of the
//! enabled categories, taken round-robin across categories in file order, so that a
//! small limit still touches several concerns, and the same config always gives the
//! same selection.

use serde::Serialize;

use super::model::{Category, ReflectionConfig};

/// One question chosen for a reflection pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SelectedQuestion {
    pub id: String,
    pub category: String,
    pub text: String,
}

/// The category of questions about a design, asked of the architect before it
/// finalizes; the Stop hook of coding agents never asks them.
pub const DESIGN_CATEGORY: &str = "design";

/// Who reflects, which decides the categories drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// A coding agent at its Stop: every category but [`DESIGN_CATEGORY`].
    CodingAgent,
    /// The architect before finalizing: the design category; when a config has none
    /// (or nothing enabled in it), the coding agents' selection, as before it existed.
    Architect,
}

/// The questions a coding agent's Stop asks.
pub fn select(config: &ReflectionConfig) -> Vec<SelectedQuestion> {
    select_for(config, Audience::CodingAgent)
}

/// At most `max_questions_per_stop` questions for `audience`; the first question of
/// every enabled category, then the second of each, and so on.
pub fn select_for(config: &ReflectionConfig, audience: Audience) -> Vec<SelectedQuestion> {
    let design = |c: &Category| c.id == DESIGN_CATEGORY;
    match audience {
        Audience::CodingAgent => round_robin(config, |c| !design(c)),
        Audience::Architect => {
            let asked = round_robin(config, design);
            if asked.is_empty() {
                round_robin(config, |c| !design(c))
            } else {
                asked
            }
        }
    }
}

fn round_robin(
    config: &ReflectionConfig,
    from: impl Fn(&Category) -> bool,
) -> Vec<SelectedQuestion> {
    let limit = config.max_questions_per_stop as usize;
    let pools: Vec<_> = config
        .categories
        .iter()
        .filter(|c| c.enabled && from(c))
        .map(|c| {
            (
                c,
                c.questions.iter().filter(|q| q.enabled).collect::<Vec<_>>(),
            )
        })
        .filter(|(_, qs)| !qs.is_empty())
        .collect();
    let deepest = pools.iter().map(|(_, qs)| qs.len()).max().unwrap_or(0);
    let mut chosen = Vec::with_capacity(limit);
    for round in 0..deepest {
        for (category, questions) in &pools {
            if chosen.len() == limit {
                return chosen;
            }
            if let Some(question) = questions.get(round) {
                chosen.push(SelectedQuestion {
                    id: question.id.to_string(),
                    category: category.name.clone(),
                    text: question.text.clone(),
                });
            }
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflection::model::{Category, Question, QuestionId};

    fn category(id: &str, enabled: bool, questions: &[(u64, bool)]) -> Category {
        Category {
            id: id.into(),
            name: id.to_uppercase(),
            enabled,
            questions: questions
                .iter()
                .map(|(n, on)| Question {
                    id: QuestionId::from_number(*n),
                    text: format!("q{n}"),
                    enabled: *on,
                })
                .collect(),
        }
    }

    fn ids(config: &ReflectionConfig) -> Vec<String> {
        select(config).into_iter().map(|q| q.id).collect()
    }

    #[test]
    fn round_robin_skips_disabled_and_respects_the_limit() {
        let mut config = ReflectionConfig {
            enabled: true,
            on_stop: true,
            max_questions_per_stop: 4,
            next_question_number: None,
            categories: vec![
                category("a", true, &[(1, true), (2, true), (3, true)]),
                category("b", false, &[(4, true)]),
                category("c", true, &[(5, false), (6, true)]),
                category("d", true, &[]),
            ],
        };
        assert_eq!(ids(&config), ["RFQ-001", "RFQ-006", "RFQ-002", "RFQ-003"]);
        config.max_questions_per_stop = 1;
        assert_eq!(ids(&config), ["RFQ-001"]);
        config.categories[0].enabled = false;
        config.categories[2].questions[1].enabled = false;
        assert!(select(&config).is_empty());
    }

    #[test]
    fn the_defaults_ask_across_categories() {
        let picked = select(&ReflectionConfig::defaults());
        assert_eq!(picked.len(), 3);
        let categories: std::collections::HashSet<_> = picked.iter().map(|q| &q.category).collect();
        assert_eq!(categories.len(), 3);
        assert!(!categories.contains(&"Design".to_string()), "{picked:?}");
    }

    #[test]
    fn the_architect_is_asked_about_its_design_and_coding_agents_are_not() {
        let defaults = ReflectionConfig::defaults();
        let architect = select_for(&defaults, Audience::Architect);
        assert_eq!(architect.len(), 3);
        assert!(
            architect.iter().all(|q| q.category == "Design"),
            "{architect:?}"
        );
        assert!(architect[0].text.contains("junior"), "{architect:?}");
        // Without a design category the architect gets the general questions.
        let mut config = defaults.clone();
        config.categories.retain(|c| c.id != DESIGN_CATEGORY);
        assert_eq!(select_for(&config, Audience::Architect), select(&config));
        assert_eq!(select(&config), select(&defaults));
    }
}
