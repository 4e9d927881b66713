//! The built-in lexical strategy: Okapi BM25 over names, descriptions and parameters.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rustc_hash::FxHashSet;
use unicode_segmentation::UnicodeSegmentation;

use crate::define::ToolDefinition;
use crate::describe::search::detect::{detect, Tally};
use crate::describe::search::diversify::{pick, Candidate};
use crate::describe::search::document::{document_fields, summary};
use crate::describe::search::fallback::{guesses, trigrams};
use crate::describe::search::fingerprint::fingerprint;
use crate::describe::search::language::Language;
use crate::describe::search::tokenize::{is_exact, tokens};
use crate::describe::search::{SearchFuture, SearchRequest, SearchResult, SearchStrategy};

/// BM25 ranking with two fields (k1 = 1.5, b = 0.9; the parameters' words count half as much
/// as the name's and description's, since they say less about what a tool is for), each query
/// word counted once. Words are matched by their stems, in each text's language (see
/// [`with_language`](Self::with_language)), and a word as written also counts a
/// quarter where stemming changed it, so `rates` ranks a tool saying `rates` above one saying
/// `rate`. Of the 50 best-scoring tools, results are then picked one at a time to cover the
/// query's needs, its words and, in a query of several sentences, its sentences: after one for
/// "book a hotel", a tool for the "flight" the query also asks for ranks above a fifth way to
/// book a hotel. Tools found by an earlier search (skipped) count as picked. Tuned on the BFCL corpus. Needs no network and no model.
///
/// The index is built once per set of tools, keyed by a hash of everything it reads (names,
/// descriptions, parameters), and tools a request skips are left out at query time, so the
/// searches of a run share one index. When no tool shares a word with the query, the result
/// holds the tools closest by character trigrams, marked weak.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use tool_sdk::describe::search::{Bm25Search, SearchRequest};
/// use tool_sdk::define::ToolDefinition;
///
/// let schema = json!({"type": "object", "properties": {}});
/// let tools = [
///     ToolDefinition::new("get_weather", "Current weather for a city.", schema.clone()),
///     ToolDefinition::new("book_flight", "Books a flight between two airports.", schema),
/// ];
/// let refs: Vec<&ToolDefinition> = tools.iter().collect();
/// let search = Bm25Search::new();
/// let result = search.rank(&SearchRequest::new("fly to Oslo, book me a flight", &refs, 1));
/// assert_eq!((result.found, result.weak), (vec![1], false));
/// // No shared word: a guess, marked weak.
/// let result = search.rank(&SearchRequest::new("wether tomorow", &refs, 1));
/// assert_eq!((result.found, result.weak), (vec![0], true));
/// ```
#[derive(Debug, Default)]
pub struct Bm25Search {
    keys: RandomState,
    index: Mutex<Option<Arc<Index>>>,
    /// Set by [`with_language`](Self::with_language); else each text's own, detected.
    language: Option<Language>,
}

#[derive(Debug)]
struct Index {
    fingerprint: u64,
    /// Set for the strategy, or the one most tools were detected in: queries in no clear
    /// language are stemmed in it.
    language: Language,
    /// Per term, the documents holding it and its weighted frequency there.
    postings: HashMap<String, Vec<(usize, f64)>>,
    /// BM25's length normalisation per document.
    norms: Vec<f64>,
    /// Per document, what the fallback compares.
    trigrams: Vec<FxHashSet<[char; 3]>>,
}

const K1: f64 = 1.5;
const B: f64 = 0.9;
/// What a word of a parameter's name, description or allowed values counts for.
const PARAMETER_WEIGHT: f64 = 0.5;
/// What a word as written counts for beside its stem, in a tool's text: its stem already
/// matched, so it only adds a little for the exact form.
const EXACT_WEIGHT: f64 = 0.25;
/// The best-scoring tools among which results are picked to cover the query's needs.
const CANDIDATES: usize = 50;
/// What a tool's score on one sentence of the query counts for, as a need to cover, against
/// its score on one query word. Chosen on the even-numbered BFCL questions (2, 3, 4, 8 tried).
const SENTENCE_WEIGHT: f64 = 3.0;
/// Characters the head of a compound has at least.
const MINIMUM_HEAD: usize = 4;

impl Bm25Search {
    /// A strategy with an empty index, reading each text's language from its stop words (see
    /// [`with_language`](Self::with_language)).
    pub fn new() -> Self {
        Self::default()
    }

    /// Stems every tool and every query in `language`, without detecting one: for a tool
    /// catalogue and users known to write in one language.
    ///
    /// Without it, each tool's text and each query is stemmed in the language its stop words
    /// show (`der`, `und`: German; `le`, `une`: French; Cyrillic: Russian); a text that shows
    /// none, or two as much (a query of three words often does), is stemmed in the language
    /// most of the tools are in, English if none shows one. Words of a script that tells its
    /// language (Cyrillic, Greek, Arabic, Tamil) are stemmed in it either way.
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_sdk::describe::search::{Bm25Search, Language, SearchRequest};
    /// use tool_sdk::define::ToolDefinition;
    ///
    /// let schema = json!({"type": "object", "properties": {}});
    /// let tools = [
    ///     ToolDefinition::new("bus", "Bus Fahrplan", schema.clone()),
    ///     ToolDefinition::new("bahn", "Zug Fahrplan", schema),
    /// ];
    /// let refs: Vec<&ToolDefinition> = tools.iter().collect();
    /// // No stop word says these are German; stemmed as German, `Züge` is `Zug`.
    /// let search = Bm25Search::with_language(Language::German);
    /// let result = search.rank(&SearchRequest::new("Züge", &refs, 1));
    /// assert_eq!((result.found, result.weak), (vec![1], false));
    /// ```
    pub fn with_language(language: Language) -> Self {
        Self {
            language: Some(language),
            ..Self::default()
        }
    }

    /// The index of `tools`, built unless the last one indexed the same content.
    fn index(&self, tools: &[&ToolDefinition]) -> Arc<Index> {
        let fingerprint = fingerprint(&self.keys, tools);
        let mut slot = self.index.lock().unwrap_or_else(PoisonError::into_inner);
        match &*slot {
            Some(index) if index.fingerprint == fingerprint => Arc::clone(index),
            _ => {
                let index = Arc::new(Index::build(tools, fingerprint, self.language));
                *slot = Some(Arc::clone(&index));
                index
            }
        }
    }
}

impl Index {
    fn build(tools: &[&ToolDefinition], fingerprint: u64, language: Option<Language>) -> Self {
        let fields: Vec<(String, String)> = tools.iter().map(|t| document_fields(t)).collect();
        // Each tool in its own language, if it shows one; else in the set's.
        let languages: Vec<Option<Language>> = fields
            .iter()
            .map(|(main, parameters)| language.or_else(|| detect(&format!("{main}\n{parameters}"))))
            .collect();
        let language = language.unwrap_or_else(|| {
            let mut tally = Tally::default();
            languages.iter().for_each(|l| tally.add(*l));
            tally.language()
        });
        let mut lengths = Vec::with_capacity(tools.len());
        let mut postings: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
        for (document, (main, parameters)) in fields.iter().enumerate() {
            let own = languages[document].unwrap_or(language);
            let (words, parameters) = (tokens(main, own), tokens(parameters, own));
            let mut counts: HashMap<String, f64> = HashMap::new();
            let mut length = 0.0;
            let fields = [(words, 1.0), (parameters, PARAMETER_WEIGHT)];
            for (field, weight) in fields {
                for word in field {
                    let weight = if is_exact(&word) {
                        weight * EXACT_WEIGHT
                    } else {
                        weight
                    };
                    length += weight;
                    *counts.entry(word).or_default() += weight;
                }
            }
            lengths.push(length);
            for (term, frequency) in counts {
                postings
                    .entry(term)
                    .or_default()
                    .push((document, frequency));
            }
        }
        let average = (lengths.iter().sum::<f64>() / lengths.len().max(1) as f64).max(1.0);
        Self {
            fingerprint,
            language,
            postings,
            norms: lengths
                .iter()
                .map(|length| K1 * (1.0 - B + B * length / average))
                .collect(),
            trigrams: tools.iter().map(|t| trigrams(&summary(t))).collect(),
        }
    }

    /// Adds, for each query word no tool holds, the longest start of it that some tool holds
    /// (four characters or more): a compound (`Flugbuchung`) then matches its head (`Flug`).
    fn with_compound_heads(&self, mut query: Vec<String>) -> Vec<String> {
        let heads: Vec<String> = query
            .iter()
            .filter(|term| !self.postings.contains_key(*term))
            .filter_map(|term| {
                // A word as written keeps its marker: its head is a word as written too.
                let skip = MINIMUM_HEAD + usize::from(is_exact(term));
                term.char_indices()
                    .map(|(at, _)| at)
                    .skip(skip)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .map(|end| &term[..end])
                    .find(|head| self.postings.contains_key(*head))
                    .map(str::to_owned)
            })
            .collect();
        query.extend(heads);
        query
    }

    /// The index's terms among the words of `text`, each once (a word a question repeats is
    /// no more relevant for it), with its IDF and postings.
    fn matched(&self, text: &str, language: Language) -> Vec<(f64, &[(usize, f64)])> {
        let count = self.norms.len() as f64;
        let mut words = self.with_compound_heads(tokens(text, language));
        words.sort_unstable();
        words.dedup();
        words
            .iter()
            .filter_map(|term| self.postings.get(term))
            .map(|postings| {
                let df = postings.len() as f64;
                let idf = ((count - df + 0.5) / (df + 0.5) + 1.0).ln();
                (idf, postings.as_slice())
            })
            .collect()
    }

    /// What a term of this IDF, this often in `document`, adds to its score.
    fn part(&self, idf: f64, document: usize, frequency: f64) -> f64 {
        idf * frequency * (K1 + 1.0) / (frequency + self.norms[document])
    }

    fn search(&self, request: &SearchRequest<'_>, language: Option<Language>) -> SearchResult {
        let language = language
            .or_else(|| detect(request.query))
            .unwrap_or(self.language);
        let matched = self.matched(request.query, language);
        let mut scores = vec![0.0; self.norms.len()];
        for &(idf, postings) in &matched {
            for &(document, frequency) in postings {
                scores[document] += self.part(idf, document, frequency);
            }
        }
        let mut ranked: Vec<(f64, usize)> = scores
            .iter()
            .enumerate()
            .filter(|&(i, &score)| score > 0.0 && !request.is_skipped(i))
            .map(|(i, &score)| (score, i))
            .collect();
        if ranked.is_empty() {
            return SearchResult::guesses(guesses(request.query, &self.trigrams, request));
        }
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        ranked.truncate(CANDIDATES);
        // Found by an earlier search and scoring among the candidates: the model has them,
        // so they count as picked already.
        let floor = ranked[ranked.len() - 1].0;
        let seen: Vec<usize> = (0..scores.len())
            .filter(|&i| request.is_skipped(i) && scores[i] > 0.0 && scores[i] >= floor)
            .collect();
        let mut slot = vec![usize::MAX; scores.len()];
        for (at, &document) in ranked.iter().map(|(_, i)| i).chain(&seen).enumerate() {
            slot[document] = at;
        }
        // What results are picked to cover: each query word, and in a query of several
        // sentences each sentence, as a need of its own.
        let sentences: Vec<&str> = request.query.unicode_sentences().collect();
        let sentences = if sentences.len() > 1 {
            sentences
        } else {
            Vec::new()
        };
        let aspects = matched.len() + sentences.len();
        let mut candidates: Vec<Candidate> = ranked
            .iter()
            .map(|&(score, _)| score)
            .chain(seen.iter().map(|&i| scores[i]))
            .map(|score| Candidate {
                score,
                parts: vec![0.0; aspects],
            })
            .collect();
        for (word, &(idf, postings)) in matched.iter().enumerate() {
            for &(document, frequency) in postings {
                if let Some(candidate) = candidates.get_mut(slot[document]) {
                    candidate.parts[word] = self.part(idf, document, frequency);
                }
            }
        }
        for (at, sentence) in sentences.iter().enumerate() {
            for (idf, postings) in self.matched(sentence, language) {
                for &(document, frequency) in postings {
                    if let Some(candidate) = candidates.get_mut(slot[document]) {
                        candidate.parts[matched.len() + at] +=
                            SENTENCE_WEIGHT * self.part(idf, document, frequency);
                    }
                }
            }
        }
        let seen = candidates.split_off(ranked.len());
        SearchResult::matches(
            pick(&candidates, &seen, request.limit)
                .into_iter()
                .map(|at| ranked[at].1)
                .collect(),
        )
    }
}

impl Bm25Search {
    /// The ranking [`search`](SearchStrategy::search) gives, at once: BM25 waits for nothing.
    pub fn rank(&self, request: &SearchRequest<'_>) -> SearchResult {
        // Ranked outside the lock: concurrent searches of one set share the index.
        self.index(request.tools).search(request, self.language)
    }
}

impl SearchStrategy for Bm25Search {
    fn search<'a>(&'a self, request: &'a SearchRequest<'a>) -> SearchFuture<'a> {
        Box::pin(std::future::ready(self.rank(request)))
    }
}
