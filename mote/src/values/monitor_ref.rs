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

impl MonitorRef {
    /// The reference as a number, unique in this OS process (for a distribution layer,
    /// which puts it into Erlang's wire references).
    ///
    /// ```
    /// mote::run(|mut p: mote::Process<mote::Down>| async move {
    ///     let r = p.monitor(p.id());
    ///     assert_eq!(mote::MonitorRef::from_raw(r.into_raw()), r);
    /// })
    /// .unwrap();
    /// ```
    pub fn into_raw(self) -> u64 {
        self.0
    }

    /// The reference [`into_raw`](Self::into_raw) gave this number for.
    ///
    /// ```
    /// assert_eq!(mote::MonitorRef::from_raw(7).into_raw(), 7);
    /// ```
    pub fn from_raw(raw: u64) -> MonitorRef {
        MonitorRef(raw)
    }
}

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
