//! Parsing one tag at a position: the stateless half of the decoder. It checks every
//! length against the input; container bookkeeping (depth, announced lengths) is the
//! [`Decoder`](super::Decoder)'s.

use std::borrow::Cow;

use super::error::DecodeError;
use super::event::{BigIntRef, Event};
use super::identifiers::{RefIds, MAX_REF_WORDS};
use super::tag;

/// A position in the input with bounds-checked reads.
#[derive(Clone, Copy)]
pub(crate) struct Cursor<'a> {
    pub(crate) buf: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(buf: &'a [u8], pos: usize) -> Self {
        Cursor { buf, pos }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let rest = &self.buf[self.pos..];
        if rest.len() < n {
            return Err(DecodeError::Truncated {
                at: self.pos,
                needed: n - rest.len(),
            });
        }
        self.pos += n;
        Ok(&rest[..n])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let b = self.bytes(N)?;
        let mut a = [0; N];
        a.copy_from_slice(b);
        Ok(a)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }

    pub(crate) fn u16(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    pub(crate) fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_be_bytes(self.array()?))
    }
}

/// Parses the term starting at `cur.pos` (its header only, for containers) and advances
/// past it.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn parse<'a>(
    cur: &mut Cursor<'a>,
    max_atom_chars: usize,
) -> Result<Event<'a>, DecodeError> {
    let at = cur.pos;
    let t = cur.u8()?;
    Ok(match t {
        tag::SMALL_INTEGER_EXT => Event::Int(i64::from(cur.u8()?)),
        tag::INTEGER_EXT => Event::Int(i64::from(cur.u32()? as i32)),
        tag::SMALL_BIG_EXT => {
            let n = usize::from(cur.u8()?);
            big(cur, n)?
        }
        tag::LARGE_BIG_EXT => {
            let n = cur.u32()? as usize;
            big(cur, n)?
        }
        tag::NEW_FLOAT_EXT => finite(f64::from_bits(cur.u64()?), at)?,
        tag::FLOAT_EXT => {
            let text = cur.bytes(31)?;
            let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
            let value = std::str::from_utf8(&text[..end])
                .ok()
                .and_then(|s| s.trim().parse::<f64>().ok())
                .ok_or(DecodeError::Invalid {
                    at,
                    why: "FLOAT_EXT text is not a number",
                })?;
            finite(value, at)?
        }
        tag::ATOM_UTF8_EXT | tag::SMALL_ATOM_UTF8_EXT | tag::ATOM_EXT | tag::SMALL_ATOM_EXT => {
            cur.pos = at;
            Event::Atom(atom(cur, max_atom_chars)?)
        }
        tag::ATOM_CACHE_REF => {
            return Err(DecodeError::Unsupported {
                tag: t,
                at,
                why: "atom cache reference, but no atom cache was negotiated",
            })
        }
        tag::BINARY_EXT => {
            let len = cur.u32()? as usize;
            Event::Binary(cur.bytes(len)?)
        }
        tag::BIT_BINARY_EXT => {
            let len = cur.u32()? as usize;
            let last_bits = cur.u8()?;
            if (last_bits == 0) != (len == 0) || last_bits > 8 {
                return Err(DecodeError::Invalid {
                    at,
                    why: "bit binary's last-byte bit count must be 1 to 8 (0 when empty)",
                });
            }
            Event::BitBinary {
                data: cur.bytes(len)?,
                last_bits,
            }
        }
        tag::NIL_EXT => Event::Nil,
        tag::STRING_EXT => {
            let len = usize::from(cur.u16()?);
            Event::ByteList(cur.bytes(len)?)
        }
        tag::LIST_EXT => Event::List(cur.u32()?),
        tag::SMALL_TUPLE_EXT => Event::Tuple(u32::from(cur.u8()?)),
        tag::LARGE_TUPLE_EXT => Event::Tuple(cur.u32()?),
        tag::MAP_EXT => Event::Map(cur.u32()?),
        tag::NEW_PID_EXT | tag::PID_EXT => {
            let node = atom(cur, max_atom_chars)?;
            let id = cur.u32()?;
            let serial = cur.u32()?;
            let creation = creation(cur, t == tag::NEW_PID_EXT)?;
            Event::Pid {
                node,
                id,
                serial,
                creation,
            }
        }
        tag::V4_PORT_EXT | tag::NEW_PORT_EXT | tag::PORT_EXT => {
            let node = atom(cur, max_atom_chars)?;
            let id = if t == tag::V4_PORT_EXT {
                cur.u64()?
            } else {
                u64::from(cur.u32()?)
            };
            let creation = creation(cur, t != tag::PORT_EXT)?;
            Event::Port { node, id, creation }
        }
        tag::NEWER_REFERENCE_EXT | tag::NEW_REFERENCE_EXT => {
            let len = usize::from(cur.u16()?);
            let node = atom(cur, max_atom_chars)?;
            let creation = creation(cur, t == tag::NEWER_REFERENCE_EXT)?;
            if len == 0 || len > MAX_REF_WORDS {
                return Err(DecodeError::Invalid {
                    at,
                    why: "a reference has 1 to 5 id words",
                });
            }
            let mut words = [0u32; MAX_REF_WORDS];
            for w in &mut words[..len] {
                *w = cur.u32()?;
            }
            Event::Ref {
                node,
                creation,
                ids: RefIds::new(&words[..len]).expect("length checked above"),
            }
        }
        tag::REFERENCE_EXT => {
            let node = atom(cur, max_atom_chars)?;
            let id = cur.u32()?;
            let creation = creation(cur, false)?;
            Event::Ref {
                node,
                creation,
                ids: RefIds::new(&[id]).expect("one word"),
            }
        }
        tag::NEW_FUN_EXT => {
            // Size counts itself and everything after it.
            let size = cur.u32()? as usize;
            if size < 4 {
                return Err(DecodeError::Invalid {
                    at,
                    why: "NEW_FUN_EXT size smaller than its own field",
                });
            }
            cur.bytes(size - 4)?;
            Event::Fun(&cur.buf[at..cur.pos])
        }
        tag::EXPORT_EXT => {
            atom(cur, max_atom_chars)?;
            atom(cur, max_atom_chars)?;
            // The arity: a small integer (not parsed recursively, so `parse` can inline).
            if cur.u8()? != tag::SMALL_INTEGER_EXT {
                return Err(DecodeError::Invalid {
                    at,
                    why: "EXPORT_EXT arity is not a small integer",
                });
            }
            cur.u8()?;
            Event::Fun(&cur.buf[at..cur.pos])
        }
        tag::FUN_EXT => {
            return Err(DecodeError::Unsupported {
                tag: t,
                at,
                why: "FUN_EXT is the pre-OTP 23 fun encoding",
            })
        }
        tag::LOCAL_EXT => {
            return Err(DecodeError::Unsupported {
                tag: t,
                at,
                why: "LOCAL_EXT can only be decoded by the node that encoded it",
            })
        }
        tag::COMPRESSED => {
            return Err(DecodeError::Unsupported {
                tag: t,
                at,
                why: "compressed term inside a term (only the top level may be compressed)",
            })
        }
        _ => return Err(DecodeError::UnknownTag { tag: t, at }),
    })
}

fn finite(value: f64, at: usize) -> Result<Event<'static>, DecodeError> {
    if value.is_finite() {
        Ok(Event::Float(value))
    } else {
        Err(DecodeError::Invalid {
            at,
            why: "Erlang floats are finite",
        })
    }
}

fn creation(cur: &mut Cursor<'_>, wide: bool) -> Result<u32, DecodeError> {
    if wide {
        cur.u32()
    } else {
        Ok(u32::from(cur.u8()?))
    }
}

fn big<'a>(cur: &mut Cursor<'a>, n: usize) -> Result<Event<'a>, DecodeError> {
    let negative = cur.u8()? != 0;
    let big = BigIntRef::new(negative, cur.bytes(n)?);
    Ok(match big.to_i128().and_then(|i| i64::try_from(i).ok()) {
        Some(i) => Event::Int(i),
        None => Event::BigInt(big),
    })
}

/// Parses an atom (any of the four atom tags).
pub(crate) fn atom<'a>(
    cur: &mut Cursor<'a>,
    max_atom_chars: usize,
) -> Result<Cow<'a, str>, DecodeError> {
    let at = cur.pos;
    let t = cur.u8()?;
    let (len, latin1) = match t {
        tag::SMALL_ATOM_UTF8_EXT => (usize::from(cur.u8()?), false),
        tag::ATOM_UTF8_EXT => (usize::from(cur.u16()?), false),
        tag::SMALL_ATOM_EXT => (usize::from(cur.u8()?), true),
        tag::ATOM_EXT => (usize::from(cur.u16()?), true),
        tag::ATOM_CACHE_REF => {
            return Err(DecodeError::Unsupported {
                tag: t,
                at,
                why: "atom cache reference, but no atom cache was negotiated",
            })
        }
        _ => {
            return Err(DecodeError::Invalid {
                at,
                why: "expected an atom",
            })
        }
    };
    let bytes = cur.bytes(len)?;
    let too_long = |chars| DecodeError::AtomTooLong {
        at,
        chars,
        limit: max_atom_chars,
    };
    if latin1 {
        if len > max_atom_chars {
            return Err(too_long(len));
        }
        if bytes.is_ascii() {
            // ASCII is valid UTF-8, so this cannot fail.
            return Ok(Cow::Borrowed(std::str::from_utf8(bytes).expect("ASCII")));
        }
        return Ok(Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()));
    }
    let text = std::str::from_utf8(bytes).map_err(|_| DecodeError::InvalidUtf8 { at })?;
    if len > max_atom_chars {
        let chars = text.chars().count();
        if chars > max_atom_chars {
            return Err(too_long(chars));
        }
    }
    Ok(Cow::Borrowed(text))
}
