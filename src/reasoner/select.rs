//! Choosing a reasoner from flags, environment and `volk.toml`, in that order.

use clap::Args;

use crate::BadInput;
use crate::config::Settings;
use crate::reasoner::SharedReasoner;
use crate::reasoner::offline::OfflineDrafter;

/// Reasoner options shared by every command that designs.
#[derive(Debug, Clone, Default, Args)]
pub struct ReasonerArgs {
    /// offline | openai | anthropic | deepseek | ollama | replay:PATH
    #[arg(long, env = "VOLK_REASONER")]
    pub reasoner: Option<String>,
    /// Model name sent to the provider.
    #[arg(long, env = "VOLK_MODEL")]
    pub model: Option<String>,
    /// Base URL of the provider's API.
    #[arg(long, env = "VOLK_BASE_URL")]
    pub base_url: Option<String>,
}

/// Builds the reasoner the user asked for.
pub fn build(args: &ReasonerArgs, settings: &Settings) -> Result<SharedReasoner, BadInput> {
    let name = args
        .reasoner
        .clone()
        .or_else(|| settings.reasoner.clone())
        .unwrap_or_else(|| "offline".to_string());
    match name.as_str() {
        "offline" => Ok(std::sync::Arc::new(OfflineDrafter::default())),
        other => Err(BadInput::new(format!(
            "--reasoner: unknown reasoner '{other}' (expected offline)"
        ))),
    }
}
