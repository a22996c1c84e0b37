//! A TCP chat server, OTP-shaped: one process per connection under a dynamic supervisor,
//! and one room server that knows who is in.
//!
//! ```text
//! chat (rest-for-one supervisor)
//! ├── room      a server with typed requests: Join, Say, Who
//! ├── sessions  a dynamic supervisor: one temporary session process per connection
//! └── acceptor  accepts connections and starts a session for each
//! ```
//!
//! Each session owns its socket: the accepted `TcpStream` is moved into the child by a
//! one-shot start (`ChildSpec::temporary_once`), the socket's lines arrive in the session's
//! mailbox as messages (`mote::attach_stream`), and the room's broadcasts arrive there too.
//! The room monitors every session, so one that crashes leaves the room; its crash report
//! is printed (or goes to your `tracing` subscriber) and every other session goes on.
//!
//! Run it with `cargo run -p examples --example chat_server [ADDR]` (default
//! `127.0.0.1:4000`) and connect with `nc 127.0.0.1 4000`: the first line is your nickname,
//! then every line is said to the room; `/who` lists who is in, `/crash` makes your
//! session panic, `/quit` leaves.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures_util::stream;
use mote::server::{self, Context, Handles, Next, Request, Server, ServerRef};
use mote::supervisor::{
    ChildSpec, DynamicSupervisor, DynamicSupervisorRef, Strategy, Supervisor, SupervisorRef,
};
use mote::{Down, ExitReason, MonitorRef, Pid, Process, ProcessId, SpawnOptions};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// What a session's mailbox takes: its socket's lines, the end of its socket, and what the
/// room sends it.
#[derive(Debug)]
pub enum SessionMsg {
    /// A line its client sent.
    Line(String),
    /// Its client closed the connection.
    Closed,
    /// A line for its client, from the room.
    Deliver(Arc<str>),
}

/// The room: the sessions in it by nickname, each monitored.
#[derive(Default)]
pub struct Room {
    members: BTreeMap<String, (Pid<SessionMsg>, MonitorRef)>,
}

impl Room {
    /// Sends `line` to every member but `except`.
    fn broadcast(&self, line: &str, except: &str) -> usize {
        let line: Arc<str> = format!("{line}\n").into();
        let mut sent = 0;
        for (name, (pid, _)) in &self.members {
            if name != except {
                pid.send(SessionMsg::Deliver(Arc::clone(&line)));
                sent += 1;
            }
        }
        sent
    }
}

impl Server for Room {
    type Call = ();
    type Reply = ();
    type Cast = ();
    type Info = ();

    /// A session ended (crashed, or its client went away): it leaves the room.
    async fn handle_down(&mut self, down: Down, _: &mut Context<Self>) -> Next {
        let gone = self
            .members
            .iter()
            .find(|(_, (_, r))| *r == down.monitor)
            .map(|(name, _)| name.clone());
        if let Some(name) = gone {
            self.members.remove(&name);
            self.broadcast(&format!("* {name} left"), &name);
        }
        Next::Continue
    }
}

/// Join the room as `name`; the reply lists who was already in.
#[derive(Request)]
#[reply(Result<Vec<String>, NameTaken>)]
pub struct Join {
    /// The nickname.
    pub name: String,
    /// The session that joins.
    pub session: Pid<SessionMsg>,
}

/// A nickname someone else has.
#[derive(Debug, PartialEq)]
pub struct NameTaken;

impl Handles<Join> for Room {
    async fn handle(
        &mut self,
        join: Join,
        ctx: &mut Context<Self>,
    ) -> Result<Vec<String>, NameTaken> {
        if self.members.contains_key(&join.name) {
            return Err(NameTaken);
        }
        let before = self.members.keys().cloned().collect();
        self.broadcast(&format!("* {} joined", join.name), &join.name);
        let monitor = ctx.monitor(join.session);
        self.members.insert(join.name, (join.session, monitor));
        Ok(before)
    }
}

/// Say `text` as `from`; the reply is how many others heard it.
#[derive(Request)]
#[reply(usize)]
pub struct Say {
    /// Who speaks.
    pub from: String,
    /// What they say.
    pub text: String,
}

impl Handles<Say> for Room {
    async fn handle(&mut self, say: Say, _: &mut Context<Self>) -> usize {
        self.broadcast(&format!("{}: {}", say.from, say.text), &say.from)
    }
}

/// Who is in the room, in name order.
#[derive(Request)]
#[reply(Vec<String>)]
pub struct Who;

impl Handles<Who> for Room {
    async fn handle(&mut self, _: Who, _: &mut Context<Self>) -> Vec<String> {
        self.members.keys().cloned().collect()
    }
}

/// Leave the room (a session that quits; one that ends otherwise leaves through its `Down`).
#[derive(Request)]
#[reply(())]
pub struct Leave(pub String);

impl Handles<Leave> for Room {
    async fn handle(&mut self, Leave(name): Leave, ctx: &mut Context<Self>) {
        if let Some((_, monitor)) = self.members.remove(&name) {
            ctx.process().demonitor_flush(monitor);
            self.broadcast(&format!("* {name} left"), &name);
        }
    }
}

/// One connection: asks for a nickname, joins, then relays lines both ways until its
/// client quits or goes away.
async fn session(
    mut p: Process<SessionMsg>,
    socket: TcpStream,
    room: ServerRef<Room>,
) -> Result<(), ExitReason> {
    let (read, mut write) = socket.into_split();
    let lines = stream::unfold(BufReader::new(read).lines(), |mut lines| async move {
        // A read error ends the stream like a close does.
        let line = lines.next_line().await.ok().flatten()?;
        Some((line, lines))
    });
    mote::attach_stream(p.pid(), lines, SessionMsg::Line, || SessionMsg::Closed);

    write.write_all(b"nickname?\n").await?;
    let name = loop {
        match p.recv().await {
            SessionMsg::Line(line) if !line.trim().is_empty() => break line.trim().to_string(),
            SessionMsg::Line(_) | SessionMsg::Deliver(_) => {}
            SessionMsg::Closed => return Ok(()),
        }
    };
    let join = Join {
        name: name.clone(),
        session: p.pid(),
    };
    match server::call(&room, join).await.map_err(call_failed)? {
        Ok(before) => {
            let welcome = format!("welcome {name}; here: {}\n", before.join(", "));
            write.write_all(welcome.as_bytes()).await?;
        }
        Err(NameTaken) => {
            write.write_all(b"that nickname is taken\n").await?;
            return Ok(());
        }
    }
    loop {
        match p.recv().await {
            SessionMsg::Line(line) => match line.trim() {
                "/quit" => break,
                "/crash" => panic!("{name} asked for a crash"),
                "/who" => {
                    let who = server::call(&room, Who).await.map_err(call_failed)?;
                    write
                        .write_all(format!("here: {}\n", who.join(", ")).as_bytes())
                        .await?;
                }
                text => {
                    let say = Say {
                        from: name.clone(),
                        text: text.to_string(),
                    };
                    server::call(&room, say).await.map_err(call_failed)?;
                }
            },
            SessionMsg::Deliver(line) => write.write_all(line.as_bytes()).await?,
            SessionMsg::Closed => break,
        }
    }
    let _ = server::call(&room, Leave(name)).await;
    Ok(())
}

fn call_failed(e: server::CallError) -> ExitReason {
    ExitReason::from(format!("room call failed: {e}"))
}

/// Accepts connections; each becomes a session under the `sessions` supervisor. It finds
/// its siblings through its supervisor (`chat`), by child id.
async fn acceptor(listener: Arc<TcpListener>, chat: ProcessId) -> Result<(), ExitReason> {
    let chat = SupervisorRef::from_id(chat).ok_or(ExitReason::NoProc)?;
    let children = chat
        .which_children()
        .await
        .map_err(|e| ExitReason::from(e.to_string()))?;
    let sibling = |id: &str| {
        children
            .iter()
            .find(|c| &*c.id == id)
            .and_then(|c| c.pid)
            .ok_or(ExitReason::NoProc)
    };
    let room = ServerRef::<Room>::from_id(sibling("room")?).ok_or(ExitReason::NoProc)?;
    let sessions = DynamicSupervisorRef::from_id(sibling("sessions")?).ok_or(ExitReason::NoProc)?;
    loop {
        let (socket, _) = listener.accept().await?;
        // The socket is moved into the child: a temporary child starts at most once.
        let spec = ChildSpec::temporary_once("session", move || async move {
            let pid = SpawnOptions::new()
                .linked()
                .spawn(move |p: Process<SessionMsg>| session(p, socket, room));
            Ok(pid.id())
        });
        if let Err(e) = sessions.start_child(spec).await {
            eprintln!("chat: could not start a session: {e}");
        }
    }
}

/// Starts the chat service on `listener`, linked to the caller: its top supervisor.
pub async fn start(listener: TcpListener) -> Result<SupervisorRef, server::StartError> {
    let listener = Arc::new(listener);
    let acceptor = ChildSpec::new("acceptor", move || {
        let listener = Arc::clone(&listener);
        // The start function runs in the supervisor: this is its id.
        let chat = mote::self_id().expect("a start function runs in its supervisor");
        async move {
            let pid = SpawnOptions::new()
                .linked()
                .spawn(move |_p: Process<()>| acceptor(listener, chat));
            Ok(pid.id())
        }
    });
    Supervisor::new(Strategy::RestForOne)
        .child(ChildSpec::server("room", Room::default))
        .child(DynamicSupervisor::new().into_child_spec("sessions"))
        .child(acceptor)
        .start_link()
        .await
}

#[allow(dead_code)] // the integration test includes this file for `start`
fn main() {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:4000".into());
    let ended = mote::run(|mut p: Process<()>| async move {
        let listener = TcpListener::bind(&addr).await?;
        println!("chat: listening on {}", listener.local_addr()?);
        let chat = start(listener).await.map_err(ExitReason::from)?;
        println!("chat: supervisor {}; Ctrl-C to stop", chat.id());
        p.recv().await; // forever
        Ok::<(), ExitReason>(())
    });
    if let Ok(Err(reason)) | Err(reason) = ended {
        eprintln!("chat: ended with {reason}");
    }
}
