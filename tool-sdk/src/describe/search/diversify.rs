//! Results that cover the query. A query often holds several needs ("book a flight to Boston
//! and a hotel for four nights"), and the tools for the need with the most matching words
//! (five ways to book a hotel) can fill every place, leaving none for the other. So results
//! are picked one at a time, each weighing its own score against how much of it comes from
//! the query's needs that the tools picked before match little (after xQuAD, Santos et al.,
//! 2010). The caller says what the needs are: BM25 takes each query word, and each sentence of
//! a query of several.

/// A tool that may be picked: its score, and its score on each of the query's needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    pub(crate) score: f64,
    /// Per need, in the same order for every candidate.
    pub(crate) parts: Vec<f64>,
}

/// How much a candidate's score on needs still uncovered counts, against its score (the
/// rest). Chosen on the even-numbered BFCL questions (0.1, 0.25, 0.5, 0.75 tried).
const NOVELTY: f64 = 0.25;

/// How much of a need a pick covers, as a share of the best candidate's score on that need.
/// Chosen with [`NOVELTY`] (0.5 and 1 tried).
const COVERAGE: f64 = 0.5;

/// Indices into `candidates` (best score first), in the order picked, at most `limit`. Tools in
/// `seen` are in the caller's hands already (an earlier search found them): they cover needs
/// as picks do, and are never returned. Where each candidate's parts sum to its score, the first
/// pick is a best-scoring candidate.
pub(crate) fn pick(candidates: &[Candidate], seen: &[Candidate], limit: usize) -> Vec<usize> {
    let Some(top) = candidates.first().map(|c| c.score).filter(|s| *s > 0.0) else {
        return Vec::new();
    };
    let needs = candidates[0].parts.len();
    let best: Vec<f64> = (0..needs)
        .map(|need| {
            candidates
                .iter()
                .chain(seen)
                .map(|c| c.parts[need])
                .fold(0.0, f64::max)
        })
        .collect();
    // Per need, the share no pick covers yet.
    let mut uncovered = vec![1.0; needs];
    let cover = |uncovered: &mut [f64], chosen: &Candidate| {
        for (need, left) in uncovered.iter_mut().enumerate() {
            if best[need] > 0.0 {
                *left *= 1.0 - COVERAGE * chosen.parts[need] / best[need];
            }
        }
    };
    for tool in seen {
        cover(&mut uncovered, tool);
    }
    let mut taken = vec![false; candidates.len()];
    let mut picked = Vec::with_capacity(limit.min(candidates.len()));
    while picked.len() < limit.min(candidates.len()) {
        let mut choice: Option<(f64, usize)> = None;
        for (i, candidate) in candidates.iter().enumerate().filter(|(i, _)| !taken[*i]) {
            let novel: f64 = candidate
                .parts
                .iter()
                .zip(&uncovered)
                .map(|(p, u)| p * u)
                .sum();
            let gain = ((1.0 - NOVELTY) * candidate.score + NOVELTY * novel) / top;
            // Strictly greater: of equal gains, the better-ranked candidate wins.
            if choice.is_none_or(|(best, _)| gain > best) {
                choice = Some((gain, i));
            }
        }
        let Some((_, i)) = choice else { break };
        taken[i] = true;
        picked.push(i);
        cover(&mut uncovered, &candidates[i]);
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(parts: &[f64]) -> Candidate {
        Candidate {
            score: parts.iter().sum(),
            parts: parts.to_vec(),
        }
    }

    /// Needs (words): book, hotel, night, flight. Three hotel tools outscore the flight tool.
    fn two_needs() -> Vec<Candidate> {
        vec![
            candidate(&[1.0, 3.0, 2.0, 0.0]),
            candidate(&[1.0, 3.0, 1.9, 0.0]),
            candidate(&[1.0, 2.9, 1.9, 0.0]),
            candidate(&[1.0, 0.0, 0.0, 4.5]),
        ]
    }

    #[test]
    fn a_second_need_gets_a_place_before_more_of_the_first() {
        // By score alone the flight tool would come last.
        assert_eq!(pick(&two_needs(), &[], 2), [0, 3]);
        assert_eq!(pick(&two_needs(), &[], 4), [0, 3, 1, 2]);
    }

    #[test]
    fn one_need_keeps_the_order_of_scores() {
        let candidates = [
            candidate(&[2.0, 3.0]),
            candidate(&[2.0, 2.0]),
            candidate(&[1.0, 1.0]),
        ];
        assert_eq!(pick(&candidates, &[], 3), [0, 1, 2]);
    }

    #[test]
    fn tools_already_seen_cover_needs_as_picks_do() {
        let candidates = two_needs();
        // The best hotel tool is in hand: the flight tool comes first.
        let seen = [candidates[0].clone()];
        assert_eq!(pick(&candidates[1..], &seen, 1), [2]);
        // Seen tools are never returned, and seeing one is picking it first.
        assert_eq!(
            pick(&candidates[1..], &seen, 3),
            pick(&candidates, &[], 4)[1..]
                .iter()
                .map(|i| i - 1)
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn nothing_to_pick_picks_nothing() {
        assert!(pick(&[], &[], 5).is_empty());
        assert!(pick(&two_needs(), &[], 0).is_empty());
    }
}
