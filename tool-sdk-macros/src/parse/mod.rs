//! From syn's syntax tree to the model: attribute grammar, doc comments, function signatures.

pub(crate) mod attr;
pub(crate) mod doc;
pub(crate) mod hook;
pub(crate) mod inline;
pub(crate) mod item;
pub(crate) mod set;
pub(crate) mod shell;
