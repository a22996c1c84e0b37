//! Why a process ended, and the system messages that report it: [`Exit`] and [`Down`].

use std::fmt;
use std::sync::Arc;

use bytes::Bytes;

use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::ProcessId;
use crate::values::registered_name::RegisteredName;
use crate::values::term::{Atom, Term};

/// Why a process ended (Erlang's exit reason): any [`Term`], with the reasons the runtime
/// itself gives named.
///
/// `Normal` is the only reason that does not take down linked processes that do not trap
/// exits. `Kill` is special only when sent with [`exit`](crate::exit): it cannot be trapped
/// and the victim ends with `Killed`; a process that *ends itself* with `Kill` passes a plain,
/// trappable `Kill` on to its links (Erlang's rule).
///
/// Each reason has one form, so reasons compare as the terms they are: the atom `normal` is
/// [`ExitReason::Normal`], never a [`Custom`](ExitReason::Custom) holding it
/// ([`ExitReason::from`] a [`Term`] picks the form), and [`ExitReason::custom`]`("boom")` is
/// the atom `boom`. `{shutdown, Term}` is built with [`ExitReason::shutdown_with`] and
/// recognised with [`ExitReason::is_shutdown`].
///
/// Deviation from Erlang: a panic is `{panic, <<"message">>}` ([`ExitReason::Panic`]), where
/// an Erlang error is `{Reason, Stacktrace}`: a Rust panic has a message, not a reason term,
/// and no stack trace is captured.
///
/// ```
/// use mote::{ExitReason, Term};
/// assert!(!ExitReason::Normal.is_abnormal());
/// assert!(ExitReason::custom("boom").is_abnormal());
/// assert_eq!(ExitReason::custom("boom").to_string(), "boom");
/// assert_eq!(ExitReason::from(Term::atom("normal")), ExitReason::Normal);
/// let r = ExitReason::shutdown_with(Term::atom("db_down"));
/// assert!(r.is_shutdown());
/// assert_eq!(r.to_string(), "{shutdown,db_down}");
/// assert_eq!(ExitReason::Panic("boom".into()).to_string(), r#"{panic,<<"boom">>}"#);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum ExitReason {
    /// The process finished its work (`normal`).
    Normal,
    /// The process was asked to shut down, by a supervisor say (`shutdown`).
    Shutdown,
    /// A process ended itself with `kill`, or an untrappable kill signal (sent with `exit`).
    Kill,
    /// The reason of a process that got an untrappable kill signal (`killed`).
    Killed,
    /// The process did not exist: monitor or link of a dead pid (`noproc`).
    NoProc,
    /// The connection to the process's node was lost (`noconnection`), for processes on
    /// other nodes.
    NoConnection,
    /// The process panicked; the panic's message. As a term: `{panic, <<"message">>}`.
    Panic(Arc<str>),
    /// Any other reason: a term that is none of the forms above.
    Custom(CustomReason),
}

/// The term of an [`ExitReason::Custom`]: never one that has a named form (the atom
/// `normal`, `{panic, <<"text">>}`, ...), so equal reasons are equal values.
///
/// ```
/// use mote::{ExitReason, Term};
/// let ExitReason::Custom(r) = ExitReason::custom("bad_config") else { unreachable!() };
/// assert!(r.term().is_atom("bad_config"));
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct CustomReason(Arc<Term>);

impl CustomReason {
    /// The reason's term.
    pub fn term(&self) -> &Term {
        &self.0
    }
}

impl std::ops::Deref for CustomReason {
    type Target = Term;

    fn deref(&self) -> &Term {
        &self.0
    }
}

impl fmt::Display for CustomReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl fmt::Debug for CustomReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

/// The atoms of the named reasons.
const NAMED: [(&str, ExitReason); 6] = [
    ("normal", ExitReason::Normal),
    ("shutdown", ExitReason::Shutdown),
    ("kill", ExitReason::Kill),
    ("killed", ExitReason::Killed),
    ("noproc", ExitReason::NoProc),
    ("noconnection", ExitReason::NoConnection),
];

impl ExitReason {
    /// A reason of the user's own: the atom `reason` (or, for a text longer than an atom's
    /// 255 characters, a binary of it). A name the runtime gives its own reasons, such as
    /// `"normal"` or `"shutdown"`, gives that reason.
    ///
    /// ```
    /// use mote::ExitReason;
    /// let r = ExitReason::custom("bad_config");
    /// assert_eq!(r, ExitReason::custom(String::from("bad_config")));
    /// assert_eq!(ExitReason::custom("shutdown"), ExitReason::Shutdown);
    /// ```
    pub fn custom(reason: impl Into<Arc<str>>) -> Self {
        ExitReason::from_term(Term::atom_or_binary(reason.into()))
    }

    /// The reason `{shutdown, detail}`: a shutdown that says why. Like `shutdown`, it ends
    /// linked processes that do not trap exits, but a supervisor does not restart a
    /// transient child that ends with it.
    ///
    /// ```
    /// use mote::{ExitReason, Term};
    /// let r = ExitReason::shutdown_with(Term::atom("maintenance"));
    /// assert_eq!(r.shutdown_detail(), Some(&Term::atom("maintenance")));
    /// ```
    pub fn shutdown_with(detail: impl Into<Term>) -> Self {
        ExitReason::from_term(Term::tuple([Term::atom("shutdown"), detail.into()]))
    }

    /// The reason a term is, in its one form (see the type's docs).
    ///
    /// ```
    /// use mote::{ExitReason, Term};
    /// assert_eq!(ExitReason::from_term(Term::atom("killed")), ExitReason::Killed);
    /// let panic = Term::tuple([Term::atom("panic"), Term::binary("boom")]);
    /// assert_eq!(ExitReason::from_term(panic), ExitReason::Panic("boom".into()));
    /// ```
    pub fn from_term(term: Term) -> Self {
        if let Term::Atom(atom) = &term {
            if let Some((_, named)) = NAMED.iter().find(|(name, _)| atom == name) {
                return named.clone();
            }
        }
        if let Some([tag, Term::Binary(message)]) = term.as_tuple() {
            if tag.is_atom("panic") {
                if let Ok(message) = std::str::from_utf8(message) {
                    return ExitReason::Panic(message.into());
                }
            }
        }
        ExitReason::Custom(CustomReason(Arc::new(term)))
    }

    /// The reason as a term: `normal`, `{panic, <<"boom">>}`, ...
    ///
    /// ```
    /// use mote::{ExitReason, Term};
    /// assert_eq!(ExitReason::Killed.to_term(), Term::atom("killed"));
    /// ```
    pub fn to_term(&self) -> Term {
        match self {
            ExitReason::Panic(message) => Term::tuple([
                Term::Atom(Atom::known("panic")),
                Term::binary(Bytes::copy_from_slice(message.as_bytes())),
            ]),
            ExitReason::Custom(custom) => custom.term().clone(),
            named => Term::Atom(Atom::known(named.name().expect("a named reason"))),
        }
    }

    /// The atom of a named reason.
    fn name(&self) -> Option<&'static str> {
        NAMED
            .iter()
            .find(|(_, named)| named == self)
            .map(|(name, _)| *name)
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

    /// Whether this is `shutdown` or `{shutdown, _}`: an orderly stop, which a supervisor
    /// does not restart a transient child after.
    ///
    /// ```
    /// use mote::{ExitReason, Term};
    /// assert!(ExitReason::Shutdown.is_shutdown());
    /// assert!(ExitReason::shutdown_with(Term::from(1)).is_shutdown());
    /// assert!(!ExitReason::Normal.is_shutdown());
    /// ```
    pub fn is_shutdown(&self) -> bool {
        matches!(self, ExitReason::Shutdown) || self.shutdown_detail().is_some()
    }

    /// The `detail` of `{shutdown, detail}`.
    ///
    /// ```
    /// assert_eq!(mote::ExitReason::Shutdown.shutdown_detail(), None);
    /// ```
    pub fn shutdown_detail(&self) -> Option<&Term> {
        match self {
            ExitReason::Custom(custom) => match custom.as_tuple()? {
                [tag, detail] if tag.is_atom("shutdown") => Some(detail),
                _ => None,
            },
            _ => None,
        }
    }
}

impl fmt::Display for ExitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitReason::Panic(_) => fmt::Display::fmt(&self.to_term(), f),
            ExitReason::Custom(custom) => fmt::Display::fmt(custom, f),
            named => f.write_str(named.name().expect("a named reason")),
        }
    }
}

impl fmt::Debug for ExitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<Term> for ExitReason {
    /// See [`ExitReason::from_term`].
    fn from(term: Term) -> Self {
        ExitReason::from_term(term)
    }
}

impl From<Atom> for ExitReason {
    fn from(atom: Atom) -> Self {
        ExitReason::from_term(Term::Atom(atom))
    }
}

impl From<&ExitReason> for Term {
    fn from(reason: &ExitReason) -> Term {
        reason.to_term()
    }
}

impl From<ExitReason> for Term {
    fn from(reason: ExitReason) -> Term {
        reason.to_term()
    }
}

impl From<&str> for ExitReason {
    /// [`ExitReason::custom`].
    fn from(reason: &str) -> Self {
        ExitReason::custom(reason)
    }
}

impl From<String> for ExitReason {
    /// [`ExitReason::custom`].
    fn from(reason: String) -> Self {
        ExitReason::custom(reason)
    }
}

impl From<std::io::Error> for ExitReason {
    /// The POSIX error atom Erlang's file and socket functions give (`enoent`,
    /// `econnrefused`, `eacces`, ...) where the error has one; otherwise
    /// `{io_error, <<"message">>}`.
    ///
    /// ```
    /// use std::io::{Error, ErrorKind};
    /// use mote::ExitReason;
    /// assert_eq!(ExitReason::from(Error::from(ErrorKind::NotFound)).to_string(), "enoent");
    /// let other = ExitReason::from(Error::other("disk on fire"));
    /// assert_eq!(other.to_string(), r#"{io_error,<<"disk on fire">>}"#);
    /// ```
    fn from(error: std::io::Error) -> Self {
        match crate::values::posix::error_atom(error.kind()) {
            Some(name) => ExitReason::from_term(Term::Atom(Atom::known(name))),
            None => ExitReason::from_term(Term::tuple([
                Term::Atom(Atom::known("io_error")),
                Term::from(error.to_string()),
            ])),
        }
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
/// For a monitor by name ([`Process::monitor_name`](crate::Process::monitor_name)),
/// Erlang's message names `{Name, Node}` instead of the pid: [`Down::by_name`] holds that,
/// and [`Down::pid`] the process that held the name when the monitor was made
/// ([`ProcessId::NONE`] if nobody did).
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
    /// For a monitor by name, the name and its node (Erlang's `{Name, Node}`); `None` for
    /// a monitor of a pid. Boxed, so that a `Down` stays small in every mailbox that can
    /// hold one.
    pub by_name: Option<Box<RegisteredName>>,
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
