//! Lower-case hex for key files, vectors and display (no dependency for 20 lines).

/// Lower-case hex of `bytes`.
pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// Decodes exactly `N` bytes of hex (either case); `None` on any other input.
pub fn decode_array<const N: usize>(text: &str) -> Option<[u8; N]> {
    let bytes = decode(text)?;
    bytes.try_into().ok()
}

/// Decodes hex (either case); `None` on an odd length or a non-hex character.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let t = text.as_bytes();
    if !t.len().is_multiple_of(2) {
        return None;
    }
    let nibble = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    t.chunks(2).map(|p| Some(nibble(p[0])? << 4 | nibble(p[1])?)).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip_and_rejects() {
        assert_eq!(super::encode(&[0, 0xab, 0xff]), "00abff");
        assert_eq!(super::decode("00ABff"), Some(vec![0, 0xab, 0xff]));
        assert_eq!(super::decode("0"), None);
        assert_eq!(super::decode("zz"), None);
        assert_eq!(super::decode_array::<2>("0011"), Some([0, 0x11]));
        assert_eq!(super::decode_array::<2>("001122"), None);
    }
}
