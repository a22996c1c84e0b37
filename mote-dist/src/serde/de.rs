//! `Deserialize` from ETF, driven by the streaming decoder (no intermediate term tree;
//! strings, bytes and atoms are borrowed from the input where serde allows).

use std::borrow::Cow;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::naming::{is_result_error, AtomCase};
use super::tokens::{RAW_TOKEN, RECORD_TOKEN};
use super::Options;
use crate::etf::{BigIntRef, DecodeError, Decoder, Event};

impl de::Error for DecodeError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        DecodeError::Shape(msg.to_string())
    }
}

/// The ETF deserializer over one term.
pub(crate) struct Deserializer<'de, 'a> {
    d: &'a mut Decoder<'de>,
    opts: Options,
    /// The next struct or tuple struct is a record (inside `Record`).
    record_next: bool,
}

impl<'de, 'a> Deserializer<'de, 'a> {
    pub(crate) fn new(d: &'a mut Decoder<'de>, opts: Options) -> Self {
        Deserializer {
            d,
            opts,
            record_next: false,
        }
    }

    fn reborrow(&mut self) -> Deserializer<'de, '_> {
        Deserializer {
            d: self.d,
            opts: self.opts,
            record_next: false,
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next(&mut self) -> Result<Event<'de>, DecodeError> {
        self.d.next_event()
    }

    /// A list's elements, or a string's bytes, as a sequence.
    fn list_seq<V: Visitor<'de>>(
        &mut self,
        first: Event<'de>,
        v: V,
    ) -> Result<V::Value, DecodeError> {
        let mut seq = ListAccess {
            de: self.reborrow(),
            state: ListState::from_event(first)?,
        };
        let value = v.visit_seq(&mut seq)?;
        seq.finish()?;
        Ok(value)
    }

    fn fixed_seq<V: Visitor<'de>>(&mut self, n: u32, v: V) -> Result<V::Value, DecodeError> {
        let mut seq = FixedAccess {
            de: self.reborrow(),
            left: n,
            names: None,
        };
        let value = v.visit_seq(&mut seq)?;
        seq.finish()?;
        Ok(value)
    }

    fn map<V: Visitor<'de>>(
        &mut self,
        pairs: u32,
        names: Option<&'static [&'static str]>,
        v: V,
    ) -> Result<V::Value, DecodeError> {
        let mut map = FixedAccess {
            de: self.reborrow(),
            left: pairs,
            names,
        };
        let value = v.visit_map(&mut map)?;
        map.finish()?;
        Ok(value)
    }

    /// Reads an atom and checks it is the one for `name`.
    fn expect_name(&mut self, name: &str) -> Result<(), DecodeError> {
        match self.next()? {
            Event::Atom(a) if self.opts.atom_case.matches(name, &a) => Ok(()),
            other => Err(unexpected(&other, &format!("the atom for `{name}`"))),
        }
    }

    /// Reads a record's header: a tuple of `fields + 1` starting with the record name.
    fn record_header(&mut self, name: &str, fields: usize) -> Result<u32, DecodeError> {
        match self.next()? {
            Event::Tuple(n) if n as usize == fields + 1 => {
                self.expect_name(name)?;
                Ok(n - 1)
            }
            other => Err(unexpected(
                &other,
                &format!("a record `{name}` of {fields} fields"),
            )),
        }
    }

    fn string<V: Visitor<'de>>(&mut self, v: V) -> Result<V::Value, DecodeError> {
        match self.next()? {
            Event::Binary(b) => match std::str::from_utf8(b) {
                Ok(s) => v.visit_borrowed_str(s),
                Err(_) => Err(DecodeError::Shape("binary is not valid UTF-8".into())),
            },
            Event::Atom(Cow::Borrowed(s)) => v.visit_borrowed_str(s),
            Event::Atom(Cow::Owned(s)) => v.visit_string(s),
            Event::ByteList(b) => v.visit_string(b.iter().map(|&c| char::from(c)).collect()),
            Event::Nil => v.visit_borrowed_str(""),
            Event::List(n) => {
                let mut s = String::with_capacity(n as usize);
                for _ in 0..n {
                    let c = match self.next()? {
                        Event::Int(i) => u32::try_from(i).ok().and_then(char::from_u32),
                        _ => None,
                    };
                    s.push(c.ok_or_else(|| {
                        DecodeError::Shape("charlist element is not a character".into())
                    })?);
                }
                match self.next()? {
                    Event::Nil => {}
                    Event::ByteList(tail) => s.extend(tail.iter().map(|&c| char::from(c))),
                    other => return Err(unexpected(&other, "the end of a charlist")),
                }
                v.visit_string(s)
            }
            other => Err(unexpected(&other, "a string (binary or charlist)")),
        }
    }
}

/// An error for a term of the wrong shape.
fn unexpected(found: &Event<'_>, expected: &str) -> DecodeError {
    let what = match found {
        Event::Atom(a) => format!("atom '{a}'"),
        Event::Int(i) => format!("integer {i}"),
        Event::BigInt(_) => "big integer".into(),
        Event::Float(f) => format!("float {f}"),
        Event::Binary(_) => "binary".into(),
        Event::BitBinary { .. } => "bitstring".into(),
        Event::ByteList(_) | Event::List(_) => "list".into(),
        Event::Nil => "[]".into(),
        Event::Tuple(n) => format!("tuple of {n}"),
        Event::Map(n) => format!("map of {n}"),
        Event::Pid { .. } => "pid".into(),
        Event::Port { .. } => "port".into(),
        Event::Ref { .. } => "reference".into(),
        Event::Fun(_) => "fun".into(),
    };
    DecodeError::Shape(format!("expected {expected}, found {what}"))
}

/// An integer beyond `i64`: `u64` when it fits (serde's `u64` does not take an `i128`),
/// else 128 bits.
fn visit_big<'de, V: Visitor<'de>>(b: BigIntRef<'_>, v: V) -> Result<V::Value, DecodeError> {
    match (b.to_u128(), b.to_i128()) {
        (Some(u), _) if u <= u128::from(u64::MAX) => v.visit_u64(u as u64),
        (_, Some(i)) => v.visit_i128(i),
        (Some(u), None) => v.visit_u128(u),
        (None, None) => Err(DecodeError::Shape(
            "integer too large for a Rust integer".into(),
        )),
    }
}

macro_rules! int_method {
    ($method:ident) => {
        fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
            match self.next()? {
                Event::Int(i) => v.visit_i64(i),
                Event::BigInt(b) => visit_big(b, v),
                other => Err(unexpected(&other, "an integer")),
            }
        }
    };
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de, '_> {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        match self.next()? {
            Event::Atom(a) => match &*a {
                "true" => v.visit_bool(true),
                "false" => v.visit_bool(false),
                n if n == self.opts.none.atom() => v.visit_none(),
                _ => match a {
                    Cow::Borrowed(s) => v.visit_borrowed_str(s),
                    Cow::Owned(s) => v.visit_string(s),
                },
            },
            Event::Int(i) => v.visit_i64(i),
            Event::BigInt(b) => visit_big(b, v),
            Event::Float(f) => v.visit_f64(f),
            Event::Binary(b) => match std::str::from_utf8(b) {
                Ok(s) => v.visit_borrowed_str(s),
                Err(_) => v.visit_borrowed_bytes(b),
            },
            e @ (Event::ByteList(_) | Event::Nil | Event::List(_)) => self.list_seq(e, v),
            Event::Tuple(0) => v.visit_unit(),
            Event::Tuple(n) => self.fixed_seq(n, v),
            Event::Map(n) => self.map(n, None, v),
            other => Err(unexpected(
                &other,
                "a term with a serde equivalent (use ErlPid, ErlRef, ErlPort or WireTerm for identifiers and funs)",
            )),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        match self.next()? {
            Event::Atom(a) if a == "true" => v.visit_bool(true),
            Event::Atom(a) if a == "false" => v.visit_bool(false),
            other => Err(unexpected(&other, "true or false")),
        }
    }

    int_method!(deserialize_i8);
    int_method!(deserialize_i16);
    int_method!(deserialize_i32);
    int_method!(deserialize_i64);
    int_method!(deserialize_i128);
    int_method!(deserialize_u8);
    int_method!(deserialize_u16);
    int_method!(deserialize_u32);
    int_method!(deserialize_u64);
    int_method!(deserialize_u128);

    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        self.deserialize_f64(v)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        match self.next()? {
            Event::Float(f) => v.visit_f64(f),
            // Erlang code often sends `1` where `1.0` is meant.
            Event::Int(i) => v.visit_f64(i as f64),
            other => Err(unexpected(&other, "a float")),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        match self.next()? {
            Event::Int(i) => match u32::try_from(i).ok().and_then(char::from_u32) {
                Some(c) => v.visit_char(c),
                None => Err(DecodeError::Shape(format!("{i} is not a character code"))),
            },
            other => Err(unexpected(&other, "a character code")),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        self.string(v)
    }

    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        self.string(v)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        match self.next()? {
            Event::Binary(b) | Event::ByteList(b) => v.visit_borrowed_bytes(b),
            Event::Nil => v.visit_borrowed_bytes(&[]),
            other => Err(unexpected(&other, "a binary")),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        self.deserialize_bytes(v)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        match self.d.peek_event()? {
            Event::Atom(a) if a == self.opts.none.atom() => {
                self.next()?;
                v.visit_none()
            }
            _ => v.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        match self.next()? {
            Event::Tuple(0) => v.visit_unit(),
            other => Err(unexpected(&other, "{}")),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        v: V,
    ) -> Result<V::Value, DecodeError> {
        self.expect_name(name)?;
        v.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        v: V,
    ) -> Result<V::Value, DecodeError> {
        match name {
            RAW_TOKEN => {
                let input = self.d.input();
                let start = self.d.position();
                self.d.skip()?;
                let raw = &input[start..self.d.position()];
                v.visit_newtype_struct(de::value::BorrowedBytesDeserializer::new(raw))
            }
            RECORD_TOKEN => {
                self.record_next = true;
                let value = v.visit_newtype_struct(&mut *self);
                self.record_next = false;
                value
            }
            _ => v.visit_newtype_struct(self),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        match self.next()? {
            e @ (Event::ByteList(_) | Event::Nil | Event::List(_)) => self.list_seq(e, v),
            other => Err(unexpected(&other, "a list")),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, DecodeError> {
        match self.next()? {
            Event::Tuple(n) if n as usize == len => self.fixed_seq(n, v),
            other => Err(unexpected(&other, &format!("a tuple of {len}"))),
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        v: V,
    ) -> Result<V::Value, DecodeError> {
        if std::mem::take(&mut self.record_next) {
            let n = self.record_header(name, len)?;
            return self.fixed_seq(n, v);
        }
        self.deserialize_tuple(len, v)
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        match self.next()? {
            Event::Map(n) => self.map(n, None, v),
            other => Err(unexpected(&other, "a map")),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DecodeError> {
        if name == mote::dist::PROCESS_ID_STRUCT {
            // A mote pid: the wire's pid, its node named by a number of this OS process.
            return match self.next()? {
                Event::Pid {
                    node,
                    id,
                    serial,
                    creation,
                } => {
                    let id = crate::node_table::from_parts(&node, id, serial, creation);
                    let parts = [id.node(), id.number(), id.serial(), id.creation()];
                    v.visit_seq(de::value::SeqDeserializer::new(parts.into_iter()))
                }
                other => Err(unexpected(&other, "a pid")),
            };
        }
        if std::mem::take(&mut self.record_next) {
            let n = self.record_header(name, fields.len())?;
            return self.fixed_seq(n, v);
        }
        match self.next()? {
            Event::Map(n) => self.map(n, Some(fields), v),
            other => Err(unexpected(&other, &format!("a map for struct `{name}`"))),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DecodeError> {
        match self.next()? {
            Event::Atom(a) => v.visit_enum(EnumAccess {
                de: self.reborrow(),
                variant: a,
                enum_name: name,
                variants,
                values: 0,
            }),
            Event::Tuple(n) if n >= 2 => match self.next()? {
                Event::Atom(a) => v.visit_enum(EnumAccess {
                    de: self.reborrow(),
                    variant: a,
                    enum_name: name,
                    variants,
                    values: n - 1,
                }),
                other => Err(unexpected(
                    &other,
                    &format!("a variant of `{name}` (an atom)"),
                )),
            },
            other => Err(unexpected(
                &other,
                &format!("a variant of `{name}` (an atom or a tuple tagged by one)"),
            )),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        self.string(v)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        self.d.skip()?;
        v.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// Where a list stands: elements left before the tail, or a byte string's bytes.
enum ListState<'de> {
    Elements(u32),
    Bytes(&'de [u8]),
    Done,
}

impl<'de> ListState<'de> {
    fn from_event(e: Event<'de>) -> Result<Self, DecodeError> {
        match e {
            Event::Nil => Ok(ListState::Done),
            Event::ByteList(b) => Ok(ListState::Bytes(b)),
            Event::List(n) => Ok(ListState::Elements(n)),
            other => Err(unexpected(&other, "a proper list")),
        }
    }
}

struct ListAccess<'de, 'a> {
    de: Deserializer<'de, 'a>,
    state: ListState<'de>,
}

impl<'de> ListAccess<'de, '_> {
    /// Moves to the tail once the elements are read; a tail that is itself a list
    /// continues the sequence (`[1 | [2]]` is `[1, 2]`).
    #[inline]
    fn settle(&mut self) -> Result<(), DecodeError> {
        while let ListState::Elements(0) = self.state {
            self.state = ListState::from_event(self.de.next()?).map_err(|_| {
                DecodeError::Shape("improper list where a proper list was expected".into())
            })?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), DecodeError> {
        loop {
            self.settle()?;
            match &mut self.state {
                ListState::Done => return Ok(()),
                ListState::Bytes([]) => self.state = ListState::Done,
                _ => return Err(DecodeError::Shape("list longer than expected".into())),
            }
        }
    }
}

impl<'de> de::SeqAccess<'de> for ListAccess<'de, '_> {
    type Error = DecodeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        self.settle()?;
        match &mut self.state {
            ListState::Done => Ok(None),
            ListState::Bytes(b) => match b.split_first() {
                None => {
                    self.state = ListState::Done;
                    Ok(None)
                }
                Some((&first, rest)) => {
                    *b = rest;
                    seed.deserialize(first.into_deserializer()).map(Some)
                }
            },
            ListState::Elements(n) => {
                *n -= 1;
                seed.deserialize(&mut self.de).map(Some)
            }
        }
    }

    fn size_hint(&self) -> Option<usize> {
        match self.state {
            ListState::Elements(n) => Some(n as usize),
            ListState::Bytes(b) => Some(b.len()),
            ListState::Done => Some(0),
        }
    }
}

/// The elements of a tuple, or the pairs of a map (with the struct's field names when it
/// is one, to match atom keys against converted names).
struct FixedAccess<'de, 'a> {
    de: Deserializer<'de, 'a>,
    left: u32,
    names: Option<&'static [&'static str]>,
}

impl FixedAccess<'_, '_> {
    fn finish(&mut self) -> Result<(), DecodeError> {
        match self.left {
            0 => Ok(()),
            n => Err(DecodeError::Shape(format!("{n} elements left unread"))),
        }
    }
}

impl<'de> de::SeqAccess<'de> for FixedAccess<'de, '_> {
    type Error = DecodeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut self.de).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left as usize)
    }
}

impl<'de> de::MapAccess<'de> for FixedAccess<'de, '_> {
    type Error = DecodeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DecodeError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        match self.names {
            None => seed.deserialize(&mut self.de).map(Some),
            Some(names) => {
                let key = match self.de.next()? {
                    Event::Atom(a) => a,
                    Event::Binary(b) => Cow::Borrowed(
                        std::str::from_utf8(b)
                            .map_err(|_| DecodeError::Shape("map key is not UTF-8".into()))?,
                    ),
                    other => return Err(unexpected(&other, "a field name (atom or binary)")),
                };
                seed.deserialize(Name::new(key, names, self.de.opts.atom_case))
                    .map(Some)
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DecodeError> {
        seed.deserialize(&mut self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left as usize)
    }
}

/// An atom standing for one of a type's field or variant names: handed to serde as the
/// Rust name it converts from, so renames and the case option agree.
struct Name<'de> {
    atom: Cow<'de, str>,
    rust: Option<&'static str>,
}

impl<'de> Name<'de> {
    fn new(atom: Cow<'de, str>, names: &'static [&'static str], case: AtomCase) -> Self {
        let rust = names.iter().copied().find(|n| case.matches(n, &atom));
        Name { atom, rust }
    }
}

impl<'de> de::Deserializer<'de> for Name<'de> {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        match (self.rust, self.atom) {
            (Some(rust), _) => v.visit_borrowed_str(rust),
            (None, Cow::Borrowed(s)) => v.visit_borrowed_str(s),
            (None, Cow::Owned(s)) => v.visit_string(s),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct EnumAccess<'de, 'a> {
    de: Deserializer<'de, 'a>,
    variant: Cow<'de, str>,
    enum_name: &'static str,
    variants: &'static [&'static str],
    /// Terms after the tag in the tuple (0 for a bare atom).
    values: u32,
}

impl<'de, 'a> de::EnumAccess<'de> for EnumAccess<'de, 'a> {
    type Error = DecodeError;
    type Variant = VariantAccess<'de, 'a>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, VariantAccess<'de, 'a>), DecodeError> {
        let mut name = Name::new(self.variant, self.variants, self.de.opts.atom_case);
        if name.rust.is_none() && is_result_error(self.enum_name, &name.atom) {
            name.rust = Some("Err");
        }
        let value = seed.deserialize(name)?;
        Ok((
            value,
            VariantAccess {
                de: self.de,
                values: self.values,
            },
        ))
    }
}

struct VariantAccess<'de, 'a> {
    de: Deserializer<'de, 'a>,
    values: u32,
}

impl<'de> de::VariantAccess<'de> for VariantAccess<'de, '_> {
    type Error = DecodeError;

    fn unit_variant(self) -> Result<(), DecodeError> {
        match self.values {
            0 => Ok(()),
            n => Err(DecodeError::Shape(format!(
                "expected a unit variant (an atom), found a tuple with {n} values"
            ))),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        mut self,
        seed: T,
    ) -> Result<T::Value, DecodeError> {
        match self.values {
            // A bare atom is the variant holding `()`: `ok` is `Ok(())`.
            0 => seed.deserialize(().into_deserializer()),
            1 => seed.deserialize(&mut self.de),
            n => Err(DecodeError::Shape(format!(
                "expected a variant with one value, found {n}"
            ))),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(mut self, len: usize, v: V) -> Result<V::Value, DecodeError> {
        if self.values as usize != len {
            return Err(DecodeError::Shape(format!(
                "expected a variant with {len} values, found {}",
                self.values
            )));
        }
        self.de.fixed_seq(self.values, v)
    }

    fn struct_variant<V: Visitor<'de>>(
        mut self,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DecodeError> {
        if self.values != 1 {
            return Err(DecodeError::Shape(format!(
                "expected {{variant, #{{fields}}}}, found {} values after the tag",
                self.values
            )));
        }
        match self.de.next()? {
            Event::Map(n) => self.de.map(n, Some(fields), v),
            other => Err(unexpected(&other, "a map of the variant's fields")),
        }
    }
}
