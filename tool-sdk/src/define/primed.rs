//! Generic code that every crate of tools would otherwise compile for itself, compiled once here.
//!
//! A tool's expansion runs generic code of this crate, serde, serde_json and schemars at the
//! types of its parameters and of its return value: reading an `i64` argument, describing a
//! `String` one, writing an `f64` result and its schema. Which types those are does not depend
//! on the tool, and most tools take and return the same few. A debug build shares its generic
//! instances with the crates that depend on it (rustc's `share-generics`, on by default at
//! `opt-level` 0 and 1): an instance compiled here is linked, not compiled again, in each crate
//! of tools. The tools below are never registered; they exist so that this crate compiles, once,
//! what a tool of each common argument and return type runs. Without them each crate that
//! uses `#[tool]` compiled about 190 million instructions of it (rustc's count, measured by
//! `scripts/fixed_cost.sh`), more than the rest of a one-tool crate.
//!
//! An optimized build shares nothing (every crate compiles its own instances, to inline them),
//! so the module is in debug builds only.

// Each parameter names a type whose decoding and description this crate then holds.
#![allow(clippy::too_many_arguments, clippy::unnecessary_wraps)]

use serde_json::Value;

// The impl generated code's choice settles on for these types.
use crate::define::output_of::{OutputOf, SerializedOutputSchema as _};
use crate::define::{to_json, ToolError, ToolResult};

/// Takes every common argument type.
#[tool_sdk_macros::tool(crate = crate)]
pub fn primed_arguments(
    text: String,
    flag: bool,
    integer: i64,
    unsigned: u64,
    small: i32,
    small_unsigned: u32,
    size: usize,
    real: f64,
    maybe_text: Option<String>,
    maybe_flag: Option<bool>,
    maybe_integer: Option<i64>,
    maybe_unsigned: Option<u64>,
    maybe_small: Option<i32>,
    maybe_small_unsigned: Option<u32>,
    maybe_size: Option<usize>,
    maybe_real: Option<f64>,
    texts: Vec<String>,
    integers: Vec<i64>,
    reals: Vec<f64>,
    // Any value, which the strict dialects refuse: a build that checks its tools against them
    // leaves this one to registration, where it is never registered.
    #[arg(unchecked)] value: Value,
) {
    let _ = (
        text,
        flag,
        integer,
        unsigned,
        small,
        small_unsigned,
        size,
        real,
        maybe_text,
        maybe_flag,
        maybe_integer,
        maybe_unsigned,
        maybe_small,
        maybe_small_unsigned,
        maybe_size,
        maybe_real,
        texts,
        integers,
        reals,
        value,
    );
}

/// Declares, per return type written as JSON, a function that writes a value of it and chooses
/// its output schema as generated code does (`name: type = value;`): the same generic calls at
/// the same types, so the same instances, without a tool's own code around them. Text, `()` and
/// `Value` have conversions of their own that are not generic.
macro_rules! primed_returns {
    ($($name:ident: $ty:ty = $value:expr;)*) => {$(
        /// A common return type, written and described.
        pub fn $name() -> (ToolResult, Option<Value>) {
            let value: $ty = $value;
            (
                to_json(&value, ""),
                (&&&&OutputOf::<$ty>::new()).__output_schema(),
            )
        }
    )*};
}

primed_returns! {
    primed_flag: bool = false;
    primed_integer: i64 = 0;
    primed_unsigned: u64 = 0;
    primed_small: i32 = 0;
    primed_small_unsigned: u32 = 0;
    primed_size: usize = 0;
    primed_real: f64 = 0.0;
    primed_texts: Vec<String> = Vec::new();
}

/// The error of a tool's `Result<T, String>`, as generated code makes it.
pub fn primed_error() -> ToolError {
    ToolError::failed("", String::new())
}
