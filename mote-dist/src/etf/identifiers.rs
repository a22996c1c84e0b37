//! Pids, references and ports as the wire carries them: each names its node by atom. The
//! runtime maps them to its own compact identifiers (a node-table index instead of a name).

use super::atom::Atom;
use super::error::EncodeError;

/// A process identifier as NEW_PID_EXT carries it.
///
/// With the `V4_NC` capability both `id` and `serial` are full 32-bit words; `creation`
/// is the number EPMD (or the node) handed out when the node started, which tells a pid of
/// a restarted node from one of its previous life.
///
/// ```
/// use mote_dist::etf::{Atom, ErlPid, WireTerm};
///
/// let pid = ErlPid { node: Atom::new("a@host").unwrap(), id: 85, serial: 0, creation: 7 };
/// let bytes = WireTerm::Pid(pid.clone()).encode().unwrap();
/// assert_eq!(WireTerm::decode(&bytes).unwrap(), WireTerm::Pid(pid));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ErlPid {
    /// The node the process lives on.
    pub node: Atom,
    /// The process's index on that node.
    pub id: u32,
    /// Reuse counter of the index.
    pub serial: u32,
    /// The node incarnation.
    pub creation: u32,
}

/// A port identifier as V4_PORT_EXT carries it (64-bit id).
///
/// ```
/// use mote_dist::etf::{Atom, ErlPort, WireTerm};
///
/// let port = ErlPort { node: Atom::new("a@host").unwrap(), id: 1 << 40, creation: 3 };
/// let bytes = WireTerm::Port(port.clone()).encode().unwrap();
/// assert_eq!(WireTerm::decode(&bytes).unwrap(), WireTerm::Port(port));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ErlPort {
    /// The node the port lives on.
    pub node: Atom,
    /// The port's id.
    pub id: u64,
    /// The node incarnation.
    pub creation: u32,
}

/// A reference as NEWER_REFERENCE_EXT carries it.
///
/// ```
/// use mote_dist::etf::{Atom, ErlRef};
///
/// let r = ErlRef::new(Atom::new("a@host").unwrap(), 1, &[7, 8, 9]).unwrap();
/// assert_eq!(r.ids(), &[7, 8, 9]);
/// assert!(ErlRef::new(Atom::new("a@host").unwrap(), 1, &[0; 6]).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ErlRef {
    /// The node that made the reference.
    pub node: Atom,
    /// The node incarnation.
    pub creation: u32,
    /// The id words.
    pub ids: RefIds,
}

impl ErlRef {
    /// A reference with these id words (1 to 5).
    pub fn new(node: Atom, creation: u32, ids: &[u32]) -> Result<Self, EncodeError> {
        Ok(ErlRef {
            node,
            creation,
            ids: RefIds::new(ids)?,
        })
    }

    /// The id words, least significant first (as on the wire).
    pub fn ids(&self) -> &[u32] {
        self.ids.as_slice()
    }
}

/// The 1 to 5 id words of a reference (3 from an OTP node before `V4_NC`, up to 5 since),
/// stored inline.
///
/// ```
/// use mote_dist::etf::RefIds;
///
/// assert_eq!(RefIds::new(&[1, 2, 3]).unwrap().as_slice(), &[1, 2, 3]);
/// assert!(RefIds::new(&[]).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RefIds {
    len: u8,
    words: [u32; MAX_REF_WORDS],
}

/// Most id words a reference carries.
pub(crate) const MAX_REF_WORDS: usize = 5;

impl RefIds {
    /// These id words, or [`EncodeError::BadReference`] unless there are 1 to 5.
    pub fn new(ids: &[u32]) -> Result<Self, EncodeError> {
        if ids.is_empty() || ids.len() > MAX_REF_WORDS {
            return Err(EncodeError::BadReference(ids.len()));
        }
        let mut words = [0; MAX_REF_WORDS];
        words[..ids.len()].copy_from_slice(ids);
        Ok(RefIds {
            len: ids.len() as u8,
            words,
        })
    }

    /// The words, least significant first.
    pub fn as_slice(&self) -> &[u32] {
        &self.words[..usize::from(self.len)]
    }
}
