//! The verdict of the compile-time check: a compile error at compile time, a value at run time
//! (which the tests compare with [`lower`](crate::describe::lower)'s).

use crate::describe::rules;
use crate::describe::shape::check::{check, Verdict};
use crate::describe::shape::text::Message;
use crate::describe::shape::tree::Shape;
use crate::describe::{Dialect, LoweringError};

/// What the compile-time check says of a tool's parameters in a dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShapeVerdict {
    /// The parameters lower to the dialect.
    Fits,
    /// They do not: the error registration would give.
    Refused(LoweringError),
    /// The check cannot tell (the schema composes flattened enums, say): registration will.
    Unchecked(&'static str),
}

/// The compile-time check of `parameters` (a tool's, an object schema) against `dialect`, run
/// now: what a tool with these parameters gets from `cargo check`.
///
/// # Examples
///
/// ```
/// use std::collections::HashMap;
/// use tool_sdk::describe::{check_shape, Described, Dialect, Keyword, Shape, ShapeVerdict};
///
/// static PARAMETERS: Shape = Shape::Schema(&[
///     (Keyword::Type, Shape::Str("object")),
///     (Keyword::Properties, Shape::Names(&[("labels", <HashMap<String, String>>::SHAPE)])),
/// ]);
/// let ShapeVerdict::Refused(error) = check_shape("tag", &PARAMETERS, Dialect::OpenAiStrict) else {
///     panic!("a map cannot be said in strict mode");
/// };
/// assert_eq!(error.pointer, "/properties/labels");
/// assert_eq!(check_shape("tag", &PARAMETERS, Dialect::GeminiJsonSchema), ShapeVerdict::Fits);
/// ```
pub fn check_shape(tool: &str, parameters: &'static Shape, dialect: Dialect) -> ShapeVerdict {
    match check(rules::of(dialect), parameters) {
        Verdict::Fits => ShapeVerdict::Fits,
        Verdict::Unchecked(why) => ShapeVerdict::Unchecked(why),
        Verdict::Refused {
            kind,
            pointer,
            rule,
        } => {
            let mut written = Message::new();
            written.pointer(&pointer);
            ShapeVerdict::Refused(LoweringError {
                kind,
                tool: tool.to_owned(),
                dialect,
                pointer: written.as_str().to_owned(),
                rule: rule.to_string(),
            })
        }
    }
}

/// Fails the compilation, with the words of a [`LoweringError`], when `dialect` refuses
/// `parameters`: what the tool macros evaluate in a `const _` for each dialect chosen.
pub const fn assert_fits(tool: &str, parameters: &'static Shape, dialect: Dialect) {
    if let Verdict::Refused { pointer, rule, .. } = check(rules::of(dialect), parameters) {
        let mut message = Message::new();
        message.text("tool `");
        message.text(tool);
        message.text("` cannot be described for ");
        message.text(dialect.name());
        message.text(": at `");
        message.pointer(&pointer);
        message.text("`: ");
        message.rule(&rule);
        panic!("{}", message.as_str());
    }
}
