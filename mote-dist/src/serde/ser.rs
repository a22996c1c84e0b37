//! `Serialize` to ETF, straight into the output buffer (no intermediate term tree).

use serde::ser::{self, Serialize};

use super::naming::variant_name;
use super::tokens::{CHARLIST_TOKEN, RAW_TOKEN, RECORD_TOKEN};
use super::Options;
use crate::etf::{tag, EncodeError, Encoder, Splice};

impl ser::Error for EncodeError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        EncodeError::Unsupported(msg.to_string())
    }
}

/// The ETF serializer: appends one term (without a version byte) to a buffer.
pub(crate) struct Serializer<'o> {
    out: &'o mut Vec<u8>,
    /// Large shared binaries left out of `out` (see `Encoder::shared_binary`), when the
    /// caller takes them.
    splices: Option<&'o mut Vec<Splice>>,
    opts: Options,
    /// The next struct or tuple struct is a record (inside `Record`).
    record_next: bool,
    /// The next string is a charlist (inside `Charlist`).
    charlist_next: bool,
    /// The next bytes are an encoded term to copy (pids, refs, `WireTerm`...).
    raw_next: bool,
    /// The last value written was `()`.
    wrote_unit: bool,
}

impl<'o> Serializer<'o> {
    pub(crate) fn new(
        out: &'o mut Vec<u8>,
        splices: Option<&'o mut Vec<Splice>>,
        opts: Options,
    ) -> Self {
        Serializer {
            out,
            splices,
            opts,
            record_next: false,
            charlist_next: false,
            raw_next: false,
            wrote_unit: false,
        }
    }

    fn enc(&mut self) -> Encoder<'_> {
        Encoder::new(self.out)
    }

    /// An atom for a Rust name, converted by the atom case option.
    fn name_atom(&mut self, ident: &str) -> Result<(), EncodeError> {
        let start = self.out.len();
        self.out.extend_from_slice(&[tag::SMALL_ATOM_UTF8_EXT, 0]);
        self.opts.atom_case.write(ident, self.out);
        let len = self.out.len() - start - 2;
        if len <= 255 {
            self.out[start + 1] = len as u8;
            return Ok(());
        }
        // Past 255 bytes the character count decides: re-encode as a long atom.
        let atom = String::from_utf8(self.out.split_off(start + 2)).expect("written from str");
        self.out.truncate(start);
        self.enc().atom(&atom)?;
        Ok(())
    }

    fn take_record(&mut self) -> bool {
        std::mem::take(&mut self.record_next)
    }

    /// Starts a list or map whose length is patched when it ends.
    fn counted(&mut self, kind: Kind) -> Compound<'_, 'o> {
        let start = self.out.len();
        let t = if kind == Kind::List {
            tag::LIST_EXT
        } else {
            tag::MAP_EXT
        };
        self.out.extend_from_slice(&[t, 0, 0, 0, 0]);
        Compound {
            ser: self,
            kind,
            start,
            count: 0,
        }
    }

    fn fixed(&mut self) -> Compound<'_, 'o> {
        Compound {
            start: self.out.len(),
            ser: self,
            kind: Kind::Fixed,
            count: 0,
        }
    }
}

/// The four numbers of a tuple `{Node, Number, Serial, Creation}`.
fn pid_parts(t: &crate::etf::WireTerm) -> Option<[u32; 4]> {
    let crate::etf::WireTerm::Tuple(e) = t else {
        return None;
    };
    let mut parts = [0; 4];
    if e.len() != 4 {
        return None;
    }
    for (p, e) in parts.iter_mut().zip(e) {
        *p = match e {
            crate::etf::WireTerm::Int(i) => u32::try_from(*i).ok()?,
            crate::etf::WireTerm::BigInt(b) => u32::try_from(b).ok()?,
            _ => return None,
        };
    }
    Some(parts)
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Kind {
    /// A list: header patched with the count at the end, then `[]`.
    List,
    /// A map with atom keys from field names, or a serde map: header patched at the end.
    Map,
    /// A tuple (or record) whose header is already written.
    Fixed,
    /// A mote `ProcessId`'s four numbers, as a tuple starting at `start`, to become a pid.
    Pid,
}

pub(crate) struct Compound<'a, 'o> {
    ser: &'a mut Serializer<'o>,
    kind: Kind,
    start: usize,
    count: usize,
}

impl Compound<'_, '_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        self.count += 1;
        value.serialize(&mut *self.ser)
    }

    fn end(self) -> Result<(), EncodeError> {
        match self.kind {
            Kind::Fixed => {}
            Kind::Pid => {
                let mut d = crate::etf::Decoder::at(
                    &self.ser.out[self.start..],
                    0,
                    crate::etf::DecodeLimits::default(),
                );
                let parts = crate::etf::WireTerm::read(&mut d, None)
                    .ok()
                    .and_then(|t| pid_parts(&t))
                    .ok_or_else(|| {
                        EncodeError::Unsupported("a mote::ProcessId with other fields".into())
                    })?;
                self.ser.out.truncate(self.start);
                let id = mote::ProcessId::from_parts(parts[0], parts[1], parts[2], parts[3]);
                Encoder::new(self.ser.out).pid(&crate::node_table::to_wire(id));
            }
            Kind::List if self.count == 0 => {
                self.ser.out.truncate(self.start);
                self.ser.out.push(tag::NIL_EXT);
            }
            Kind::List | Kind::Map => {
                let n = u32::try_from(self.count).map_err(|_| EncodeError::TooLong {
                    what: if self.kind == Kind::List {
                        "list"
                    } else {
                        "map"
                    },
                    len: self.count,
                })?;
                self.ser.out[self.start + 1..self.start + 5].copy_from_slice(&n.to_be_bytes());
                if self.kind == Kind::List {
                    self.ser.out.push(tag::NIL_EXT);
                }
            }
        }
        self.ser.wrote_unit = false;
        Ok(())
    }
}

impl<'a, 'o> ser::Serializer for &'a mut Serializer<'o> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Compound<'a, 'o>;
    type SerializeTuple = Compound<'a, 'o>;
    type SerializeTupleStruct = Compound<'a, 'o>;
    type SerializeTupleVariant = Compound<'a, 'o>;
    type SerializeMap = Compound<'a, 'o>;
    type SerializeStruct = Compound<'a, 'o>;
    type SerializeStructVariant = Compound<'a, 'o>;

    fn serialize_bool(self, v: bool) -> Result<(), EncodeError> {
        self.enc().atom(if v { "true" } else { "false" })?;
        Ok(())
    }

    fn serialize_i8(self, v: i8) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(v))
    }

    fn serialize_i16(self, v: i16) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(v))
    }

    fn serialize_i32(self, v: i32) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(v))
    }

    fn serialize_i64(self, v: i64) -> Result<(), EncodeError> {
        self.enc().int(v);
        Ok(())
    }

    fn serialize_i128(self, v: i128) -> Result<(), EncodeError> {
        self.enc().i128(v);
        Ok(())
    }

    fn serialize_u8(self, v: u8) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(v))
    }

    fn serialize_u16(self, v: u16) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(v))
    }

    fn serialize_u32(self, v: u32) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(v))
    }

    fn serialize_u64(self, v: u64) -> Result<(), EncodeError> {
        self.enc().u64(v);
        Ok(())
    }

    fn serialize_u128(self, v: u128) -> Result<(), EncodeError> {
        self.enc().u128(v);
        Ok(())
    }

    fn serialize_f32(self, v: f32) -> Result<(), EncodeError> {
        self.serialize_f64(f64::from(v))
    }

    fn serialize_f64(self, v: f64) -> Result<(), EncodeError> {
        self.enc().float(v)?;
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(u32::from(v)))
    }

    fn serialize_str(self, v: &str) -> Result<(), EncodeError> {
        if !std::mem::take(&mut self.charlist_next) {
            self.enc().binary(v.as_bytes())?;
            return Ok(());
        }
        // A charlist: STRING_EXT when every character is Latin-1, else a list of code points.
        if v.chars().all(|c| u32::from(c) < 256) {
            let latin1: Vec<u8> = v.chars().map(|c| u32::from(c) as u8).collect();
            self.enc().byte_list(&latin1)?;
        } else {
            let n = v.chars().count();
            let mut e = self.enc();
            e.list_header(n)?;
            for c in v.chars() {
                e.int(i64::from(u32::from(c)));
            }
            e.nil();
        }
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<(), EncodeError> {
        if std::mem::take(&mut self.raw_next) {
            super::wrappers::reclaim_output(self.out, self.splices.as_deref_mut());
            self.out.extend_from_slice(v);
        } else {
            self.enc().binary(v)?;
        }
        Ok(())
    }

    fn serialize_none(self) -> Result<(), EncodeError> {
        let none = self.opts.none.atom();
        self.enc().atom(none)?;
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), EncodeError> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), EncodeError> {
        self.enc().tuple_header(0)?;
        self.wrote_unit = true;
        Ok(())
    }

    fn serialize_unit_struct(self, name: &'static str) -> Result<(), EncodeError> {
        self.name_atom(name)
    }

    fn serialize_unit_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), EncodeError> {
        self.name_atom(variant_name(name, variant))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        match name {
            RECORD_TOKEN => self.record_next = true,
            CHARLIST_TOKEN => self.charlist_next = true,
            RAW_TOKEN => {
                self.raw_next = true;
                super::wrappers::lend_output(self.out, self.splices.as_deref_mut());
            }
            _ => {}
        }
        let result = value.serialize(&mut *self);
        if name == RAW_TOKEN {
            super::wrappers::reclaim_output(self.out, self.splices.as_deref_mut());
        }
        self.record_next = false;
        self.charlist_next = false;
        self.raw_next = false;
        result
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        let start = self.out.len();
        self.enc().tuple_header(2)?;
        self.name_atom(variant_name(name, variant))?;
        let value_start = self.out.len();
        self.wrote_unit = false;
        value.serialize(&mut *self)?;
        if self.wrote_unit && self.out.len() == value_start + 2 {
            // `Ok(())` is the bare atom `ok`, as Erlang writes it.
            self.out.truncate(start);
            self.name_atom(variant_name(name, variant))?;
        }
        self.wrote_unit = false;
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a, 'o>, EncodeError> {
        Ok(self.counted(Kind::List))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, 'o>, EncodeError> {
        self.enc().tuple_header(len)?;
        Ok(self.fixed())
    }

    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'o>, EncodeError> {
        if self.take_record() {
            self.enc().tuple_header(len + 1)?;
            self.name_atom(name)?;
        } else {
            self.enc().tuple_header(len)?;
        }
        Ok(self.fixed())
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'o>, EncodeError> {
        self.enc().tuple_header(len + 1)?;
        self.name_atom(variant_name(name, variant))?;
        Ok(self.fixed())
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a, 'o>, EncodeError> {
        Ok(self.counted(Kind::Map))
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'o>, EncodeError> {
        if name == mote::dist::PROCESS_ID_STRUCT && len == 4 {
            // A mote pid: its four numbers are written as a tuple, read back and replaced
            // by a NEW_PID_EXT at the end (see `Compound::end`).
            self.enc().tuple_header(4)?;
            let mut c = self.fixed();
            c.kind = Kind::Pid;
            c.start -= 2;
            return Ok(c);
        }
        if self.take_record() {
            self.enc().tuple_header(len + 1)?;
            self.name_atom(name)?;
            return Ok(self.fixed());
        }
        Ok(self.counted(Kind::Map))
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, 'o>, EncodeError> {
        self.enc().tuple_header(2)?;
        self.name_atom(variant_name(name, variant))?;
        Ok(self.counted(Kind::Map))
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

impl ser::SerializeSeq for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        self.element(value)
    }

    fn end(self) -> Result<(), EncodeError> {
        Compound::end(self)
    }
}

impl ser::SerializeTuple for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        self.element(value)
    }

    fn end(self) -> Result<(), EncodeError> {
        Compound::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        self.element(value)
    }

    fn end(self) -> Result<(), EncodeError> {
        Compound::end(self)
    }
}

impl ser::SerializeTupleVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        self.element(value)
    }

    fn end(self) -> Result<(), EncodeError> {
        Compound::end(self)
    }
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), EncodeError> {
        self.element(key)
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        value.serialize(&mut *self.ser)
    }

    fn end(self) -> Result<(), EncodeError> {
        Compound::end(self)
    }
}

impl ser::SerializeStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        if self.kind == Kind::Map {
            self.ser.name_atom(key)?;
        }
        self.element(value)
    }

    fn end(self) -> Result<(), EncodeError> {
        Compound::end(self)
    }
}

impl ser::SerializeStructVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        self.ser.name_atom(key)?;
        self.element(value)
    }

    fn end(self) -> Result<(), EncodeError> {
        Compound::end(self)
    }
}
