//! The minimum supported Rust version the workspace states is true: no dependency, under any
//! feature and with the dev-dependencies, declares a newer `rust-version` than ours. A lock file
//! update that raises one fails here, and the stated version goes up with it.

use std::process::Command;

use serde_json::Value;

/// A `rust-version` as numbers: "1.89" and "1.89.0" compare equal.
fn version(text: &str) -> Vec<u64> {
    let mut parts: Vec<u64> = text
        .split('.')
        .map(|part| {
            part.parse()
                .unwrap_or_else(|_| panic!("`{text}` is not a rust-version"))
        })
        .collect();
    while parts.len() < 3 {
        parts.push(0);
    }
    parts
}

#[test]
fn no_dependency_needs_a_newer_rust_than_the_stated_one() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml");
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--all-features",
            "--locked",
        ])
        .args(["--manifest-path", manifest])
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
    let members: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .expect("workspace_members")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let packages = metadata["packages"].as_array().expect("packages");

    let ours = packages
        .iter()
        .find(|package| package["name"] == "tool-sdk")
        .and_then(|package| package["rust_version"].as_str())
        .expect("tool-sdk states a rust-version");
    let dependencies: Vec<(&str, &str, &str)> = packages
        .iter()
        .filter(|package| !members.contains(&package["id"].as_str().unwrap_or_default()))
        .filter_map(|package| {
            Some((
                package["name"].as_str()?,
                package["version"].as_str()?,
                package["rust_version"].as_str()?,
            ))
        })
        .collect();
    // Every dependency of every feature is in the graph: a check over a handful would prove
    // nothing (rmcp, rusqlite and trybuild are optional or dev-only).
    for name in ["rmcp", "rusqlite", "trybuild", "tokio-postgres", "axum"] {
        assert!(
            dependencies
                .iter()
                .any(|(dependency, ..)| *dependency == name),
            "{name} is missing from cargo metadata's graph"
        );
    }

    let newer: Vec<String> = dependencies
        .iter()
        .filter(|(.., needs)| version(needs) > version(ours))
        .map(|(name, at, needs)| format!("{name} {at} needs Rust {needs}"))
        .collect();
    assert!(
        newer.is_empty(),
        "the workspace states rust-version {ours}, but:\n  {}\nraise `rust-version` in Cargo.toml \
         (and the README's toolchain line) or hold these back",
        newer.join("\n  ")
    );
}
