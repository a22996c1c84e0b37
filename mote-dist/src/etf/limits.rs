//! Bounds that keep a hostile or broken peer from making the decoder allocate or recurse
//! without limit.

/// Limits applied while decoding a term.
///
/// Besides these, the decoder never trusts a length field further than the input backs
/// it: a list, tuple or map header may announce at most as many elements as there are
/// bytes left (every element takes at least one), summed over every container still open,
/// so a 4-byte length can never make a consumer pre-allocate more than a small multiple of
/// the input's size.
///
/// ```
/// use mote_dist::etf::DecodeLimits;
///
/// let strict = DecodeLimits { max_depth: 16, ..DecodeLimits::default() };
/// assert_eq!(strict.max_atom_chars, 255);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Most bytes of encoded input, after decompression (default 64 MiB). A compressed
    /// term announcing a larger uncompressed size is refused before inflating it.
    pub max_size: usize,
    /// Most containers (lists, tuples, maps) nested in one another (default 256), which
    /// bounds the decoders' recursion: a term at the default limit decodes within a 2 MiB
    /// thread stack (tokio's default) even in an unoptimized build. Erlang has no such
    /// limit; a mote node refuses deeper terms.
    pub max_depth: usize,
    /// Most characters in an atom (255, Erlang's own limit).
    pub max_atom_chars: usize,
}

impl Default for DecodeLimits {
    fn default() -> Self {
        DecodeLimits {
            max_size: 64 << 20,
            max_depth: 256,
            max_atom_chars: MAX_ATOM_CHARS,
        }
    }
}

/// Erlang's limit on the characters in an atom.
pub(crate) const MAX_ATOM_CHARS: usize = 255;
