//! Any `Serialize`/`Deserialize` Rust type to and from the External Term Format, mapped to
//! Erlang's conventions.
//!
//! | Rust (serde data model)           | Erlang term                                    |
//! |-----------------------------------|------------------------------------------------|
//! | `bool`                            | `true` / `false`                               |
//! | integers of every width           | integer (bignum beyond 64 bits: `i128`, `u128`) |
//! | `f32`, `f64`                      | float (NaN and infinities refused)             |
//! | `char`                            | integer (its code point, like `$a`)            |
//! | `String`, `&str`                  | UTF-8 binary `<<"text">>`                      |
//! | [`Charlist`]                      | string (list of character codes) `"text"`     |
//! | bytes (`serde_bytes`)             | binary                                         |
//! | `Option<T>`: `None` / `Some(v)`   | `undefined` (or `nil`, see [`NoneAs`]) / `v`   |
//! | `()`                              | `{}`                                           |
//! | unit struct `struct Ping;`        | atom `ping`                                    |
//! | newtype struct `struct Id(u32);`  | the inner value                                |
//! | tuple, tuple struct               | tuple `{A, B}`                                 |
//! | `Vec<T>`, sequences               | proper list `[A, B]`                           |
//! | maps (`HashMap`, `BTreeMap`)      | map `#{K => V}`                                |
//! | struct `struct P { x: i32 }`      | map with atom keys `#{x => 1}`                 |
//! | [`Record`]`(P { x: 1 })`           | record `{p, 1}`                                |
//! | unit variant `E::NotFound`        | atom `not_found`                               |
//! | newtype variant `E::Ok(v)`        | `{ok, V}`; `E::Ok(())` is the bare atom `ok`   |
//! | `Result<T, E>`                    | `{ok, T}` (`ok` for `()`) / `{error, E}`       |
//! | tuple variant `E::Move(1, 2)`     | `{move, 1, 2}`                                 |
//! | struct variant `E::At { x: 1 }`   | `{at, #{x => 1}}`                              |
//! | [`ErlPid`], [`ErlRef`], [`ErlPort`], [`Atom`], [`WireTerm`] | themselves           |
//!
//! Names (variants, unit and record structs, field keys) become atoms by the [`AtomCase`]
//! rule, snake_case by default, so `Result<(), String>` is `ok | {error, <<"why">>}` as
//! an Erlang function would return it.
//!
//! Decoding is as strict as the table, with a few Erlang-friendly allowances: a `String`
//! also accepts a charlist or an atom, bytes accept a latin-1 string, a float accepts an
//! integer, struct keys may be binaries (Elixir maps with string keys), unknown keys are
//! ignored unless the type denies them (so an Elixir struct's `__struct__` key is
//! skipped).
//!
//! Deviations to know: Erlang has no `Option`; `Some(None)` and `None` are both the none
//! atom, and `Some(x)` cannot be told from `x`. A `String` field holding the text
//! `"undefined"` is a binary, so it never collides with the none atom; an enum with a
//! unit variant named `Undefined` inside an `Option` does.
//!
//! ```
//! use mote_dist::serde::{from_slice, to_vec};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! enum Request {
//!     Resize { width: u32, height: u32 },
//!     Stats,
//! }
//!
//! let req = Request::Resize { width: 640, height: 480 };
//! let bytes = to_vec(&req).unwrap(); // {resize, #{width => 640, height => 480}}
//! assert_eq!(from_slice::<Request>(&bytes).unwrap(), req);
//! assert_eq!(to_vec(&Request::Stats).unwrap(), [131, 119, 5, b's', b't', b'a', b't', b's']);
//! ```

mod de;
mod naming;
mod ser;
mod tokens;
mod wrappers;

pub use naming::AtomCase;
pub(crate) use wrappers::with_shared_source;
pub use wrappers::{Charlist, Record};

use crate::etf::{decompress, DecodeError, DecodeLimits, Decoder, EncodeError, Splice};
#[cfg(doc)]
use crate::etf::{Atom, ErlPid, ErlPort, ErlRef, WireTerm};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The atom `Option::None` is written as, and read from.
///
/// ```
/// use mote_dist::serde::{to_vec_with, NoneAs, Options};
///
/// let elixir = Options::elixir();
/// assert_eq!(elixir.none, NoneAs::Nil);
/// assert_eq!(&to_vec_with(&None::<u8>, &elixir).unwrap()[3..], b"nil");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NoneAs {
    /// `undefined`, Erlang's convention (the default).
    #[default]
    Undefined,
    /// `nil`, Elixir's.
    Nil,
}

impl NoneAs {
    pub(crate) fn atom(self) -> &'static str {
        match self {
            NoneAs::Undefined => "undefined",
            NoneAs::Nil => "nil",
        }
    }
}

/// How Rust values map to terms: the none atom, the case of atoms made from Rust names,
/// and the decoding limits.
///
/// ```
/// use mote_dist::serde::{AtomCase, NoneAs, Options};
///
/// let opts = Options { none: NoneAs::Nil, ..Options::default() };
/// assert_eq!(opts.atom_case, AtomCase::Snake);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// The atom for `None`.
    pub none: NoneAs,
    /// How Rust names become atoms.
    pub atom_case: AtomCase,
    /// Limits applied when decoding.
    pub limits: DecodeLimits,
}

impl Options {
    /// Erlang's conventions (the default): `None` is `undefined`.
    pub fn erlang() -> Self {
        Options::default()
    }

    /// Elixir's conventions: `None` is `nil`.
    pub fn elixir() -> Self {
        Options {
            none: NoneAs::Nil,
            ..Options::default()
        }
    }
}

/// Encodes a value as a complete term (with the version byte), Erlang conventions.
///
/// ```
/// let bytes = mote_dist::serde::to_vec(&("tag", 42, true)).unwrap();
/// assert_eq!(bytes[..3], [131, 104, 3]); // {<<"tag">>, 42, true}
/// ```
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, EncodeError> {
    to_vec_with(value, &Options::default())
}

/// Encodes a value as a complete term with these options.
pub fn to_vec_with<T: Serialize + ?Sized>(
    value: &T,
    opts: &Options,
) -> Result<Vec<u8>, EncodeError> {
    // Room for a small message, so it needs one allocation and no growth.
    let mut out = Vec::with_capacity(64);
    append(value, &mut out, opts)?;
    Ok(out)
}

/// Appends a value as a complete term (version byte included) to `out`: how a message is
/// put after its control term in a distribution frame. On error, `out` is left as it was.
///
/// ```
/// use mote_dist::serde::{append, Options};
///
/// let mut frame = vec![112];
/// append(&7u8, &mut frame, &Options::default()).unwrap();
/// assert_eq!(frame, [112, 131, 97, 7]);
/// ```
pub fn append<T: Serialize + ?Sized>(
    value: &T,
    out: &mut Vec<u8>,
    opts: &Options,
) -> Result<(), EncodeError> {
    append_sharing(value, out, None, opts)
}

/// [`append`], leaving binaries of [`WireTerm`](crate::etf::WireTerm)s long enough to be
/// worth it out of `out` as [`Splice`]s (how a frame shares a large binary instead of
/// copying it). On error, `out` and `splices` are left as they were.
pub(crate) fn append_sharing<T: Serialize + ?Sized>(
    value: &T,
    out: &mut Vec<u8>,
    mut splices: Option<&mut Vec<Splice>>,
    opts: &Options,
) -> Result<(), EncodeError> {
    let start = out.len();
    let spliced = splices.as_ref().map_or(0, |s| s.len());
    out.push(crate::etf::tag::VERSION);
    let result = value.serialize(&mut ser::Serializer::new(
        out,
        splices.as_deref_mut(),
        *opts,
    ));
    if result.is_err() {
        out.truncate(start);
        if let Some(s) = splices {
            s.truncate(spliced);
        }
    }
    result
}

/// Decodes a value from a complete term, borrowing strings and bytes from `input` where
/// the type allows. Compressed terms need [`from_bytes`].
///
/// ```
/// // term_to_binary({<<"hi">>, [1, 2]})
/// let bytes = [131, 104, 2, 109, 0, 0, 0, 2, b'h', b'i', 107, 0, 2, 1, 2];
/// let (s, v): (&str, Vec<u8>) = mote_dist::serde::from_slice(&bytes).unwrap();
/// assert_eq!((s, v), ("hi", vec![1, 2]));
/// ```
pub fn from_slice<'de, T: Deserialize<'de>>(input: &'de [u8]) -> Result<T, DecodeError> {
    from_slice_with(input, &Options::default())
}

/// [`from_slice`] with these options.
pub fn from_slice_with<'de, T: Deserialize<'de>>(
    input: &'de [u8],
    opts: &Options,
) -> Result<T, DecodeError> {
    let mut d = Decoder::with_limits(input, opts.limits)?;
    let value = from_decoder(&mut d, opts)?;
    d.finish_exact()?;
    Ok(value)
}

/// Decodes an owned value from a complete term, compressed or not.
///
/// ```
/// let bytes = mote_dist::serde::to_vec(&vec![String::from("a")]).unwrap();
/// let v: Vec<String> = mote_dist::serde::from_bytes(&bytes).unwrap();
/// assert_eq!(v, ["a"]);
/// ```
pub fn from_bytes<T: DeserializeOwned>(input: &[u8]) -> Result<T, DecodeError> {
    from_bytes_with(input, &Options::default())
}

/// [`from_bytes`] with these options.
pub fn from_bytes_with<T: DeserializeOwned>(
    input: &[u8],
    opts: &Options,
) -> Result<T, DecodeError> {
    match decompress(input, &opts.limits)? {
        Some(plain) => from_slice_with(&plain, opts),
        None => from_slice_with(input, opts),
    }
}

/// Decodes the next whole term of a decoder as a value (a message inside a distribution
/// frame, after its control term).
///
/// ```
/// use mote_dist::etf::Decoder;
/// use mote_dist::serde::{from_decoder, Options};
///
/// let bytes = mote_dist::serde::to_vec(&(1u8, 2u8)).unwrap();
/// let mut d = Decoder::new(&bytes).unwrap();
/// let pair: (u8, u8) = from_decoder(&mut d, &Options::default()).unwrap();
/// assert_eq!(pair, (1, 2));
/// ```
pub fn from_decoder<'de, T: Deserialize<'de>>(
    d: &mut Decoder<'de>,
    opts: &Options,
) -> Result<T, DecodeError> {
    T::deserialize(&mut de::Deserializer::new(d, *opts))
}

/// Runs `f` on a type-erased deserializer over `input` (a term with its version byte,
/// compressed or not), then checks that the whole input was one term. This is how a
/// message is decoded into a type only the runtime knows (`mote::dist::deliver`).
///
/// ```
/// use mote_dist::serde::{to_vec, with_erased_deserializer, Options};
///
/// let bytes = to_vec(&(1u8, "a")).unwrap();
/// let value = with_erased_deserializer(&bytes, &Options::default(), |d| {
///     erased_serde::deserialize::<(u8, String)>(d).map_err(|e| e.to_string())
/// })
/// .unwrap();
/// assert_eq!(value, Ok((1, "a".to_string())));
/// ```
pub fn with_erased_deserializer<R>(
    input: &[u8],
    opts: &Options,
    f: impl FnOnce(&mut dyn erased_serde::Deserializer<'_>) -> R,
) -> Result<R, DecodeError> {
    let plain = decompress(input, &opts.limits)?;
    let input = plain.as_deref().unwrap_or(input);
    let mut d = Decoder::with_limits(input, opts.limits)?;
    let mut de = de::Deserializer::new(&mut d, *opts);
    let r = f(&mut <dyn erased_serde::Deserializer>::erase(&mut de));
    d.finish_exact()?;
    Ok(r)
}

/// Appends `value` (a type-erased serializable, as `mote::dist` hands messages over) to
/// `out` as one term with its version byte.
///
/// ```
/// use mote_dist::serde::{append_erased, to_vec, Options};
///
/// let mut out = Vec::new();
/// append_erased(&(1u8, "a") as &dyn erased_serde::Serialize, &mut out, &Options::default()).unwrap();
/// assert_eq!(out, to_vec(&(1u8, "a")).unwrap());
/// ```
pub fn append_erased(
    value: &dyn erased_serde::Serialize,
    out: &mut Vec<u8>,
    opts: &Options,
) -> Result<(), EncodeError> {
    append(value, out, opts)
}
