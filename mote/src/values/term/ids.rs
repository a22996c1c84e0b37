//! Identities other than pids: [`Reference`], [`Port`], and [`Fun`] (opaque).

use std::fmt;

use bytes::Bytes;

use crate::values::monitor_ref::MonitorRef;

/// A reference (Erlang's `make_ref()`, a monitor's reference): the node it was made on
/// (an index in the node table, `0` for this node, as [`ProcessId::node`](crate::ProcessId::node)),
/// the node's creation, and 1 to 5 32-bit words. Printed as Erlang prints one,
/// `#Ref<0.3.2.1>`: the node, then the words from the last to the first.
///
/// A local [`MonitorRef`] converts into one (node 0, creation 0, three words).
///
/// ```
/// use mote::term::Reference;
/// let r = Reference::new(0, 0, &[1, 2, 3]).unwrap();
/// assert_eq!(r.to_string(), "#Ref<0.3.2.1>");
/// assert!(Reference::new(0, 0, &[]).is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reference {
    node: u32,
    creation: u32,
    len: u8,
    words: [u32; 5],
}

/// A reference needs 1 to 5 words.
///
/// ```
/// use mote::term::{BadReference, Reference};
/// assert_eq!(Reference::new(0, 0, &[0; 6]), Err(BadReference(6)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a reference has 1 to 5 words, not {0}")]
pub struct BadReference(pub usize);

impl Reference {
    /// A reference of `words` (1 to 5) made on `node` (creation `creation`).
    pub fn new(node: u32, creation: u32, words: &[u32]) -> Result<Reference, BadReference> {
        if words.is_empty() || words.len() > 5 {
            return Err(BadReference(words.len()));
        }
        let mut all = [0; 5];
        all[..words.len()].copy_from_slice(words);
        Ok(Reference {
            node,
            creation,
            len: words.len() as u8,
            words: all,
        })
    }

    /// The node it was made on (`0`: this node).
    pub fn node(&self) -> u32 {
        self.node
    }

    /// The creation of that node.
    pub fn creation(&self) -> u32 {
        self.creation
    }

    /// Its words, first (least significant) first.
    pub fn words(&self) -> &[u32] {
        &self.words[..usize::from(self.len)]
    }
}

impl From<MonitorRef> for Reference {
    fn from(r: MonitorRef) -> Reference {
        let n = r.0;
        Reference::new(0, 0, &[n as u32, (n >> 32) as u32, 0]).expect("three words")
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#Ref<{}", self.node)?;
        for word in self.words().iter().rev() {
            write!(f, ".{word}")?;
        }
        f.write_str(">")
    }
}

impl fmt::Debug for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A port (Erlang's handle of an external resource): node index, number, node creation.
/// Printed `#Port<0.5>`.
///
/// ```
/// assert_eq!(mote::term::Port::new(0, 5, 0).to_string(), "#Port<0.5>");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Port {
    node: u32,
    id: u64,
    creation: u32,
}

impl Port {
    /// The port numbered `id` on `node` (creation `creation`).
    pub fn new(node: u32, id: u64, creation: u32) -> Port {
        Port { node, id, creation }
    }

    /// The node it lives on.
    pub fn node(&self) -> u32 {
        self.node
    }

    /// Its number on that node.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The creation of that node.
    pub fn creation(&self) -> u32 {
        self.creation
    }
}

impl fmt::Display for Port {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#Port<{}.{}>", self.node, self.id)
    }
}

impl fmt::Debug for Port {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// An Erlang fun or external function (`fun m:f/1`), kept as the bytes another node sent
/// (its external term format encoding). mote cannot run it; it can only hold it, compare it
/// and send it on.
///
/// Deviation: funs are compared and ordered by those bytes, not by module, index and
/// environment as the BEAM does; two encodings of one fun may differ.
///
/// ```
/// let f = mote::term::Fun::from_encoded(vec![113, 1, 2]);
/// assert_eq!(f.encoded(), &[113, 1, 2][..]);
/// assert_eq!(f.to_string(), "#Fun<3 bytes>");
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fun(Bytes);

impl Fun {
    /// A fun from its external term format encoding.
    pub fn from_encoded(bytes: impl Into<Bytes>) -> Fun {
        Fun(bytes.into())
    }

    /// Its encoding.
    pub fn encoded(&self) -> &Bytes {
        &self.0
    }
}

impl fmt::Display for Fun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#Fun<{} bytes>", self.0.len())
    }
}

impl fmt::Debug for Fun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
