//! [`MonitorRef`]: the reference naming a monitor (an Erlang reference).

use std::fmt;

/// A unique reference naming one monitor (Erlang's monitor reference).
///
/// ```
/// use mote::{Down, Process};
/// mote::run(|mut p: Process<Down>| async move {
///     let child = mote::spawn(|_c: Process<()>| async {});
///     let r = p.monitor(child);
///     let down = p.recv().await;
///     assert_eq!(down.monitor, r);
/// })
/// .unwrap();
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MonitorRef(pub(crate) u64);

impl fmt::Debug for MonitorRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#Ref<{}>", self.0)
    }
}

impl fmt::Display for MonitorRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}
