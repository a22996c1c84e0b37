//! The wire-level atom: an owned, cheaply cloned name of at most 255 characters.

use std::fmt;
use std::sync::Arc;

use super::error::EncodeError;
use super::limits::MAX_ATOM_CHARS;

/// An Erlang atom as it travels on the wire: its UTF-8 name.
///
/// Cloning is a reference-count increment, so node names repeated in every pid cost one
/// allocation each time they are decoded, not per clone. The constructor enforces Erlang's
/// 255-character limit, so every `Atom` can be encoded.
///
/// ```
/// use mote_dist::etf::Atom;
///
/// let ok = Atom::new("ok").unwrap();
/// assert_eq!(ok.as_str(), "ok");
/// assert!(Atom::new(&"x".repeat(256)).is_err());
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Atom(Arc<str>);

/// Lets a table keyed by atoms be searched with a `&str`.
impl std::borrow::Borrow<str> for Atom {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl Atom {
    /// An atom with this name, or [`EncodeError::AtomTooLong`] beyond 255 characters.
    pub fn new(name: &str) -> Result<Self, EncodeError> {
        check_atom_len(name)?;
        Ok(Atom(Arc::from(name)))
    }

    /// The atom's name.
    ///
    /// ```
    /// # use mote_dist::etf::Atom;
    /// assert_eq!(Atom::new("héllo").unwrap().as_str(), "héllo");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Checks Erlang's limit, counting characters only when the byte length could exceed it.
pub(crate) fn check_atom_len(name: &str) -> Result<(), EncodeError> {
    if name.len() > MAX_ATOM_CHARS {
        let chars = name.chars().count();
        if chars > MAX_ATOM_CHARS {
            return Err(EncodeError::AtomTooLong { chars });
        }
    }
    Ok(())
}

impl fmt::Debug for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}'", self.0)
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for Atom {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl TryFrom<&str> for Atom {
    type Error = EncodeError;
    fn try_from(name: &str) -> Result<Self, EncodeError> {
        Atom::new(name)
    }
}

impl PartialEq<str> for Atom {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Atom {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}
