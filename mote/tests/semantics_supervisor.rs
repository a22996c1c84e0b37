//! Conformance: supervisors (cases P30-P34 of `mote/tests/conformance/README.md`).
//!
//! The common setup of the reference: O starts the supervisor with `start_link` (O is its
//! parent), then unlinks from it. The workers w1, w2, w3 are servers, permanent, shutdown
//! timeout 5000 ms, started in list order; each tells O `{started, Tag, Pid}` from its init.
//! Intensity: at most 3 restarts in 5 s. A restarted worker is written with a prime: w2'.

use std::collections::HashMap;
use std::time::Duration;

use mote::server::{Context, Next, Server};
use mote::supervisor::{ChildSpec, Shutdown, Strategy, Supervisor, SupervisorRef};
use mote::{Down, ExitReason, MonitorRef, Pid, Process, ProcessId};

/// The longest any wait may take before the test fails.
const WAIT: Duration = Duration::from_secs(5);
/// "O waits about 30 ms" before reading the state.
const SETTLE: Duration = Duration::from_millis(30);

enum OMsg {
    Started(&'static str, ProcessId),
    Terminated(&'static str, ExitReason),
    Down(Down),
}

impl From<Down> for OMsg {
    fn from(d: Down) -> Self {
        OMsg::Down(d)
    }
}

struct Worker {
    tag: &'static str,
    o: Pid<OMsg>,
    trap: bool,
}

impl Server for Worker {
    type Call = ();
    type Reply = ();
    type Cast = ();
    type Info = ();

    async fn init(&mut self, ctx: &mut Context<Self>) -> Result<(), ExitReason> {
        if self.trap {
            ctx.trap_exit(true);
        }
        self.o.send(OMsg::Started(self.tag, ctx.id()));
        Ok(())
    }

    async fn handle_call(
        &mut self,
        _: (),
        from: mote::server::ReplyTo<()>,
        _: &mut Context<Self>,
    ) -> Next {
        from.reply(());
        Next::Continue
    }

    async fn terminate(&mut self, reason: &ExitReason, _ctx: &mut Context<Self>) {
        self.o.send(OMsg::Terminated(self.tag, reason.clone()));
    }
}

/// O: the root process, with the names it gives pids and the monitors it holds.
struct O {
    p: Process<OMsg>,
    names: HashMap<ProcessId, String>,
    monitors: HashMap<ProcessId, MonitorRef>,
    dead: HashMap<ProcessId, ExitReason>,
}

impl O {
    /// Starts the supervisor as the setup says; returns it once every worker has started.
    async fn setup(
        p: Process<OMsg>,
        strategy: Strategy,
        tags: &[&'static str],
        trap: bool,
    ) -> (O, SupervisorRef) {
        let mut sup = Supervisor::new(strategy).intensity(3, Duration::from_secs(5));
        let o_pid = p.pid();
        for &tag in tags {
            let spec = ChildSpec::server(tag, move || Worker {
                tag,
                o: o_pid,
                trap,
            })
            .shutdown(Shutdown::Timeout(Duration::from_millis(5000)));
            sup = sup.child(spec);
        }
        let s = sup.start_link().await.expect("the supervisor starts");
        p.unlink(s.id());
        let mut o = O {
            p,
            names: HashMap::new(),
            monitors: HashMap::new(),
            dead: HashMap::new(),
        };
        o.name(s.id(), "Sup");
        for &tag in tags {
            let pid = o.started(tag).await.expect("each worker starts");
            o.name(pid, tag);
        }
        (o, s)
    }

    fn name(&mut self, id: ProcessId, name: &str) {
        self.names.insert(id, name.to_string());
        let r = self.p.monitor(id);
        self.monitors.insert(id, r);
    }

    fn show(&self, id: ProcessId) -> String {
        self.names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    /// The `{started, tag, Pid}` message of `tag`, within `wait`.
    async fn started_within(&mut self, tag: &str, wait: Duration) -> Option<ProcessId> {
        match self
            .p
            .recv_matching_timeout(|m| matches!(m, OMsg::Started(t, _) if *t == tag), wait)
            .await
        {
            Some(OMsg::Started(_, pid)) => Some(pid),
            _ => None,
        }
    }

    async fn started(&mut self, tag: &str) -> Option<ProcessId> {
        self.started_within(tag, WAIT).await
    }

    /// Every `started` message now in the mailbox, in order.
    async fn all_started(&mut self) -> Vec<(&'static str, ProcessId)> {
        let mut out = Vec::new();
        while let Some(OMsg::Started(t, pid)) = self
            .p
            .recv_matching_timeout(|m| matches!(m, OMsg::Started(..)), Duration::ZERO)
            .await
        {
            out.push((t, pid));
        }
        out
    }

    /// Waits (bounded) for restarts of `tags`, in whatever order they come; returns the
    /// order, and names each new pid with a prime.
    async fn restarts(&mut self, count: usize) -> Vec<&'static str> {
        let mut order = Vec::new();
        while order.len() < count {
            match self
                .p
                .recv_matching_timeout(|m| matches!(m, OMsg::Started(..)), WAIT)
                .await
            {
                Some(OMsg::Started(t, pid)) => {
                    self.name(pid, &format!("{t}'"));
                    order.push(t);
                }
                _ => panic!("only {order:?} restarted within {WAIT:?}"),
            }
        }
        order
    }

    /// `alive` or `dead:R`.
    async fn fate(&mut self, id: ProcessId) -> String {
        let wait = if mote::is_alive(id) {
            Duration::ZERO
        } else {
            WAIT
        };
        self.fate_within(id, wait).await
    }

    /// `dead:R` once `id` has ended (bounded wait), else `alive`.
    async fn fate_within(&mut self, id: ProcessId, wait: Duration) -> String {
        if let Some(r) = self.dead.get(&id) {
            return format!("dead:{r}");
        }
        let r = self.monitors[&id];
        match self
            .p
            .recv_matching_timeout(|m| matches!(m, OMsg::Down(d) if d.monitor == r), wait)
            .await
        {
            Some(OMsg::Down(d)) => {
                self.dead.insert(id, d.reason.clone());
                format!("dead:{}", d.reason)
            }
            _ => "alive".into(),
        }
    }

    async fn children(&self, sup: &SupervisorRef) -> String {
        let mut kids: Vec<(String, String)> = sup
            .which_children()
            .await
            .unwrap()
            .into_iter()
            .map(|c| {
                (
                    c.id.to_string(),
                    c.pid.map_or("undefined".into(), |p| self.show(p)),
                )
            })
            .collect();
        kids.sort();
        let items: Vec<String> = kids.iter().map(|(i, p)| format!("{{{i},{p}}}")).collect();
        format!("children=[{}]", items.join(","))
    }

    fn pid_of(&self, name: &str) -> ProcessId {
        *self.names.iter().find(|(_, n)| *n == name).unwrap().0
    }
}

fn list(tags: &[&str]) -> String {
    format!("[{}]", tags.join(","))
}

fn run_case<F, Fut>(id: &str, body: F) -> String
where
    F: FnOnce(Process<OMsg>) -> Fut,
    Fut: std::future::Future<Output = Vec<String>> + Send + 'static,
{
    let tokens = mote::run(body).expect("O runs to the end");
    format!("CASE {id} {}", tokens.join(" "))
}

#[test]
fn p30_sup_one_for_one() {
    let line = run_case("P30-sup-one-for-one", |p| async move {
        let (mut o, sup) = O::setup(p, Strategy::OneForOne, &["w1", "w2", "w3"], false).await;
        let w2 = o.pid_of("w2");
        mote::exit(w2, ExitReason::Kill);
        let restarted = o.restarts(1).await;
        mote::sleep(SETTLE).await;
        let extra: Vec<&str> = o.all_started().await.iter().map(|(t, _)| *t).collect();
        let mut tokens = vec![
            format!("restarted={}", list(&restarted)),
            format!("extra_restarts={}", list(&extra)),
        ];
        for w in ["w1", "w2", "w3"] {
            let id = o.pid_of(w);
            tokens.push(format!("{w}={}", o.fate(id).await));
        }
        tokens.push(o.children(&sup).await);
        tokens.push(format!("Sup={}", o.fate(sup.id()).await));
        tokens
    });
    assert_eq!(
        line,
        "CASE P30-sup-one-for-one restarted=[w2] extra_restarts=[] w1=alive w2=dead:killed w3=alive children=[{w1,w1},{w2,w2'},{w3,w3}] Sup=alive"
    );
}

#[test]
fn p31_sup_intensity() {
    let line = run_case("P31-sup-intensity", |p| async move {
        let (mut o, sup) = O::setup(p, Strategy::OneForOne, &["w1", "w2"], false).await;
        let mut current = o.pid_of("w1");
        let mut steps = Vec::new();
        for k in 1..=4 {
            mote::exit(current, ExitReason::Kill);
            match o.started_within("w1", Duration::from_millis(300)).await {
                Some(pid) => {
                    steps.push(format!("kill{k}:restarted"));
                    current = pid;
                }
                None => steps.push(format!("kill{k}:not_restarted")),
            }
        }
        let w2 = o.pid_of("w2");
        vec![
            format!("steps={}", steps.join(",")),
            format!("Sup={}", o.fate(sup.id()).await),
            format!("w2={}", o.fate(w2).await),
        ]
    });
    assert_eq!(
        line,
        "CASE P31-sup-intensity steps=kill1:restarted,kill2:restarted,kill3:restarted,kill4:not_restarted Sup=dead:shutdown w2=dead:shutdown"
    );
}

/// P32 and P33: kill w2, report the restart order and every worker's fate.
async fn kill_w2_and_report(mut o: O, sup: SupervisorRef, expected_restarts: usize) -> Vec<String> {
    let w2 = o.pid_of("w2");
    mote::exit(w2, ExitReason::Kill);
    let order = o.restarts(expected_restarts).await;
    mote::sleep(SETTLE).await;
    let extra: Vec<&str> = o.all_started().await.iter().map(|(t, _)| *t).collect();
    let mut tokens = vec![
        format!("restart_order={}", list(&order)),
        format!("extra_restarts={}", list(&extra)),
    ];
    for w in ["w1", "w2", "w3"] {
        let id = o.pid_of(w);
        tokens.push(format!("{w}={}", o.fate(id).await));
    }
    tokens.push(o.children(&sup).await);
    tokens.push(format!("Sup={}", o.fate(sup.id()).await));
    tokens
}

#[test]
fn p32_sup_rest_for_one() {
    let line = run_case("P32-sup-rest-for-one", |p| async move {
        let (o, sup) = O::setup(p, Strategy::RestForOne, &["w1", "w2", "w3"], false).await;
        kill_w2_and_report(o, sup, 2).await
    });
    assert_eq!(
        line,
        "CASE P32-sup-rest-for-one restart_order=[w2,w3] extra_restarts=[] w1=alive w2=dead:killed w3=dead:shutdown children=[{w1,w1},{w2,w2'},{w3,w3'}] Sup=alive"
    );
}

#[test]
fn p33_sup_one_for_all() {
    let line = run_case("P33-sup-one-for-all", |p| async move {
        let (o, sup) = O::setup(p, Strategy::OneForAll, &["w1", "w2", "w3"], false).await;
        kill_w2_and_report(o, sup, 3).await
    });
    assert_eq!(
        line,
        "CASE P33-sup-one-for-all restart_order=[w1,w2,w3] extra_restarts=[] w1=dead:shutdown w2=dead:killed w3=dead:shutdown children=[{w1,w1'},{w2,w2'},{w3,w3'}] Sup=alive"
    );
}

#[test]
fn p34_sup_shutdown_order() {
    let line = run_case("P34-sup-shutdown-order", |p| async move {
        let (mut o, sup) = O::setup(p, Strategy::OneForOne, &["w1", "w2", "w3"], true).await;
        mote::exit(sup.id(), ExitReason::Shutdown);
        let sup_fate = o.fate_within(sup.id(), WAIT).await;
        let mut order = Vec::new();
        while let Some(OMsg::Terminated(tag, reason)) =
            o.p.recv_matching_timeout(|m| matches!(m, OMsg::Terminated(..)), Duration::ZERO)
                .await
        {
            order.push(format!("{{{tag},{reason}}}"));
        }
        let mut tokens = vec![
            format!("terminate_order=[{}]", order.join(",")),
            format!("Sup={sup_fate}"),
        ];
        for w in ["w1", "w2", "w3"] {
            let id = o.pid_of(w);
            tokens.push(format!("{w}={}", o.fate(id).await));
        }
        tokens
    });
    assert_eq!(
        line,
        "CASE P34-sup-shutdown-order terminate_order=[{w3,shutdown},{w2,shutdown},{w1,shutdown}] Sup=dead:shutdown w1=dead:shutdown w2=dead:shutdown w3=dead:shutdown"
    );
}
