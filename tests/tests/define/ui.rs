//! Compile-time behaviour of `#[tool]`, `#[tools]` and `define_tool!`: every rejected form fails
//! with our spanned error, every accepted form compiles warning-free.
//!
//! Cases live in `ui/<macro>/{fail,pass}_*.rs`, one mistake or one accepted form each, named for
//! it. A `fail_` case has one of two companions, and the suite runs on any stable rustc from
//! the MSRV on (it is never skipped):
//!
//! - `.stderr`, compared whole by trybuild (after its own normalisation), for the cases whose
//!   every error is one our macros emit: the words are ours and the rendering of a plain
//!   spanned error is the compiler's most stable output.
//! - `.expect`, for the cases where the compiler words the error (a trait bound our
//!   `#[diagnostic::on_unimplemented]` rewords, a closure of the wrong signature): only our
//!   message, label, notes and the span are checked, since the compiler's own notes change
//!   between releases ([`tool_sdk_tests::ui_expect`]).
//!
//! The cases of `ui/dialects_chosen/` are compiled by `ui_expect` alone, each in a package
//! whose manifest holds the `.toml` beside the case (`[package.metadata.tool-sdk]`, the
//! dialects chosen for every tool of the package, or a mistake in that table).
//!
//! After a deliberate change of a message, regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test -p tool-sdk-tests --test define ui` and review the diff; edit a
//! `.expect` by hand. `TOOL_SDK_UI=<text>` runs only the cases whose path (such as
//! `ui/tool/fail_generic_fn.rs`) contains the text. The test writes how many cases of each
//! kind ran to `target/tests/ui-summary.txt`, which the test script prints.

use std::path::{Path, PathBuf};

#[test]
fn ui() {
    let only = std::env::var("TOOL_SDK_UI").ok();
    let selected: Vec<PathBuf> = ui_cases()
        .into_iter()
        .filter(|case| {
            only.as_deref()
                .is_none_or(|only| case.to_string_lossy().contains(only))
        })
        .collect();
    let mut exact = Vec::new();
    let mut expect = Vec::new();
    let mut pass = Vec::new();
    let mut chosen_fail = Vec::new();
    let mut chosen_pass = Vec::new();
    let mut orphans = Vec::new();
    for case in selected {
        let name = case.file_name().unwrap_or_default().to_string_lossy();
        let in_chosen = case
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|dir| dir == CHOSEN);
        let settings = case.with_extension("toml").exists();
        if in_chosen {
            // Compiled with the dialects their package's manifest chooses, in the `.toml`
            // beside them: by `ui_expect` alone, since trybuild's packages take no settings.
            if !settings {
                orphans.push(format!("{}: needs a .toml", case.display()));
            } else if name.starts_with("pass_") {
                chosen_pass.push(case);
            } else if case.with_extension("expect").exists() {
                chosen_fail.push(case);
            } else {
                orphans.push(format!("{}: needs a .expect", case.display()));
            }
        } else if settings {
            orphans.push(format!(
                "{}: manifest settings are read for the cases of ui/{}/ alone",
                case.display(),
                CHOSEN
            ));
        } else if name.starts_with("pass_") {
            pass.push(case);
        } else if !name.starts_with("fail_") {
            orphans.push(format!("{}: neither pass_ nor fail_", case.display()));
        } else {
            let stderr = case.with_extension("stderr").exists();
            let expected = case.with_extension("expect").exists();
            match (stderr, expected) {
                (true, false) => exact.push(case),
                (false, true) => expect.push(case),
                _ => orphans.push(format!(
                    "{}: needs exactly one of .stderr and .expect",
                    case.display()
                )),
            }
        }
    }
    assert!(orphans.is_empty(), "{orphans:#?}");
    write_summary(
        exact.len(),
        expect.len() + chosen_fail.len(),
        pass.len() + chosen_pass.len(),
    );

    expect.extend(chosen_fail);
    let failures = tool_sdk_tests::ui_expect::check(&expect, &chosen_pass);
    // trybuild runs its cases when `cases` is dropped, and panics if any fails.
    {
        let cases = trybuild::TestCases::new();
        for case in &exact {
            cases.compile_fail(case);
        }
        for case in &pass {
            cases.pass(case);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The folder of the cases compiled with settings in their package's manifest (the dialects
/// `[package.metadata.tool-sdk]` chooses for every tool), each in a `.toml` beside the case.
const CHOSEN: &str = "dialects_chosen";

/// Every `ui/<macro>/*.rs`, relative to this package (trybuild's working directory).
fn ui_cases() -> Vec<PathBuf> {
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
    cases
}

/// Says how many cases of each kind run, with which compiler, where CI prints it.
fn write_summary(exact: usize, expect: usize, pass: usize) {
    let rustc =
        std::process::Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
            .arg("--version")
            .output()
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
            .unwrap_or_default();
    let summary = format!(
        "UI cases run with {rustc}: {} in all; {exact} fail cases compared whole (.stderr), \
         {expect} fail cases checked for our words and spans (.expect), {pass} pass cases\n",
        exact + expect + pass
    );
    eprint!("{summary}");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("tests");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("ui-summary.txt"), summary);
}
