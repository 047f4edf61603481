//! How much a design loop may spend: the defaults, and the ceilings no flag, variable
//! or `volk.toml` may pass. Below the config and the loop, since both hold values to
//! them.

use crate::BadInput;

/// The limits of a design loop when neither a flag nor `volk.toml` sets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Completion tokens asked of the reasoner per call.
    pub max_tokens: u32,
    /// Compiler-driven repairs of the execution plan.
    pub plan_repairs: u32,
    /// Cycles before the design is finalized without READY.
    pub max_cycles: u32,
    /// Automatic repairs of a cycle with design errors before the person sees it.
    pub lint_repairs: u32,
}

impl Limits {
    pub const DEFAULT: Limits = Limits {
        max_tokens: 16_000,
        plan_repairs: 2,
        max_cycles: 99,
        lint_repairs: 1,
    };

    /// The most any flag, variable or trusted `volk.toml` may ask for: each of these
    /// spends the user's tokens, so a typo or a hostile file cannot run up the bill.
    /// A larger value is refused where it is read, and clamped again where it is used.
    pub const CEILING: Limits = Limits {
        max_tokens: 128_000,
        plan_repairs: 5,
        max_cycles: 200,
        lint_repairs: 5,
    };
}

/// `value` unless it is above `ceiling`: then one line naming `name` (the flag or the
/// file and key) and the ceiling.
pub fn under_ceiling(
    name: &str,
    value: Option<u32>,
    ceiling: u32,
) -> Result<Option<u32>, BadInput> {
    match value {
        Some(v) if v > ceiling => Err(BadInput::new(format!(
            "{name}: {v} is over the ceiling of {ceiling}"
        ))),
        other => Ok(other),
    }
}
