//! Which questions a Stop (or the architect) is asked: the enabled questions of the
//! enabled categories, taken round-robin across categories in file order, so that a
//! small limit still touches several concerns, and the same config always gives the
//! same selection.

use serde::Serialize;

use super::model::ReflectionConfig;

/// One question chosen for a reflection pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SelectedQuestion {
    pub id: String,
    pub category: String,
    pub text: String,
}

/// At most `max_questions_per_stop` questions; the first question of every enabled
/// category, then the second of each, and so on.
pub fn select(config: &ReflectionConfig) -> Vec<SelectedQuestion> {
    let limit = config.max_questions_per_stop as usize;
    let pools: Vec<_> = config
        .categories
        .iter()
        .filter(|c| c.enabled)
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
    }
}
