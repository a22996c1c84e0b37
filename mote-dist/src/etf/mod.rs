//! The External Term Format: a streaming [`Decoder`] and [`Encoder`] over bytes, the
//! wire-level identifiers ([`ErlPid`], [`ErlRef`], [`ErlPort`], [`Atom`]) and a dynamic
//! [`WireTerm`].
//!
//! The decoder reads every tag OTP documents except those tied to one node (LOCAL_EXT),
//! removed (FUN_EXT) or to an atom cache this crate does not negotiate; funs are kept
//! opaque. The encoder writes the modern encodings only. Decoding is bounded by
//! [`DecodeLimits`] and never trusts a length field beyond the input that backs it.
//!
//! ```
//! use mote_dist::etf::WireTerm;
//!
//! // term_to_binary([1, 2 | three]) from erl
//! let bytes = [131, 108, 0, 0, 0, 2, 97, 1, 97, 2, 119, 5, b't', b'h', b'r', b'e', b'e'];
//! let t = WireTerm::decode(&bytes).unwrap();
//! assert!(matches!(t, WireTerm::ImproperList(ref e, _) if e.len() == 2));
//! assert_eq!(t.encode().unwrap(), bytes);
//! ```

mod atom;
mod compressed;
mod decoder;
mod encoder;
mod error;
mod event;
mod identifiers;
mod limits;
mod reader;
pub(crate) mod tag;
mod wire_term;

pub use atom::Atom;
pub use compressed::decompress;
pub use decoder::Decoder;
pub use encoder::Encoder;
pub(crate) use encoder::Splice;
pub use error::{DecodeError, EncodeError};
pub use event::{BigIntRef, Event};
pub use identifiers::{ErlPid, ErlPort, ErlRef, RefIds};
pub use limits::DecodeLimits;
pub use wire_term::WireTerm;
