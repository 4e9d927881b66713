//! Stage `define`: `#[tool]`, `#[tools]` and `define_tool!`, their decoders and their compile errors.
//!
//! One test binary for the stage: each file of this folder is a module of it.

mod decoder_equivalence;
mod output_schema;
mod tool;
mod tool_attr;
mod tool_set;
mod ui;
