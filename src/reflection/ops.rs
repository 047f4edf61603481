//! The changes people and agents make to the reflection config. The CLI and the MCP
//! server both call these, so the rules (id allocation, refusals, trimming) are the
//! same whichever door a change comes through.

use serde::Serialize;

use super::error::ReflectionError;
use super::model::{Category, Question, QuestionId, is_category_id};
use super::store::ConfigStore;

/// A question together with the category that holds it, as reported back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlacedQuestion {
    pub category: String,
    #[serde(flatten)]
    pub question: Question,
}

/// A category without its questions, as reported back after a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CategorySummary {
    pub id: String,
    pub name: String,
    pub enabled: bool,
    pub questions: usize,
}

impl From<&Category> for CategorySummary {
    fn from(c: &Category) -> Self {
        Self {
            id: c.id.clone(),
            name: c.name.clone(),
            enabled: c.enabled,
            questions: c.questions.len(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Policy {
    pub enabled: bool,
    pub on_stop: bool,
    pub max_questions_per_stop: u32,
}

#[derive(Debug, Clone, Default)]
pub struct NewCategory {
    pub name: String,
    /// When absent, derived from the name.
    pub id: Option<String>,
    pub enabled: bool,
}

#[derive(Debug, Clone, Default)]
pub struct NewQuestion {
    pub category: String,
    pub text: String,
    pub enabled: bool,
}

#[derive(Debug, Clone, Default)]
pub struct CategoryChange {
    pub name: Option<String>,
    pub enabled: Option<bool>,
}

#[derive(Debug, Clone, Default)]
pub struct QuestionChange {
    pub text: Option<String>,
    pub enabled: Option<bool>,
    /// Moves the question to the end of this category.
    pub category: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct PolicyChange {
    pub enabled: Option<bool>,
    pub on_stop: Option<bool>,
    pub max_questions_per_stop: Option<u32>,
}

/// Whether `delete category` may take the category's questions with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteMode {
    OnlyIfEmpty,
    WithQuestions,
}

fn parse_question_id(id: &str) -> Result<QuestionId, String> {
    QuestionId::parse(id.trim())
        .ok_or_else(|| format!("{id:?} is not a question id (RFQ- and at least three digits)"))
}

fn unknown_category(id: &str) -> String {
    format!("no category {id:?}")
}

/// A category id from a name: lowercase words joined by dashes.
fn derive_category_id(name: &str) -> Option<String> {
    let slug = crate::project::slug::slugify(name);
    let has_letters = name.chars().any(|c| c.is_ascii_alphanumeric());
    has_letters.then(|| {
        let mut id: String = slug
            .chars()
            .take(super::model::MAX_CATEGORY_ID_CHARS)
            .collect();
        while id.ends_with('-') {
            id.pop();
        }
        id
    })
}

pub fn create_category(
    store: &ConfigStore,
    request: NewCategory,
) -> Result<CategorySummary, ReflectionError> {
    store.update(|config| {
        let name = request.name.trim().to_string();
        let id = match request.id.as_deref().map(str::trim) {
            Some(id) => {
                if !is_category_id(id) {
                    return Err(format!(
                        "{id:?} is not a category id (lowercase letters, digits and inner dashes)"
                    ));
                }
                if config.category(id).is_some() {
                    return Err(format!("category {id:?} already exists"));
                }
                id.to_string()
            }
            None => {
                let base = derive_category_id(&name).ok_or_else(|| {
                    format!("cannot derive a category id from the name {name:?}; give one")
                })?;
                let mut id = base.clone();
                let mut n = 2;
                while config.category(&id).is_some() {
                    id = format!("{base}-{n}");
                    n += 1;
                }
                id
            }
        };
        let category = Category {
            id,
            name,
            enabled: request.enabled,
            questions: Vec::new(),
        };
        let summary = CategorySummary::from(&category);
        config.categories.push(category);
        Ok(summary)
    })
}

pub fn create_question(
    store: &ConfigStore,
    request: NewQuestion,
) -> Result<PlacedQuestion, ReflectionError> {
    store.update(|config| {
        let category_id = request.category.trim().to_string();
        if config.category(&category_id).is_none() {
            return Err(unknown_category(&category_id));
        }
        let question = Question {
            id: config.allocate_question_id(),
            text: request.text.trim().to_string(),
            enabled: request.enabled,
        };
        let placed = PlacedQuestion {
            category: category_id.clone(),
            question: question.clone(),
        };
        if let Some(category) = config.category_mut(&category_id) {
            category.questions.push(question);
        }
        Ok(placed)
    })
}

pub fn update_category(
    store: &ConfigStore,
    id: &str,
    change: CategoryChange,
) -> Result<CategorySummary, ReflectionError> {
    store.update(|config| {
        if change.name.is_none() && change.enabled.is_none() {
            return Err("nothing to change: give a new name or enable/disable".into());
        }
        let category = config
            .category_mut(id.trim())
            .ok_or_else(|| unknown_category(id))?;
        if let Some(name) = change.name {
            category.name = name.trim().to_string();
        }
        if let Some(enabled) = change.enabled {
            category.enabled = enabled;
        }
        Ok(CategorySummary::from(&*category))
    })
}

pub fn update_question(
    store: &ConfigStore,
    id: &str,
    change: QuestionChange,
) -> Result<PlacedQuestion, ReflectionError> {
    store.update(|config| {
        if change.text.is_none() && change.enabled.is_none() && change.category.is_none() {
            return Err(
                "nothing to change: give a new text, enable/disable or a category to move to"
                    .into(),
            );
        }
        let qid = parse_question_id(id)?;
        let (ci, qi) = config
            .locate_question(&qid)
            .ok_or_else(|| format!("no question {qid}"))?;
        let target = match change.category.as_deref().map(str::trim) {
            Some(target) => config
                .categories
                .iter()
                .position(|c| c.id == target)
                .ok_or_else(|| unknown_category(target))?,
            None => ci,
        };
        let mut question = config.categories[ci].questions.remove(qi);
        if let Some(text) = change.text {
            question.text = text.trim().to_string();
        }
        if let Some(enabled) = change.enabled {
            question.enabled = enabled;
        }
        let placed = PlacedQuestion {
            category: config.categories[target].id.clone(),
            question: question.clone(),
        };
        if target == ci {
            config.categories[ci].questions.insert(qi, question);
        } else {
            config.categories[target].questions.push(question);
        }
        Ok(placed)
    })
}

pub fn delete_category(
    store: &ConfigStore,
    id: &str,
    mode: DeleteMode,
) -> Result<CategorySummary, ReflectionError> {
    store.update(|config| {
        let index = config
            .categories
            .iter()
            .position(|c| c.id == id.trim())
            .ok_or_else(|| unknown_category(id))?;
        let count = config.categories[index].questions.len();
        if count > 0 && mode == DeleteMode::OnlyIfEmpty {
            return Err(format!(
                "category {id:?} still has {count} question(s); move or delete them first, or force"
            ));
        }
        let removed = config.categories.remove(index);
        Ok(CategorySummary::from(&removed))
    })
}

pub fn delete_question(store: &ConfigStore, id: &str) -> Result<PlacedQuestion, ReflectionError> {
    store.update(|config| {
        let qid = parse_question_id(id)?;
        let (ci, qi) = config
            .locate_question(&qid)
            .ok_or_else(|| format!("no question {qid}"))?;
        let question = config.categories[ci].questions.remove(qi);
        Ok(PlacedQuestion {
            category: config.categories[ci].id.clone(),
            question,
        })
    })
}

/// Changes the policy; with nothing to change it only reports it (and still writes
/// the section, so the file then holds the settings in use).
pub fn update_policy(store: &ConfigStore, change: PolicyChange) -> Result<Policy, ReflectionError> {
    store.update(|config| {
        if let Some(enabled) = change.enabled {
            config.enabled = enabled;
        }
        if let Some(on_stop) = change.on_stop {
            config.on_stop = on_stop;
        }
        if let Some(max) = change.max_questions_per_stop {
            config.max_questions_per_stop = max;
        }
        Ok(Policy {
            enabled: config.enabled,
            on_stop: config.on_stop,
            max_questions_per_stop: config.max_questions_per_stop,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, ConfigStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = ConfigStore::new(dir.path().join("config.json"));
        (dir, store)
    }

    #[test]
    fn categories_get_ids_from_their_names() {
        let (_dir, store) = store();
        let a = create_category(
            &store,
            NewCategory {
                name: "  Code Quality ".into(),
                id: None,
                enabled: true,
            },
        )
        .unwrap();
        assert_eq!(
            (a.id.as_str(), a.name.as_str()),
            ("code-quality", "Code Quality")
        );
        let b = create_category(
            &store,
            NewCategory {
                name: "Code quality!".into(),
                id: None,
                enabled: true,
            },
        )
        .unwrap();
        assert_eq!(b.id, "code-quality-2");
        let taken = create_category(
            &store,
            NewCategory {
                name: "X".into(),
                id: Some("code-quality".into()),
                enabled: true,
            },
        );
        assert!(taken.unwrap_err().to_string().contains("already exists"));
        let nameless = create_category(
            &store,
            NewCategory {
                name: "???".into(),
                id: None,
                enabled: true,
            },
        );
        assert!(nameless.is_err());
    }

    #[test]
    fn questions_move_and_delete() {
        let (_dir, store) = store();
        let q = create_question(
            &store,
            NewQuestion {
                category: "scope".into(),
                text: "Did it fit?".into(),
                enabled: false,
            },
        )
        .unwrap();
        assert_eq!(q.question.id.to_string(), "RFQ-014");
        let moved = update_question(
            &store,
            "RFQ-014",
            QuestionChange {
                category: Some("risk".into()),
                enabled: Some(true),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(moved.category, "risk");
        assert!(moved.question.enabled);
        let config = store.load().unwrap().config;
        assert_eq!(
            config
                .category("risk")
                .unwrap()
                .questions
                .last()
                .unwrap()
                .id,
            q.question.id
        );
        assert!(
            config
                .category("scope")
                .unwrap()
                .questions
                .iter()
                .all(|x| x.id != q.question.id)
        );

        let refused = delete_category(&store, "risk", DeleteMode::OnlyIfEmpty);
        assert!(refused.unwrap_err().to_string().contains("still has"));
        delete_category(&store, "risk", DeleteMode::WithQuestions).unwrap();
        assert!(delete_question(&store, "RFQ-014").is_err());
        let next = create_question(
            &store,
            NewQuestion {
                category: "scope".into(),
                text: "Again?".into(),
                enabled: true,
            },
        )
        .unwrap();
        assert_eq!(next.question.id.to_string(), "RFQ-015");
        assert!(update_question(&store, "RFQ-1", QuestionChange::default()).is_err());
        assert!(
            update_question(
                &store,
                "RFQ-1",
                QuestionChange {
                    text: Some("x".into()),
                    ..Default::default()
                }
            )
            .unwrap_err()
            .to_string()
            .contains("not a question id")
        );
    }

    #[test]
    fn policy_bounds_are_enforced() {
        let (_dir, store) = store();
        let err = update_policy(
            &store,
            PolicyChange {
                max_questions_per_stop: Some(99),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("max_questions_per_stop"));
        let policy = update_policy(
            &store,
            PolicyChange {
                on_stop: Some(false),
                max_questions_per_stop: Some(5),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(policy.max_questions_per_stop, 5);
        assert!(!policy.on_stop && policy.enabled);
    }
}
