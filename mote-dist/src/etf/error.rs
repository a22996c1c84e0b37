//! Errors of the term codec: each names what was wrong and where, so the connection layer
//! can log it and close that one connection.

/// Why a term could not be decoded.
///
/// ```
/// use mote_dist::etf::{DecodeError, WireTerm};
///
/// // A BINARY_EXT that announces 5 bytes and holds 1.
/// let err = WireTerm::decode(&[131, 109, 0, 0, 0, 5, b'h']).unwrap_err();
/// assert_eq!(err, DecodeError::Truncated { at: 6, needed: 4 });
///
/// // A tuple that announces an element and stops.
/// let err = WireTerm::decode(&[131, 104, 1]).unwrap_err();
/// assert!(matches!(err, DecodeError::LengthBeyondInput { .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input ended inside a term.
    #[error("term truncated at byte {at}: {needed} more bytes needed")]
    Truncated {
        /// Offset where the missing bytes should start.
        at: usize,
        /// How many bytes were missing.
        needed: usize,
    },
    /// The input did not start with the version byte 131.
    #[error("expected the term format version byte 131, found {found}")]
    BadVersion {
        /// The byte found instead.
        found: u8,
    },
    /// A tag byte that is not part of the External Term Format.
    #[error("unknown term tag {tag} at byte {at}")]
    UnknownTag {
        /// The tag byte.
        tag: u8,
        /// Its offset.
        at: usize,
    },
    /// A tag this decoder deliberately refuses (LOCAL_EXT, the pre-OTP 23 FUN_EXT, an
    /// atom cache reference without a distribution header).
    #[error("unsupported term tag {tag} at byte {at}: {why}")]
    Unsupported {
        /// The tag byte.
        tag: u8,
        /// Its offset.
        at: usize,
        /// Why it is refused.
        why: &'static str,
    },
    /// The input or an announced uncompressed size is larger than the limit.
    #[error("term of {size} bytes exceeds the limit of {limit}")]
    TooLarge {
        /// The size found or announced.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// More containers open at once than the limit allows.
    #[error("term nested deeper than {limit} containers")]
    TooDeep {
        /// The depth limit.
        limit: usize,
    },
    /// A container announced more elements than the remaining input could hold.
    #[error("container at byte {at} announces {count} elements but only {remaining} bytes remain")]
    LengthBeyondInput {
        /// Offset of the container's header.
        at: usize,
        /// Elements announced (counting a list's tail and both halves of map pairs).
        count: u64,
        /// Bytes left in the input.
        remaining: usize,
    },
    /// An atom longer than 255 characters.
    #[error("atom at byte {at} has {chars} characters, more than {limit}")]
    AtomTooLong {
        /// Offset of the atom.
        at: usize,
        /// Its length in characters.
        chars: usize,
        /// The limit.
        limit: usize,
    },
    /// Text that should be UTF-8 is not.
    #[error("invalid UTF-8 at byte {at}")]
    InvalidUtf8 {
        /// Offset of the text.
        at: usize,
    },
    /// A field holds a value the format does not allow (a reference with 6 words, a bit
    /// binary with 9 bits in its last byte, a float that is not a number...).
    #[error("invalid term at byte {at}: {why}")]
    Invalid {
        /// Offset of the term.
        at: usize,
        /// What is wrong.
        why: &'static str,
    },
    /// Compressed data that does not inflate to the announced size.
    #[error("compressed term is corrupt: {why}")]
    BadCompression {
        /// What went wrong.
        why: String,
    },
    /// Bytes left after a complete term where none were expected.
    #[error("{count} bytes left after the term")]
    TrailingBytes {
        /// How many.
        count: usize,
    },
    /// A well-formed term of the wrong shape for the value being decoded (serde or a
    /// control message).
    #[error("{0}")]
    Shape(String),
}

/// Why a value could not be encoded.
///
/// ```
/// use mote_dist::etf::{EncodeError, Encoder};
///
/// let mut out = Vec::new();
/// let err = Encoder::new(&mut out).float(f64::NAN).unwrap_err();
/// assert!(matches!(err, EncodeError::NonFiniteFloat));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// Erlang atoms hold at most 255 characters.
    #[error("atom of {chars} characters exceeds Erlang's limit of 255")]
    AtomTooLong {
        /// The atom's length in characters.
        chars: usize,
    },
    /// Erlang floats are finite: NaN and infinities have no encoding.
    #[error("Erlang has no NaN or infinite floats")]
    NonFiniteFloat,
    /// A binary, list, tuple or map longer than the format's 32-bit length field.
    #[error("{what} of {len} elements exceeds the format's 32-bit length")]
    TooLong {
        /// What was too long.
        what: &'static str,
        /// Its length.
        len: usize,
    },
    /// A reference needs 1 to 5 id words.
    #[error("a reference has 1 to 5 id words, not {0}")]
    BadReference(usize),
    /// A serde value that has no Erlang encoding (or a custom serde error).
    #[error("{0}")]
    Unsupported(String),
}
