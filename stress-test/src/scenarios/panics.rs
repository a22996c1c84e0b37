//! A panic ends only its own process: every monitor hears of it, bystanders live on.

use std::time::Duration;

use anyhow::{bail, Result};
use mote::{Down, ExitReason, Process};

use super::{count, in_run, Report};
use crate::size::Size;

fn crash() {
    panic!("stress panic");
}

/// `panics` monitored processes panic, in batches; every `Down` must carry the panic, and
/// a set of unrelated processes must be alive and answering at the end.
pub fn panic_isolation(size: Size) -> Result<Report> {
    in_run(move |mut p: Process<Down>| async move {
        let bystanders: Vec<_> = (0..100)
            .map(|_| {
                mote::spawn(|mut b: Process<mote::Pid<u8>>| async move {
                    while let Some(reply) = b.recv_timeout(Duration::from_secs(600)).await {
                        reply.send(1);
                    }
                })
            })
            .collect();
        const BATCH: usize = 10_000;
        let mut downs = 0usize;
        let mut left = size.panics;
        while left > 0 {
            let n = left.min(BATCH);
            left -= n;
            for _ in 0..n {
                p.spawn_monitor(|mut c: Process<()>| async move {
                    c.recv().await;
                    crash();
                })
                .0
                .send(());
            }
            for _ in 0..n {
                let Some(down) = p.recv_timeout(Duration::from_secs(30)).await else {
                    bail!("{downs} Downs, then none");
                };
                match &down.reason {
                    ExitReason::Panic(m) if m.contains("stress panic") => downs += 1,
                    other => bail!("a Down with {other}, not the panic"),
                }
            }
        }
        // The bystanders answer.
        let (reply_to, watch) = p.spawn_monitor(|mut a: Process<u8>| async move {
            for _ in 0..100 {
                if a.recv_timeout(Duration::from_secs(10)).await.is_none() {
                    return ExitReason::custom("a bystander did not answer");
                }
            }
            ExitReason::Normal
        });
        for b in &bystanders {
            b.send(reply_to);
        }
        let down = p
            .recv_matching_timeout(|d| d.monitor == watch, Duration::from_secs(30))
            .await;
        match down.map(|d| d.reason) {
            Some(ExitReason::Normal) => {}
            other => bail!("bystanders: {other:?}"),
        }
        Ok(Report {
            checked: format!(
                "{} panicking processes, every Down carries its panic; 100 bystanders unharmed",
                count(downs as u64)
            ),
        })
    })
}
