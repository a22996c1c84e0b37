//! Node names: `alive@host`.

use std::fmt;
use std::str::FromStr;

use crate::etf::Atom;

/// A node's name, `alive@host`, as an atom on the wire and `alive` in EPMD.
///
/// A name whose host contains a dot or is an IP address is a long name (`erl -name`),
/// otherwise a short one (`erl -sname`); Erlang nodes only connect to nodes of the same
/// kind.
///
/// ```
/// use mote_dist::handshake::NodeName;
///
/// let n: NodeName = "mote@127.0.0.1".parse().unwrap();
/// assert_eq!((n.alive(), n.host(), n.is_long()), ("mote", "127.0.0.1", true));
/// assert!(!"mote@vm".parse::<NodeName>().unwrap().is_long());
/// assert!("no-host".parse::<NodeName>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeName {
    full: Atom,
    at: usize,
}

/// A string that is not a valid node name.
///
/// ```
/// use mote_dist::handshake::NodeName;
///
/// let err = "a@b@c".parse::<NodeName>().unwrap_err();
/// assert!(err.to_string().contains("more than one '@'"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid node name {name:?}: {why}")]
pub struct BadNodeName {
    name: String,
    why: &'static str,
}

impl NodeName {
    /// A name from its parts.
    pub fn new(alive: &str, host: &str) -> Result<Self, BadNodeName> {
        format!("{alive}@{host}").parse()
    }

    /// The part before `@`, the name EPMD knows.
    pub fn alive(&self) -> &str {
        &self.full.as_str()[..self.at]
    }

    /// The host part.
    pub fn host(&self) -> &str {
        &self.full.as_str()[self.at + 1..]
    }

    /// Whether this is a long name (host with dots, or an IP address).
    pub fn is_long(&self) -> bool {
        let host = self.host();
        host.contains('.') || host.parse::<std::net::IpAddr>().is_ok()
    }

    /// The whole name.
    pub fn as_str(&self) -> &str {
        self.full.as_str()
    }

    /// The name as an atom, as pids carry it.
    pub fn atom(&self) -> &Atom {
        &self.full
    }
}

impl FromStr for NodeName {
    type Err = BadNodeName;

    fn from_str(s: &str) -> Result<Self, BadNodeName> {
        let bad = |why| BadNodeName {
            name: s.to_owned(),
            why,
        };
        let at = s.find('@').ok_or_else(|| bad("no '@host'"))?;
        let (alive, host) = (&s[..at], &s[at + 1..]);
        if alive.is_empty() || host.is_empty() {
            return Err(bad("empty name or host"));
        }
        if host.contains('@') {
            return Err(bad("more than one '@'"));
        }
        if !alive
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        {
            return Err(bad("the name part allows letters, digits, '_' and '-'"));
        }
        let full = Atom::new(s).map_err(|_| bad("longer than 255 characters"))?;
        Ok(NodeName { full, at })
    }
}

impl fmt::Display for NodeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
