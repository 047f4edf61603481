//! The default categories and questions, shipped in `assets/reflection/default.json`
//! and used whenever a config file has no `reflection` section.

use super::model::ReflectionConfig;

const DEFAULT_JSON: &str = include_str!("../../assets/reflection/default.json");

/// The shipped set. The asset is checked by a unit test; should it ever fail to
/// parse, reflection is switched off rather than asking broken questions.
pub fn config() -> ReflectionConfig {
    serde_json::from_str(DEFAULT_JSON)
        .ok()
        .and_then(|value| ReflectionConfig::from_json(&value).ok())
        .unwrap_or(ReflectionConfig {
            enabled: false,
            on_stop: false,
            max_questions_per_stop: 1,
            next_question_number: None,
            categories: Vec::new(),
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_asset_parses_and_validates() {
        let value: serde_json::Value = serde_json::from_str(super::DEFAULT_JSON).unwrap();
        let config = super::ReflectionConfig::from_json(&value).unwrap();
        assert!(config.enabled);
        assert_eq!(config, super::config());
    }
}
