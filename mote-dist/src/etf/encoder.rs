//! The streaming encoder: appends terms to a `Vec<u8>` in the modern encodings a BEAM
//! node of OTP 26+ expects.

use super::atom::check_atom_len;
use super::error::EncodeError;
use super::event::BigIntRef;
use super::identifiers::{ErlPid, ErlPort, ErlRef};
use super::tag;

/// Appends encoded terms to a byte vector.
///
/// Containers are written as a header ([`tuple_header`](Self::tuple_header),
/// [`list_header`](Self::list_header), [`map_header`](Self::map_header)) followed by
/// their elements; the encoder does not check that the caller writes as many elements as
/// announced. Encodings used: UTF-8 atoms, NEW_FLOAT_EXT, SMALL/INTEGER_EXT up to 32 bits
/// and SMALL/LARGE_BIG_EXT beyond, NEW_PID_EXT, V4_PORT_EXT, NEWER_REFERENCE_EXT (what
/// `term_to_binary` produces on OTP 26).
///
/// ```
/// use mote_dist::etf::Encoder;
///
/// let mut out = Vec::new();
/// let mut e = Encoder::new(&mut out);
/// e.version().tuple_header(3).unwrap();
/// e.atom("tag").unwrap().int(42).binary(b"hello").unwrap();
/// // term_to_binary({tag, 42, <<"hello">>}) on OTP 26
/// assert_eq!(out, [131, 104, 3, 119, 3, b't', b'a', b'g', 97, 42,
///                  109, 0, 0, 0, 5, b'h', b'e', b'l', b'l', b'o']);
/// ```
#[derive(Debug)]
pub struct Encoder<'b> {
    out: &'b mut Vec<u8>,
    /// Where large shared binaries go instead of being copied into `out` (see
    /// [`Encoder::shared_binary`]); `None` copies every binary.
    splices: Option<&'b mut Vec<Splice>>,
}

/// A binary left out of an encoder's output, to be written in its place: its bytes belong
/// right after the first `at` bytes of the output. A distribution frame is then written
/// as its pieces and these binaries, one `writev`, as the BEAM writes a large refc binary
/// from where it lives instead of copying it into the frame.
#[derive(Debug, Clone)]
pub(crate) struct Splice {
    pub(crate) at: usize,
    pub(crate) bytes: bytes::Bytes,
}

/// A binary at least this long is spliced rather than copied when the encoder takes
/// splices: below it, one more slice in the `writev` costs more than the copy.
pub(crate) const SPLICE_MIN: usize = 8 * 1024;

impl<'b> Encoder<'b> {
    /// An encoder appending to `out`.
    pub fn new(out: &'b mut Vec<u8>) -> Self {
        Encoder { out, splices: None }
    }

    /// An encoder appending to `out` that leaves large shared binaries out of it, recording
    /// them in `splices` (see [`Splice`]).
    pub(crate) fn sharing(out: &'b mut Vec<u8>, splices: Option<&'b mut Vec<Splice>>) -> Self {
        Encoder { out, splices }
    }

    /// The bytes written so far (and whatever `out` held before).
    pub fn output(&mut self) -> &mut Vec<u8> {
        self.out
    }

    /// The version byte 131 that starts every top-level term.
    pub fn version(&mut self) -> &mut Self {
        self.out.push(tag::VERSION);
        self
    }

    /// An atom (SMALL_ATOM_UTF8_EXT, or ATOM_UTF8_EXT past 255 bytes).
    pub fn atom(&mut self, name: &str) -> Result<&mut Self, EncodeError> {
        check_atom_len(name)?;
        self.atom_unchecked(name);
        Ok(self)
    }

    /// An atom already known to be within the limit (an [`Atom`](super::Atom)).
    pub(crate) fn atom_unchecked(&mut self, name: &str) {
        let len = name.len();
        if len <= 255 {
            self.out
                .extend_from_slice(&[tag::SMALL_ATOM_UTF8_EXT, len as u8]);
        } else {
            self.out.push(tag::ATOM_UTF8_EXT);
            self.out.extend_from_slice(&(len as u16).to_be_bytes());
        }
        self.out.extend_from_slice(name.as_bytes());
    }

    /// An integer in the smallest encoding that holds it.
    pub fn int(&mut self, value: i64) -> &mut Self {
        if (0..=255).contains(&value) {
            self.out
                .extend_from_slice(&[tag::SMALL_INTEGER_EXT, value as u8]);
        } else if let Ok(v) = i32::try_from(value) {
            self.out.push(tag::INTEGER_EXT);
            self.out.extend_from_slice(&v.to_be_bytes());
        } else {
            self.small_big(value < 0, &value.unsigned_abs().to_le_bytes());
        }
        self
    }

    /// An unsigned integer (a bignum past `i64::MAX`).
    pub fn u64(&mut self, value: u64) -> &mut Self {
        match i64::try_from(value) {
            Ok(v) => self.int(v),
            Err(_) => {
                self.small_big(false, &value.to_le_bytes());
                self
            }
        }
    }

    /// A 128-bit integer (a bignum past `i64`).
    pub fn i128(&mut self, value: i128) -> &mut Self {
        match i64::try_from(value) {
            Ok(v) => self.int(v),
            Err(_) => {
                self.small_big(value < 0, &value.unsigned_abs().to_le_bytes());
                self
            }
        }
    }

    /// An unsigned 128-bit integer.
    pub fn u128(&mut self, value: u128) -> &mut Self {
        match i64::try_from(value) {
            Ok(v) => self.int(v),
            Err(_) => {
                self.small_big(false, &value.to_le_bytes());
                self
            }
        }
    }

    /// An integer of any size from its sign and little-endian base-256 magnitude. Callers
    /// with a value that fits an `i64` should use [`int`](Self::int): Erlang compares
    /// encodings of small integers as bignums equal, but `=:=` on decoded terms does
    /// not care either way.
    pub fn big_int(&mut self, negative: bool, digits_le: &[u8]) -> Result<&mut Self, EncodeError> {
        let big = BigIntRef::new(negative, digits_le);
        if let Some(value) = big.to_i128() {
            return Ok(self.i128(value));
        }
        let digits = big.digits;
        let len = u32::try_from(digits.len()).map_err(|_| EncodeError::TooLong {
            what: "integer",
            len: digits.len(),
        })?;
        if len <= 255 {
            self.out.extend_from_slice(&[tag::SMALL_BIG_EXT, len as u8]);
        } else {
            self.out.push(tag::LARGE_BIG_EXT);
            self.out.extend_from_slice(&len.to_be_bytes());
        }
        self.out.push(u8::from(negative));
        self.out.extend_from_slice(digits);
        Ok(self)
    }

    fn small_big(&mut self, negative: bool, magnitude_le: &[u8]) {
        let used = magnitude_le.len() - magnitude_le.iter().rev().take_while(|&&b| b == 0).count();
        self.out
            .extend_from_slice(&[tag::SMALL_BIG_EXT, used as u8, u8::from(negative)]);
        self.out.extend_from_slice(&magnitude_le[..used]);
    }

    /// A float (NEW_FLOAT_EXT); NaN and infinities have no Erlang value.
    pub fn float(&mut self, value: f64) -> Result<&mut Self, EncodeError> {
        if !value.is_finite() {
            return Err(EncodeError::NonFiniteFloat);
        }
        self.out.push(tag::NEW_FLOAT_EXT);
        self.out.extend_from_slice(&value.to_bits().to_be_bytes());
        Ok(self)
    }

    /// A binary.
    pub fn binary(&mut self, bytes: &[u8]) -> Result<&mut Self, EncodeError> {
        let len = len32("binary", bytes.len())?;
        self.out.push(tag::BINARY_EXT);
        self.out.extend_from_slice(&len);
        self.out.extend_from_slice(bytes);
        Ok(self)
    }

    /// A binary held in shared memory: as [`binary`](Self::binary), except that an encoder
    /// taking splices records a long one as a [`Splice`] instead of copying its bytes.
    pub(crate) fn shared_binary(&mut self, bytes: &bytes::Bytes) -> Result<&mut Self, EncodeError> {
        match &mut self.splices {
            Some(splices) if bytes.len() >= SPLICE_MIN => {
                let len = len32("binary", bytes.len())?;
                self.out.push(tag::BINARY_EXT);
                self.out.extend_from_slice(&len);
                splices.push(Splice {
                    at: self.out.len(),
                    bytes: bytes.clone(),
                });
                Ok(self)
            }
            _ => self.binary(bytes),
        }
    }

    /// A bitstring whose last byte holds `last_bits` (1 to 8) bits, in its high bits.
    pub fn bit_binary(&mut self, bytes: &[u8], last_bits: u8) -> Result<&mut Self, EncodeError> {
        if bytes.is_empty() || last_bits == 8 {
            return self.binary(bytes);
        }
        if !(1..8).contains(&last_bits) {
            return Err(EncodeError::Unsupported(format!(
                "a bitstring's last byte holds 1 to 8 bits, not {last_bits}"
            )));
        }
        let len = len32("bitstring", bytes.len())?;
        self.out.push(tag::BIT_BINARY_EXT);
        self.out.extend_from_slice(&len);
        self.out.push(last_bits);
        // Erlang requires the unused low bits to be zero.
        let (last, init) = bytes.split_last().expect("non-empty");
        self.out.extend_from_slice(init);
        self.out.push(last & (0xffu8 << (8 - last_bits)));
        Ok(self)
    }

    /// A proper list of integers 0 to 255 (an Erlang string of Latin-1 characters):
    /// STRING_EXT up to 65535 bytes, a LIST_EXT of small integers beyond.
    pub fn byte_list(&mut self, bytes: &[u8]) -> Result<&mut Self, EncodeError> {
        if bytes.is_empty() {
            return Ok(self.nil());
        }
        if let Ok(len) = u16::try_from(bytes.len()) {
            self.out.push(tag::STRING_EXT);
            self.out.extend_from_slice(&len.to_be_bytes());
            self.out.extend_from_slice(bytes);
            return Ok(self);
        }
        self.list_header(bytes.len())?;
        self.out.reserve(bytes.len() * 2 + 1);
        for &b in bytes {
            self.out.extend_from_slice(&[tag::SMALL_INTEGER_EXT, b]);
        }
        Ok(self.nil())
    }

    /// `[]`, also the tail of every proper list.
    pub fn nil(&mut self) -> &mut Self {
        self.out.push(tag::NIL_EXT);
        self
    }

    /// A list header: `len` elements and then a tail must follow (write [`nil`](Self::nil)
    /// for a proper list). A proper empty list is just `nil`.
    pub fn list_header(&mut self, len: usize) -> Result<&mut Self, EncodeError> {
        let len = len32("list", len)?;
        self.out.push(tag::LIST_EXT);
        self.out.extend_from_slice(&len);
        Ok(self)
    }

    /// A tuple header: `arity` elements must follow.
    pub fn tuple_header(&mut self, arity: usize) -> Result<&mut Self, EncodeError> {
        if arity <= 255 {
            self.out
                .extend_from_slice(&[tag::SMALL_TUPLE_EXT, arity as u8]);
        } else {
            let len = len32("tuple", arity)?;
            self.out.push(tag::LARGE_TUPLE_EXT);
            self.out.extend_from_slice(&len);
        }
        Ok(self)
    }

    /// A map header: `pairs` keys and values, alternating, must follow (keys distinct).
    pub fn map_header(&mut self, pairs: usize) -> Result<&mut Self, EncodeError> {
        let len = len32("map", pairs)?;
        self.out.push(tag::MAP_EXT);
        self.out.extend_from_slice(&len);
        Ok(self)
    }

    /// A pid (NEW_PID_EXT).
    pub fn pid(&mut self, pid: &ErlPid) -> &mut Self {
        self.out.push(tag::NEW_PID_EXT);
        self.atom_unchecked(pid.node.as_str());
        self.words(&[pid.id, pid.serial, pid.creation]);
        self
    }

    /// A pid from its parts, for callers that keep node names elsewhere.
    pub fn pid_parts(
        &mut self,
        node: &str,
        id: u32,
        serial: u32,
        creation: u32,
    ) -> Result<&mut Self, EncodeError> {
        check_atom_len(node)?;
        self.out.push(tag::NEW_PID_EXT);
        self.atom_unchecked(node);
        self.words(&[id, serial, creation]);
        Ok(self)
    }

    /// A port (V4_PORT_EXT).
    pub fn port(&mut self, port: &ErlPort) -> &mut Self {
        self.out.push(tag::V4_PORT_EXT);
        self.atom_unchecked(port.node.as_str());
        self.out.extend_from_slice(&port.id.to_be_bytes());
        self.words(&[port.creation]);
        self
    }

    /// A reference (NEWER_REFERENCE_EXT).
    pub fn reference(&mut self, r: &ErlRef) -> &mut Self {
        let ids = r.ids();
        self.out.push(tag::NEWER_REFERENCE_EXT);
        self.out
            .extend_from_slice(&(ids.len() as u16).to_be_bytes());
        self.atom_unchecked(r.node.as_str());
        self.words(&[r.creation]);
        self.words(ids);
        self
    }

    /// Bytes that already hold a complete encoded term without its version byte (a fun
    /// kept opaque, a term encoded earlier).
    pub fn raw(&mut self, encoded: &[u8]) -> &mut Self {
        self.out.extend_from_slice(encoded);
        self
    }

    fn words(&mut self, words: &[u32]) {
        for w in words {
            self.out.extend_from_slice(&w.to_be_bytes());
        }
    }
}

/// A length as the format's 32-bit big-endian field.
fn len32(what: &'static str, len: usize) -> Result<[u8; 4], EncodeError> {
    let n = u32::try_from(len).map_err(|_| EncodeError::TooLong { what, len })?;
    Ok(n.to_be_bytes())
}
