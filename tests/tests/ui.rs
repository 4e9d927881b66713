//! Compile-time behaviour of `#[tool]`, `#[tools]` and `define_tool!`: every rejected form fails
//! with the spanned error recorded in its `.stderr`, every accepted form compiles warning-free.
//!
//! Cases live in `ui/<macro>/{fail,pass}_*.rs`, one mistake or one accepted form each, named for
//! it. After a deliberate change of a message (or of the compiler), regenerate with
//! `TRYBUILD=overwrite cargo test -p tool-sdk-tests --test ui` and review the `.stderr` diff.
//!
//! The `.stderr` files belong to one compiler, the stable release named below; on any other the
//! test is ignored rather than failed on wording. Moving to a new one: change the version,
//! regenerate, review.
//!
//! `TOOL_SDK_UI=<text>` runs only the cases whose path (such as `ui/tool/fail_generic_fn.rs`)
//! contains the text.

use std::path::PathBuf;

#[test]
#[rustversion::attr(
    not(stable(1.95)),
    ignore = "the .stderr files are those of rustc 1.95"
)]
fn ui() {
    // trybuild globs relative to the working directory, which `cargo test` sets to this
    // package's manifest directory.
    let cases = trybuild::TestCases::new();
    match std::env::var("TOOL_SDK_UI") {
        Ok(only) => {
            for case in ui_cases().filter(|case| case.to_string_lossy().contains(&only)) {
                let name = case.file_name().unwrap_or_default().to_string_lossy();
                if name.starts_with("pass_") {
                    cases.pass(&case);
                } else if name.starts_with("fail_") {
                    cases.compile_fail(&case);
                }
            }
        }
        Err(_) => {
            cases.compile_fail("ui/*/fail_*.rs");
            cases.pass("ui/*/pass_*.rs");
        }
    }
}

/// Every `ui/<macro>/*.rs`.
fn ui_cases() -> impl Iterator<Item = PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir("ui")
        .expect("the ui directory")
        .flatten()
        .flat_map(|dir| {
            std::fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    cases.sort();
    cases.into_iter()
}
