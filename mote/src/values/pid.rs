//! Process identifiers: the untyped [`ProcessId`] and the typed [`Pid<M>`].

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

/// The identity of a process, whatever the type of its mailbox.
///
/// Laid out as Erlang lays out a pid: the node it lives on (`0` is this node), its number in
/// that node's process table, a serial that changes each time the table entry is reused, and
/// the node's creation. It is a plain value: holding one keeps nothing alive, and once the
/// process is gone the serial no longer matches, so the id can never reach a newer process
/// that reuses the entry. Printed like Erlang: `<0.42.0>`.
///
/// ```
/// let id = mote::run(|p: mote::Process<()>| async move { p.id() }).unwrap();
/// assert_eq!(id.node(), 0);
/// assert!(id.to_string().starts_with("<0."));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProcessId {
    node: u32,
    index: u32,
    serial: u32,
    creation: u32,
}

impl ProcessId {
    /// The id used as the sender of signals that come from outside any process
    /// (for example `mote::exit` called from `main`): `<0.0.0>` with creation `u32::MAX`,
    /// which no process ever has.
    pub const NONE: ProcessId = ProcessId {
        node: 0,
        index: 0,
        serial: 0,
        creation: u32::MAX,
    };

    pub(crate) const fn local(index: u32, serial: u32) -> Self {
        ProcessId {
            node: 0,
            index,
            serial,
            creation: 0,
        }
    }

    /// The node this process lives on: `0` for the local node.
    pub fn node(&self) -> u32 {
        self.node
    }

    /// The process's number in its node's process table.
    pub fn number(&self) -> u32 {
        self.index
    }

    /// The serial of the table entry: it changes each time the entry is reused.
    pub fn serial(&self) -> u32 {
        self.serial
    }

    /// The creation of the node the process lives on (distinguishes node restarts).
    pub fn creation(&self) -> u32 {
        self.creation
    }

    /// Whether this process lives on the local node (of this incarnation: an id of node `0`
    /// with another creation names a process of an earlier run of this node, never a live
    /// one).
    pub fn is_local(&self) -> bool {
        self.node == 0 && self.creation == 0
    }

    pub(crate) fn index(&self) -> u32 {
        self.index
    }

    /// An id from its four parts (as [`node`](Self::node), [`number`](Self::number),
    /// [`serial`](Self::serial) and [`creation`](Self::creation) give them). An id is a plain
    /// value: making one reaches no process (a typed [`Pid`] is what sends).
    ///
    /// ```
    /// let id = mote::ProcessId::from_parts(3, 42, 1, 7);
    /// assert_eq!((id.node(), id.number(), id.serial(), id.creation()), (3, 42, 1, 7));
    /// assert!(!id.is_local());
    /// ```
    pub const fn from_parts(node: u32, index: u32, serial: u32, creation: u32) -> Self {
        ProcessId {
            node,
            index,
            serial,
            creation,
        }
    }
}

impl fmt::Display for ProcessId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}.{}.{}>", self.node, self.index, self.serial)
    }
}

impl fmt::Debug for ProcessId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A local process id as [`Display`](fmt::Display) prints it, `<0.42.0>` (the angle
/// brackets may be left out): for ids typed by a person or carried in a URL. The printed
/// form has no creation, so only ids of this node (node `0`) parse; the parsed id names a
/// process only while that process lives.
///
/// ```
/// mote::run(|p: mote::Process<()>| async move {
///     let printed = p.id().to_string();
///     assert_eq!(printed.parse::<mote::ProcessId>(), Ok(p.id()));
///     assert!("<3.1.0>".parse::<mote::ProcessId>().is_err()); // another node's
///     assert!("0.x.0".parse::<mote::ProcessId>().is_err());
/// })
/// .unwrap();
/// ```
impl std::str::FromStr for ProcessId {
    type Err = ParsePidError;

    fn from_str(s: &str) -> Result<Self, ParsePidError> {
        let s = s.trim();
        let inner = s
            .strip_prefix('<')
            .and_then(|s| s.strip_suffix('>'))
            .unwrap_or(s);
        let mut parts = inner.split('.').map(|p| p.parse::<u32>());
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(Ok(0)), Some(Ok(index)), Some(Ok(serial)), None) => {
                Ok(ProcessId::local(index, serial))
            }
            _ => Err(ParsePidError),
        }
    }
}

/// The text is not a local process id `<0.N.S>` (see [`ProcessId`]'s `FromStr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsePidError;

impl fmt::Display for ParsePidError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a local process id of the form <0.N.S>")
    }
}

impl std::error::Error for ParsePidError {}

/// The address of a process whose mailbox takes messages of type `M`.
///
/// `Copy`, comparable, hashable and printable like Erlang's pids (`<0.42.0>`). A `Pid` is only
/// an id: it does not keep the process or its memory alive. Sending to a process that has
/// ended is a silent no-op, as in Erlang; [`is_alive`](crate::is_alive) tells whether it still runs.
///
/// ```
/// use mote::{Pid, Process};
///
/// mote::run(|mut p: Process<u64>| async move {
///     let me: Pid<u64> = p.pid();
///     me.send(7);
///     assert_eq!(p.recv().await, 7);
/// })
/// .unwrap();
/// ```
pub struct Pid<M> {
    id: ProcessId,
    _message: PhantomData<fn(M)>,
}

impl<M> Pid<M> {
    /// The typed pid of process `id`.
    ///
    /// # Safety
    /// The incarnation `id` names (its slot and serial) was spawned with mailbox type `M`.
    /// Sends through a `Pid` check only the serial, then write an `M` into the mailbox, so
    /// a `Pid<M>` for a process of another message type would hand that process a value of
    /// the wrong type. (A stale `id`, whose process has ended, is fine: the serial check
    /// turns every send into a no-op.)
    pub(crate) const unsafe fn from_id(id: ProcessId) -> Self {
        Pid {
            id,
            _message: PhantomData,
        }
    }

    /// The untyped identity of this process.
    pub fn id(&self) -> ProcessId {
        self.id
    }
}

impl<M> Clone for Pid<M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M> Copy for Pid<M> {}

impl<M> PartialEq for Pid<M> {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl<M> Eq for Pid<M> {}

impl<M> PartialOrd for Pid<M> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<M> Ord for Pid<M> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.id.cmp(&other.id)
    }
}

impl<M> Hash for Pid<M> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state)
    }
}

impl<M> fmt::Display for Pid<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.id, f)
    }
}

impl<M> fmt::Debug for Pid<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.id, f)
    }
}

impl<M> From<Pid<M>> for ProcessId {
    fn from(pid: Pid<M>) -> ProcessId {
        pid.id
    }
}
