//! [`self_id`]: which process is running this code.

use crate::rt::current;
use crate::values::pid::ProcessId;

/// The id of the process running this code, or `None` outside any process.
///
/// ```
/// assert_eq!(mote::self_id(), None);
/// mote::run(|p: mote::Process<()>| async move { assert_eq!(mote::self_id(), Some(p.id())) }).unwrap();
/// ```
// Inline: called, it returned its `Option<ProcessId>` through the stack, and a call's check
// that the caller is not the server read it back in one 16-byte load over the pieces just
// stored (a stalled store-to-load forward on every `ServerRef::call`).
#[inline]
pub fn self_id() -> Option<ProcessId> {
    current::current()
}
