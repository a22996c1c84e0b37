//! Shared harness of the conformance tests (`semantics_*.rs`, `exit_signal_table.rs`).
//!
//! It re-creates the setting of `mote/tests/conformance/README.md`:
//!
//! * [`Driver`] is **O**, the test driver: the root process of one `mote::run`. It spawns
//!   every other process itself, unlinked, holds one monitor on each (only to learn how it
//!   ended), and renders the case's outcome line token by token in the reference's syntax
//!   (`A=alive`, `A.mbox=[{'EXIT',B,boom}]`, `B=dead:normal`).
//! * An *agent* ([`agent`]) is a process that does nothing but run O's commands. It takes
//!   commands with a selective receive, so everything else that arrives (`Exit`, `Down`,
//!   user messages) stays in its mailbox, in order, exactly as in the Erlang case; a "dump"
//!   command drains it with `try_recv` and sends the list back to O.
//!
//! Every wait is bounded ([`WAIT`]): a test fails with a message, it never hangs.
#![allow(dead_code)]

use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::time::{Duration, Instant};

use mote::{Down, Exit, ExitReason, LinkError, MonitorRef, Pid, Process, ProcessId, RegistryError};

/// The longest any single wait may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(5);

/// What O waits after a case's last step before reading the state (the reference: "After
/// the last step O waits about 30 ms"). Always *in addition* to awaiting the event itself.
pub const SETTLE: Duration = Duration::from_millis(30);

/// The type-erased value a command returns to O.
pub type Reply = Box<dyn Any + Send>;
/// A command O asks an agent to run in its own process.
pub type Command = Box<dyn FnOnce(&mut Process<Msg>) -> Reply + Send>;

/// An agent's mailbox.
pub enum Msg {
    /// Run `f`, send its result to `reply_to`.
    Cmd {
        tag: u64,
        reply_to: Pid<OMsg>,
        f: Command,
    },
    /// Return from the process function (exit reason `normal`).
    Return,
    /// An ordinary message (an Erlang atom).
    User(&'static str),
    /// A monitor fired.
    Down(Down),
    /// A trapped exit signal.
    Exit(Exit),
}

impl From<Down> for Msg {
    fn from(d: Down) -> Self {
        Msg::Down(d)
    }
}

impl From<Exit> for Msg {
    fn from(e: Exit) -> Self {
        Msg::Exit(e)
    }
}

impl fmt::Debug for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Msg::Cmd { tag, .. } => write!(f, "Cmd#{tag}"),
            Msg::Return => f.write_str("Return"),
            Msg::User(s) => write!(f, "User({s})"),
            Msg::Down(d) => write!(f, "{d:?}"),
            Msg::Exit(e) => write!(f, "{e:?}"),
        }
    }
}

/// One message found in an agent's mailbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    User(&'static str),
    Down(Down),
    Exit(Exit),
    /// A control message of the harness (never expected; shows up if the harness is wrong).
    Control,
}

impl From<Msg> for Entry {
    fn from(m: Msg) -> Self {
        match m {
            Msg::User(s) => Entry::User(s),
            Msg::Down(d) => Entry::Down(d),
            Msg::Exit(e) => Entry::Exit(e),
            Msg::Cmd { .. } | Msg::Return => Entry::Control,
        }
    }
}

/// O's mailbox.
pub enum OMsg {
    /// An agent's answer to command `tag`.
    Reply(u64, Reply),
    Down(Down),
    Exit(Exit),
}

impl From<Down> for OMsg {
    fn from(d: Down) -> Self {
        OMsg::Down(d)
    }
}

impl From<Exit> for OMsg {
    fn from(e: Exit) -> Self {
        OMsg::Exit(e)
    }
}

/// The body of an agent process: runs O's commands until told to return.
pub async fn agent(mut p: Process<Msg>) {
    loop {
        match p
            .recv_matching(|m| matches!(m, Msg::Cmd { .. } | Msg::Return))
            .await
        {
            Msg::Cmd { tag, reply_to, f } => {
                let out = f(&mut p);
                reply_to.send(OMsg::Reply(tag, out));
            }
            Msg::Return => return,
            other => unreachable!("selective receive returned {other:?}"),
        }
    }
}

/// Drains a mailbox without waiting, oldest first.
pub fn drain(p: &mut Process<Msg>) -> Vec<Entry> {
    let mut out = Vec::new();
    while let Some(m) = p.try_recv() {
        out.push(Entry::from(m));
    }
    out
}

/// Renders an exit reason as the reference writes it.
///
/// `ExitReason::Panic(msg)` is rendered `panic(msg)`: a documented deviation (rustdoc of
/// `ExitReason`: "A panic carries its message (Erlang's `{Reason, Stacktrace}`, without the
/// stack trace)"), so the cases with a crash expect `panic(boom)` where the BEAM wrote
/// `{boom,<stacktrace>}`.
pub fn reason(r: &ExitReason) -> String {
    match r {
        ExitReason::Panic(msg) => format!("panic({msg})"),
        other => other.to_string(),
    }
}

/// `true`, or `error:noproc` (Erlang's `link/1`).
pub fn link_result(r: &Result<(), LinkError>) -> String {
    match r {
        Ok(()) => "true".into(),
        Err(LinkError::NoProc) => "error:noproc".into(),
    }
}

/// `true`, or `error:badarg` for any registry error (Erlang raises `badarg` for all of them;
/// mote's typed variant is checked separately by the tests).
pub fn registry_result(r: &Result<(), RegistryError>) -> String {
    match r {
        Ok(()) => "true".into(),
        Err(_) => "error:badarg".into(),
    }
}

/// Runs a case: `body` gets O and returns the outcome tokens; the result is the case's
/// outcome line, `CASE <id> <tokens>`.
pub fn run_case<F, Fut>(id: &str, body: F) -> String
where
    F: FnOnce(Driver) -> Fut,
    Fut: Future<Output = Vec<String>> + Send + 'static,
{
    match mote::run(move |p: Process<OMsg>| body(Driver::new(p))) {
        Ok(tokens) => format!("CASE {id} {}", tokens.join(" ")),
        Err(e) => panic!("the driver O ended with {e:?} (see its panic message above)"),
    }
}

/// Polls `cond` until it holds, for at most [`WAIT`], from inside a process.
pub async fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !cond() {
        assert!(
            Instant::now() < deadline,
            "timed out after {WAIT:?} waiting until {what}"
        );
        mote::sleep(Duration::from_millis(1)).await;
    }
}

/// The test driver O.
pub struct Driver {
    /// O's own process handle.
    pub p: Process<OMsg>,
    names: HashMap<ProcessId, String>,
    refs: HashMap<MonitorRef, String>,
    watched: HashMap<ProcessId, MonitorRef>,
    dead: HashMap<ProcessId, ExitReason>,
    tag: u64,
}

impl Driver {
    pub fn new(p: Process<OMsg>) -> Self {
        let mut names = HashMap::new();
        names.insert(p.id(), "O".to_string());
        Driver {
            p,
            names,
            refs: HashMap::new(),
            watched: HashMap::new(),
            dead: HashMap::new(),
            tag: 0,
        }
    }

    /// O's id.
    pub fn id(&self) -> ProcessId {
        self.p.id()
    }

    /// Names a process for rendering.
    pub fn name(&mut self, id: impl Into<ProcessId>, name: &str) {
        self.names.insert(id.into(), name.to_string());
    }

    /// Names a monitor reference for rendering.
    pub fn name_ref(&mut self, r: MonitorRef, name: &str) {
        self.refs.insert(r, name.to_string());
    }

    /// A process's name (or its pid if unnamed).
    pub fn show(&self, id: impl Into<ProcessId>) -> String {
        let id = id.into();
        self.names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    /// A reference's name (or `#Ref<n>` if unnamed).
    pub fn show_ref(&self, r: MonitorRef) -> String {
        self.refs
            .get(&r)
            .cloned()
            .unwrap_or_else(|| format!("{r:?}"))
    }

    /// An Erlang rendering of a mailbox entry.
    pub fn show_entry(&self, e: &Entry) -> String {
        match e {
            Entry::User(s) => s.to_string(),
            Entry::Exit(x) => format!("{{'EXIT',{},{}}}", self.show(x.from), reason(&x.reason)),
            Entry::Down(d) => {
                format!(
                    "{{'DOWN',{},process,{},{}}}",
                    self.show_ref(d.monitor),
                    self.show(d.pid),
                    reason(&d.reason)
                )
            }
            Entry::Control => "<harness control message>".into(),
        }
    }

    /// An Erlang rendering of a list of entries: `[a,b]`.
    pub fn show_list(&self, entries: &[Entry]) -> String {
        let items: Vec<String> = entries.iter().map(|e| self.show_entry(e)).collect();
        format!("[{}]", items.join(","))
    }

    /// Spawns an agent named `name`, watched by O, trapping exits if `trap` (set before this
    /// returns, so before any of the case's steps).
    pub async fn agent(&mut self, name: &str, trap: bool) -> Pid<Msg> {
        let a = self.agent_unwatched(name);
        self.watch(a);
        if trap {
            let was = self
                .call(a, |p| p.trap_exit(true))
                .await
                .expect("a fresh agent is alive");
            assert!(!was, "a new process does not trap exits");
        }
        a
    }

    /// Spawns an agent that O does not monitor yet (see [`Driver::watch`]). It cannot be
    /// called until it is watched.
    pub fn agent_unwatched(&mut self, name: &str) -> Pid<Msg> {
        let a = mote::spawn(agent);
        self.name(a, name);
        a
    }

    /// O monitors `id` (to learn how it ends).
    pub fn watch(&mut self, id: impl Into<ProcessId>) {
        let id = id.into();
        let r = self.p.monitor(id);
        self.watched.insert(id, r);
    }

    /// Asks agent `a` to run `f` in its process and waits for the result; `Err(reason)` if
    /// `a` ended (before or while running it).
    pub async fn call<R, F>(&mut self, a: Pid<Msg>, f: F) -> Result<R, ExitReason>
    where
        R: Send + 'static,
        F: FnOnce(&mut Process<Msg>) -> R + Send + 'static,
    {
        let id = a.id();
        if let Some(r) = self.dead.get(&id) {
            return Err(r.clone());
        }
        let Some(&mref) = self.watched.get(&id) else {
            panic!("the harness calls {} without watching it", self.show(id))
        };
        self.tag += 1;
        let tag = self.tag;
        a.send(Msg::Cmd {
            tag,
            reply_to: self.p.pid(),
            f: Box::new(move |p| Box::new(f(p)) as Reply),
        });
        let answer = self
            .p
            .recv_matching_timeout(
                |m| match m {
                    OMsg::Reply(t, _) => *t == tag,
                    OMsg::Down(d) => d.monitor == mref,
                    OMsg::Exit(_) => false,
                },
                WAIT,
            )
            .await;
        match answer {
            Some(OMsg::Reply(_, r)) => Ok(*r.downcast::<R>().expect("reply of the requested type")),
            Some(OMsg::Down(d)) => {
                self.dead.insert(id, d.reason.clone());
                Err(d.reason)
            }
            Some(OMsg::Exit(_)) => unreachable!(),
            None => panic!(
                "{} neither answered nor died within {WAIT:?}",
                self.show(id)
            ),
        }
    }

    /// "X's function returns": agent `a` returns from its process function (reason normal).
    pub fn finish(&mut self, a: Pid<Msg>) {
        a.send(Msg::Return);
    }

    /// "X exits with reason R": agent `a` calls `exit/1` (mote: `Process::exit`). Returns
    /// the reason O's monitor saw.
    pub async fn exit_self(&mut self, a: Pid<Msg>, r: ExitReason) -> ExitReason {
        match self.call::<(), _>(a, move |p| p.exit(r)).await {
            Ok(()) => panic!("Process::exit returned"),
            Err(reason) => reason,
        }
    }

    /// Waits (at most [`WAIT`]) until O's monitor reports `id` dead; its exit reason.
    pub async fn wait_dead(&mut self, id: impl Into<ProcessId>) -> ExitReason {
        let id = id.into();
        if let Some(r) = self.dead.get(&id) {
            return r.clone();
        }
        let Some(&mref) = self.watched.get(&id) else {
            panic!(
                "the harness waits for {} without watching it",
                self.show(id)
            )
        };
        let down = self
            .p
            .recv_matching_timeout(|m| matches!(m, OMsg::Down(d) if d.monitor == mref), WAIT)
            .await;
        match down {
            Some(OMsg::Down(d)) => {
                self.dead.insert(id, d.reason.clone());
                d.reason
            }
            _ => panic!("{} did not end within {WAIT:?}", self.show(id)),
        }
    }

    /// A pid whose process has already ended ("D is dead"), named `name`.
    pub async fn dead_pid(&mut self, name: &str) -> ProcessId {
        self.dead_typed::<()>(name).await.id()
    }

    /// A typed pid whose process has already ended, named `name`.
    pub async fn dead_typed<M: Send + 'static>(&mut self, name: &str) -> Pid<M> {
        let d = mote::spawn(|_d: Process<M>| async {});
        self.name(d, name);
        self.watch(d);
        let r = self.wait_dead(d).await;
        // O's monitor may come after D's end (then `noproc`); either way D is gone.
        assert!(
            r == ExitReason::Normal || r == ExitReason::NoProc,
            "D ended with {r:?}"
        );
        assert!(!mote::is_alive(d));
        d
    }

    /// O's "wait about 30 ms" before reading the state.
    pub async fn settle(&mut self) {
        mote::sleep(SETTLE).await;
    }

    /// `alive` or `dead:R` for an agent. An agent is alive if it answers O (an exit signal
    /// that reached it before O asks ends it before it answers).
    pub async fn fate(&mut self, a: Pid<Msg>) -> String {
        match self.call(a, |_| ()).await {
            Ok(()) => "alive".into(),
            Err(r) => format!("dead:{}", reason(&r)),
        }
    }

    /// `alive` or `dead:R` for any watched process (not an agent).
    pub async fn fate_of(&mut self, id: impl Into<ProcessId>) -> String {
        let id = id.into();
        if let Some(r) = self.dead.get(&id) {
            return format!("dead:{}", reason(r));
        }
        let Some(&mref) = self.watched.get(&id) else {
            panic!(
                "the harness asks how {} ended without watching it",
                self.show(id)
            )
        };
        if let Some(OMsg::Down(d)) = self
            .p
            .recv_matching_timeout(
                |m| matches!(m, OMsg::Down(d) if d.monitor == mref),
                Duration::ZERO,
            )
            .await
        {
            self.dead.insert(id, d.reason.clone());
            return format!("dead:{}", reason(&d.reason));
        }
        if mote::is_alive(id) {
            "alive".into()
        } else {
            format!("dead:{}", reason(&self.wait_dead(id).await))
        }
    }

    /// Agent `a`'s whole mailbox, oldest first (drained).
    pub async fn mbox(&mut self, a: Pid<Msg>) -> Result<Vec<Entry>, ExitReason> {
        self.call(a, drain).await
    }

    /// `X=alive` / `X=dead:R` token for agent `a`.
    pub async fn fate_tok(&mut self, a: Pid<Msg>) -> String {
        format!("{}={}", self.show(a), self.fate(a).await)
    }

    /// `X.mbox=[...]` token for agent `a`.
    pub async fn mbox_tok(&mut self, a: Pid<Msg>) -> String {
        let rendered = match self.mbox(a).await {
            Ok(entries) => self.show_list(&entries),
            Err(r) => format!("<dead:{}>", reason(&r)),
        };
        format!("{}.mbox={rendered}", self.show(a))
    }
}
