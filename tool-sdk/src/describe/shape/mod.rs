//! Checking a tool against a dialect when the crate is compiled.
//!
//! A [`Shape`] is a type's JSON Schema as `&'static` data, given by [`Described`]; a `const fn`
//! walks it with the dialect's rules, as [`lower`](crate::describe::lower) walks the schema at
//! run time, and a tool whose parameters a chosen dialect refuses fails to compile with the
//! words of the [`LoweringError`](crate::describe::LoweringError) registration would give.

pub(crate) mod agree;
pub(crate) mod check;
mod compare;
pub(crate) mod described;
mod foreign;
mod text;
mod tree;
pub(crate) mod verdict;
mod view;
mod write;

pub use described::{Described, DescribedKey};

pub use tree::{Definition, Keyword, Shape};
pub use verdict::{check_shape, ShapeVerdict};

#[cfg(test)]
mod tests;
