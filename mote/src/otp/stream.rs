//! Streams into mailboxes: [`attach_stream`] turns each item of a [`Stream`] (a socket's
//! lines, a channel's receiver, a timer's ticks) into a message for a process, and its end
//! into one last message (kameo's `attach_stream`, actix's `StreamHandler`).
//!
//! The stream is driven by a small *forwarder* process, linked to the target: a panic while
//! polling the stream reaches the target as an exit signal, as any linked crash would, and
//! the forwarder goes when the target does (whatever its reason), dropping the stream (so
//! a socket is closed). [`AttachedStream::cancel`] stops it early without any signal.
//!
//! # Writing the `select!` yourself
//!
//! [`Process::recv`](crate::Process::recv) is cancel-safe: a message is taken from the
//! mailbox only in the poll that returns it, so when `tokio::select!` picks another branch
//! and drops the receive, no message is lost (it is the next one received). The same holds
//! for [`Process::recv_matching`](crate::Process::recv_matching) (skipped messages stay in
//! the mailbox, in order) and the timeout variants. So a process may also poll a stream
//! itself:
//!
//! ```
//! use mote::Process;
//!
//! mote::run(|mut me: Process<u32>| async move {
//!     let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<u32>();
//!     let parent = me.pid();
//!     mote::spawn(move |mut p: Process<&'static str>| async move {
//!         let mut sum = 0;
//!         loop {
//!             tokio::select! {
//!                 // Cancel-safe: when the channel's branch wins, no message is lost.
//!                 command = p.recv() => if command == "stop" { break },
//!                 item = rx.recv() => match item {
//!                     Some(n) => sum += n,
//!                     None => break,
//!                 },
//!             }
//!         }
//!         parent.send(sum);
//!     });
//!     tx.send(40).unwrap();
//!     tx.send(2).unwrap();
//!     drop(tx);
//!     assert_eq!(me.recv().await, 42);
//! })
//! .unwrap();
//! ```
//!
//! With `attach_stream` the process only receives; a [`Server`](crate::server::Server) gets
//! the items in [`handle_info`](crate::server::Server::handle_info) through
//! [`Context::attach_stream`](crate::server::Context::attach_stream).

use std::pin::pin;

use futures_core::Stream;

use crate::process::handle::Process;
use crate::process::spawn::SpawnOptions;
use crate::values::exit::Down;
use crate::values::pid::{Pid, ProcessId};

/// What the forwarder of an attached stream takes: a cancel, or its target's `Down`.
#[derive(Debug)]
struct Control(ControlKind);

#[derive(Debug)]
enum ControlKind {
    Cancel,
    TargetDown,
}

impl From<Down> for Control {
    fn from(_: Down) -> Self {
        Control(ControlKind::TargetDown)
    }
}

/// A stream attached to a process by [`attach_stream`]: its forwarder, which can be
/// cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachedStream {
    forwarder: Pid<Control>,
}

impl AttachedStream {
    /// The forwarder process.
    pub fn id(&self) -> ProcessId {
        self.forwarder.id()
    }

    /// Stops forwarding: the forwarder unlinks from the target and ends normally, dropping
    /// the stream; no end message is sent. Items already forwarded stay in the target's
    /// mailbox. Does nothing if the stream has ended already.
    pub fn cancel(&self) {
        self.forwarder.send(Control(ControlKind::Cancel));
    }
}

/// Forwards every item of `stream` to `target` as `map(item)`, then `on_end()` when the
/// stream ends, from a forwarder process linked to `target`; returns the forwarder.
///
/// Items arrive in the stream's order, after messages the target had already been sent by
/// others and interleaved with later ones. A target with a bounded mailbox
/// ([`SpawnOptions::mailbox_bound`]) slows the forwarder down (it sends with
/// [`Pid::send_async`]): backpressure to the stream. When the target ends (with any reason)
/// the forwarder ends too and drops the stream. A panic in the stream or in `map` crashes
/// the forwarder, whose exit signal reaches the target through the link.
///
/// ```
/// use futures_util::StreamExt;
/// use mote::Process;
///
/// #[derive(Debug, PartialEq)]
/// enum Msg { Line(String), Closed }
///
/// mote::run(|mut p: Process<Msg>| async move {
///     let lines = futures_util::stream::iter(["hello", "world"]).map(String::from);
///     mote::attach_stream(p.pid(), lines, Msg::Line, || Msg::Closed);
///     assert_eq!(p.recv().await, Msg::Line("hello".into()));
///     assert_eq!(p.recv().await, Msg::Line("world".into()));
///     assert_eq!(p.recv().await, Msg::Closed);
/// })
/// .unwrap();
/// ```
pub fn attach_stream<M, S, F, E>(target: Pid<M>, stream: S, mut map: F, on_end: E) -> AttachedStream
where
    M: Send + 'static,
    S: Stream + Send + 'static,
    F: FnMut(S::Item) -> M + Send + 'static,
    E: FnOnce() -> M + Send + 'static,
{
    let forwarder =
        SpawnOptions::new()
            .link(target.id())
            .spawn(move |mut p: Process<Control>| async move {
                // A target already gone gives its `Down` at once.
                p.monitor(target);
                let mut stream = pin!(stream);
                loop {
                    let next = std::future::poll_fn(|cx| stream.as_mut().poll_next(cx));
                    let item = tokio::select! {
                        biased;
                        Control(control) = p.recv() => {
                            if let ControlKind::Cancel = control {
                                p.unlink(target);
                            }
                            return;
                        }
                        item = next => item.map(&mut map),
                    };
                    match item {
                        Some(message) => target.send_async(message).await,
                        None => {
                            target.send(on_end());
                            return;
                        }
                    }
                }
            });
    AttachedStream { forwarder }
}
