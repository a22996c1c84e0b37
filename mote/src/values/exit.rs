//! Why a process ended, and the system messages that report it: [`Exit`] and [`Down`].

use std::fmt;
use std::sync::Arc;

use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::ProcessId;

/// Why a process ended (Erlang's exit reason).
///
/// `Normal` is the only reason that does not take down linked processes that do not trap
/// exits. `Kill` is special only when sent with [`exit`](crate::exit): it cannot be trapped
/// and the victim ends with `Killed`; a process that *ends itself* with `Kill` passes a plain,
/// trappable `Kill` on to its links (Erlang's rule, case P09).
///
/// Deviation from Erlang: reasons are not arbitrary terms. A panic carries its message
/// (Erlang's `{Reason, Stacktrace}`, without the stack trace), and user reasons are strings
/// ([`ExitReason::custom`]); both compare by text.
///
/// ```
/// use mote::ExitReason;
/// assert!(!ExitReason::Normal.is_abnormal());
/// assert!(ExitReason::custom("boom").is_abnormal());
/// assert_eq!(ExitReason::custom("boom").to_string(), "boom");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum ExitReason {
    /// The process finished its work.
    Normal,
    /// The process was asked to shut down (by a supervisor, say).
    Shutdown,
    /// A process ended itself with `kill`, or an untrappable kill signal (sent with `exit`).
    Kill,
    /// The reason of a process that got an untrappable kill signal.
    Killed,
    /// The process did not exist (monitor or link of a dead pid).
    NoProc,
    /// The process panicked; the panic's message.
    Panic(Arc<str>),
    /// A reason of the user's own.
    Custom(Arc<str>),
}

impl ExitReason {
    /// A user-defined reason.
    ///
    /// ```
    /// let r = mote::ExitReason::custom("bad_config");
    /// assert_eq!(r, mote::ExitReason::custom(String::from("bad_config")));
    /// ```
    pub fn custom(reason: impl Into<Arc<str>>) -> Self {
        ExitReason::Custom(reason.into())
    }

    /// Everything except [`ExitReason::Normal`] is abnormal: it takes down linked processes
    /// that do not trap exits.
    ///
    /// ```
    /// assert!(mote::ExitReason::Shutdown.is_abnormal());
    /// ```
    pub fn is_abnormal(&self) -> bool {
        !matches!(self, ExitReason::Normal)
    }
}

impl fmt::Display for ExitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitReason::Normal => f.write_str("normal"),
            ExitReason::Shutdown => f.write_str("shutdown"),
            ExitReason::Kill => f.write_str("kill"),
            ExitReason::Killed => f.write_str("killed"),
            ExitReason::NoProc => f.write_str("noproc"),
            ExitReason::Panic(msg) => write!(f, "panic: {msg}"),
            ExitReason::Custom(reason) => f.write_str(reason),
        }
    }
}

impl fmt::Debug for ExitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<&str> for ExitReason {
    fn from(reason: &str) -> Self {
        ExitReason::custom(reason)
    }
}

impl From<String> for ExitReason {
    fn from(reason: String) -> Self {
        ExitReason::custom(reason)
    }
}

/// What a process's function may return: `()` ends it normally, an [`ExitReason`] or an
/// `Err(reason)` ends it with that reason.
///
/// ```
/// use mote::{ExitReason, Process};
/// let pid = mote::spawn(|_p: Process<()>| async move { Err::<(), _>(ExitReason::custom("bye")) });
/// # let _ = pid;
/// ```
pub trait IntoExitReason {
    /// The reason the process ends with.
    fn into_exit_reason(self) -> ExitReason;
}

impl IntoExitReason for () {
    fn into_exit_reason(self) -> ExitReason {
        ExitReason::Normal
    }
}

impl IntoExitReason for ExitReason {
    fn into_exit_reason(self) -> ExitReason {
        self
    }
}

impl<E: Into<ExitReason>> IntoExitReason for Result<(), E> {
    fn into_exit_reason(self) -> ExitReason {
        match self {
            Ok(()) => ExitReason::Normal,
            Err(e) => e.into(),
        }
    }
}

/// The message a monitor delivers when the watched process ends
/// (Erlang's `{'DOWN', Ref, process, Pid, Reason}`).
///
/// A process receives it in its ordinary receive loop: its message type implements
/// `From<Down>` (see the crate docs on system messages).
///
/// ```
/// use mote::{Down, ExitReason, Process};
/// mote::run(|mut p: Process<Down>| async move {
///     let (child, r) = p.spawn_monitor(|_c: Process<()>| async { ExitReason::custom("boom") });
///     let down = p.recv().await;
///     assert_eq!((down.monitor, down.pid, down.reason), (r, child.id(), ExitReason::custom("boom")));
/// })
/// .unwrap();
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Down {
    /// The reference [`Process::monitor`](crate::Process::monitor) returned.
    pub monitor: MonitorRef,
    /// The process that ended (or never existed).
    pub pid: ProcessId,
    /// Why it ended; [`ExitReason::NoProc`] if it was already gone.
    pub reason: ExitReason,
}

/// The message a process that traps exits gets instead of dying
/// (Erlang's `{'EXIT', From, Reason}`).
///
/// ```
/// use mote::{Exit, ExitReason, Process};
/// mote::run(|mut p: Process<Exit>| async move {
///     p.trap_exit(true);
///     let child = p.spawn_link(|_c: Process<()>| async { ExitReason::custom("boom") });
///     let exit = p.recv().await;
///     assert_eq!((exit.from, exit.reason), (child.id(), ExitReason::custom("boom")));
/// })
/// .unwrap();
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exit {
    /// The process the exit signal came from.
    pub from: ProcessId,
    /// The reason it carried.
    pub reason: ExitReason,
}

/// A ready-made message type for a process that receives system messages beside its own:
/// `Signal<M>` implements `From<Down>` and `From<Exit>`, and wraps the process's own messages
/// in [`Signal::Msg`].
///
/// ```
/// use mote::{Process, Signal};
/// mote::run(|mut p: Process<Signal<u32>>| async move {
///     p.pid().send(Signal::Msg(5));
///     assert!(matches!(p.recv().await, Signal::Msg(5)));
/// })
/// .unwrap();
/// ```
#[derive(Debug)]
pub enum Signal<M> {
    /// One of the process's own messages.
    Msg(M),
    /// A monitor fired.
    Down(Down),
    /// A linked process ended (only while trapping exits), or an exit signal was trapped.
    Exit(Exit),
}

impl<M> From<Down> for Signal<M> {
    fn from(down: Down) -> Self {
        Signal::Down(down)
    }
}

impl<M> From<Exit> for Signal<M> {
    fn from(exit: Exit) -> Self {
        Signal::Exit(exit)
    }
}
