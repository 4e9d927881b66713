//! The languages a text can be stemmed in, and the scripts that tell theirs.

use rust_stemmers::Algorithm;

/// A language whose words [`Bm25Search`](crate::describe::search::Bm25Search) can reduce to
/// their stems, so that inflected forms match (`Flüge` and `Flug`, `réservations` and
/// `réserver`). English uses the crate's own light suffix stripper, which did as well on English
/// tool catalogues as Snowball's; the others use their Snowball stemmer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
// Each variant is the language it names; a doc line apiece would say nothing more.
#[allow(missing_docs)]
pub enum Language {
    Arabic,
    Danish,
    Dutch,
    English,
    Finnish,
    French,
    German,
    Greek,
    Hungarian,
    Italian,
    Norwegian,
    Portuguese,
    Romanian,
    Russian,
    Spanish,
    Swedish,
    Tamil,
    Turkish,
}

impl Language {
    /// Every language, in a fixed order (detection breaks no tie by it: a tie decides nothing).
    pub const ALL: [Language; 18] = [
        Language::Arabic,
        Language::Danish,
        Language::Dutch,
        Language::English,
        Language::Finnish,
        Language::French,
        Language::German,
        Language::Greek,
        Language::Hungarian,
        Language::Italian,
        Language::Norwegian,
        Language::Portuguese,
        Language::Romanian,
        Language::Russian,
        Language::Spanish,
        Language::Swedish,
        Language::Tamil,
        Language::Turkish,
    ];

    /// The Snowball stemmer of this language; `None` for English, stemmed by the crate's own.
    pub(crate) fn snowball(self) -> Option<Algorithm> {
        Some(match self {
            Language::English => return None,
            Language::Arabic => Algorithm::Arabic,
            Language::Danish => Algorithm::Danish,
            Language::Dutch => Algorithm::Dutch,
            Language::Finnish => Algorithm::Finnish,
            Language::French => Algorithm::French,
            Language::German => Algorithm::German,
            Language::Greek => Algorithm::Greek,
            Language::Hungarian => Algorithm::Hungarian,
            Language::Italian => Algorithm::Italian,
            Language::Norwegian => Algorithm::Norwegian,
            Language::Portuguese => Algorithm::Portuguese,
            Language::Romanian => Algorithm::Romanian,
            Language::Russian => Algorithm::Russian,
            Language::Spanish => Algorithm::Spanish,
            Language::Swedish => Algorithm::Swedish,
            Language::Tamil => Algorithm::Tamil,
            Language::Turkish => Algorithm::Turkish,
        })
    }

    /// The position in [`ALL`](Self::ALL), which lists the variants in their order.
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// This language's bit in a set of languages.
    pub(crate) fn bit(self) -> u32 {
        1 << self.index()
    }
}

/// The language of a word's script, for scripts that one stemmer covers: a Russian word in
/// a German text is still stemmed as Russian. `None` for Latin and every other script.
pub(crate) fn script_language(word: &str) -> Option<Language> {
    let c = word.chars().find(|c| c.is_alphabetic())?;
    match u32::from(c) {
        0x0400..=0x052F => Some(Language::Russian),
        0x0370..=0x03FF | 0x1F00..=0x1FFF => Some(Language::Greek),
        0x0600..=0x06FF | 0x0750..=0x077F => Some(Language::Arabic),
        0x0B80..=0x0BFF => Some(Language::Tamil),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_sits_at_its_index() {
        for (at, language) in Language::ALL.iter().enumerate() {
            assert_eq!(language.index(), at, "{language:?}");
        }
    }
}
