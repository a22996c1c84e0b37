//! Kills rain on a supervision tree; the tree restores itself every time.

use std::time::Duration;

use anyhow::{bail, Result};
use mote::supervisor::{ChildSpec, Strategy, Supervisor, SupervisorRef};
use mote::{ExitReason, Process, SpawnOptions};

use super::{count, in_run, Report, Rng};
use crate::size::Size;

const WORKERS: usize = 20;

fn worker(id: String) -> ChildSpec {
    ChildSpec::new(id, || async {
        let pid = SpawnOptions::new()
            .linked()
            .spawn(|_w: Process<()>| std::future::pending::<()>());
        Ok(pid.id())
    })
}

/// A sub-supervisor (rest_for_one) of `WORKERS` workers.
fn branch(name: usize) -> ChildSpec {
    let mut sup = Supervisor::new(Strategy::RestForOne).intensity(u32::MAX, Duration::from_secs(1));
    for w in 0..WORKERS {
        sup = sup.child(worker(format!("b{name}w{w}")));
    }
    sup.into_child_spec(format!("branch{name}"))
}

/// Every running process of the tree under `sup` (supervisors included). A branch killed
/// while it is asked counts as empty.
async fn tree(sup: SupervisorRef, out: &mut Vec<mote::ProcessId>) -> Result<()> {
    let Ok(children) = sup.which_children().await else {
        return Ok(());
    };
    for child in children {
        let Some(pid) = child.pid else { continue };
        out.push(pid);
        if child.kind == mote::supervisor::ChildKind::Supervisor {
            if let Some(sub) = SupervisorRef::from_id(pid) {
                Box::pin(tree(sub, out)).await?;
            }
        }
    }
    Ok(())
}

/// Whether every child under `sup` runs.
async fn complete(sup: SupervisorRef) -> Result<bool> {
    let Ok(children) = sup.which_children().await else {
        return Ok(false);
    };
    for child in children {
        let Some(pid) = child.pid else {
            return Ok(false);
        };
        if child.kind == mote::supervisor::ChildKind::Supervisor {
            let Some(sub) = SupervisorRef::from_id(pid) else {
                return Ok(false);
            };
            if !Box::pin(complete(sub)).await? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// A one_for_one root over 3 rest_for_one branches of 20 workers and 20 workers of its
/// own (83 processes); `kills` times, a random process of the tree (a branch supervisor
/// or a worker) is killed. The root must live through it all and the tree end complete.
pub fn kill_storm(size: Size) -> Result<Report> {
    in_run(move |_p: Process<()>| async move {
        let mut root =
            Supervisor::new(Strategy::OneForOne).intensity(u32::MAX, Duration::from_secs(1));
        for b in 0..3 {
            root = root.child(branch(b));
        }
        for w in 0..WORKERS {
            root = root.child(worker(format!("w{w}")));
        }
        let root = root.start().await?;
        let mut rng = Rng::new(0x5eed);
        let mut killed = 0usize;
        while killed < size.kills {
            let mut all = Vec::new();
            tree(root, &mut all).await?;
            for _ in 0..10.min(size.kills - killed) {
                let victim = all[rng.below(all.len())];
                mote::exit(victim, ExitReason::Kill);
                killed += 1;
            }
            mote::yield_now().await;
        }
        if !mote::is_alive(root.id()) {
            bail!("the root supervisor died");
        }
        let start = std::time::Instant::now();
        while !complete(root).await? {
            if start.elapsed() > Duration::from_secs(30) {
                bail!("the tree did not come back complete");
            }
            mote::sleep(Duration::from_millis(5)).await;
        }
        let mut all = Vec::new();
        tree(root, &mut all).await?;
        if all.len() != 3 + 3 * WORKERS + WORKERS {
            bail!("{} processes in the tree after the storm", all.len());
        }
        Ok(Report {
            checked: format!(
                "{} kills on a tree of {} processes; root alive, tree complete after",
                count(killed as u64),
                all.len()
            ),
        })
    })
}
