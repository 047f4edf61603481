//! Artifact kinds: what each kind of stage output contains and whether producing it
//! writes files. The compiler checks `kind`, `tools` and field conditions against them.
//!
//! The built-in registry is `assets/kinds.json`, compiled into the binary; a file
//! given with `--kinds` adds kinds or replaces built-in ones by id.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::model::is_snake_case;

const BUILTIN: &str = include_str!("../../assets/kinds.json");

/// The JSON type a kind's field holds, or the closed set of strings it may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldType {
    String,
    Boolean,
    Number,
    Array,
    Object,
    OneOf(Vec<String>),
}

impl FieldType {
    /// Human description for messages: `one of "approved", "changes_requested"`.
    pub fn describe(&self) -> String {
        match self {
            FieldType::String => "a string".into(),
            FieldType::Boolean => "a boolean".into(),
            FieldType::Number => "a number".into(),
            FieldType::Array => "an array".into(),
            FieldType::Object => "an object".into(),
            FieldType::OneOf(values) => format!(
                "one of {}",
                values
                    .iter()
                    .map(|v| format!("\"{v}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// Whether an edge may compare this field with `value`; `Err` says why not.
    pub fn accepts(&self, value: &serde_json::Value) -> Result<(), String> {
        use serde_json::Value as J;
        let fits = match (self, value) {
            (FieldType::String, J::String(_))
            | (FieldType::Boolean, J::Bool(_))
            | (FieldType::Number, J::Number(_)) => true,
            (FieldType::OneOf(values), J::String(s)) => values.iter().any(|v| v == s),
            (FieldType::Array | FieldType::Object, _) => {
                return Err(format!(
                    "the field holds {}, which an edge cannot compare",
                    self.describe()
                ));
            }
            _ => false,
        };
        if fits {
            Ok(())
        } else {
            Err(format!("the field holds {}, not {value}", self.describe()))
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kind {
    pub id: String,
    pub description: String,
    /// Stages of this kind edit the working tree, so they alone may list tools.
    pub writes_files: bool,
    pub fields: BTreeMap<String, FieldType>,
}

/// The kinds a plan may use, by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindRegistry {
    kinds: BTreeMap<String, Kind>,
}

#[derive(Debug, thiserror::Error)]
pub enum KindsError {
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{origin}: {message}")]
    Invalid { origin: String, message: String },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KindSpec {
    #[serde(default)]
    description: String,
    #[serde(default)]
    writes_files: bool,
    #[serde(default)]
    fields: BTreeMap<String, FieldSpec>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum FieldSpec {
    Named(String),
    OneOf(Vec<String>),
}

impl KindRegistry {
    /// The kinds shipped with volk.
    pub fn builtin() -> KindRegistry {
        // The asset is tested to parse, so the fallback (an empty registry, under which
        // every `kind` is reported unknown) is unreachable in a released binary.
        Self::from_json("assets/kinds.json", BUILTIN).unwrap_or(KindRegistry {
            kinds: BTreeMap::new(),
        })
    }

    /// The built-in kinds with those of `path` added or replacing them by id.
    pub fn with_overrides(path: &Path) -> Result<KindRegistry, KindsError> {
        let text = std::fs::read_to_string(path).map_err(|source| KindsError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let extra = Self::from_json(&path.display().to_string(), &text)?;
        let mut registry = Self::builtin();
        registry.kinds.extend(extra.kinds);
        Ok(registry)
    }

    /// Reads a registry from JSON text; `origin` names it in errors.
    pub fn from_json(origin: &str, text: &str) -> Result<KindRegistry, KindsError> {
        let invalid = |message: String| KindsError::Invalid {
            origin: origin.to_string(),
            message,
        };
        let specs: BTreeMap<String, KindSpec> =
            serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        let mut kinds = BTreeMap::new();
        for (id, spec) in specs {
            if !is_snake_case(&id) {
                return Err(invalid(format!("kind id `{id}` is not snake_case")));
            }
            let mut fields = BTreeMap::new();
            for (name, field) in spec.fields {
                let ty = match field {
                    FieldSpec::Named(t) => match t.as_str() {
                        "string" => FieldType::String,
                        "boolean" => FieldType::Boolean,
                        "number" => FieldType::Number,
                        "array" => FieldType::Array,
                        "object" => FieldType::Object,
                        other => {
                            return Err(invalid(format!(
                                "kind `{id}`, field `{name}`: unknown type `{other}` \
                                 (string, boolean, number, array, object, or a list of allowed strings)"
                            )));
                        }
                    },
                    FieldSpec::OneOf(values) if values.is_empty() => {
                        return Err(invalid(format!(
                            "kind `{id}`, field `{name}`: the list of allowed values is empty"
                        )));
                    }
                    FieldSpec::OneOf(values) => FieldType::OneOf(values),
                };
                fields.insert(name, ty);
            }
            kinds.insert(
                id.clone(),
                Kind {
                    id,
                    description: spec.description,
                    writes_files: spec.writes_files,
                    fields,
                },
            );
        }
        Ok(KindRegistry { kinds })
    }

    pub fn get(&self, id: &str) -> Option<&Kind> {
        self.kinds.get(id)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Kind> {
        self.kinds.values()
    }

    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.kinds.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_has_the_required_kinds() {
        KindRegistry::from_json("builtin", BUILTIN).unwrap();
        let k = KindRegistry::builtin();
        for id in [
            "file_written",
            "process_result",
            "review_report",
            "analysis",
            "design_docs",
            "execution_plan",
        ] {
            assert!(k.get(id).is_some(), "{id}");
        }
        assert!(k.get("file_written").unwrap().writes_files);
        assert!(!k.get("review_report").unwrap().writes_files);
        assert!(matches!(
            k.get("review_report").unwrap().fields.get("verdict"),
            Some(FieldType::OneOf(v)) if v.contains(&"approved".to_string())
        ));
    }

    #[test]
    fn overrides_add_and_replace() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kinds.json");
        std::fs::write(
            &path,
            r#"{"review_report": {"fields": {"score": "number"}},
                "benchmark": {"writes_files": false, "fields": {"fast": "boolean"}}}"#,
        )
        .unwrap();
        let k = KindRegistry::with_overrides(&path).unwrap();
        assert!(k.get("file_written").is_some());
        assert!(k.get("benchmark").is_some());
        let review = k.get("review_report").unwrap();
        assert!(review.fields.contains_key("score"));
        assert!(!review.fields.contains_key("verdict"));
    }

    #[test]
    fn bad_registries_say_what_is_wrong() {
        let cases = [
            (r#"{"Bad": {}}"#, "not snake_case"),
            (r#"{"k": {"fields": {"f": "text"}}}"#, "unknown type `text`"),
            (r#"{"k": {"fields": {"f": []}}}"#, "empty"),
            (r#"{"k": {"writes": true}}"#, "unknown field"),
            ("{", "EOF"),
        ];
        for (text, expected) in cases {
            let err = KindRegistry::from_json("k.json", text)
                .unwrap_err()
                .to_string();
            assert!(err.starts_with("k.json: "), "{err}");
            assert!(err.contains(expected), "{text}: {err}");
        }
    }

    #[test]
    fn field_types_accept_matching_values() {
        let verdict = FieldType::OneOf(vec!["approved".into()]);
        assert!(verdict.accepts(&"approved".into()).is_ok());
        assert!(verdict.accepts(&"aproved".into()).is_err());
        assert!(FieldType::Boolean.accepts(&true.into()).is_ok());
        assert!(FieldType::Boolean.accepts(&"true".into()).is_err());
        assert!(FieldType::Array.accepts(&serde_json::json!([])).is_err());
    }
}
