//! What the package being compiled asks of the macros in its own manifest:
//!
//! ```toml
//! [package.metadata.tool-sdk]
//! dialects = ["openai_strict", "gemini"]
//! ```
//!
//! checks every tool of that package against those dialects when it compiles, as
//! `#[tool(dialects(...))]` does for one tool. The choice is read from the `Cargo.toml` of the
//! package whose code is being expanded (`CARGO_MANIFEST_DIR`), so it holds for that package
//! alone: a Cargo feature would be unified over the whole build, and one package asking for a
//! check would hold every other package's tools to it.
//!
//! A rustc process compiles one package: the manifest is read and parsed once (with the TOML
//! parser proc-macro-crate already builds), and read again only when its modification time or
//! length changed, for processes that expand many packages' code (an editor's).

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use proc_macro2::TokenStream;
use quote::quote;

use crate::manifest::depends_by_name;
use crate::symbol::{DIALECTS, DIALECT_NAMES, RUNTIME_PACKAGE, SETTINGS_KEYS, SETTINGS_TABLE};

/// The package's settings, and what its manifest says about the runtime crate.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Settings {
    /// The manifest they were read from, when there is one (cargo sets `CARGO_MANIFEST_DIR`).
    pub(crate) manifest: Option<PathBuf>,
    /// Whether the package depends on `tool-sdk` under that key (see [`depends_by_name`]).
    pub(crate) runtime_by_name: bool,
    /// The dialects every tool of the package is checked against: names of `DIALECT_NAMES`.
    pub(crate) dialects: Vec<&'static str>,
    /// What is wrong with `[package.metadata.tool-sdk]`, when something is: the tools of the
    /// package then fail to compile with it, and no dialect is chosen.
    pub(crate) problem: Option<String>,
}

thread_local! {
    /// The settings last read, with the stamp of the manifest they were read from.
    static CACHE: RefCell<Option<(PathBuf, Stamp, Rc<Settings>)>> = const { RefCell::new(None) };
}

/// When a manifest was last written, and its length: a changed file has another stamp.
type Stamp = (Option<SystemTime>, u64);

/// The settings of the package being compiled. Without a manifest to read (a build outside
/// cargo), none: no dialect chosen, the runtime crate found by proc-macro-crate.
pub(crate) fn settings() -> Rc<Settings> {
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return Rc::default();
    };
    let path = Path::new(&dir).join("Cargo.toml");
    let Ok(metadata) = std::fs::metadata(&path) else {
        return Rc::default();
    };
    let stamp = (metadata.modified().ok(), metadata.len());
    let cached = CACHE.with(|cache| {
        cache
            .borrow()
            .as_ref()
            .and_then(|(cached_path, cached_stamp, settings)| {
                (*cached_path == path && *cached_stamp == stamp).then(|| Rc::clone(settings))
            })
    });
    if let Some(settings) = cached {
        return settings;
    }
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Rc::default();
    };
    let mut settings = read(&text);
    settings.manifest = Some(path.clone());
    let settings = Rc::new(settings);
    CACHE.with(|cache| *cache.borrow_mut() = Some((path, stamp, Rc::clone(&settings))));
    settings
}

/// The settings a manifest's text gives.
pub(crate) fn read(text: &str) -> Settings {
    let (dialects, problem) = match dialects(text) {
        Ok(dialects) => (dialects, None),
        Err(problem) => (Vec::new(), Some(problem)),
    };
    Settings {
        manifest: None,
        runtime_by_name: depends_by_name(text, RUNTIME_PACKAGE),
        dialects,
        problem,
    }
}

/// The dialects `[package.metadata.tool-sdk]` chooses, or what is wrong with the table,
/// located in the manifest.
fn dialects(text: &str) -> Result<Vec<&'static str>, String> {
    let document = toml_edit::Document::parse(text)
        .map_err(|error| problem(text, error.span(), format!("not TOML: {}", error.message())))?;
    let Some(item) = document
        .get("package")
        .and_then(|package| package.get("metadata"))
        .and_then(|metadata| metadata.get(RUNTIME_PACKAGE))
    else {
        return Ok(Vec::new());
    };
    let Some(table) = item.as_table_like() else {
        return Err(problem(
            text,
            item.span(),
            format!(
                "`{SETTINGS_TABLE}` is a table, such as `dialects = [\"openai_strict\"]` under \
                 `[{SETTINGS_TABLE}]`, not {}",
                with_article(item.type_name())
            ),
        ));
    };
    for (key, _) in table.iter() {
        if !SETTINGS_KEYS.contains(&key) {
            let span = table.get_key_value(key).and_then(|(key, _)| key.span());
            return Err(problem(
                text,
                span,
                format!(
                    "unknown key `{key}` in `[{SETTINGS_TABLE}]`; expected one of: {}",
                    SETTINGS_KEYS.join(", ")
                ),
            ));
        }
    }
    let Some(listed) = table.get(DIALECTS) else {
        return Ok(Vec::new());
    };
    let Some(array) = listed.as_array() else {
        return Err(problem(
            text,
            listed.span(),
            format!(
                "`dialects` in `[{SETTINGS_TABLE}]` lists the dialects to check, such as \
                 `dialects = [\"openai_strict\", \"gemini\"]`, not {}; the dialects are: {}",
                with_article(listed.type_name()),
                dialect_names()
            ),
        ));
    };
    let mut dialects = Vec::new();
    for value in array.iter() {
        let Some(name) = value.as_str() else {
            return Err(problem(
                text,
                value.span(),
                format!(
                    "`dialects` in `[{SETTINGS_TABLE}]` lists dialects by name, in strings, \
                     not {}; the dialects are: {}",
                    with_article(value.type_name()),
                    dialect_names()
                ),
            ));
        };
        let Some((known, ..)) = DIALECT_NAMES.iter().find(|(known, ..)| *known == name) else {
            return Err(problem(
                text,
                value.span(),
                format!(
                    "unknown dialect `{name}` in `[{SETTINGS_TABLE}]`; the dialects are: {}",
                    dialect_names()
                ),
            ));
        };
        if dialects.contains(known) {
            return Err(problem(
                text,
                value.span(),
                format!("`{name}` is listed twice in `[{SETTINGS_TABLE}]`"),
            ));
        }
        dialects.push(*known);
    }
    Ok(dialects)
}

/// `message`, saying where in the manifest (line and column, counted from 1) when known.
fn problem(text: &str, span: Option<std::ops::Range<usize>>, message: String) -> String {
    let at = span.map(|span| {
        let before = text.get(..span.start).unwrap_or(text);
        let line = before.matches('\n').count() + 1;
        let column = before
            .rsplit('\n')
            .next()
            .map_or(0, |line| line.chars().count())
            + 1;
        format!(", line {line}, column {column}")
    });
    format!(
        "in this package's Cargo.toml{}: {message}",
        at.unwrap_or_default()
    )
}

/// `a string`, `an integer`: a TOML type as a sentence names it.
fn with_article(type_name: &str) -> String {
    let article = if type_name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {type_name}")
}

fn dialect_names() -> String {
    let names: Vec<&str> = DIALECT_NAMES.iter().map(|(name, ..)| *name).collect();
    names.join(", ")
}

/// Whether this process has already named the manifest in an expansion.
static MANIFEST_NAMED: AtomicBool = AtomicBool::new(false);

/// `const _: &[u8] = include_bytes!("<manifest>");`, in the first expansion of a process that
/// read a manifest, nothing after it. Cargo rebuilds a package when a file its compilation
/// read changes, and knows those files from rustc; the macros read the manifest themselves,
/// which rustc does not see, and a change of `[package.metadata]` alone does not make cargo
/// rebuild. Naming the file to rustc once makes it one of the package's inputs, so a changed
/// choice of dialects is compiled again. A manifest whose path is not UTF-8 cannot be named
/// in a string literal: after a change of its settings, such a package needs a touched source
/// file or `cargo clean -p`.
pub(crate) fn manifest_input(settings: &Settings) -> TokenStream {
    let Some(path) = settings.manifest.as_deref().and_then(Path::to_str) else {
        return TokenStream::new();
    };
    if MANIFEST_NAMED.swap(true, Ordering::Relaxed) {
        return TokenStream::new();
    }
    quote!(
        const _: &[u8] = ::core::include_bytes!(#path);
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chosen(text: &str) -> Result<Vec<&'static str>, String> {
        let settings = read(text);
        settings.problem.map_or(Ok(settings.dialects), Err)
    }

    #[test]
    fn the_dialects_are_read_from_the_packages_metadata_in_every_form() {
        for manifest in [
            "[package]\nname = \"a\"\n\n[package.metadata.tool-sdk]\ndialects = [\"openai_strict\", \"gemini\"]\n",
            "[package]\nname = \"a\"\nmetadata.tool-sdk.dialects = [\"openai_strict\", \"gemini\"]\n",
            "[package.metadata]\ntool-sdk = { dialects = [\"openai_strict\", \"gemini\"] }\n",
            "[package.metadata.\"tool-sdk\"]\ndialects = [\n  \"openai_strict\", # strict mode\n  \"gemini\",\n]\n",
        ] {
            assert_eq!(chosen(manifest), Ok(vec!["openai_strict", "gemini"]), "{manifest}");
        }
    }

    #[test]
    fn nothing_is_chosen_where_nothing_is_asked() {
        for manifest in [
            "",
            "[package]\nname = \"a\"\n",
            "[package.metadata.docs.rs]\nall-features = true\n",
            "[package.metadata.tool-sdk]\n",
            "[package.metadata.tool-sdk]\ndialects = []\n",
            // Another table's: only the package's own settings count.
            "[workspace.metadata.tool-sdk]\ndialects = [\"gemini\"]\n",
        ] {
            assert_eq!(chosen(manifest), Ok(Vec::new()), "{manifest}");
        }
    }

    #[test]
    fn a_malformed_table_is_a_problem_located_in_the_manifest() {
        for (manifest, expected) in [
            (
                "[package]\nname = \"a\"\n\n[package.metadata.tool-sdk]\ndialects = [\"gemni\"]\n",
                "in this package's Cargo.toml, line 5, column 13: unknown dialect `gemni` in \
                 `[package.metadata.tool-sdk]`; the dialects are: openai_strict, openai, \
                 anthropic, anthropic_strict, gemini, gemini_json_schema, mcp",
            ),
            (
                "[package.metadata.tool-sdk]\ncheck = [\"gemini\"]\n",
                "in this package's Cargo.toml, line 2, column 1: unknown key `check` in \
                 `[package.metadata.tool-sdk]`; expected one of: dialects",
            ),
            (
                "[package.metadata.tool-sdk]\ndialects = \"gemini\"\n",
                "in this package's Cargo.toml, line 2, column 12: `dialects` in \
                 `[package.metadata.tool-sdk]` lists the dialects to check, such as \
                 `dialects = [\"openai_strict\", \"gemini\"]`, not a string; the dialects are: \
                 openai_strict, openai, anthropic, anthropic_strict, gemini, \
                 gemini_json_schema, mcp",
            ),
            (
                "[package.metadata.tool-sdk]\ndialects = [\"gemini\", 4]\n",
                "in this package's Cargo.toml, line 2, column 23: `dialects` in \
                 `[package.metadata.tool-sdk]` lists dialects by name, in strings, not an \
                 integer; the dialects are: openai_strict, openai, anthropic, \
                 anthropic_strict, gemini, gemini_json_schema, mcp",
            ),
            (
                "[package.metadata.tool-sdk]\ndialects = [\"gemini\", \"gemini\"]\n",
                "in this package's Cargo.toml, line 2, column 23: `gemini` is listed twice \
                 in `[package.metadata.tool-sdk]`",
            ),
            (
                "[package.metadata]\ntool-sdk = [\"gemini\"]\n",
                "in this package's Cargo.toml, line 2, column 12: `package.metadata.tool-sdk` \
                 is a table, such as `dialects = [\"openai_strict\"]` under \
                 `[package.metadata.tool-sdk]`, not an array",
            ),
        ] {
            assert_eq!(chosen(manifest), Err(expected.to_owned()), "{manifest}");
        }
    }

    #[test]
    fn what_is_not_toml_is_a_problem_too_not_a_panic() {
        let problem = chosen("[package\nname = \"a\"\n").expect_err("not TOML");
        assert!(
            problem.starts_with("in this package's Cargo.toml, line 1, column "),
            "{problem}"
        );
        assert!(problem.contains("not TOML"), "{problem}");
    }

    #[test]
    fn the_runtime_crate_is_still_found_by_name() {
        let settings = read("[dependencies]\ntool-sdk = \"0.1\"\n\n[package.metadata.tool-sdk]\ndialects = [\"mcp\"]\n");
        assert!(settings.runtime_by_name);
        assert_eq!(settings.dialects, ["mcp"]);
    }
}
