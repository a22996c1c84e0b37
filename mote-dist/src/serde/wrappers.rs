//! Wrappers that pick an Erlang encoding serde has no word for, and the serde impls of
//! the wire-level identifiers.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::ops::{Deref, DerefMut};

use bytes::Bytes;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};
use smallvec::SmallVec;

use super::tokens::{CHARLIST_TOKEN, RAW_TOKEN, RECORD_TOKEN};
use crate::etf::{
    Atom, DecodeLimits, Decoder, Encoder, ErlPid, ErlPort, ErlRef, Event, Splice, WireTerm,
};

/// A string sent as an Erlang string (a list of character codes) instead of a binary.
///
/// `"abc"` in Erlang source is a charlist; Elixir's `'abc'` / `~c"abc"` too. Decoding
/// accepts a charlist or a binary (any `String` does).
///
/// ```
/// use mote_dist::serde::{from_slice, to_vec, Charlist};
///
/// let bytes = to_vec(&Charlist::from("hi")).unwrap();
/// assert_eq!(bytes, [131, 107, 0, 2, b'h', b'i']); // term_to_binary("hi")
/// assert_eq!(from_slice::<Charlist>(&bytes).unwrap().as_str(), "hi");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Charlist(pub String);

impl Charlist {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Charlist {
    fn from(s: &str) -> Self {
        Charlist(s.to_owned())
    }
}

impl From<String> for Charlist {
    fn from(s: String) -> Self {
        Charlist(s)
    }
}

impl Serialize for Charlist {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(CHARLIST_TOKEN, self.0.as_str())
    }
}

impl<'de> Deserialize<'de> for Charlist {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Charlist)
    }
}

/// A struct (or tuple struct) sent as an Erlang record, `{name, Field1, ...}`, instead of
/// a map: the tuple starts with the struct's name as an atom (snake_case by default), the
/// fields follow in declaration order. Decoding checks the name and the arity.
///
/// Field order is the record's definition order, so `#[serde(skip_serializing_if)]`
/// cannot be used on a record's fields.
///
/// ```
/// use mote_dist::serde::{from_slice, to_vec, Record};
/// use serde::{Deserialize, Serialize};
///
/// // -record(user_info, {name, age}).
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// struct UserInfo { name: String, age: u32 }
///
/// let user = Record(UserInfo { name: "ann".into(), age: 7 });
/// let bytes = to_vec(&user).unwrap();
/// assert_eq!(&bytes[..5], [131, 104, 3, 119, 9]); // {user_info, <<"ann">>, 7}
/// assert_eq!(from_slice::<Record<UserInfo>>(&bytes).unwrap(), user);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Record<T>(pub T);

impl<T> Deref for Record<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for Record<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: Serialize> Serialize for Record<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(RECORD_TOKEN, &self.0)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Record<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct RecordVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for RecordVisitor<T> {
            type Value = Record<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a record")
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Self::Value, D::Error> {
                T::deserialize(d).map(Record)
            }
        }
        d.deserialize_newtype_struct(RECORD_TOKEN, RecordVisitor(std::marker::PhantomData))
    }
}

/// Serializes a term through its encoding: written in place by the ETF serializer (which
/// lends its output, see [`lend_output`]: a large binary is then copied once, not twice),
/// seen as a byte string by other formats.
fn serialize_raw<S: Serializer>(
    s: S,
    write: impl Fn(&mut Encoder<'_>) -> Result<(), crate::etf::EncodeError>,
) -> Result<S::Ok, S::Error> {
    s.serialize_newtype_struct(RAW_TOKEN, &InPlace(write))
}

/// A term's encoder inside the raw token: it writes into the lent output if there is one.
struct InPlace<F>(F);

impl<F: Fn(&mut Encoder<'_>) -> Result<(), crate::etf::EncodeError>> Serialize for InPlace<F> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match LENT.take() {
            Some(mut lent) => {
                let written = (self.0)(&mut Encoder::sharing(&mut lent.out, lent.splices.as_mut()));
                LENT.set(Some(lent));
                written.map_err(serde::ser::Error::custom)?;
                // Takes the output back, adding nothing.
                s.serialize_bytes(&[])
            }
            None => {
                let mut buf = Vec::new();
                (self.0)(&mut Encoder::new(&mut buf)).map_err(serde::ser::Error::custom)?;
                s.serialize_bytes(&buf)
            }
        }
    }
}

/// What the ETF serializer lends: its output, and its splices if it takes them.
struct Lent {
    out: Vec<u8>,
    splices: Option<Vec<Splice>>,
}

thread_local! {
    /// The ETF serializer's output, lent while it serializes the value of a raw token.
    static LENT: Cell<Option<Lent>> = const { Cell::new(None) };
}

/// Lends `out` (and `splices`) for the value of a raw token. Only this crate's [`InPlace`]
/// uses that token, and nothing runs between the loan and its use, so the loan cannot
/// reach another serializer. Serde gives a `Serialize` impl no other way to the buffer.
pub(super) fn lend_output(out: &mut Vec<u8>, splices: Option<&mut Vec<Splice>>) {
    LENT.set(Some(Lent {
        out: std::mem::take(out),
        splices: splices.map(std::mem::take),
    }));
}

/// Takes back what [`lend_output`] lent, if it is still out.
pub(super) fn reclaim_output(out: &mut Vec<u8>, splices: Option<&mut Vec<Splice>>) {
    if let Some(lent) = LENT.take() {
        *out = lent.out;
        if let (Some(to), Some(from)) = (splices, lent.splices) {
            *to = from;
        }
    }
}

/// Reads one term from a decoder over its encoding; the `Bytes` is that encoding when it
/// can be shared (see [`with_shared_source`]).
type ReadRaw<T> = fn(&mut Decoder<'_>, Option<&Bytes>) -> Result<T, crate::etf::DecodeError>;

/// Deserializes a term from its encoding: the ETF deserializer hands over the next
/// term's bytes; other formats give back what `serialize_raw` wrote.
fn deserialize_raw<'de, D: Deserializer<'de>, T>(
    d: D,
    expecting: &'static str,
    read: ReadRaw<T>,
) -> Result<T, D::Error> {
    struct RawVisitor<T> {
        expecting: &'static str,
        read: ReadRaw<T>,
    }
    impl<T> RawVisitor<T> {
        fn decode<E: de::Error>(&self, raw: &[u8]) -> Result<T, E> {
            let value = match shared_slice(raw) {
                Some(shared) => {
                    let mut dec = Decoder::at(&shared, 0, DecodeLimits::default());
                    let value = (self.read)(&mut dec, Some(&shared)).map_err(E::custom)?;
                    dec.finish_exact().map_err(E::custom)?;
                    value
                }
                None => {
                    let mut dec = Decoder::at(raw, 0, DecodeLimits::default());
                    let value = (self.read)(&mut dec, None).map_err(E::custom)?;
                    dec.finish_exact().map_err(E::custom)?;
                    value
                }
            };
            Ok(value)
        }
    }
    impl<'de, T> Visitor<'de> for RawVisitor<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.expecting)
        }
        fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
            d.deserialize_bytes(self)
        }
        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<T, E> {
            self.decode(v)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
            let mut raw: SmallVec<[u8; 64]> = SmallVec::new();
            while let Some(b) = seq.next_element::<u8>()? {
                raw.push(b);
            }
            self.decode(&raw)
        }
    }
    d.deserialize_newtype_struct(RAW_TOKEN, RawVisitor { expecting, read })
}

thread_local! {
    /// The buffer a message is being decoded from, while [`with_shared_source`] runs.
    static SOURCE: RefCell<Option<Bytes>> = const { RefCell::new(None) };
}

/// Runs `f` (a decode of `source` through serde) so that the binaries of the
/// [`WireTerm`]s it decodes are slices of `source` rather than copies. Serde hands a
/// `Deserialize` impl only a borrowed slice, so the `Bytes` it is part of travels beside,
/// in a thread-local: the BEAM likewise makes a large received binary a sub-binary of the
/// buffer it arrived in.
pub(crate) fn with_shared_source<R>(source: &Bytes, f: impl FnOnce() -> R) -> R {
    /// Puts back the outer source even if `f` unwinds.
    struct Restore(Option<Bytes>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SOURCE.set(self.0.take());
        }
    }
    let _restore = Restore(SOURCE.replace(Some(source.clone())));
    f()
}

/// `raw` as a slice of the source set by [`with_shared_source`], if it lies in it.
fn shared_slice(raw: &[u8]) -> Option<Bytes> {
    SOURCE.with_borrow(|source| {
        let source = source.as_ref()?;
        let (start, at) = (source.as_ptr() as usize, raw.as_ptr() as usize);
        (at >= start && at + raw.len() <= start + source.len()).then(|| source.slice_ref(raw))
    })
}

/// A pid is written as NEW_PID_EXT.
impl Serialize for ErlPid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_raw(s, |e| {
            e.pid(self);
            Ok(())
        })
    }
}

impl<'de> Deserialize<'de> for ErlPid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_raw(d, "a pid", |dec, _| match WireTerm::read(dec, None)? {
            WireTerm::Pid(p) => Ok(p),
            other => Err(shape("a pid", &other)),
        })
    }
}

/// A reference is written as NEWER_REFERENCE_EXT.
impl Serialize for ErlRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_raw(s, |e| {
            e.reference(self);
            Ok(())
        })
    }
}

impl<'de> Deserialize<'de> for ErlRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_raw(d, "a reference", |dec, _| {
            match WireTerm::read(dec, None)? {
                WireTerm::Ref(r) => Ok(r),
                other => Err(shape("a reference", &other)),
            }
        })
    }
}

/// A port is written as V4_PORT_EXT.
impl Serialize for ErlPort {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_raw(s, |e| {
            e.port(self);
            Ok(())
        })
    }
}

impl<'de> Deserialize<'de> for ErlPort {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_raw(d, "a port", |dec, _| match WireTerm::read(dec, None)? {
            WireTerm::Port(p) => Ok(p),
            other => Err(shape("a port", &other)),
        })
    }
}

/// An atom is written as an atom (a `String` would be a binary).
impl Serialize for Atom {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_raw(s, |e| {
            e.atom_unchecked(self.as_str());
            Ok(())
        })
    }
}

impl<'de> Deserialize<'de> for Atom {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_raw(d, "an atom", |dec, _| match dec.next_event()? {
            Event::Atom(name) => {
                Atom::new(&name).map_err(|e| crate::etf::DecodeError::Shape(e.to_string()))
            }
            other => Err(crate::etf::DecodeError::Shape(format!(
                "expected an atom, found {other:?}"
            ))),
        })
    }
}

/// Any term, written as itself: a message field of type `WireTerm` holds whatever the
/// sender put there.
impl Serialize for WireTerm {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_raw(s, |e| self.write(e))
    }
}

impl<'de> Deserialize<'de> for WireTerm {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_raw(d, "a term", WireTerm::read)
    }
}

fn shape(expected: &str, found: &WireTerm) -> crate::etf::DecodeError {
    crate::etf::DecodeError::Shape(format!("expected {expected}, found {found:?}"))
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::with_shared_source;
    use crate::etf::{Atom, ErlPid, WireTerm};
    use crate::serde::{to_vec, with_erased_deserializer, Options};

    fn pid() -> ErlPid {
        ErlPid {
            node: Atom::new("a@h").unwrap(),
            id: 7,
            serial: 1,
            creation: 3,
        }
    }

    /// Decodes `(WireTerm, WireTerm)` through the erased path, as a delivery does.
    fn deliver_pair(frame: &Bytes, shared: bool) -> (WireTerm, WireTerm) {
        let decode = || {
            with_erased_deserializer(frame, &Options::default(), |d| {
                erased_serde::deserialize::<(WireTerm, WireTerm)>(d).unwrap()
            })
            .unwrap()
        };
        if shared {
            with_shared_source(frame, decode)
        } else {
            decode()
        }
    }

    fn within(b: &Bytes, frame: &Bytes) -> bool {
        let (start, at) = (frame.as_ptr() as usize, b.as_ptr() as usize);
        at >= start && at + b.len() <= start + frame.len()
    }

    #[test]
    fn a_large_binary_shares_the_source_and_a_small_one_is_copied() {
        let big: Vec<u8> = (0..70_000u32).map(|i| i as u8).collect();
        let sent = (
            WireTerm::Binary(Bytes::from(big.clone())),
            WireTerm::Tuple(vec![
                WireTerm::Binary(Bytes::from_static(b"tiny")),
                WireTerm::Pid(pid()),
            ]),
        );
        let frame = Bytes::from(to_vec(&sent).unwrap());
        let got = deliver_pair(&frame, true);
        assert_eq!(got, sent);
        let (WireTerm::Binary(b), WireTerm::Tuple(t)) = &got else {
            panic!("{got:?}")
        };
        assert!(within(b, &frame), "the large binary was copied");
        let WireTerm::Binary(small) = &t[0] else {
            panic!()
        };
        assert!(
            !within(small, &frame),
            "a small binary keeps the frame alive"
        );
        // Without a shared source, or after it, nothing refers to the frame.
        let (WireTerm::Binary(b), _) = deliver_pair(&frame, false) else {
            panic!()
        };
        assert!(!within(&b, &frame));
        assert_eq!(b, big);
    }

    #[test]
    fn a_term_serialized_in_place_matches_its_own_encoding() {
        let term = WireTerm::Tuple(vec![
            WireTerm::Pid(pid()),
            WireTerm::Binary(vec![9u8; 100_000].into()),
            WireTerm::List(vec![WireTerm::Int(-5), WireTerm::atom("ok").unwrap()]),
        ]);
        assert_eq!(to_vec(&term).unwrap(), term.encode().unwrap());
        // Beside other values, pids and atoms written in place too, in order.
        let value = (
            pid(),
            Atom::new("x").unwrap(),
            vec![term.clone(), term.clone()],
            3u8,
        );
        let bytes = to_vec(&value).unwrap();
        let back: (ErlPid, Atom, Vec<WireTerm>, u8) = crate::serde::from_slice(&bytes).unwrap();
        assert_eq!(back, value);
        // An error inside the term leaves nothing lent behind: the next one is whole.
        let bad = WireTerm::List(vec![WireTerm::Int(1), WireTerm::Float(f64::NAN)]);
        assert!(to_vec(&(1u8, bad)).is_err());
        assert_eq!(to_vec(&term).unwrap(), term.encode().unwrap());
    }
}
