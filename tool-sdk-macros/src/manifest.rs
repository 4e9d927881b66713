//! Whether the package being compiled depends on the runtime crate under its own name, read
//! from the package's manifest text.
//!
//! proc-macro-crate answers the general question (renamed dependencies, workspace inheritance)
//! by running `cargo locate-project` to find the workspace's manifest and parsing both manifests
//! as TOML: about 40 ms of a crate's build, once per crate that uses a macro. Nearly every
//! package writes `tool-sdk = ...` or `tool-sdk.workspace = true`, and then the crate's name is
//! `tool_sdk` whatever the workspace says, since a dependency's crate name comes from its key.
//! That case is recognized here from the text alone; anything else goes to proc-macro-crate.

/// Whether `manifest` (a `Cargo.toml`'s text) has a dependency keyed `package`, in any
/// dependency table, and renames no dependency to `package` (`package = "tool-sdk"` under
/// another key). `false` when unsure: the caller then asks proc-macro-crate.
pub(crate) fn depends_by_name(manifest: &str, package: &str) -> bool {
    let mut in_dependencies = false;
    let mut found = false;
    for line in manifest.lines() {
        let line = line.trim();
        if renames_to(line, package) {
            return false;
        }
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split(']').next().unwrap_or_default().trim();
            // `[dependencies.tool-sdk]`, `[target.'cfg(unix)'.dev-dependencies.tool-sdk]`.
            if let Some(table) = header.strip_suffix(package) {
                if table.strip_suffix('.').is_some_and(is_dependency_table) {
                    found = true;
                }
            }
            in_dependencies = is_dependency_table(header);
            continue;
        }
        if in_dependencies && starts_with_key(line, package) {
            found = true;
        }
    }
    found
}

/// Whether a table header names a dependency table: `dependencies`, `dev-dependencies`,
/// `build-dependencies`, alone or under `target.<cfg>.`.
fn is_dependency_table(header: &str) -> bool {
    ["dependencies", "dev-dependencies", "build-dependencies"]
        .iter()
        .any(|table| {
            header == *table
                || header
                    .strip_suffix(table)
                    .is_some_and(|head| head.starts_with("target.") && head.ends_with('.'))
        })
}

/// Whether `line` starts with the key `key`, bare or quoted, followed by `=` or `.`.
fn starts_with_key(line: &str, key: &str) -> bool {
    let quoted = format!("\"{key}\"");
    let rest = line
        .strip_prefix(quoted.as_str())
        .or_else(|| line.strip_prefix(key));
    rest.is_some_and(|rest| rest.trim_start().starts_with(['=', '.']))
}

/// Whether `line` holds `package = "<package>"`: a dependency renamed from `package`, which
/// only proc-macro-crate resolves.
fn renames_to(line: &str, package: &str) -> bool {
    let quoted = format!("\"{package}\"");
    line.match_indices("package").any(|(at, _)| {
        line[at + "package".len()..]
            .trim_start()
            .strip_prefix('=')
            .is_some_and(|value| value.trim_start().starts_with(quoted.as_str()))
    })
}

#[cfg(test)]
mod tests {
    use super::depends_by_name;

    const SDK: &str = "tool-sdk";

    #[test]
    fn a_dependency_under_its_own_name_is_recognized_in_every_form() {
        for manifest in [
            "[dependencies]\ntool-sdk = \"0.1\"\n",
            "[dependencies]\ntool-sdk = { path = \"../tool-sdk\", features = [\"mcp\"] }\n",
            "[dependencies]\ntool-sdk.workspace = true\n",
            "[dependencies]\n  tool-sdk  =  \"0.1\"\n",
            "[dependencies]\n\"tool-sdk\" = \"0.1\"\n",
            "[dev-dependencies]\ntool-sdk = \"0.1\"\n",
            "[target.'cfg(unix)'.dependencies]\ntool-sdk = \"0.1\"\n",
            "[dependencies.tool-sdk]\nversion = \"0.1\"\n",
            "[package]\nname = \"app\"\n\n[dependencies]\nserde = \"1\"\ntool-sdk = \"0.1\"\n",
        ] {
            assert!(depends_by_name(manifest, SDK), "{manifest}");
        }
    }

    #[test]
    fn anything_else_is_left_to_proc_macro_crate() {
        for manifest in [
            // Renamed: the crate is `sdk`.
            "[dependencies]\nsdk = { package = \"tool-sdk\", version = \"0.1\" }\n",
            "[dependencies]\ntool-sdk = \"0.1\"\nold = { version = \"0.0.9\", package=\"tool-sdk\" }\n",
            "[dependencies.sdk]\npackage = \"tool-sdk\"\nversion = \"0.1\"\n",
            // Inherited from the workspace under another key.
            "[dependencies]\nsdk.workspace = true\n",
            // Not a dependency.
            "[package]\nname = \"tool-sdk-example\"\n",
            "[features]\ntool-sdk = []\n",
            "[dependencies]\ntool-sdk-macros = \"0.1\"\n",
            "[workspace.dependencies]\ntool-sdk = \"0.1\"\n",
            "",
        ] {
            assert!(!depends_by_name(manifest, SDK), "{manifest}");
        }
    }
}
