//! [`Context`]: what a server's callbacks can do besides changing the state.

use std::time::Duration;

use super::{Envelope, Server, ServerRef};
use crate::process::handle::Process;
use crate::process::timer::TimerRef;
use crate::rt::signals::LinkError;
use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::ProcessId;

/// A server's own handle, passed to every callback: its address, its parent, and its
/// [`Process`] for links, monitors and exit trapping.
///
/// ```
/// use std::time::Duration;
/// use mote::server::{self, Context, Next, Server};
///
/// /// Counts its ticks, stops after three.
/// struct Ticker(u32);
///
/// impl Server for Ticker {
///     type Call = ();
///     type Reply = ();
///     type Cast = ();
///     type Info = &'static str;
///
///     async fn init(&mut self, ctx: &mut Context<Self>) -> Result<(), mote::ExitReason> {
///         ctx.send_after("tick", Duration::from_millis(1));
///         Ok(())
///     }
///
///     async fn handle_info(&mut self, _tick: &'static str, ctx: &mut Context<Self>) -> Next {
///         self.0 += 1;
///         if self.0 == 3 {
///             return Next::Stop(mote::ExitReason::Normal);
///         }
///         ctx.send_after("tick", Duration::from_millis(1));
///         Next::Continue
///     }
/// }
///
/// mote::run(|mut p: mote::Process<mote::Down>| async move {
///     let ticker = server::start(Ticker(0)).await.unwrap();
///     p.monitor(ticker.id());
///     assert_eq!(p.recv().await.reason, mote::ExitReason::Normal);
/// })
/// .unwrap();
/// ```
pub struct Context<S: Server> {
    pub(super) process: Process<Envelope<S>>,
    pub(super) parent: Option<ProcessId>,
}

impl<S: Server> Context<S> {
    /// This server's address.
    pub fn server(&self) -> ServerRef<S> {
        ServerRef::from_pid(self.process.pid())
    }

    /// This server's process id.
    pub fn id(&self) -> ProcessId {
        self.process.id()
    }

    /// The process that started this server linked ([`ServerOptions::linked`](super::ServerOptions::linked)),
    /// if any: its exit stops a trapping server (see [`Server::handle_exit`]).
    pub fn parent(&self) -> Option<ProcessId> {
        self.parent
    }

    /// The server's process, for everything else a process can do (selective receive of its
    /// own [`Envelope`]s, [`Process::spawn_link`], [`Process::demonitor`]).
    pub fn process(&mut self) -> &mut Process<Envelope<S>> {
        &mut self.process
    }

    /// Turns exit trapping on or off (see [`Process::trap_exit`]); trapped exits go to
    /// [`Server::handle_exit`]. Returns the previous setting.
    pub fn trap_exit(&self, on: bool) -> bool {
        self.process.trap_exit(on)
    }

    /// Links this server to another process (see [`Process::link`]).
    pub fn link(&self, other: impl Into<ProcessId>) -> Result<(), LinkError> {
        self.process.link(other)
    }

    /// Monitors a process; its [`Down`](crate::Down) goes to [`Server::handle_down`].
    pub fn monitor(&self, target: impl Into<ProcessId>) -> MonitorRef {
        self.process.monitor(target)
    }

    /// Sends `info` to this server after `delay` (it arrives in [`Server::handle_info`]).
    pub fn send_after(&self, info: S::Info, delay: Duration) -> TimerRef {
        crate::process::timer::send_after(self.process.pid(), Envelope::info(info), delay)
    }
}

impl<S: Server> std::fmt::Debug for Context<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("id", &self.id())
            .field("parent", &self.parent)
            .finish()
    }
}
