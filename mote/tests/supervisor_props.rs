//! Property test of a real supervisor's restart bookkeeping against a model.
//!
//! A random strategy, 1 to 5 permanent server children, a restart intensity of `max` in 0..4
//! per hour (so only counts matter), and a random sequence of kills (by child index). The
//! model says, for each kill, which children get new pids (one_for_one: the killed one;
//! rest_for_one: it and those after it; one_for_all: all), in which order they restart
//! (start order), and whether the supervisor gives up (one restart more than `max`: it
//! stops every child and ends with `shutdown`). Each worker reports `Started(index, pid)`
//! to the test process from its `init`, so the test waits (bounded) for exactly the restarts
//! the model expects, then checks `which_children` and that no other restart happened.

use std::time::{Duration, Instant};

use mote::server::{Context, Server};
use mote::supervisor::{ChildSpec, Strategy, Supervisor, SupervisorRef};
use mote::{Down, ExitReason, Pid, Process, ProcessId};
use proptest::prelude::*;

/// The longest any single wait may take before the case fails.
const WAIT: Duration = Duration::from_secs(5);
const HOUR: Duration = Duration::from_secs(3600);

enum TMsg {
    Started(usize, ProcessId),
    Down(Down),
}

impl From<Down> for TMsg {
    fn from(d: Down) -> Self {
        TMsg::Down(d)
    }
}

struct Worker {
    index: usize,
    t: Pid<TMsg>,
}

impl Server for Worker {
    type Call = ();
    type Reply = ();
    type Cast = ();
    type Info = ();

    async fn init(&mut self, ctx: &mut Context<Self>) -> Result<(), ExitReason> {
        self.t.send(TMsg::Started(self.index, ctx.id()));
        Ok(())
    }
}

/// The model's answer to one kill.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// These children (indices, in start order) restart.
    Restart(Vec<usize>),
    /// The supervisor gives up.
    GiveUp,
}

struct Model {
    strategy: Strategy,
    n: usize,
    max: u32,
    restarts: u32,
}

impl Model {
    fn kill(&mut self, k: usize) -> Step {
        self.restarts += 1;
        if self.restarts > self.max {
            return Step::GiveUp;
        }
        Step::Restart(match self.strategy {
            Strategy::OneForOne => vec![k],
            Strategy::RestForOne => (k..self.n).collect(),
            Strategy::OneForAll => (0..self.n).collect(),
        })
    }
}

/// Bounded wait for the next `count` starts, in arrival order.
async fn starts(p: &mut Process<TMsg>, count: usize) -> Result<Vec<(usize, ProcessId)>, String> {
    let mut out = Vec::new();
    while out.len() < count {
        match p
            .recv_matching_timeout(|m| matches!(m, TMsg::Started(..)), WAIT)
            .await
        {
            Some(TMsg::Started(i, pid)) => out.push((i, pid)),
            _ => return Err(format!("only {out:?} of {count} starts within {WAIT:?}")),
        }
    }
    Ok(out)
}

/// Starts already queued (none expected).
async fn queued_starts(p: &mut Process<TMsg>) -> Vec<usize> {
    let mut out = Vec::new();
    while let Some(TMsg::Started(i, _)) = p
        .recv_matching_timeout(|m| matches!(m, TMsg::Started(..)), Duration::ZERO)
        .await
    {
        out.push(i);
    }
    out
}

async fn pids(sup: &SupervisorRef) -> Result<Vec<Option<ProcessId>>, String> {
    let children = sup
        .which_children()
        .await
        .map_err(|e| format!("which_children: {e}"))?;
    Ok(children.iter().map(|c| c.pid).collect())
}

fn strategy() -> impl proptest::strategy::Strategy<Value = Strategy> {
    prop_oneof![
        Just(Strategy::OneForOne),
        Just(Strategy::RestForOne),
        Just(Strategy::OneForAll),
    ]
}

macro_rules! check {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

/// Runs one case in a fresh root process; `Err` describes the first disagreement.
async fn case(
    mut p: Process<TMsg>,
    strategy: Strategy,
    n: usize,
    max: u32,
    kills: Vec<usize>,
) -> Result<(), String> {
    let t = p.pid();
    let mut sup = Supervisor::new(strategy).intensity(max, HOUR);
    for index in 0..n {
        sup = sup.child(ChildSpec::server(format!("w{index}"), move || Worker {
            index,
            t,
        }));
    }
    // Unlinked: a supervisor that gives up must not take the test process with it.
    let sup = sup.start().await.map_err(|e| format!("start: {e}"))?;
    let sup_monitor = p.monitor(sup.id());
    let first = starts(&mut p, n).await?;
    let order: Vec<usize> = first.iter().map(|s| s.0).collect();
    check!(
        order == (0..n).collect::<Vec<_>>(),
        "initial start order {order:?}"
    );
    let mut current: Vec<ProcessId> = first.iter().map(|s| s.1).collect();
    check!(
        pids(&sup).await? == current.iter().copied().map(Some).collect::<Vec<_>>(),
        "which_children after start"
    );

    let mut model = Model {
        strategy,
        n,
        max,
        restarts: 0,
    };
    for (step, &pick) in kills.iter().enumerate() {
        let k = pick % n;
        mote::exit(current[k], ExitReason::Kill);
        match model.kill(k) {
            Step::Restart(set) => {
                let got = starts(&mut p, set.len()).await?;
                let order: Vec<usize> = got.iter().map(|s| s.0).collect();
                check!(
                    order == set,
                    "kill {step} of w{k}: restart order {order:?}, model {set:?}"
                );
                let before = current.clone();
                for &(i, pid) in &got {
                    check!(
                        !before.contains(&pid),
                        "kill {step}: w{i} restarted with an old pid"
                    );
                    current[i] = pid;
                }
                let now = pids(&sup).await?;
                check!(
                    now == current.iter().copied().map(Some).collect::<Vec<_>>(),
                    "kill {step} of w{k}: which_children {now:?}, expected {current:?}"
                );
                // The supervisor answered after the restarts: any other restart would
                // have reported its start by now.
                let extra = queued_starts(&mut p).await;
                check!(
                    extra.is_empty(),
                    "kill {step}: unexpected restarts {extra:?}"
                );
                for (i, &pid) in current.iter().enumerate() {
                    check!(mote::is_alive(pid), "kill {step}: w{i} is not alive");
                }
            }
            Step::GiveUp => {
                let down = p
                    .recv_matching_timeout(
                        |m| matches!(m, TMsg::Down(d) if d.monitor == sup_monitor),
                        WAIT,
                    )
                    .await;
                match down {
                    Some(TMsg::Down(d)) => check!(
                        d.reason == ExitReason::Shutdown,
                        "kill {step}: the supervisor ended with {:?}",
                        d.reason
                    ),
                    _ => return Err(format!("kill {step}: the supervisor did not give up")),
                }
                // It stopped its children before it ended.
                let deadline = Instant::now() + WAIT;
                while current.iter().any(|&pid| mote::is_alive(pid)) {
                    check!(
                        Instant::now() < deadline,
                        "kill {step}: children still alive after the supervisor ended"
                    );
                    mote::sleep(Duration::from_millis(1)).await;
                }
                let extra = queued_starts(&mut p).await;
                check!(extra.is_empty(), "restarts while giving up: {extra:?}");
                check!(
                    sup.which_children().await.is_err(),
                    "a dead supervisor answered"
                );
                return Ok(());
            }
        }
    }
    check!(
        mote::is_alive(sup.id()),
        "the supervisor ended though the model did not give up"
    );
    sup.stop(ExitReason::Shutdown, WAIT)
        .await
        .map_err(|e| format!("stop: {e}"))?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn restarts_follow_the_strategy_and_the_intensity(
        strategy in strategy(),
        n in 1usize..=5,
        max in 0u32..4,
        kills in proptest::collection::vec(0usize..5, 1..8),
    ) {
        let outcome = mote::run(move |p: Process<TMsg>| case(p, strategy, n, max, kills));
        prop_assert_eq!(outcome, Ok(Ok(())));
    }
}

#[test]
fn the_model_gives_up_on_the_restart_past_max() {
    let mut m = Model {
        strategy: Strategy::RestForOne,
        n: 3,
        max: 1,
        restarts: 0,
    };
    assert_eq!(m.kill(1), Step::Restart(vec![1, 2]));
    assert_eq!(m.kill(0), Step::GiveUp);
}
