//! The `reflection` section of `.prd_plugin/config.json`: its types, strict reading
//! from JSON and the checks every writer runs before a change reaches the disk.
//!
//! Reading is done by hand over `serde_json::Value` rather than with derived
//! `Deserialize`, so that every message can name the exact JSON path
//! (`reflection.categories[1].questions[0].id`) that a person has to fix.

use std::collections::HashSet;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use super::error::Violation;

/// The key of the section inside the config file.
pub const SECTION: &str = "reflection";
/// Upper bound of `max_questions_per_stop`: a Stop that asks more than this is a
/// questionnaire, not a reflection.
pub const MAX_QUESTIONS_PER_STOP: u32 = 10;
pub const MAX_TEXT_CHARS: usize = 500;
pub const MAX_NAME_CHARS: usize = 80;
pub const MAX_CATEGORY_ID_CHARS: usize = 48;
pub const MAX_CATEGORIES: usize = 100;
pub const MAX_QUESTIONS: usize = 1000;

/// The policy and the questions, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReflectionConfig {
    pub enabled: bool,
    pub on_stop: bool,
    pub max_questions_per_stop: u32,
    /// The number the next allocated `RFQ-` id gets; kept in the file so that a
    /// deleted id is never handed out again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_question_number: Option<u64>,
    pub categories: Vec<Category>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Category {
    pub id: String,
    pub name: String,
    pub enabled: bool,
    pub questions: Vec<Question>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Question {
    pub id: QuestionId,
    pub text: String,
    pub enabled: bool,
}

/// `RFQ-` and at least three digits. Two ids are the same question when their
/// numbers are equal, so `RFQ-007` and `RFQ-0007` cannot both exist.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QuestionId(u64);

impl QuestionId {
    pub fn from_number(number: u64) -> Self {
        QuestionId(number)
    }

    pub fn number(&self) -> u64 {
        self.0
    }

    /// Parses `RFQ-` followed by three or more ASCII digits.
    pub fn parse(text: &str) -> Option<Self> {
        let digits = text.strip_prefix("RFQ-")?;
        if digits.len() < 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok().map(QuestionId)
    }
}

impl fmt::Display for QuestionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RFQ-{:03}", self.0)
    }
}

impl Serialize for QuestionId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Whether a category id is acceptable: lowercase letters, digits and inner dashes.
pub fn is_category_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    !bytes.is_empty()
        && id.chars().count() <= MAX_CATEGORY_ID_CHARS
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && !id.starts_with('-')
        && !id.ends_with('-')
}

/// Checks a free text (question text or category name): trimmed, non-empty, one line,
/// at most `max` characters.
fn check_text(json_path: &str, text: &str, max: usize) -> Result<(), Violation> {
    if text.trim().is_empty() {
        return Err(Violation::new(json_path, "must not be empty"));
    }
    if text.trim() != text {
        return Err(Violation::new(
            json_path,
            "must not start or end with white space",
        ));
    }
    if text.chars().any(char::is_control) {
        return Err(Violation::new(
            json_path,
            "must be one line without control characters",
        ));
    }
    let count = text.chars().count();
    if count > max {
        return Err(Violation::new(
            json_path,
            format!("is {count} characters long; the limit is {max}"),
        ));
    }
    Ok(())
}

impl ReflectionConfig {
    /// The default set shipped with volk, used when a config file has no
    /// `reflection` section.
    pub fn defaults() -> Self {
        super::defaults::config()
    }

    /// Every semantic rule: bounds, texts, id formats and uniqueness. Run after
    /// reading and again after every change, before anything is written.
    pub fn validate(&self) -> Result<(), Violation> {
        let root = SECTION;
        if self.max_questions_per_stop == 0 || self.max_questions_per_stop > MAX_QUESTIONS_PER_STOP
        {
            return Err(Violation::new(
                format!("{root}.max_questions_per_stop"),
                format!(
                    "must be between 1 and {MAX_QUESTIONS_PER_STOP}, not {}",
                    self.max_questions_per_stop
                ),
            ));
        }
        if self.categories.len() > MAX_CATEGORIES {
            return Err(Violation::new(
                format!("{root}.categories"),
                format!("holds more than {MAX_CATEGORIES} categories"),
            ));
        }
        let mut category_ids = HashSet::new();
        let mut question_ids = HashSet::new();
        let mut total = 0usize;
        for (ci, category) in self.categories.iter().enumerate() {
            let cpath = format!("{root}.categories[{ci}]");
            if !is_category_id(&category.id) {
                return Err(Violation::new(
                    format!("{cpath}.id"),
                    format!(
                        "{:?} is not a category id (lowercase letters, digits and inner dashes, at most {MAX_CATEGORY_ID_CHARS})",
                        category.id
                    ),
                ));
            }
            if !category_ids.insert(category.id.as_str()) {
                return Err(Violation::new(
                    format!("{cpath}.id"),
                    format!("{:?} is used by another category", category.id),
                ));
            }
            check_text(&format!("{cpath}.name"), &category.name, MAX_NAME_CHARS)?;
            for (qi, question) in category.questions.iter().enumerate() {
                let qpath = format!("{cpath}.questions[{qi}]");
                if !question_ids.insert(question.id.number()) {
                    return Err(Violation::new(
                        format!("{qpath}.id"),
                        format!("{} is used by another question", question.id),
                    ));
                }
                check_text(&format!("{qpath}.text"), &question.text, MAX_TEXT_CHARS)?;
                total += 1;
            }
        }
        if total > MAX_QUESTIONS {
            return Err(Violation::new(
                format!("{root}.categories"),
                format!("holds more than {MAX_QUESTIONS} questions"),
            ));
        }
        Ok(())
    }

    /// Reads the section strictly: unknown keys, wrong types and malformed ids are
    /// refused with their JSON path, then [`validate`](Self::validate) runs.
    pub fn from_json(value: &Value) -> Result<Self, Violation> {
        let root = SECTION.to_string();
        let object = as_object(&root, value)?;
        known_keys(
            &root,
            object,
            &[
                "enabled",
                "on_stop",
                "max_questions_per_stop",
                "next_question_number",
                "categories",
            ],
        )?;
        let enabled = optional_bool(&root, object, "enabled")?.unwrap_or(true);
        let on_stop = optional_bool(&root, object, "on_stop")?.unwrap_or(true);
        let max_questions_per_stop = match object.get("max_questions_per_stop") {
            None => 3,
            Some(v) => {
                let path = format!("{root}.max_questions_per_stop");
                let n = v
                    .as_u64()
                    .ok_or_else(|| Violation::new(&path, "must be a whole number"))?;
                u32::try_from(n).map_err(|_| Violation::new(&path, "is far too large"))?
            }
        };
        let next_question_number = match object.get("next_question_number") {
            None => None,
            Some(v) => Some(v.as_u64().filter(|n| *n >= 1).ok_or_else(|| {
                Violation::new(
                    format!("{root}.next_question_number"),
                    "must be a whole number of at least 1",
                )
            })?),
        };
        let categories_path = format!("{root}.categories");
        let categories = match object.get("categories") {
            None => {
                return Err(Violation::new(
                    categories_path,
                    "is missing (a list of categories)",
                ));
            }
            Some(v) => v
                .as_array()
                .ok_or_else(|| Violation::new(&categories_path, "must be a list"))?
                .iter()
                .enumerate()
                .map(|(i, c)| category_from_json(&format!("{categories_path}[{i}]"), c))
                .collect::<Result<Vec<_>, _>>()?,
        };
        let config = ReflectionConfig {
            enabled,
            on_stop,
            max_questions_per_stop,
            next_question_number,
            categories,
        };
        config.validate()?;
        Ok(config)
    }

    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The highest question number in use.
    fn highest_question_number(&self) -> u64 {
        self.questions()
            .map(|(_, q)| q.id.number())
            .max()
            .unwrap_or(0)
    }

    /// Makes `next_question_number` explicit and past every id in use, so that the
    /// file remembers allocations even after the newest question is deleted.
    pub fn settle_counter(&mut self) {
        let floor = self.highest_question_number().saturating_add(1);
        let next = self.next_question_number.unwrap_or(1).max(floor);
        self.next_question_number = Some(next);
    }

    /// Hands out the next `RFQ-` id; never one that is or was in use in this file.
    pub fn allocate_question_id(&mut self) -> QuestionId {
        self.settle_counter();
        let number = self.next_question_number.unwrap_or(1);
        self.next_question_number = Some(number.saturating_add(1));
        QuestionId::from_number(number)
    }

    /// Every question with the category that holds it, in file order.
    pub fn questions(&self) -> impl Iterator<Item = (&Category, &Question)> {
        self.categories
            .iter()
            .flat_map(|c| c.questions.iter().map(move |q| (c, q)))
    }

    pub fn category(&self, id: &str) -> Option<&Category> {
        self.categories.iter().find(|c| c.id == id)
    }

    pub fn category_mut(&mut self, id: &str) -> Option<&mut Category> {
        self.categories.iter_mut().find(|c| c.id == id)
    }

    /// Where a question lives: (category index, question index).
    pub fn locate_question(&self, id: &QuestionId) -> Option<(usize, usize)> {
        self.categories.iter().enumerate().find_map(|(ci, c)| {
            c.questions
                .iter()
                .position(|q| &q.id == id)
                .map(|qi| (ci, qi))
        })
    }
}

fn category_from_json(path: &str, value: &Value) -> Result<Category, Violation> {
    let object = as_object(path, value)?;
    known_keys(path, object, &["id", "name", "enabled", "questions"])?;
    let id = required_string(path, object, "id")?;
    let name = required_string(path, object, "name")?;
    let enabled = optional_bool(path, object, "enabled")?.unwrap_or(true);
    let questions_path = format!("{path}.questions");
    let questions = match object.get("questions") {
        None => Vec::new(),
        Some(v) => v
            .as_array()
            .ok_or_else(|| Violation::new(&questions_path, "must be a list"))?
            .iter()
            .enumerate()
            .map(|(i, q)| question_from_json(&format!("{questions_path}[{i}]"), q))
            .collect::<Result<Vec<_>, _>>()?,
    };
    Ok(Category {
        id,
        name,
        enabled,
        questions,
    })
}

fn question_from_json(path: &str, value: &Value) -> Result<Question, Violation> {
    let object = as_object(path, value)?;
    known_keys(path, object, &["id", "text", "enabled"])?;
    let raw_id = required_string(path, object, "id")?;
    let id = QuestionId::parse(&raw_id).ok_or_else(|| {
        Violation::new(
            format!("{path}.id"),
            format!("{raw_id:?} is not a question id (RFQ- and at least three digits)"),
        )
    })?;
    let text = required_string(path, object, "text")?;
    let enabled = optional_bool(path, object, "enabled")?.unwrap_or(true);
    Ok(Question { id, text, enabled })
}

fn as_object<'a>(path: &str, value: &'a Value) -> Result<&'a Map<String, Value>, Violation> {
    value
        .as_object()
        .ok_or_else(|| Violation::new(path, "must be an object"))
}

fn known_keys(path: &str, object: &Map<String, Value>, known: &[&str]) -> Result<(), Violation> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(Violation::new(
            format!("{path}.{unknown}"),
            format!("unknown field (known: {})", known.join(", ")),
        )),
        None => Ok(()),
    }
}

fn optional_bool(
    path: &str,
    object: &Map<String, Value>,
    key: &str,
) -> Result<Option<bool>, Violation> {
    match object.get(key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(Violation::new(
            format!("{path}.{key}"),
            "must be true or false",
        )),
    }
}

fn required_string(
    path: &str,
    object: &Map<String, Value>,
    key: &str,
) -> Result<String, Violation> {
    match object.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(Violation::new(format!("{path}.{key}"), "must be a string")),
        None => Err(Violation::new(format!("{path}.{key}"), "is missing")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn minimal() -> Value {
        json!({
            "enabled": true,
            "on_stop": true,
            "max_questions_per_stop": 2,
            "categories": [
                {"id": "a", "name": "A", "enabled": true,
                 "questions": [{"id": "RFQ-001", "text": "Why?", "enabled": true}]}
            ]
        })
    }

    fn violation(value: Value) -> Violation {
        match ReflectionConfig::from_json(&value) {
            Err(v) => v,
            Ok(c) => panic!("accepted {c:?}"),
        }
    }

    #[test]
    fn question_ids_need_the_prefix_and_three_digits() {
        assert_eq!(QuestionId::parse("RFQ-001").map(|q| q.number()), Some(1));
        assert_eq!(
            QuestionId::parse("RFQ-1234").map(|q| q.number()),
            Some(1234)
        );
        assert!(QuestionId::parse("RFQ-01").is_none());
        assert!(QuestionId::parse("rfq-001").is_none());
        assert!(QuestionId::parse("RFQ-00a").is_none());
        assert!(QuestionId::parse("RFQ--01").is_none());
        assert_eq!(QuestionId::from_number(7).to_string(), "RFQ-007");
        assert_eq!(QuestionId::from_number(12345).to_string(), "RFQ-12345");
    }

    #[test]
    fn a_minimal_section_round_trips() {
        let config = ReflectionConfig::from_json(&minimal()).unwrap();
        assert_eq!(config.max_questions_per_stop, 2);
        let again = ReflectionConfig::from_json(&config.to_json()).unwrap();
        assert_eq!(config, again);
    }

    #[test]
    fn the_shipped_defaults_are_valid() {
        let config = ReflectionConfig::defaults();
        config.validate().unwrap();
        assert!(config.categories.len() >= 3);
    }

    #[test]
    fn unknown_fields_are_named_with_their_path() {
        let mut v = minimal();
        v["categories"][0]["questions"][0]["weight"] = json!(3);
        let err = violation(v);
        assert_eq!(
            err.json_path,
            "reflection.categories[0].questions[0].weight"
        );
        assert!(err.message.contains("unknown field"));
    }

    #[test]
    fn duplicate_ids_are_refused() {
        let mut v = minimal();
        v["categories"][0]["questions"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": "RFQ-0001", "text": "Again?"}));
        let err = violation(v);
        assert_eq!(err.json_path, "reflection.categories[0].questions[1].id");

        let mut v = minimal();
        v["categories"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": "a", "name": "Other"}));
        assert_eq!(violation(v).json_path, "reflection.categories[1].id");
    }

    #[test]
    fn texts_and_bounds_are_checked() {
        let mut v = minimal();
        v["categories"][0]["questions"][0]["text"] = json!("   ");
        assert!(violation(v).message.contains("empty"));

        let mut v = minimal();
        v["categories"][0]["questions"][0]["text"] = json!("x".repeat(MAX_TEXT_CHARS + 1));
        assert!(violation(v).message.contains("limit"));

        let mut v = minimal();
        v["categories"][0]["name"] = json!("two\nlines");
        assert_eq!(violation(v).json_path, "reflection.categories[0].name");

        for bad in [
            json!(0),
            json!(MAX_QUESTIONS_PER_STOP + 1),
            json!(-1),
            json!("3"),
        ] {
            let mut v = minimal();
            v["max_questions_per_stop"] = bad;
            assert_eq!(violation(v).json_path, "reflection.max_questions_per_stop");
        }

        let mut v = minimal();
        v["enabled"] = json!("yes");
        assert_eq!(violation(v).json_path, "reflection.enabled");

        let mut v = minimal();
        v["categories"][0]["id"] = json!("Has Spaces");
        assert_eq!(violation(v).json_path, "reflection.categories[0].id");

        let mut v = minimal();
        v["categories"][0]["questions"][0]["id"] = json!("Q-1");
        assert!(violation(v).message.contains("RFQ-"));

        assert_eq!(violation(json!([])).json_path, "reflection");
        assert_eq!(violation(json!({})).json_path, "reflection.categories");
    }

    #[test]
    fn allocation_never_reuses_a_number() {
        let mut config = ReflectionConfig::from_json(&minimal()).unwrap();
        let a = config.allocate_question_id();
        assert_eq!(a.to_string(), "RFQ-002");
        // Deleting every question does not bring old numbers back.
        config.categories[0].questions.clear();
        assert_eq!(config.allocate_question_id().to_string(), "RFQ-003");
        // A hand-added higher id moves the counter past it.
        config.categories[0].questions.push(Question {
            id: QuestionId::from_number(40),
            text: "Hand-written?".into(),
            enabled: true,
        });
        assert_eq!(config.allocate_question_id().to_string(), "RFQ-041");
    }
}
