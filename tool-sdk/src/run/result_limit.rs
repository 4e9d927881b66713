//! A result longer than the model should read, cut in the middle: its head (what a result
//! usually leads with) and its tail (where logs and errors end) kept, and the cut said.

/// `content` cut to `limit` bytes when it is longer: half from its start, half from its end,
/// each shortened to a character boundary, and between them a line saying how many bytes of
/// how many were cut. `None` when it fits.
pub(crate) fn cut(content: &str, limit: usize) -> Option<(String, usize)> {
    let total = content.len();
    if total <= limit {
        return None;
    }
    let head_end = floor_boundary(content, limit / 2);
    let tail_start = ceil_boundary(content, total - (limit - limit / 2));
    let head = content.get(..head_end).unwrap_or_default();
    let tail = content.get(tail_start..).unwrap_or_default();
    let kept = head.len() + tail.len();
    let cut = total - kept;
    Some((
        format!("{head}\n\n[{cut} of {total} bytes cut here]\n\n{tail}"),
        kept,
    ))
}

/// The greatest character boundary of `text` at or before `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The least character boundary of `text` at or after `at`.
fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_within_the_limit_is_not_cut() {
        assert_eq!(cut("abc", 3), None);
        assert_eq!(cut("", 0), None);
    }

    #[test]
    fn the_head_and_tail_are_kept_on_character_boundaries() {
        let (text, kept) = cut("0123456789", 4).unwrap();
        assert_eq!(text, "01\n\n[6 of 10 bytes cut here]\n\n89");
        assert_eq!(kept, 4);
        // Two-byte characters are never split: the head gives a byte up, the tail too.
        let (text, kept) = cut("ééééé", 5).unwrap();
        assert_eq!(text, "é\n\n[6 of 10 bytes cut here]\n\né");
        assert_eq!(kept, 4);
        let (text, kept) = cut("abc", 0).unwrap();
        assert_eq!(
            (text.as_str(), kept),
            ("\n\n[3 of 3 bytes cut here]\n\n", 0)
        );
    }
}
