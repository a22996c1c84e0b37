//! [`BitBinary`]: a bitstring whose length is not a whole number of bytes.

use bytes::Bytes;

use super::Term;

/// A bitstring whose last byte is partial, Erlang's `<<97,5:3>>` (the payload of
/// [`Term::BitBinary`]): its bytes, and how many leading bits of the last byte belong to it
/// (1 to 7). A whole number of bytes is a [`Term::Binary`]: [`Term::bits`] picks the form.
///
/// The unused low bits of the last byte are always zero, so equal bitstrings are equal
/// terms.
///
/// ```
/// use mote::Term;
/// // 0b101 in the top three bits of the last byte: Erlang's <<97,5:3>>.
/// let t = Term::bits(vec![97, 0b1010_0000], 3).unwrap();
/// assert_eq!(t.to_string(), "<<97,5:3>>");
/// assert_eq!(Term::bits(vec![1, 2], 8).unwrap(), Term::binary(vec![1, 2]));
/// assert!(Term::bits(Vec::new(), 3).is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BitBinary {
    bytes: Bytes,
    tail_bits: u8,
}

/// Bits that cannot form a bitstring: no bytes, or a bit count for the last byte outside
/// 1..=8.
///
/// ```
/// use mote::term::BadBits;
/// assert_eq!(mote::Term::bits(vec![1], 9), Err(BadBits { bytes: 1, tail_bits: 9 }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a bitstring needs at least one byte and 1 to 8 bits in its last byte (got {bytes} bytes, {tail_bits} bits)")]
pub struct BadBits {
    /// The number of bytes given.
    pub bytes: usize,
    /// The bits of the last byte asked for.
    pub tail_bits: u8,
}

impl BitBinary {
    /// `tail_bits` (1..=8) leading bits of the last byte; 8 gives a [`Term::Binary`].
    pub(crate) fn term(bytes: Bytes, tail_bits: u8) -> Result<Term, BadBits> {
        let bad = BadBits {
            bytes: bytes.len(),
            tail_bits,
        };
        let Some(&last) = bytes.last() else {
            return Err(bad);
        };
        match tail_bits {
            8 => Ok(Term::Binary(bytes)),
            1..=7 => {
                let mask = 0xffu8 << (8 - tail_bits);
                let bytes = if last & !mask == 0 {
                    bytes
                } else {
                    let mut owned = bytes.to_vec();
                    *owned.last_mut().expect("not empty") = last & mask;
                    Bytes::from(owned)
                };
                Ok(Term::BitBinary(BitBinary { bytes, tail_bits }))
            }
            _ => Err(bad),
        }
    }

    /// The bytes; the last holds [`tail_bits`](BitBinary::tail_bits) bits in its high end,
    /// the rest zero.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// How many bits of the last byte belong to the bitstring (1 to 7).
    pub fn tail_bits(&self) -> u8 {
        self.tail_bits
    }

    /// The length in bits.
    ///
    /// ```
    /// let mote::Term::BitBinary(b) = mote::Term::bits(vec![1, 0], 3).unwrap() else { unreachable!() };
    /// assert_eq!(b.bit_len(), 11);
    /// ```
    pub fn bit_len(&self) -> usize {
        (self.bytes.len() - 1) * 8 + usize::from(self.tail_bits)
    }

    /// The value of the partial last byte, as Erlang writes it (`5` in `<<97,5:3>>`).
    pub(crate) fn tail_value(&self) -> u8 {
        self.bytes.last().copied().unwrap_or(0) >> (8 - self.tail_bits)
    }
}
