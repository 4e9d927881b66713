//! Each tool's parameters lowered to a dialect once, and kept while the tool is.
//!
//! A loop asks for the schemas of the tools it offers at every round; lowering walks the whole
//! schema, so it is done once per tool and dialect. An entry is kept for the tool value it was
//! made from (the same `Arc`): a different tool registered under the same name, such as an MCP
//! server's tool whose schema changed, is lowered anew.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rustc_hash::FxBuildHasher;
use serde_json::Value;

use crate::define::{Tool, ToolDefinition};
use crate::describe::{lower, Dialect, LoweringError};

/// A tool's parameters in a dialect: the canonical schema itself when the dialect takes it as
/// it is, or its lowered copy.
#[derive(Debug, Clone)]
pub(crate) enum Lowered {
    Canonical,
    Lowered(Arc<Value>),
}

impl Lowered {
    /// The schema to send for `definition`.
    pub(crate) fn schema<'a>(&'a self, definition: &'a ToolDefinition) -> &'a Value {
        match self {
            Self::Canonical => &definition.parameters,
            Self::Lowered(schema) => schema,
        }
    }
}

type Slot = Option<Result<Lowered, LoweringError>>;

struct Entry {
    /// What the entry was made from: an entry serves only this very tool.
    tool: Arc<dyn Tool>,
    by_dialect: [Slot; Dialect::ALL.len()],
}

/// Lowered schemas by tool name, for every dialect asked.
#[derive(Default)]
pub(crate) struct LoweredSchemas {
    entries: Mutex<HashMap<String, Entry, FxBuildHasher>>,
    /// One bit per dialect: every tool of the owner's fixed set (a loop's registry) was found
    /// describable in it, so a run need not ask again.
    fixed_checked: AtomicU8,
}

impl LoweredSchemas {
    /// `tool`'s parameters in `dialect`, lowered on the first ask.
    pub(crate) fn get(
        &self,
        tool: &Arc<dyn Tool>,
        dialect: Dialect,
    ) -> Result<Lowered, LoweringError> {
        let definition = tool.definition();
        let slot = dialect.index();
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = entries.get_mut(definition.name.as_str()) {
            if Arc::ptr_eq(&entry.tool, tool) {
                return entry.by_dialect[slot]
                    .get_or_insert_with(|| lower_definition(definition, dialect))
                    .clone();
            }
        }
        let lowered = lower_definition(definition, dialect);
        let mut entry = Entry {
            tool: Arc::clone(tool),
            by_dialect: Default::default(),
        };
        entry.by_dialect[slot] = Some(lowered.clone());
        entries.insert(definition.name.clone(), entry);
        lowered
    }

    /// Whether every tool of the owner's fixed set is known to be describable in `dialect`.
    pub(crate) fn fixed_set_checked(&self, dialect: Dialect) -> bool {
        self.fixed_checked.load(Ordering::Acquire) & (1 << dialect.index()) != 0
    }

    /// Records that every tool of the owner's fixed set is describable in `dialect`.
    pub(crate) fn mark_fixed_set_checked(&self, dialect: Dialect) {
        self.fixed_checked
            .fetch_or(1 << dialect.index(), Ordering::AcqRel);
    }
}

/// `definition`'s parameters in `dialect`, without a cache.
pub(crate) fn lower_definition(
    definition: &ToolDefinition,
    dialect: Dialect,
) -> Result<Lowered, LoweringError> {
    let lowered = lower(&definition.name, &definition.parameters, dialect)?;
    Ok(if dialect.takes_canonical() {
        Lowered::Canonical
    } else {
        Lowered::Lowered(Arc::new(lowered))
    })
}

// Its tools are dynamic ones: any schema, without a type for each.
#[cfg(all(test, feature = "dynamic"))]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::register::DynamicTool;

    fn tool(properties: Value) -> Arc<dyn Tool> {
        let schema = json!({"type": "object", "properties": properties});
        Arc::new(DynamicTool::new("t", "A tool.", schema, |_| async { "" }).unwrap())
    }

    fn lowered(schemas: &LoweredSchemas, tool: &Arc<dyn Tool>) -> Arc<Value> {
        match schemas.get(tool, Dialect::Gemini).unwrap() {
            Lowered::Lowered(schema) => schema,
            Lowered::Canonical => panic!("Gemini lowers"),
        }
    }

    #[test]
    fn a_tool_is_lowered_once_per_dialect_and_again_when_it_is_replaced() {
        let schemas = LoweredSchemas::default();
        let first = tool(json!({"a": {"type": "string"}}));
        let once = lowered(&schemas, &first);
        assert!(
            Arc::ptr_eq(&once, &lowered(&schemas, &first)),
            "kept, not lowered again"
        );

        let replaced = tool(json!({"b": {"type": "string"}}));
        let again = lowered(&schemas, &replaced);
        assert!(again["properties"].get("b").is_some(), "{again}");
        assert!(again["properties"].get("a").is_none(), "{again}");
    }

    #[test]
    fn dialects_that_take_the_canonical_schema_copy_nothing() {
        let schemas = LoweredSchemas::default();
        let t = tool(json!({"a": {"type": "string"}}));
        for dialect in [Dialect::OpenAi, Dialect::Anthropic, Dialect::Mcp] {
            assert!(matches!(schemas.get(&t, dialect), Ok(Lowered::Canonical)));
        }
    }
}
