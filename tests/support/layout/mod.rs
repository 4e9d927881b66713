//! Reading a crate's sources as the layout test needs them: each file parsed by syn, the module
//! paths it names, the items it defines, and the graph of which file imports which.
//!
//! The readers work on syntax, not on text, so comments, doc comments and string literals never
//! count as uses; what syn leaves as tokens (macro calls, attribute arguments) is walked token by
//! token, since a path written there is a use all the same.

pub mod graph;
pub mod items;
pub mod learned;
pub mod paths;
pub mod source;
