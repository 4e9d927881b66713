//! The verdict of the compile-time check: a compile error at compile time, a value at run time
//! (which the tests compare with [`lower`](crate::describe::lower)'s).

use crate::describe::rules;
use crate::describe::shape::check::{check, check_parameters, Parameter, Verdict};
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
/// assert_eq!(error.pointer(), "/properties/labels");
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
            ShapeVerdict::Refused(kind.error(
                tool,
                dialect,
                written.as_str().to_owned(),
                rule.to_string(),
            ))
        }
    }
}

/// Most dialects one tool is checked against (every one there is).
const MAX_DIALECTS: usize = Dialect::ALL.len();

/// A tool's check against the dialects chosen for it, as the tool macros read it: the words of
/// each refusal, and the root property each is in, so that each parameter's failing call
/// (spanned at the parameter) fails for its own refusals only, with the words of a
/// [`LoweringError`].
#[derive(Debug)]
pub struct Checked {
    /// Each refusal: where it is, and its words in `text` (from, to).
    refusals: [Option<(At, usize, usize)>; MAX_DIALECTS],
    text: Message,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    Property(usize),
    Outside,
}

impl Checked {
    /// Checks tool `tool`'s `parameters` against the dialects of `dialects` (a bit for each,
    /// by its place in [`Dialect::ALL`]).
    pub const fn new(tool: &str, parameters: &'static [Parameter], dialects: u8) -> Checked {
        let mut checked = Checked {
            refusals: [None; MAX_DIALECTS],
            text: Message::new(),
        };
        let mut d = 0;
        while d < MAX_DIALECTS {
            let dialect = Dialect::ALL[d];
            d += 1;
            if dialects & (1 << dialect.index()) == 0 {
                continue;
            }
            let Verdict::Refused {
                pointer,
                rule,
                property,
                ..
            } = check_parameters(rules::of(dialect), parameters)
            else {
                continue;
            };
            let from = checked.text.len();
            checked.text.text("tool `");
            checked.text.text(tool);
            checked.text.text("` cannot be described for ");
            checked.text.text(dialect.name());
            checked.text.text(": at `");
            checked.text.pointer(&pointer);
            checked.text.text("`: ");
            checked.text.rule(&rule);
            let at = match property {
                Some(index) => At::Property(index),
                None => At::Outside,
            };
            checked.refusals[d - 1] = Some((at, from, checked.text.len()));
        }
        checked
    }

    /// Fails the compilation, where it is called, when a refusal is in the root's property
    /// `index`.
    #[track_caller]
    pub const fn fail_in(&self, index: usize) {
        self.fail_at(At::Property(index));
    }

    /// Fails the compilation, where it is called, when a refusal is in no property of the
    /// root.
    #[track_caller]
    pub const fn fail_outside(&self) {
        self.fail_at(At::Outside);
    }

    /// Fails with the words of every refusal `at`, a line each. A refusal whose words did not
    /// all fit still fails, its words cut short with `…`.
    #[track_caller]
    const fn fail_at(&self, at: At) {
        let mut message = Message::new();
        let mut refused = false;
        let mut i = 0;
        while i < MAX_DIALECTS {
            if let Some((found, from, to)) = self.refusals[i] {
                let here = match (found, at) {
                    (At::Property(a), At::Property(b)) => a == b,
                    (At::Outside, At::Outside) => true,
                    _ => false,
                };
                if here {
                    if refused {
                        message.text("\n");
                    }
                    refused = true;
                    message.text(self.text.slice(from, to));
                }
            }
            i += 1;
        }
        if refused {
            if self.text.is_cut() || message.is_cut() {
                message.cut_short();
            }
            panic!("{}", message.as_str());
        }
    }
}
