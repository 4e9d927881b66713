//! Stage `register`: dispatch by name, dynamic tools, hostile input, and every BFCL function.
//!
//! One test binary for the stage: each file of this folder is a module of it.

mod adversarial;
mod bfcl_dispatch;
mod call;
mod described;
mod dynamic;
mod output_check;
