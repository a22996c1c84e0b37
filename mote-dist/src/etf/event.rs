//! What the streaming decoder yields: one event per term, containers announced by their
//! length and followed by their elements.

use std::borrow::Cow;

use num_bigint::{BigInt, Sign};

use super::identifiers::RefIds;

/// One step of a decoded term, borrowing from the input where it can.
///
/// A container event is followed by its elements: `Tuple(n)` by `n` terms, `Map(n)` by
/// `n` key-value pairs (`2n` terms), `List(n)` by `n` elements and then the list's tail
/// (`Nil` for a proper list).
///
/// ```
/// use mote_dist::etf::{Decoder, Event};
///
/// // term_to_binary([1 | tail])
/// let bytes = [131, 108, 0, 0, 0, 1, 97, 1, 119, 4, b't', b'a', b'i', b'l'];
/// let mut d = Decoder::new(&bytes).unwrap();
/// assert_eq!(d.next_event().unwrap(), Event::List(1));
/// assert_eq!(d.next_event().unwrap(), Event::Int(1));
/// assert_eq!(d.next_event().unwrap(), Event::Atom("tail".into()));
/// assert!(d.is_complete());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Event<'a> {
    /// An atom (Latin-1 atoms are converted to UTF-8, which copies only non-ASCII ones).
    Atom(Cow<'a, str>),
    /// An integer that fits in an `i64`, whatever its encoding.
    Int(i64),
    /// An integer beyond `i64`.
    BigInt(BigIntRef<'a>),
    /// A float.
    Float(f64),
    /// A binary (whole bytes).
    Binary(&'a [u8]),
    /// A bitstring: `data`, of which only the high `last_bits` (1 to 8) of the last byte
    /// belong to it.
    BitBinary {
        /// The bytes.
        data: &'a [u8],
        /// Bits used in the last byte.
        last_bits: u8,
    },
    /// A proper list of integers 0 to 255, as STRING_EXT carries it (the encoding
    /// `term_to_binary` picks for short strings).
    ByteList(&'a [u8]),
    /// The empty list `[]`.
    Nil,
    /// A list of this many elements, followed by its tail.
    List(u32),
    /// A tuple of this many elements.
    Tuple(u32),
    /// A map of this many key-value pairs.
    Map(u32),
    /// A pid.
    Pid {
        /// Its node.
        node: Cow<'a, str>,
        /// Index.
        id: u32,
        /// Reuse counter.
        serial: u32,
        /// Node incarnation.
        creation: u32,
    },
    /// A port.
    Port {
        /// Its node.
        node: Cow<'a, str>,
        /// Id.
        id: u64,
        /// Node incarnation.
        creation: u32,
    },
    /// A reference.
    Ref {
        /// Its node.
        node: Cow<'a, str>,
        /// Node incarnation.
        creation: u32,
        /// Id words.
        ids: RefIds,
    },
    /// A fun or an external fun (`fun m:f/a`), kept as its raw encoding (tag included):
    /// closures are not portable to Rust, but can be passed back to the BEAM unchanged.
    Fun(&'a [u8]),
}

impl Event<'_> {
    /// How many terms follow this event as its elements (a list's tail counts).
    pub(crate) fn children(&self) -> u64 {
        match self {
            Event::List(n) => u64::from(*n) + 1,
            Event::Tuple(n) => u64::from(*n),
            Event::Map(n) => 2 * u64::from(*n),
            _ => 0,
        }
    }
}

/// An integer beyond `i64`: sign and magnitude in little-endian base-256 digits (no
/// high zero digits).
///
/// ```
/// use mote_dist::etf::{Decoder, Event};
///
/// let mut out = Vec::new();
/// mote_dist::etf::Encoder::new(&mut out).version().u128(u128::MAX);
/// let mut d = Decoder::new(&out).unwrap();
/// match d.next_event().unwrap() {
///     Event::BigInt(big) => assert_eq!(big.to_u128(), Some(u128::MAX)),
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BigIntRef<'a> {
    /// True for a negative integer.
    pub negative: bool,
    /// Magnitude, least significant byte first.
    pub digits: &'a [u8],
}

impl<'a> BigIntRef<'a> {
    /// The integer with this sign and little-endian magnitude (high zero digits dropped).
    pub(crate) fn new(negative: bool, mut digits: &'a [u8]) -> Self {
        while let [rest @ .., 0] = digits {
            digits = rest;
        }
        BigIntRef { negative, digits }
    }

    /// The value as an `i128`, if it fits.
    pub fn to_i128(&self) -> Option<i128> {
        let magnitude = self.magnitude_u128()?;
        if self.negative {
            if magnitude <= i128::MAX as u128 + 1 {
                Some((magnitude as i128).wrapping_neg())
            } else {
                None
            }
        } else {
            i128::try_from(magnitude).ok()
        }
    }

    /// The value as a `u128`, if it fits.
    pub fn to_u128(&self) -> Option<u128> {
        if self.negative {
            return (self.digits.is_empty()).then_some(0);
        }
        self.magnitude_u128()
    }

    /// The value as an arbitrary-precision integer.
    pub fn to_bigint(&self) -> BigInt {
        let sign = if self.digits.is_empty() {
            Sign::NoSign
        } else if self.negative {
            Sign::Minus
        } else {
            Sign::Plus
        };
        BigInt::from_bytes_le(sign, self.digits)
    }

    fn magnitude_u128(&self) -> Option<u128> {
        if self.digits.len() > 16 {
            return None;
        }
        let mut le = [0u8; 16];
        le[..self.digits.len()].copy_from_slice(self.digits);
        Some(u128::from_le_bytes(le))
    }
}
