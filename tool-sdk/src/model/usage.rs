//! What a model reports it used to answer: tokens read and written.

use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

/// Tokens a model reports for a request (or, summed, for a run): as the provider counts them,
/// in its own tokenizer. A model that reports none reports nothing, not zero.
///
/// ```
/// use tool_sdk::model::Usage;
///
/// let run = Usage::new(120, 30) + Usage::new(200, 12);
/// assert_eq!((run.input_tokens, run.output_tokens, run.total()), (320, 42, 362));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Usage {
    /// Tokens of the request the model read (the prompt: the conversation and the tools).
    #[serde(default)]
    pub input_tokens: u64,
    /// Tokens the model wrote (its reply, with any reasoning the provider counts in it).
    #[serde(default)]
    pub output_tokens: u64,
}

impl Usage {
    /// `input` tokens read and `output` tokens written.
    pub const fn new(input: u64, output: u64) -> Self {
        Self {
            input_tokens: input,
            output_tokens: output,
        }
    }

    /// Tokens read and written.
    pub const fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }

    /// Whether no token is counted.
    pub const fn is_zero(&self) -> bool {
        self.input_tokens == 0 && self.output_tokens == 0
    }
}

/// Sums saturate: a provider's count cannot overflow a run's.
impl Add for Usage {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
        }
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Self) {
        *self = *self + other;
    }
}
