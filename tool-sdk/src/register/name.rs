//! The rule every tool name follows, and the mapping of foreign names onto it.

use std::borrow::Cow;

use crate::register::RegistryError;

use crate::define::MAX_NAME_LEN;

/// Checks a tool name against `^[a-zA-Z0-9_-]{1,64}$`, the rule OpenAI, Anthropic and Gemini all
/// accept; `#[tool]` and `define_tool!` check the same rule at compile time.
///
/// # Examples
///
/// ```
/// assert!(tool_sdk::register::validate_name("get_weather").is_ok());
/// assert!(tool_sdk::register::validate_name("math.factorial").is_err());
/// ```
pub fn validate_name(name: &str) -> Result<(), RegistryError> {
    let reason = if name.is_empty() {
        "it is empty"
    } else if name.len() > MAX_NAME_LEN {
        "it is longer than 64 characters"
    } else if !name.bytes().all(is_name_byte) {
        "only ASCII letters, digits, `_` and `-` are allowed"
    } else {
        return Ok(());
    };
    Err(RegistryError::InvalidName {
        name: name.to_owned(),
        reason,
    })
}

/// Maps a name from elsewhere (an MCP server, a function catalogue) onto the provider rule:
/// every byte outside `[a-zA-Z0-9_-]` becomes `_`, and the result is cut to 64 characters.
/// `math.factorial` becomes `math_factorial`, as BFCL's own OpenAI handler does it.
///
/// Two names can map to the same result; the registry then refuses the second as a duplicate
/// rather than guessing.
///
/// # Examples
///
/// ```
/// assert_eq!(tool_sdk::register::provider_name("math.factorial"), "math_factorial");
/// assert_eq!(tool_sdk::register::provider_name("get_weather"), "get_weather");
/// ```
pub fn provider_name(name: &str) -> Cow<'_, str> {
    if validate_name(name).is_ok() {
        return Cow::Borrowed(name);
    }
    let mapped: String = name
        .chars()
        .map(|c| {
            if c.is_ascii() && is_name_byte(c as u8) {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAME_LEN)
        .collect();
    if mapped.is_empty() {
        Cow::Borrowed("_")
    } else {
        Cow::Owned(mapped)
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}
