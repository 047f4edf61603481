//! Reflection questions: one config of categories and `RFQ-` questions in
//! `.prd_plugin/config.json`, edited by people (`volk reflect`, or the JSON by hand),
//! by agents (`volk mcp`), and read by the Stop hook of coding agents (`volk hook
//! stop`) and by volk's own architect before it finalizes a design.

pub mod cli;
pub(crate) mod defaults;
pub(crate) mod error;
pub(crate) mod hook;
pub(crate) mod install;
pub(crate) mod mcp;
pub(crate) mod model;
pub(crate) mod ops;
pub(crate) mod select;
pub(crate) mod store;

use std::path::Path;

pub use error::ReflectionError;
pub use model::ReflectionConfig;
pub use select::SelectedQuestion;
pub use store::{ConfigStore, locate_config};

/// The questions the architect answers before finalizing: `None` when reflection is
/// off (`enabled: false`); otherwise the same deterministic selection the Stop hook
/// makes. A missing file or section means the default set, which is enabled.
/// `on_stop` and `PRD_REFLECTION` govern the Stop hook of coding agents only.
pub fn architect_questions(
    config_path: &Path,
) -> Result<Option<Vec<SelectedQuestion>>, ReflectionError> {
    let loaded = ConfigStore::new(config_path).load()?;
    if !loaded.config.enabled {
        return Ok(None);
    }
    Ok(Some(select::select_for(
        &loaded.config,
        select::Audience::Architect,
    )))
}

/// The request for the architect's reflection pass, for the design loop to send once
/// before finalizing: the numbered questions, answered about the design just written,
/// briefly and without touching the artifacts.
pub fn architect_prompt(questions: &[SelectedQuestion]) -> String {
    let mut text = String::from(
        "Before the design is finalized, look back once at the artifacts you wrote and answer \
         these questions about your own design:\n",
    );
    for (n, q) in questions.iter().enumerate() {
        text.push_str(&format!(
            "\n{}. [{}] {} ({})",
            n + 1,
            q.category,
            q.text,
            q.id
        ));
    }
    text.push_str(
        "\n\nAnswer each by its number in one to three lines: a short verdict, the part of \
         the design that supports it (section, requirement or file), and what you would \
         change, if anything. Give conclusions only, not your working. Do not rewrite any \
         artifact in this answer.",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architect_questions_follow_the_config() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".prd_plugin").join("config.json");
        let defaults = architect_questions(&path).unwrap().unwrap();
        assert_eq!(defaults.len(), 3);
        assert!(defaults[0].id.starts_with("RFQ-"));
        ops::update_policy(
            &ConfigStore::new(&path),
            ops::PolicyChange {
                enabled: Some(false),
                ..Default::default()
            },
        )
        .unwrap();
        let prompt = architect_prompt(&defaults);
        assert!(prompt.contains("\n1. [Design]") && prompt.contains("\n3. ["));
        assert_eq!(architect_questions(&path).unwrap(), None);
        std::fs::write(&path, "{\"reflection\": 1}").unwrap();
        assert!(architect_questions(&path).is_err());
    }
}
