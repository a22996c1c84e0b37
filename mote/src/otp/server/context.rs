//! [`Context`]: what a server's callbacks can do besides changing the state.

use std::time::Duration;

use futures_core::Stream;

use super::{Envelope, Server, ServerRef};
use crate::otp::stream::AttachedStream;
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

    /// Attaches a stream to this server: each item arrives in [`Server::handle_info`] as
    /// `map(item)`, and `on_end()` after the last one (see [`attach_stream`](crate::attach_stream):
    /// a forwarder linked to the server polls the stream, and goes when the server does).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mote::server::{self, Context, Next, ReplyTo, Server};
    ///
    /// enum Info { Item(u32), End }
    ///
    /// #[derive(Default)]
    /// struct Summer { sum: u32, done: Option<ReplyTo<u32>>, ended: bool }
    ///
    /// impl Server for Summer {
    ///     type Call = ();
    ///     type Reply = u32;
    ///     type Cast = ();
    ///     type Info = Info;
    ///     async fn init(&mut self, ctx: &mut Context<Self>) -> Result<(), mote::ExitReason> {
    ///         ctx.attach_stream(futures_util::stream::iter([1, 2, 3]), Info::Item, || Info::End);
    ///         Ok(())
    ///     }
    ///     async fn handle_info(&mut self, info: Info, _: &mut Context<Self>) -> Next {
    ///         match info {
    ///             Info::Item(n) => self.sum += n,
    ///             Info::End => {
    ///                 self.ended = true;
    ///                 if let Some(from) = self.done.take() { from.reply(self.sum) }
    ///             }
    ///         }
    ///         Next::Continue
    ///     }
    ///     // Answers once the stream has ended.
    ///     async fn handle_call(&mut self, _: (), from: ReplyTo<u32>, _: &mut Context<Self>) -> Next {
    ///         if self.ended { from.reply(self.sum) } else { self.done = Some(from) }
    ///         Next::Continue
    ///     }
    /// }
    ///
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let s = server::start(Summer::default()).await.unwrap();
    ///     assert_eq!(s.call((), Duration::from_secs(5)).await, Ok(6));
    /// })
    /// .unwrap();
    /// ```
    pub fn attach_stream<St, F, E>(&self, stream: St, mut map: F, on_end: E) -> AttachedStream
    where
        St: Stream + Send + 'static,
        F: FnMut(St::Item) -> S::Info + Send + 'static,
        E: FnOnce() -> S::Info + Send + 'static,
    {
        crate::otp::stream::attach_stream(
            self.process.pid(),
            stream,
            move |item| Envelope::info(map(item)),
            move || Envelope::info(on_end()),
        )
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
