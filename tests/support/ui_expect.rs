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
//! The cases are compiled as binaries of one scratch package under the target directory, with
//! `cargo check --keep-going`, against this workspace's `tool-sdk` and lock file.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// A scratch package the cases are compiled in: its name, and the features of `tool-sdk` it
/// turns on.
#[derive(Debug, Clone, Copy)]
pub struct Project {
    /// Its directory under the target directory's `tests/`, and the cases' directory under `ui/`.
    pub name: &'static str,
    /// The features of `tool-sdk` it builds with.
    pub features: &'static [&'static str],
}

/// `tool-sdk` with its default features.
pub const DEFAULT: Project = Project {
    name: "ui-expect",
    features: &[],
};

/// The cases' compiler output, checked against their `.expect` files: one message per case
/// that does not match (empty when all do).
pub fn check(cases: &[PathBuf]) -> Vec<String> {
    check_in(DEFAULT, cases, &[])
}

/// Compiles `fail` and `pass` cases in `project`: each `fail` case's output is checked against
/// its `.expect`, and each `pass` case must compile without an error. One message per case that
/// does not hold.
pub fn check_in(project: Project, fail: &[PathBuf], pass: &[PathBuf]) -> Vec<String> {
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
    let project_dir = target.join("tests").join(project.name);
    std::fs::create_dir_all(&project_dir).expect("the scratch package's directory");
    let bins: Vec<(String, PathBuf)> = cases
        .iter()
        .map(|case| {
            let absolute = tests_dir.join(case);
            (bin_name(case), absolute)
        })
        .collect();
    std::fs::write(
        project_dir.join("Cargo.toml"),
        manifest(workspace, project.features, &bins),
    )
    .expect("the scratch manifest");
    std::fs::copy(workspace.join("Cargo.lock"), project_dir.join("Cargo.lock"))
        .expect("the workspace's lock file");
    let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(&project_dir)
        .env("CARGO_TARGET_DIR", project_dir.join("target"))
        .env_remove("RUSTFLAGS")
        .args(["check", "--offline", "--bins", "--keep-going", "--quiet"])
        .args(["--color=never", "--message-format=json"])
        .output()
        .expect("cargo runs");
    let rendered = rendered_by_bin(&String::from_utf8_lossy(&output.stdout));
    let prefix = format!("{}/", tests_dir.display());
    let mut failures = Vec::new();
    for ((bin, _), case) in bins.iter().zip(&cases) {
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

fn manifest(workspace: &Path, features: &[&str], bins: &[(String, PathBuf)]) -> String {
    let features: Vec<String> = features
        .iter()
        .map(|feature| format!("{feature:?}"))
        .collect();
    let mut manifest = format!(
        r#"[package]
name = "tool-sdk-ui-expect"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
tool-sdk = {{ path = {:?}, features = [{}] }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
schemars = "1"
"#,
        workspace.join("tool-sdk").display().to_string(),
        features.join(", ")
    );
    for (name, path) in bins {
        manifest.push_str(&format!(
            "\n[[bin]]\nname = {name:?}\npath = {:?}\n",
            path.display().to_string()
        ));
    }
    manifest
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
