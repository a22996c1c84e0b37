//! [`RegisteredName`]: a name on a node, what a monitor by name watches.

use crate::values::term::Atom;

/// A registered name on a node: what a monitor by name watches (Erlang's `{Name, Node}`).
///
/// The node is an index in the node table, as [`ProcessId::node`](crate::ProcessId::node)
/// is: `0` for this node. Deviation: Erlang names the node by its name (`nonode@nohost`).
///
/// ```
/// use mote::RegisteredName;
/// let n = RegisteredName::local("logger".try_into().unwrap());
/// assert_eq!((n.name.as_str(), n.node), ("logger", 0));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RegisteredName {
    /// The name.
    pub name: Atom,
    /// The node it is registered on (`0`: this node).
    pub node: u32,
}

impl RegisteredName {
    /// `name` on this node.
    pub fn local(name: Atom) -> Self {
        RegisteredName { name, node: 0 }
    }
}
