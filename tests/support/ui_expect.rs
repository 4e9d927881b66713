//! UI cases whose errors the compiler words: checked for our own words and spans only.
//!
//! A case `ui/<macro>/fail_*.rs` with a `.expect` beside it (instead of a `.stderr`) fails with
//! an error of the compiler's (a trait bound, a closure's signature) at a span our macro chose,
//! often with our `#[diagnostic::on_unimplemented]` message, label and notes. The rest of what
//! rustc prints there (lists of other implementations, where a bound is declared, help that
//! points at the user's type) changes between releases, so a whole `.stderr` would hold for one
//! compiler only. Each line of the `.expect` must instead appear, in order, in the compiler's
//! output; lines starting with `#` are comments, and `[..]` stands for any text.
//!
//! The cases are compiled with `cargo check --keep-going` against this workspace's `tool-sdk`
//! and lock file, each as the binary of a package of its own in one scratch workspace under
//! the target directory. A case that needs settings in its package's manifest (the dialects
//! `[package.metadata.tool-sdk]` chooses) has them in a `.toml` beside it, added to its
//! package's `Cargo.toml` as written.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The scratch workspace's directory under the target directory's `tests/`.
const SCRATCH: &str = "ui-expect";

/// Compiles `fail` and `pass` cases: each `fail` case's output is checked against its
/// `.expect`, and each `pass` case must compile without an error. One message per case that
/// does not hold (empty when all do).
pub fn check(fail: &[PathBuf], pass: &[PathBuf]) -> Vec<String> {
    let cases: Vec<PathBuf> = fail.iter().chain(pass).cloned().collect();
    if cases.is_empty() {
        return Vec::new();
    }
    let tests_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = tests_dir
        .parent()
        .expect("the tests package is in the workspace");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let project_dir = target.join("tests").join(SCRATCH);
    let bins: Vec<String> = cases.iter().map(|case| bin_name(case)).collect();
    std::fs::create_dir_all(&project_dir).expect("the scratch workspace's directory");
    std::fs::write(
        project_dir.join("Cargo.toml"),
        workspace_manifest(workspace, &bins),
    )
    .expect("the scratch manifest");
    for (bin, case) in bins.iter().zip(&cases) {
        let package_dir = project_dir.join("cases").join(bin);
        std::fs::create_dir_all(&package_dir).expect("a case's package directory");
        let settings_path = tests_dir.join(case).with_extension("toml");
        let settings = std::fs::read_to_string(&settings_path).unwrap_or_default();
        write_if_changed(
            &package_dir.join("Cargo.toml"),
            &package_manifest(bin, &tests_dir.join(case), &settings),
        );
    }
    std::fs::copy(workspace.join("Cargo.lock"), project_dir.join("Cargo.lock"))
        .expect("the workspace's lock file");
    let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(&project_dir)
        .env("CARGO_TARGET_DIR", project_dir.join("target"))
        .env_remove("RUSTFLAGS")
        .args([
            "check",
            "--offline",
            "--workspace",
            "--bins",
            "--keep-going",
            "--quiet",
        ])
        .args(["--color=never", "--message-format=json"])
        .output()
        .expect("cargo runs");
    let rendered = rendered_by_bin(&String::from_utf8_lossy(&output.stdout));
    let prefix = format!("{}/", tests_dir.display());
    let mut failures = Vec::new();
    for (bin, case) in bins.iter().zip(&cases) {
        let text = rendered
            .iter()
            .filter(|(name, _)| name == bin)
            .map(|(_, text)| text.replace(&prefix, ""))
            .collect::<Vec<_>>()
            .join("\n");
        let failed = text.lines().any(|line| line.starts_with("error"));
        if pass.contains(case) {
            if failed {
                failures.push(format!("{}: expected to compile:\n{text}", case.display()));
            }
            continue;
        }
        if !failed {
            failures.push(format!(
                "{}: compiled without an error\n{}",
                case.display(),
                String::from_utf8_lossy(&output.stderr)
            ));
            continue;
        }
        let expect_path = tests_dir.join(case).with_extension("expect");
        let expected = std::fs::read_to_string(&expect_path).expect("the .expect file");
        if let Err(missing) = matches(&text, &expected) {
            failures.push(format!(
                "{}: expected, in order, the line `{missing}` in:\n{text}",
                case.display()
            ));
        }
    }
    failures
}

/// Writes `text` to `path` unless it holds it already: a manifest rewritten unchanged would
/// make cargo compile its case again.
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).expect("a case's manifest");
    }
}

/// Whether every expected line appears in `text`, in order; else the first that does not.
pub fn matches<'e>(text: &str, expected: &'e str) -> Result<(), &'e str> {
    let mut lines = text.lines().map(str::trim);
    for wanted in expected
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
    {
        if !lines.any(|line| line_matches(line, wanted)) {
            return Err(wanted);
        }
    }
    Ok(())
}

/// Whether `line` contains `pattern`, `[..]` in it standing for any text.
fn line_matches(line: &str, pattern: &str) -> bool {
    let mut rest = line;
    let mut parts = pattern.split("[..]");
    let Some(first) = parts.next() else {
        return true;
    };
    let Some(at) = rest.find(first) else {
        return false;
    };
    rest = &rest[at + first.len()..];
    for part in parts {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// `ui/tool/fail_x.rs` → `tool-fail_x`.
fn bin_name(case: &Path) -> String {
    let stem = case.file_stem().unwrap_or_default().to_string_lossy();
    let group = case
        .parent()
        .and_then(Path::file_name)
        .unwrap_or_default()
        .to_string_lossy();
    format!("{group}-{stem}")
}

/// The scratch workspace: one member package per case, the dependencies they share.
fn workspace_manifest(workspace: &Path, bins: &[String]) -> String {
    let members: Vec<String> = bins
        .iter()
        .map(|bin| format!("{:?}", format!("cases/{bin}")))
        .collect();
    format!(
        r#"[workspace]
resolver = "2"
members = [{}]

[workspace.dependencies]
tool-sdk = {{ path = {:?} }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
schemars = "1"
"#,
        members.join(", "),
        workspace.join("tool-sdk").display().to_string(),
    )
}

/// The package of one case: its binary, and the case's own manifest settings.
fn package_manifest(bin: &str, case: &Path, settings: &str) -> String {
    format!(
        r#"[package]
name = {bin:?}
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
tool-sdk.workspace = true
serde.workspace = true
serde_json.workspace = true
schemars.workspace = true

[[bin]]
name = {bin:?}
path = {:?}

{settings}"#,
        case.display().to_string()
    )
}

/// Each compiler message's rendered text, with the binary it is about.
fn rendered_by_bin(json_lines: &str) -> Vec<(String, String)> {
    json_lines
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-message")
        .filter_map(|message| {
            let bin = message["target"]["name"].as_str()?.to_owned();
            let text = message["message"]["rendered"].as_str()?.to_owned();
            Some((bin, text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_lines_are_found_in_order_with_wildcards() {
        let text = "error[E0277]: a tool returned a future, `impl Future<Output = String>`, x\n  --> ui/a.rs:3:4\n   |     ^^^ a future";
        let expected = "# comment\nerror[E0277]: a tool returned a future, `[..]`, x\n--> ui/a.rs:3:4\n\na future\n";
        assert_eq!(matches(text, expected), Ok(()));
        assert_eq!(
            matches(text, "--> ui/a.rs:3:4\nerror[E0277]"),
            Err("error[E0277]")
        );
        assert_eq!(matches(text, "--> ui/a.rs:3:5"), Err("--> ui/a.rs:3:5"));
    }
}
