//! [`self_id`]: which process is running this code.

use crate::rt::current;
use crate::values::pid::ProcessId;

/// The id of the process running this code, or `None` outside any process.
///
/// ```
/// assert_eq!(mote::self_id(), None);
/// mote::run(|p: mote::Process<()>| async move { assert_eq!(mote::self_id(), Some(p.id())) }).unwrap();
/// ```
pub fn self_id() -> Option<ProcessId> {
    current::current()
}
