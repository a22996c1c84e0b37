//! [`Atom`]: a name, Erlang's atom.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// The most characters an atom may have (Erlang's limit).
///
/// ```
/// use mote::term::{Atom, MAX_ATOM_CHARS};
/// assert!(Atom::new("é".repeat(MAX_ATOM_CHARS)).is_ok());
/// ```
pub const MAX_ATOM_CHARS: usize = 255;

/// A name: Erlang's atom (`ok`, `shutdown`, `'EXIT'`). Any text of at most 255 characters
/// (Unicode scalar values, as in Erlang since OTP 20), including the empty one.
///
/// Cheap to clone (a reference count), compared and hashed by its text, ordered by its
/// text (code point by code point, as Erlang orders atoms). Printed in Erlang syntax,
/// quoted where Erlang quotes it.
///
/// Deviation: atoms are not interned in a table for the node's lifetime, as the BEAM does;
/// one is freed when its last copy is, so atoms made from outside data cannot exhaust
/// memory. Comparing two atoms compares their text.
///
/// ```
/// use mote::term::Atom;
/// let ok = Atom::new("ok").unwrap();
/// assert_eq!(ok, "ok");
/// assert_eq!(Atom::new("EXIT").unwrap().to_string(), "'EXIT'");
/// assert!(Atom::new("x".repeat(256)).is_err());
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Atom(Arc<str>);

/// Text that cannot be an atom: it has more than 255 characters (Erlang's `system_limit`).
///
/// ```
/// use mote::term::{Atom, AtomTooLong};
/// assert_eq!(Atom::new("x".repeat(300)), Err(AtomTooLong { chars: 300 }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an atom has at most 255 characters; this text has {chars}")]
pub struct AtomTooLong {
    /// How many characters the text has.
    pub chars: usize,
}

impl Atom {
    /// The atom named `name`, if it has at most 255 characters.
    ///
    /// ```
    /// use mote::term::Atom;
    /// assert_eq!(Atom::new(String::from("db")).unwrap().as_str(), "db");
    /// ```
    pub fn new(name: impl Into<Arc<str>>) -> Result<Atom, AtomTooLong> {
        let name = name.into();
        // Bytes first: at most 4 per character, so a short text needs no count.
        if name.len() > MAX_ATOM_CHARS {
            let chars = name.chars().count();
            if chars > MAX_ATOM_CHARS {
                return Err(AtomTooLong { chars });
            }
        }
        Ok(Atom(name))
    }

    /// The atom's text.
    ///
    /// ```
    /// assert_eq!(mote::term::Atom::new("ok").unwrap().as_str(), "ok");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// An atom the runtime names itself; its text is known to be short.
    pub(crate) fn known(name: &str) -> Atom {
        debug_assert!(name.len() <= MAX_ATOM_CHARS);
        Atom(name.into())
    }
}

impl Deref for Atom {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Atom {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Atom {
    fn borrow(&self) -> &str {
        &self.0
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

impl TryFrom<&str> for Atom {
    type Error = AtomTooLong;

    fn try_from(name: &str) -> Result<Atom, AtomTooLong> {
        Atom::new(name)
    }
}

impl TryFrom<String> for Atom {
    type Error = AtomTooLong;

    fn try_from(name: String) -> Result<Atom, AtomTooLong> {
        Atom::new(name)
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::display::write_atom(f, &self.0)
    }
}

impl fmt::Debug for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_limit_counts_characters_not_bytes() {
        assert!(Atom::new("a".repeat(255)).is_ok());
        assert_eq!(Atom::new("a".repeat(256)), Err(AtomTooLong { chars: 256 }));
        // 255 three-byte characters: 765 bytes, still an atom.
        assert!(Atom::new("日".repeat(255)).is_ok());
        assert_eq!(Atom::new("日".repeat(256)), Err(AtomTooLong { chars: 256 }));
        assert!(Atom::new("").is_ok());
    }
}
