//! The races where a runtime's promises are easiest to break, run many times each.

use std::collections::HashSet;
use std::time::Duration;

use anyhow::{bail, Result};
use mote::server::{CallError, Context, Next, ReplyTo, Server};
use mote::{Down, ExitReason, MonitorRef, Process, ProcessId, Signal};

use super::{count, in_run, wait_until, Report};
use crate::size::Size;

const WAIT: Duration = Duration::from_secs(30);

/// Lets other processes run `turns` times: the jitter that makes each round of a race end
/// differently, so both outcomes of every race are exercised.
async fn jitter(turns: usize) {
    for _ in 0..turns {
        mote::yield_now().await;
    }
}

/// Two processes register the same name at the same moment: exactly one wins, the other
/// is told who holds it.
pub fn register_vs_register(size: Size) -> Result<Report> {
    in_run(
        move |mut p: Process<Result<(), mote::RegistryError>>| async move {
            let me = p.pid();
            for round in 0..size.race_rounds {
                // A name per round: the last round's winner may still be ending.
                let name = format!("contested{round}");
                let contenders: Vec<_> = (0..2)
                    .map(|_| {
                        let name = name.clone();
                        mote::spawn(move |mut c: Process<()>| async move {
                            c.recv().await;
                            me.send(mote::register(&name, c.pid()));
                            c.recv().await;
                        })
                    })
                    .collect();
                contenders.iter().for_each(|c| c.send(()));
                let a = p.recv_timeout(WAIT).await;
                let b = p.recv_timeout(WAIT).await;
                let wins = [&a, &b]
                    .iter()
                    .filter(|r| matches!(r, Some(Ok(()))))
                    .count();
                let taken = [&a, &b]
                    .iter()
                    .filter(|r| matches!(r, Some(Err(mote::RegistryError::NameTaken { .. }))))
                    .count();
                if (wins, taken) != (1, 1) {
                    bail!("round {round}: {a:?} and {b:?}");
                }
                contenders.iter().for_each(|c| c.send(()));
            }
            Ok(Report {
                checked: format!(
                    "{} rounds, exactly one winner each",
                    count(size.race_rounds as u64)
                ),
            })
        },
    )
}

/// A process ends normally while another kills it: exactly one `Down`, with one of the
/// two reasons.
pub fn exit_vs_normal_exit(size: Size) -> Result<Report> {
    in_run(move |mut p: Process<Down>| async move {
        let (mut normal, mut killed) = (0u64, 0u64);
        for round in 0..size.race_rounds {
            let (child, r) = p.spawn_monitor(move |mut c: Process<()>| async move {
                c.recv().await;
                jitter(round % 8).await;
            });
            // The killer runs beside the child, maybe on the other thread.
            mote::spawn(move |_k: Process<()>| async move {
                child.send(());
                jitter(round % 5).await;
                mote::exit(child, ExitReason::Kill);
            });
            match p.recv_timeout(WAIT).await {
                Some(d) if d.monitor == r && d.reason == ExitReason::Normal => normal += 1,
                Some(d) if d.monitor == r && d.reason == ExitReason::Killed => killed += 1,
                other => bail!("expected one Down, normal or killed: {other:?}"),
            }
        }
        if let Some(extra) = p.try_recv() {
            bail!("a second Down: {extra:?}");
        }
        Ok(Report {
            checked: format!(
                "{} rounds, one Down each ({} normal, {} killed)",
                count(size.race_rounds as u64),
                count(normal),
                count(killed)
            ),
        })
    })
}

/// `demonitor_info` while the target is ending: it answers true exactly when no `Down`
/// will ever arrive.
pub fn demonitor_vs_down(size: Size) -> Result<Report> {
    in_run(move |mut p: Process<Down>| async move {
        let mut expect_down: HashSet<MonitorRef> = HashSet::new();
        let mut children = Vec::with_capacity(size.race_rounds);
        for round in 0..size.race_rounds {
            let child = mote::spawn(move |mut c: Process<()>| async move {
                c.recv().await;
                jitter(round % 4).await;
            });
            let r = p.monitor(child);
            child.send(());
            jitter(round % 7).await;
            if !p.demonitor_info(r) {
                expect_down.insert(r);
            }
            children.push(child);
        }
        wait_until("every child has ended", WAIT, || {
            children.iter().all(|c| !mote::is_alive(*c))
        })
        .await?;
        let mut got = HashSet::new();
        while let Some(d) = p.recv_timeout(Duration::from_millis(200)).await {
            if !expect_down.contains(&d.monitor) {
                bail!("a Down after demonitor said the monitor was active");
            }
            got.insert(d.monitor);
        }
        if got.len() != expect_down.len() {
            bail!(
                "demonitor said the Down was sent {} times, {} came",
                expect_down.len(),
                got.len()
            );
        }
        Ok(Report {
            checked: format!(
                "{} rounds; demonitor and Downs agree ({} Downs won the race)",
                count(size.race_rounds as u64),
                count(got.len() as u64)
            ),
        })
    })
}

/// A trapping process links to processes that are ending: each link gives exactly one
/// `Exit` (`normal` if the link was made in time, `noproc` if not).
pub fn link_to_dying(size: Size) -> Result<Report> {
    in_run(move |mut p: Process<Signal<()>>| async move {
        p.trap_exit(true);
        let mut pending: HashSet<ProcessId> = HashSet::new();
        let (mut normal, mut noproc) = (0u64, 0u64);
        for round in 0..size.race_rounds {
            let child = mote::spawn(move |mut c: Process<()>| async move {
                c.recv().await;
                jitter(round % 4).await;
            });
            child.send(());
            jitter(round % 7).await;
            if p.link(child).is_err() {
                bail!("a trapping process got an error from link");
            }
            pending.insert(child.id());
        }
        while !pending.is_empty() {
            match p.recv_timeout(WAIT).await {
                Some(Signal::Exit(e)) if pending.remove(&e.from) => match e.reason {
                    ExitReason::Normal => normal += 1,
                    ExitReason::NoProc => noproc += 1,
                    other => bail!("an Exit with {other}"),
                },
                other => bail!(
                    "expected one Exit per child, got {other:?} ({} missing)",
                    pending.len()
                ),
            }
        }
        if let Some(extra) = p.recv_timeout(Duration::from_millis(100)).await {
            bail!("a second Exit: {extra:?}");
        }
        Ok(Report {
            checked: format!(
                "{} links to ending processes, one Exit each ({} normal, {} noproc)",
                count(size.race_rounds as u64),
                count(normal),
                count(noproc)
            ),
        })
    })
}

struct Slow;

impl Server for Slow {
    type Call = ();
    type Reply = ();
    type Cast = ();
    type Info = ();

    async fn handle_call(&mut self, _: (), from: ReplyTo<()>, _: &mut Context<Self>) -> Next {
        mote::yield_now().await;
        from.reply(());
        Next::Continue
    }
}

/// A call made while its server is being stopped: it gets the reply or an error at once,
/// never waits out its timeout.
pub fn call_vs_stop(size: Size) -> Result<Report> {
    in_run(move |mut p: Process<Result<(), CallError>>| async move {
        let me = p.pid();
        let rounds = (size.race_rounds / 5).max(1);
        let (mut replied, mut failed) = (0u64, 0u64);
        for round in 0..rounds {
            let server = mote::server::start(Slow).await?;
            mote::spawn(move |_c: Process<()>| async move {
                jitter(round % 3).await;
                me.send(server.call((), Duration::from_secs(3600)).await);
            });
            jitter(round % 5).await;
            let _ = server.stop(ExitReason::Shutdown, WAIT).await;
            match p.recv_timeout(WAIT).await {
                Some(Ok(())) => replied += 1,
                Some(Err(CallError::NoProc | CallError::Exit(_))) => failed += 1,
                other => bail!("the call answered {other:?}"),
            }
        }
        Ok(Report {
            checked: format!(
                "{} calls racing their server's stop: {} replies, {} errors, none hung",
                count(rounds as u64),
                count(replied),
                count(failed)
            ),
        })
    })
}

/// Pids of dead processes of one message type, used after their slots hold processes of
/// another type: nothing they send arrives.
pub fn stale_pids_of_another_type(size: Size) -> Result<Report> {
    in_run(move |mut p: Process<bool>| async move {
        let me = p.pid();
        let n = size.race_rounds;
        let old: Vec<mote::Pid<u64>> = (0..n)
            .map(|_| mote::spawn(|_c: Process<u64>| async {}))
            .collect();
        wait_until("the first processes have ended", WAIT, || {
            old.iter().all(|o| !mote::is_alive(*o))
        })
        .await?;
        let new: Vec<mote::Pid<String>> = (0..n)
            .map(|_| {
                mote::spawn(move |mut c: Process<String>| async move {
                    let first = c.recv().await;
                    me.send(first == "check");
                })
            })
            .collect();
        for o in &old {
            o.send(u64::MAX);
        }
        for n in &new {
            n.send("check".to_string());
        }
        for _ in 0..n {
            match p.recv_timeout(WAIT).await {
                Some(true) => {}
                Some(false) => bail!("a stale pid's message reached a process of another type"),
                None => bail!("the new processes stopped answering"),
            }
        }
        Ok(Report {
            checked: format!(
                "{} stale pids sent to; no message reached a new process",
                count(n as u64)
            ),
        })
    })
}
