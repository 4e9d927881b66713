//! The built-in lexical strategy: Okapi BM25 over names, descriptions and parameters.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::search::{document_fields, tokens, SearchStrategy};
use crate::ToolDefinition;

/// BM25 ranking with two fields (k1 = 1.5, b = 0.9; the parameters' words count half as much
/// as the name's and description's, since they say less about what a tool is for), each query
/// word counted once. Tuned on the BFCL corpus. Needs no network and no model. The index is
/// built once per set of tools and reused while the set stays the same.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use tool_sdk::search::{Bm25Search, SearchStrategy};
/// use tool_sdk::ToolDefinition;
///
/// let schema = json!({"type": "object", "properties": {}});
/// let tools = [
///     ToolDefinition::new("get_weather", "Current weather for a city.", schema.clone()),
///     ToolDefinition::new("book_flight", "Books a flight between two airports.", schema),
/// ];
/// let refs: Vec<&ToolDefinition> = tools.iter().collect();
/// assert_eq!(Bm25Search::new().search("fly to Oslo, book me a flight", &refs, 1), [1]);
/// ```
#[derive(Debug, Default)]
pub struct Bm25Search {
    index: Mutex<Option<Index>>,
}

#[derive(Debug)]
struct Index {
    names: Vec<String>,
    /// Term frequencies per document.
    terms: Vec<HashMap<String, f64>>,
    lengths: Vec<f64>,
    average_length: f64,
    /// Documents containing each term.
    document_frequency: HashMap<String, f64>,
}

const K1: f64 = 1.5;
const B: f64 = 0.9;
/// What a word of a parameter's name, description or allowed values counts for.
const PARAMETER_WEIGHT: f64 = 0.5;

impl Bm25Search {
    /// A strategy with an empty index.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Index {
    fn build(tools: &[&ToolDefinition]) -> Self {
        let mut terms = Vec::with_capacity(tools.len());
        let mut lengths = Vec::with_capacity(tools.len());
        let mut document_frequency: HashMap<String, f64> = HashMap::new();
        for tool in tools {
            let (words, parameters) = document_fields(tool);
            lengths.push(words.len() as f64 + PARAMETER_WEIGHT * parameters.len() as f64);
            let mut counts: HashMap<String, f64> = HashMap::new();
            for word in words {
                *counts.entry(word).or_default() += 1.0;
            }
            for word in parameters {
                *counts.entry(word).or_default() += PARAMETER_WEIGHT;
            }
            for term in counts.keys() {
                *document_frequency.entry(term.clone()).or_default() += 1.0;
            }
            terms.push(counts);
        }
        let average_length = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
        Self {
            names: tools.iter().map(|t| t.name.clone()).collect(),
            terms,
            lengths,
            average_length,
            document_frequency,
        }
    }

    fn matches(&self, tools: &[&ToolDefinition]) -> bool {
        self.names.len() == tools.len() && self.names.iter().zip(tools).all(|(n, t)| *n == t.name)
    }

    fn rank(&self, query: &str, limit: usize) -> Vec<usize> {
        let count = self.names.len() as f64;
        // A word the question repeats is no more relevant for it: counted once.
        let mut query = tokens(query);
        query.sort_unstable();
        query.dedup();
        let mut scores: Vec<(f64, usize)> = self
            .terms
            .iter()
            .enumerate()
            .map(|(i, terms)| {
                let norm = K1 * (1.0 - B + B * self.lengths[i] / self.average_length.max(1.0));
                let score = query
                    .iter()
                    .filter_map(|term| {
                        let frequency = *terms.get(term)?;
                        let df = self.document_frequency.get(term).copied().unwrap_or(0.0);
                        let idf = ((count - df + 0.5) / (df + 0.5) + 1.0).ln();
                        Some(idf * frequency * (K1 + 1.0) / (frequency + norm))
                    })
                    .sum::<f64>();
                (score, i)
            })
            .filter(|(score, _)| *score > 0.0)
            .collect();
        scores.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scores.into_iter().take(limit).map(|(_, i)| i).collect()
    }
}

impl SearchStrategy for Bm25Search {
    fn search(&self, query: &str, tools: &[&ToolDefinition], limit: usize) -> Vec<usize> {
        let mut index = self
            .index
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !index.as_ref().is_some_and(|i| i.matches(tools)) {
            *index = Some(Index::build(tools));
        }
        index
            .as_ref()
            .map(|i| i.rank(query, limit))
            .unwrap_or_default()
    }
}
