//! Code generation from the model.

pub(crate) mod args;
pub(crate) mod decoder;
pub(crate) mod dialects;
pub(crate) mod doc;
pub(crate) mod fallback;
pub(crate) mod field;
pub(crate) mod free;
pub(crate) mod inline;
pub(crate) mod output;
pub(crate) mod set;
pub(crate) mod tool;

#[cfg(test)]
mod paths_test;
