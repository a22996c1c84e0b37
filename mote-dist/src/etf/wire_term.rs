//! `WireTerm`: a dynamic term, exactly as the wire carries it.

use bytes::Bytes;
use num_bigint::{BigInt, Sign};

use super::atom::Atom;
use super::compressed::decompress;
use super::decoder::Decoder;
use super::encoder::Encoder;
use super::error::{DecodeError, EncodeError};
use super::event::Event;
use super::identifiers::{ErlPid, ErlPort, ErlRef};
use super::limits::DecodeLimits;

/// The least size of a binary that a decode from a shared buffer slices rather than
/// copies: the BEAM's limit for binaries kept on a process heap. A smaller one is copied,
/// so that keeping it does not keep a whole received buffer alive.
const SHARE_MIN: usize = 64;

/// Any Erlang term, as the wire carries it.
///
/// This is the wire-level form for control messages, tests and untyped interop; the
/// runtime's own dynamic term type is converted from and to it. Typed messages should go
/// through [`crate::serde`] instead, which skips this intermediate tree.
///
/// Equality is structural, not Erlang's `=:=`: map pairs compare in order, and a
/// [`ByteList`](WireTerm::ByteList) is not equal to the [`List`](WireTerm::List) of the
/// same integers (both encode lists that Erlang considers equal).
///
/// ```
/// use mote_dist::etf::{Atom, WireTerm};
///
/// let t = WireTerm::Tuple(vec![
///     WireTerm::Atom(Atom::new("tag").unwrap()),
///     WireTerm::Int(42),
///     WireTerm::Binary("hello".into()),
/// ]);
/// let bytes = t.encode().unwrap();
/// assert_eq!(WireTerm::decode(&bytes).unwrap(), t);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum WireTerm {
    /// An atom (`true`, `false` and `undefined` are atoms too).
    Atom(Atom),
    /// An integer that fits in an `i64`.
    Int(i64),
    /// An integer beyond `i64` (decoding never produces one that fits).
    BigInt(BigInt),
    /// A float.
    Float(f64),
    /// A binary.
    Binary(Bytes),
    /// A bitstring whose last byte holds `last_bits` (1 to 7) bits.
    BitBinary {
        /// The bytes.
        data: Bytes,
        /// Bits used in the last byte (in its high bits).
        last_bits: u8,
    },
    /// A proper list of integers 0 to 255 (what STRING_EXT carries: an Erlang string).
    ByteList(Bytes),
    /// A proper list; `[]` is the empty one.
    List(Vec<WireTerm>),
    /// A list with at least one element whose tail is not a list, such as `[alias | Ref]`.
    ImproperList(Vec<WireTerm>, Box<WireTerm>),
    /// A tuple.
    Tuple(Vec<WireTerm>),
    /// A map, its pairs in wire order.
    Map(Vec<(WireTerm, WireTerm)>),
    /// A pid.
    Pid(ErlPid),
    /// A port.
    Port(ErlPort),
    /// A reference.
    Ref(ErlRef),
    /// A fun, opaque: its encoding without the version byte.
    Fun(Bytes),
}

impl WireTerm {
    /// An atom term, or an error past 255 characters.
    ///
    /// ```
    /// # use mote_dist::etf::WireTerm;
    /// assert!(matches!(WireTerm::atom("ok").unwrap(), WireTerm::Atom(a) if a == "ok"));
    /// ```
    pub fn atom(name: &str) -> Result<Self, EncodeError> {
        Atom::new(name).map(WireTerm::Atom)
    }

    /// Decodes a complete term (compressed or not) with the default limits; binaries are
    /// copied out of `input`.
    pub fn decode(input: &[u8]) -> Result<Self, DecodeError> {
        Self::decode_with(input, &DecodeLimits::default())
    }

    /// Decodes a complete term with these limits, copying binaries.
    pub fn decode_with(input: &[u8], limits: &DecodeLimits) -> Result<Self, DecodeError> {
        if let Some(plain) = decompress(input, limits)? {
            return Self::decode_bytes_with(&Bytes::from(plain), limits);
        }
        let mut d = Decoder::with_limits(input, *limits)?;
        let t = Self::read(&mut d, None)?;
        d.finish_exact()?;
        Ok(t)
    }

    /// Decodes a complete term held in `input`, with binaries of 64 bytes or more as
    /// slices of it (no copy; smaller ones are copied, so as not to keep `input` alive).
    ///
    /// ```
    /// use bytes::Bytes;
    /// use mote_dist::etf::{DecodeLimits, WireTerm};
    ///
    /// let frame = Bytes::from(WireTerm::Binary(vec![7; 4096].into()).encode().unwrap());
    /// let WireTerm::Binary(b) = WireTerm::decode_bytes_with(&frame, &DecodeLimits::default()).unwrap()
    /// else { panic!() };
    /// assert_eq!(b.as_ptr(), frame[6..].as_ptr()); // shares the frame's memory
    /// ```
    pub fn decode_bytes_with(input: &Bytes, limits: &DecodeLimits) -> Result<Self, DecodeError> {
        if let Some(plain) = decompress(input, limits)? {
            return Self::decode_bytes_with(&Bytes::from(plain), limits);
        }
        let mut d = Decoder::with_limits(input, *limits)?;
        let t = Self::read(&mut d, Some(input))?;
        d.finish_exact()?;
        Ok(t)
    }

    /// Reads the next whole term from a decoder. When `source` is the buffer the decoder
    /// reads, binaries become slices of it instead of copies.
    pub fn read(d: &mut Decoder<'_>, source: Option<&Bytes>) -> Result<Self, DecodeError> {
        let event = d.next_event()?;
        Self::from_event(d, event, source)
    }

    /// The term an event starts. Scalars are built here, inlined into the element loops
    /// of [`read_container`](Self::read_container), so they go straight into their
    /// vector instead of through a returned copy (in optimized builds: unoptimized ones
    /// would give each inlined copy its own stack slots, and deep terms would need a
    /// large stack).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn from_event(
        d: &mut Decoder<'_>,
        event: Event<'_>,
        source: Option<&Bytes>,
    ) -> Result<Self, DecodeError> {
        let bytes = |s: &[u8]| match source {
            Some(src) if s.len() >= SHARE_MIN => src.slice_ref(s),
            _ => Bytes::copy_from_slice(s),
        };
        let atom = |name: &str| Atom::new(name).map_err(|e| DecodeError::Shape(e.to_string()));
        Ok(match event {
            Event::Atom(name) => WireTerm::Atom(atom(&name)?),
            Event::Int(i) => WireTerm::Int(i),
            Event::BigInt(b) => WireTerm::BigInt(b.to_bigint()),
            Event::Float(f) => WireTerm::Float(f),
            Event::Binary(b) => WireTerm::Binary(bytes(b)),
            Event::BitBinary { data, last_bits: 8 } => WireTerm::Binary(bytes(data)),
            Event::BitBinary { data, last_bits } => WireTerm::BitBinary {
                data: bytes(data),
                last_bits,
            },
            Event::ByteList(b) => WireTerm::ByteList(bytes(b)),
            Event::Nil => WireTerm::List(Vec::new()),
            Event::Pid {
                node,
                id,
                serial,
                creation,
            } => WireTerm::Pid(ErlPid {
                node: atom(&node)?,
                id,
                serial,
                creation,
            }),
            Event::Port { node, id, creation } => WireTerm::Port(ErlPort {
                node: atom(&node)?,
                id,
                creation,
            }),
            Event::Ref {
                node,
                creation,
                ids,
            } => WireTerm::Ref(ErlRef {
                node: atom(&node)?,
                creation,
                ids,
            }),
            Event::Fun(raw) => WireTerm::Fun(bytes(raw)),
            container @ (Event::List(_) | Event::Tuple(_) | Event::Map(_)) => {
                return Self::read_container(d, container, source)
            }
        })
    }

    /// The elements of a list, tuple or map.
    fn read_container(
        d: &mut Decoder<'_>,
        container: Event<'_>,
        source: Option<&Bytes>,
    ) -> Result<Self, DecodeError> {
        // Written out rather than through a helper so `from_event` inlines here.
        macro_rules! next {
            () => {{
                let event = d.next_event()?;
                Self::from_event(d, event, source)?
            }};
        }
        Ok(match container {
            Event::List(n) => {
                let mut elements = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    elements.push(next!());
                }
                match next!() {
                    WireTerm::List(tail) => {
                        elements.extend(tail);
                        WireTerm::List(elements)
                    }
                    WireTerm::ByteList(tail) => {
                        elements.extend(tail.iter().map(|&b| WireTerm::Int(i64::from(b))));
                        WireTerm::List(elements)
                    }
                    tail if elements.is_empty() => tail,
                    tail => WireTerm::ImproperList(elements, Box::new(tail)),
                }
            }
            Event::Map(n) => {
                let mut pairs = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let k = next!();
                    let v = next!();
                    pairs.push((k, v));
                }
                WireTerm::Map(pairs)
            }
            // A tuple (the only other container).
            other => {
                let n = other.children();
                let mut elements = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    elements.push(next!());
                }
                WireTerm::Tuple(elements)
            }
        })
    }

    /// Encodes the term with its version byte.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(64);
        let mut e = Encoder::new(&mut out);
        e.version();
        self.write(&mut e)?;
        Ok(out)
    }

    /// Appends the term (without a version byte) to an encoder.
    pub fn write(&self, e: &mut Encoder<'_>) -> Result<(), EncodeError> {
        match self {
            WireTerm::Atom(a) => e.atom_unchecked(a.as_str()),
            WireTerm::Int(i) => {
                e.int(*i);
            }
            WireTerm::BigInt(b) => {
                let (sign, digits) = b.to_bytes_le();
                e.big_int(sign == Sign::Minus, &digits)?;
            }
            WireTerm::Float(f) => {
                e.float(*f)?;
            }
            WireTerm::Binary(b) => {
                e.shared_binary(b)?;
            }
            WireTerm::BitBinary { data, last_bits } => {
                e.bit_binary(data, *last_bits)?;
            }
            WireTerm::ByteList(b) => {
                e.byte_list(b)?;
            }
            WireTerm::List(elements) => {
                if !elements.is_empty() {
                    e.list_header(elements.len())?;
                    for t in elements {
                        t.write(e)?;
                    }
                }
                e.nil();
            }
            WireTerm::ImproperList(elements, tail) => {
                if !elements.is_empty() {
                    e.list_header(elements.len())?;
                    for t in elements {
                        t.write(e)?;
                    }
                }
                tail.write(e)?;
            }
            WireTerm::Tuple(elements) => {
                e.tuple_header(elements.len())?;
                for t in elements {
                    t.write(e)?;
                }
            }
            WireTerm::Map(pairs) => {
                e.map_header(pairs.len())?;
                for (k, v) in pairs {
                    k.write(e)?;
                    v.write(e)?;
                }
            }
            WireTerm::Pid(p) => {
                e.pid(p);
            }
            WireTerm::Port(p) => {
                e.port(p);
            }
            WireTerm::Ref(r) => {
                e.reference(r);
            }
            WireTerm::Fun(raw) => {
                e.raw(raw);
            }
        }
        Ok(())
    }
}

impl From<i64> for WireTerm {
    fn from(i: i64) -> Self {
        WireTerm::Int(i)
    }
}

impl From<ErlPid> for WireTerm {
    fn from(p: ErlPid) -> Self {
        WireTerm::Pid(p)
    }
}

impl From<ErlRef> for WireTerm {
    fn from(r: ErlRef) -> Self {
        WireTerm::Ref(r)
    }
}

impl From<Atom> for WireTerm {
    fn from(a: Atom) -> Self {
        WireTerm::Atom(a)
    }
}
