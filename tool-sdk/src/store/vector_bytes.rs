//! A tool vector as the stores keep it: its floats, little-endian.

/// The bytes of `vector`.
pub(crate) fn to_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The vector of `bytes`; `None` when their length is not a whole number of floats.
pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_and_torn_bytes_are_refused() {
        let vector = [0.5, -1.25, f32::MIN_POSITIVE, 3.0e7];
        assert_eq!(from_bytes(&to_bytes(&vector)).as_deref(), Some(&vector[..]));
        assert_eq!(from_bytes(&[1, 2, 3]), None);
    }
}
