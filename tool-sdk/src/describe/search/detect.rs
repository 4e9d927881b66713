//! Which language a text is in, read from the text.
//!
//! Cheap on purpose, as it runs on every query: words of Cyrillic, Greek, Arabic and Tamil
//! script vote for Russian, Greek, Arabic and Tamil; a word of a Latin-script language's
//! stop-word list votes for that language (`der`, `und`: German; `le`, `une`: French). The
//! language with the most votes wins; none, or a tie, decides nothing, and the caller falls
//! back on the language of the tool set.

use unicode_segmentation::UnicodeSegmentation;

use crate::describe::search::fold::fold;
use crate::describe::search::language::{script_language, Language};
use crate::describe::search::stop_words;

/// The language most of `text`'s words point to, if one does more than every other.
pub(crate) fn detect(text: &str) -> Option<Language> {
    let mut votes = [0usize; Language::ALL.len()];
    for word in text.unicode_words() {
        if let Some(language) = script_language(word) {
            votes[language.index()] += 1;
            continue;
        }
        let languages = stop_words::languages_of(&fold(word));
        for language in Language::ALL {
            if languages & language.bit() != 0 {
                votes[language.index()] += 1;
            }
        }
    }
    most_voted(&votes)
}

/// The one language with the most votes, if any has votes and no other has as many.
fn most_voted(votes: &[usize; Language::ALL.len()]) -> Option<Language> {
    let best = *votes.iter().max()?;
    let mut winners = Language::ALL.iter().zip(votes).filter(|(_, v)| **v == best);
    match (winners.next(), winners.next()) {
        (Some((language, _)), None) if best > 0 => Some(*language),
        _ => None,
    }
}

/// Counts, over texts, the language each was detected in.
#[derive(Debug, Default)]
pub(crate) struct Tally([usize; Language::ALL.len()]);

impl Tally {
    pub(crate) fn add(&mut self, language: Option<Language>) {
        if let Some(language) = language {
            self.0[language.index()] += 1;
        }
    }

    /// The language most texts were in; English when none was detected, or on a tie.
    pub(crate) fn language(&self) -> Language {
        most_voted(&self.0).unwrap_or(Language::English)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_and_scripts_tell_the_language() {
        for (text, language) in [
            ("Books a flight for the traveller.", Language::English),
            ("Liefert das aktuelle Wetter einer Stadt.", Language::German),
            (
                "Réserve une chambre d'hôtel dans une ville.",
                Language::French,
            ),
            (
                "Reserva una habitación de hotel en la ciudad.",
                Language::Spanish,
            ),
            ("Бронирует номер в гостинице", Language::Russian),
        ] {
            assert_eq!(detect(text), Some(language), "{text}");
        }
    }

    #[test]
    fn no_stop_word_or_a_tie_decides_nothing() {
        assert_eq!(detect("Wettervorhersage Berlin"), None);
        assert_eq!(detect(""), None);
        // `un` is French and Spanish alike; `a`, English, Portuguese and Hungarian.
        assert_eq!(detect("reserver un hotel"), None);
        assert_eq!(detect("Books a flight between two airports."), None);
    }

    #[test]
    fn a_tool_set_without_a_detected_language_is_english() {
        let mut tally = Tally::default();
        assert_eq!(tally.language(), Language::English);
        tally.add(Some(Language::German));
        tally.add(None);
        assert_eq!(tally.language(), Language::German);
    }
}
