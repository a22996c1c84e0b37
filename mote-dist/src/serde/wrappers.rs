//! Wrappers that pick an Erlang encoding serde has no word for, and the serde impls of
//! the wire-level identifiers.

use std::fmt;
use std::ops::{Deref, DerefMut};

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};
use smallvec::SmallVec;

use super::tokens::{CHARLIST_TOKEN, RAW_TOKEN, RECORD_TOKEN};
use crate::etf::{Atom, DecodeLimits, Decoder, Encoder, ErlPid, ErlPort, ErlRef, Event, WireTerm};

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

/// Bytes that serialize through `serialize_bytes` (a `&[u8]` would be a sequence).
struct RawBytes<'a>(&'a [u8]);

impl Serialize for RawBytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// Serializes a term through its encoding: copied verbatim by the ETF serializer, seen as
/// a byte string by other formats.
fn serialize_raw<S: Serializer>(
    s: S,
    write: impl FnOnce(&mut Encoder<'_>) -> Result<(), crate::etf::EncodeError>,
) -> Result<S::Ok, S::Error> {
    let mut buf = Vec::new();
    write(&mut Encoder::new(&mut buf)).map_err(serde::ser::Error::custom)?;
    s.serialize_newtype_struct(RAW_TOKEN, &RawBytes(&buf))
}

/// Deserializes a term from its encoding: the ETF deserializer hands over the next
/// term's bytes; other formats give back what `serialize_raw` wrote.
fn deserialize_raw<'de, D: Deserializer<'de>, T>(
    d: D,
    expecting: &'static str,
    read: fn(&mut Decoder<'_>) -> Result<T, crate::etf::DecodeError>,
) -> Result<T, D::Error> {
    struct RawVisitor<T> {
        expecting: &'static str,
        read: fn(&mut Decoder<'_>) -> Result<T, crate::etf::DecodeError>,
    }
    impl<T> RawVisitor<T> {
        fn decode<E: de::Error>(&self, raw: &[u8]) -> Result<T, E> {
            let mut dec = Decoder::at(raw, 0, DecodeLimits::default());
            let value = (self.read)(&mut dec).map_err(E::custom)?;
            dec.finish_exact().map_err(E::custom)?;
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
        deserialize_raw(d, "a pid", |dec| match WireTerm::read(dec, None)? {
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
        deserialize_raw(d, "a reference", |dec| match WireTerm::read(dec, None)? {
            WireTerm::Ref(r) => Ok(r),
            other => Err(shape("a reference", &other)),
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
        deserialize_raw(d, "a port", |dec| match WireTerm::read(dec, None)? {
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
        deserialize_raw(d, "an atom", |dec| match dec.next_event()? {
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
        deserialize_raw(d, "a term", |dec| WireTerm::read(dec, None))
    }
}

fn shape(expected: &str, found: &WireTerm) -> crate::etf::DecodeError {
    crate::etf::DecodeError::Shape(format!("expected {expected}, found {found:?}"))
}
