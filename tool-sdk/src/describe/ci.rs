//! Helpers for a user's CI: every tool lowers cleanly, and schema changes are reviewed changes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::describe::{lower, Dialect, LoweringError};
use crate::register::ToolRegistry;

/// Environment variable that makes [`check_schema_lock`] write the lock file instead of
/// comparing with it.
pub const WRITE_LOCK_ENV: &str = "TOOL_SDK_WRITE_SCHEMA_LOCK";

/// Lowers every tool of `registry` to every dialect of `dialects`; all failures at once.
///
/// # Examples
///
/// ```
/// use tool_sdk::describe::{Dialect, check_lowering};
/// use tool_sdk::{tool, ToolRegistry};
///
/// /// Adds two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let mut registry = ToolRegistry::new();
/// registry.register(AddTool).unwrap();
/// check_lowering(&registry, &Dialect::ALL).unwrap();
/// ```
pub fn check_lowering(
    registry: &ToolRegistry,
    dialects: &[Dialect],
) -> Result<(), Vec<LoweringError>> {
    let errors: Vec<LoweringError> = registry
        .definitions()
        .flat_map(|definition| {
            dialects.iter().filter_map(move |dialect| {
                lower(&definition.name, &definition.parameters, *dialect).err()
            })
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Compares every tool's definition (name, description, canonical parameters) with the lock
/// file at `path`; with the environment variable [`WRITE_LOCK_ENV`] set, or when the file does
/// not exist yet, writes it instead. A mismatch is an error with a line diff, so a change to a
/// tool's schema shows up in review.
///
/// # Examples
///
/// ```no_run
/// # fn registry() -> tool_sdk::ToolRegistry { tool_sdk::ToolRegistry::new() }
/// // In a test of your crate:
/// tool_sdk::describe::check_schema_lock(&registry(), "tests/tools.schema.lock").unwrap();
/// ```
pub fn check_schema_lock(
    registry: &ToolRegistry,
    path: impl AsRef<Path>,
) -> Result<(), SchemaLockError> {
    let path = path.as_ref();
    let current = lock_text(registry);
    let write = std::env::var_os(WRITE_LOCK_ENV).is_some() || !path.exists();
    if write {
        return std::fs::write(path, &current).map_err(|source| SchemaLockError::Unwritable {
            path: path.to_owned(),
            source,
        });
    }
    let locked = std::fs::read_to_string(path).map_err(|source| SchemaLockError::Unreadable {
        path: path.to_owned(),
        source,
    })?;
    if locked == current {
        return Ok(());
    }
    Err(SchemaLockError::Differs {
        path: path.to_owned(),
        diff: line_diff(&locked, &current),
    })
}

/// Why [`check_schema_lock`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaLockError {
    /// The tools' schemas are not the ones locked: the diff shows how (`-` locked, `+` now).
    #[error(
        "the tool schemas differ from {} (rerun with {WRITE_LOCK_ENV}=1 to accept):\n{diff}",
        path.display()
    )]
    Differs {
        /// The lock file.
        path: PathBuf,
        /// The lines that changed.
        diff: String,
    },
    /// The lock file exists but cannot be read.
    #[error("cannot read the schema lock {}: {source}", path.display())]
    Unreadable {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The lock file cannot be written (when it is new, or rewritten on request).
    #[error("cannot write the schema lock {}: {source}", path.display())]
    Unwritable {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

fn lock_text(registry: &ToolRegistry) -> String {
    let tools: Vec<Value> = registry
        .definitions()
        .map(
            |d| json!({ "name": d.name, "description": d.description, "parameters": d.parameters }),
        )
        .collect();
    let mut text = serde_json::to_string_pretty(&tools).unwrap_or_default();
    text.push('\n');
    text
}

/// A plain line diff: `-` for locked lines gone, `+` for new ones, around their common prefix
/// and suffix.
fn line_diff(old: &str, new: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = String::new();
    let _ = writeln!(out, "@@ line {} @@", prefix + 1);
    for line in &old[prefix..old.len() - suffix] {
        let _ = writeln!(out, "- {line}");
    }
    for line in &new[prefix..new.len() - suffix] {
        let _ = writeln!(out, "+ {line}");
    }
    out
}
