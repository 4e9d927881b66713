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
            ..
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

/// A check's verdict as the tool macros read it: the message of a refusal, and the root
/// property it is in, so that each property's `const _` (spanned at its parameter) fails only
/// for its own refusal.
#[derive(Debug)]
pub struct Checked {
    /// The root property the refusal is in; `None` when there is no refusal.
    at: Option<At>,
    message: Message,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    Property(usize),
    Outside,
}

impl Checked {
    /// Checks `parameters` (tool `tool`'s) against `dialect`, once: a `const` holds the result.
    pub const fn new(tool: &str, parameters: &'static Shape, dialect: Dialect) -> Checked {
        let Verdict::Refused {
            pointer,
            rule,
            property,
            ..
        } = check(rules::of(dialect), parameters)
        else {
            return Checked {
                at: None,
                message: Message::new(),
            };
        };
        let mut message = Message::new();
        message.text("tool `");
        message.text(tool);
        message.text("` cannot be described for ");
        message.text(dialect.name());
        message.text(": at `");
        message.pointer(&pointer);
        message.text("`: ");
        message.rule(&rule);
        Checked {
            at: Some(match property {
                Some(index) => At::Property(index),
                None => At::Outside,
            }),
            message,
        }
    }

    /// Whether the refusal is in the root's property `index`.
    pub const fn refused_in(&self, index: usize) -> bool {
        matches!(self.at, Some(At::Property(at)) if at == index)
    }

    /// Whether the refusal is in no property of the root.
    pub const fn refused_outside(&self) -> bool {
        matches!(self.at, Some(At::Outside))
    }

    /// The refusal's words, as a [`LoweringError`] says them.
    pub const fn message(&self) -> &str {
        self.message.as_str()
    }
}

/// The names of the fields a tool's parameters require, as a `static` holds them: a field is
/// required when it has no default and its type is no `Option` (schemars' rule).
#[derive(Debug)]
pub struct Required<const N: usize> {
    names: [Shape; N],
    len: usize,
}

impl<const N: usize> Required<N> {
    /// From each field's name, shape, and whether it has a default.
    pub const fn new(fields: [(&'static str, &Shape, bool); N]) -> Required<N> {
        let mut names = [Shape::Null; N];
        let mut len = 0;
        let mut i = 0;
        while i < N {
            let (name, shape, defaulted) = fields[i];
            if !defaulted && !matches!(shape, Shape::Nullable(_)) {
                names[len] = Shape::Str(name);
                len += 1;
            }
            i += 1;
        }
        Required { names, len }
    }

    /// The names.
    pub const fn names(&'static self) -> &'static [Shape] {
        self.names.split_at(self.len).0
    }
}
