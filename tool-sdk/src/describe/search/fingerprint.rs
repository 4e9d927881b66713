//! A key for an index: a hash of everything it indexed, so that a changed description or
//! parameter under an unchanged name builds a new index.

use std::hash::{BuildHasher, Hash, Hasher};

use crate::define::ToolDefinition;
use crate::describe::search::document::visit_indexed;

/// Hashes what [`visit_indexed`] reads of `tools`, in order. The hasher is keyed per strategy
/// (`RandomState`), so tool texts from a remote server cannot be chosen to collide with
/// another set's.
pub(crate) fn fingerprint(keys: &impl BuildHasher, tools: &[&ToolDefinition]) -> u64 {
    let mut hasher = keys.build_hasher();
    hasher.write_usize(tools.len());
    for tool in tools {
        visit_indexed(tool, |part, text| {
            part.hash(&mut hasher);
            // `str`'s `Hash` ends each text with a marker: "ab" + "c" and "a" + "bc" differ.
            text.hash(&mut hasher);
        });
        // Ends a tool, so that texts cannot move from one tool to the next unnoticed.
        hasher.write_u8(0xff);
    }
    hasher.finish()
}
