//! Which node a [`ProcessId`]'s node number names: the bridge between mote's pids and the
//! wire's.
//!
//! A mote [`ProcessId`] keeps its node as a small number (`0` is this node) and a wire pid
//! (NEW_PID_EXT) names its node with an atom. This table gives every node name met in this
//! OS process a number, for the life of the process (a program talks to finitely many
//! nodes), so that pids round-trip exactly: [`to_wire`] then [`from_wire`] gives the same
//! id, and the other way round. Creations stay in the ids themselves, so a pid of an
//! earlier incarnation of a node never equals one of the current incarnation.
//!
//! ```
//! use mote_dist::etf::{Atom, ErlPid};
//! use mote_dist::node_table;
//!
//! let wire = ErlPid { node: Atom::new("erl@h").unwrap(), id: 85, serial: 2, creation: 7 };
//! let id = node_table::from_wire(&wire);
//! assert!(!id.is_local());
//! assert_eq!(node_table::to_wire(id), wire);
//! assert_eq!(node_table::node_name(id.node()).unwrap().as_str(), "erl@h");
//! ```

use std::collections::HashMap;
use std::sync::OnceLock;

use mote::ProcessId;
use parking_lot::RwLock;

use crate::etf::{Atom, ErlPid};

/// This node's name before a node is started, as Erlang's `node()` says then.
pub const NO_NODE: &str = "nonode@nohost";

struct Table {
    /// Node number → name; entry 0 is this node.
    names: Vec<Atom>,
    numbers: HashMap<Atom, u32>,
    /// The creation of this node (0 until a node is started).
    creation: u32,
}

fn table() -> &'static RwLock<Table> {
    static TABLE: OnceLock<RwLock<Table>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let local = Atom::new(NO_NODE).expect("a short atom");
        RwLock::new(Table {
            names: vec![local.clone()],
            numbers: HashMap::from([(local, 0)]),
            creation: 0,
        })
    })
}

/// Names this node (once a node starts): local pids go on the wire under `name` and
/// `creation`. If `name` was met before as another node's, that number stays its alias.
///
/// ```
/// // What `Node::start` does; shown on a table of its own here.
/// let local = mote_dist::node_table::local();
/// assert_eq!(local.0.as_str(), mote_dist::node_table::NO_NODE);
/// ```
pub(crate) fn set_local(name: Atom, creation: u32) {
    let mut t = table().write();
    let old = std::mem::replace(&mut t.names[0], name.clone());
    t.numbers.remove(&old);
    t.numbers.insert(name, 0);
    t.creation = creation;
}

/// This node's name and creation.
///
/// ```
/// let (name, _creation) = mote_dist::node_table::local();
/// assert!(name.as_str().contains('@'));
/// ```
pub fn local() -> (Atom, u32) {
    let t = table().read();
    (t.names[0].clone(), t.creation)
}

/// The number of node `name` (this node's name is `0`), given one if it has none yet.
///
/// ```
/// let n = mote_dist::node_table::node_number(&mote_dist::etf::Atom::new("b@h").unwrap());
/// assert_ne!(n, 0);
/// ```
pub fn node_number(name: &Atom) -> u32 {
    if let Some(&n) = table().read().numbers.get(name) {
        return n;
    }
    let mut t = table().write();
    if let Some(&n) = t.numbers.get(name) {
        return n;
    }
    let n = u32::try_from(t.names.len()).expect("fewer than 2^32 node names");
    t.names.push(name.clone());
    t.numbers.insert(name.clone(), n);
    n
}

/// The name of node number `n`, if some node has it.
///
/// ```
/// assert!(mote_dist::node_table::node_name(0).is_some());
/// assert!(mote_dist::node_table::node_name(u32::MAX).is_none());
/// ```
pub fn node_name(n: u32) -> Option<Atom> {
    table().read().names.get(n as usize).cloned()
}

/// The wire form of a pid: a local id gets this node's name and creation.
///
/// ```
/// let id = mote::ProcessId::from_parts(0, 5, 0, 0);
/// let wire = mote_dist::node_table::to_wire(id);
/// assert_eq!(wire.node, mote_dist::node_table::local().0);
/// ```
pub fn to_wire(id: ProcessId) -> ErlPid {
    let t = table().read();
    let node = t
        .names
        .get(id.node() as usize)
        .cloned()
        .unwrap_or_else(|| t.names[0].clone());
    let creation = if id.is_local() {
        t.creation
    } else {
        id.creation()
    };
    ErlPid {
        node,
        id: id.number(),
        serial: id.serial(),
        creation,
    }
}

/// The mote id of a wire pid: one of this node's current incarnation is local.
///
/// ```
/// let (name, creation) = mote_dist::node_table::local();
/// let wire = mote_dist::etf::ErlPid { node: name, id: 9, serial: 1, creation };
/// assert!(mote_dist::node_table::from_wire(&wire).is_local());
/// ```
pub fn from_wire(pid: &ErlPid) -> ProcessId {
    from_parts(pid.node.as_str(), pid.id, pid.serial, pid.creation)
}

/// [`from_wire`] from the parts of a pid as the decoder gives them.
pub(crate) fn from_parts(node: &str, id: u32, serial: u32, creation: u32) -> ProcessId {
    let number = {
        let t = table().read();
        t.numbers.get(node).copied().map(|n| (n, t.creation))
    };
    let (number, local_creation) = match number {
        Some(found) => found,
        None => match Atom::new(node) {
            Ok(atom) => (node_number(&atom), u32::MAX),
            // The decoder checked the atom's length, so this is not reached.
            Err(_) => (0, u32::MAX),
        },
    };
    if number == 0 && creation == local_creation {
        ProcessId::from_parts(0, id, serial, 0)
    } else if number == 0 && creation == 0 {
        // Creation 0 never names a live incarnation of a started node; keep the id
        // non-local (ids of node 0 with creation 0 are this node's).
        ProcessId::from_parts(0, id, serial, u32::MAX)
    } else {
        ProcessId::from_parts(number, id, serial, creation)
    }
}

/// The typed pid of a wire pid, checked as a `Pid<M>` in a message is (`Pid`'s
/// `Deserialize`): one of another node for any `M: Serialize`, one of this node only if its
/// process is alive and exposed with message type `M`.
///
/// ```
/// use mote_dist::etf::{Atom, ErlPid};
///
/// let wire = ErlPid { node: Atom::new("erl@h").unwrap(), id: 85, serial: 0, creation: 3 };
/// let pid: mote::Pid<String> = mote_dist::node_table::typed_pid(&wire).unwrap();
/// assert_eq!(mote_dist::node_table::to_wire(pid.id()), wire);
/// ```
pub fn typed_pid<M: serde::Serialize + Send + 'static>(
    pid: &ErlPid,
) -> Result<mote::Pid<M>, crate::etf::DecodeError> {
    let id = from_wire(pid);
    let parts = [id.node(), id.number(), id.serial(), id.creation()];
    serde::Deserialize::deserialize(serde::de::value::SeqDeserializer::<
        _,
        crate::etf::DecodeError,
    >::new(parts.into_iter()))
}
