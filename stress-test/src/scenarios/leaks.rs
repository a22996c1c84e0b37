//! Leak plateaus: the same work done wave after wave must not make memory grow.

use std::time::Duration;

use anyhow::{bail, Result};
use mote::server::{Context, Next, ReplyTo, Server};
use mote::{Down, ExitReason, Process};

use super::{count, in_run, wait_until, Report};
use crate::rss::{mb, resident_bytes};
use crate::size::Size;

/// Resident memory after each wave.
#[derive(Default)]
struct Plateau(Vec<u64>);

impl Plateau {
    fn sample(&mut self) {
        if let Some(bytes) = resident_bytes() {
            self.0.push(bytes);
        }
    }

    /// After the first wave, memory may step up once (allocator arenas, table pages, wheel
    /// slabs settle at a new level, at a wave that varies from run to run), but a leak
    /// keeps growing: it is one when both the first and the second half of the later
    /// waves grow by more than an eighth of the base plus 16 MB, or when any wave ends
    /// above twice the base plus 16 MB.
    fn check(&self) -> Result<String> {
        let Some(&base) = self.0.get(1) else {
            return Ok("memory not measured (no /proc/self/statm)".into());
        };
        let later = &self.0[1..];
        let mid = later[later.len() / 2];
        let last = later[later.len() - 1];
        let peak = later.iter().copied().max().unwrap_or(base);
        let slack = base / 8 + (16 << 20);
        let waves: Vec<String> = self.0.iter().map(|&b| format!("{:.0}", mb(b))).collect();
        let keeps_growing = mid.saturating_sub(base) > slack && last.saturating_sub(mid) > slack;
        if keeps_growing || peak > 2 * base + (16 << 20) {
            bail!("memory grows wave after wave: {} MB", waves.join(" "));
        }
        Ok(format!("RSS after each wave {} MB", waves.join(" ")))
    }
}

/// Waves of short-lived processes.
pub fn spawn_plateau(size: Size) -> Result<Report> {
    in_run(move |_p: Process<()>| async move {
        let base = mote::process_count();
        let mut plateau = Plateau::default();
        for _ in 0..size.waves {
            for i in 0..size.spawns_per_wave {
                mote::spawn(|_c: Process<u64>| async {});
                if i % 10_000 == 0 {
                    mote::yield_now().await;
                }
            }
            wait_until("the wave has ended", Duration::from_secs(60), || {
                mote::process_count() <= base
            })
            .await?;
            plateau.sample();
        }
        let spawned = size.waves * size.spawns_per_wave;
        Ok(Report {
            checked: format!(
                "{} processes spawned and ended; {}",
                count(spawned as u64),
                plateau.check()?
            ),
        })
    })
}

/// Echoes its calls.
struct Echo;

impl Server for Echo {
    type Call = u64;
    type Reply = u64;
    type Cast = ();
    type Info = ();

    async fn handle_call(&mut self, n: u64, from: ReplyTo<u64>, _: &mut Context<Self>) -> Next {
        from.reply(n);
        Next::Continue
    }
}

/// Waves of concurrent callers of one server, every reply checked.
pub fn call_plateau(size: Size) -> Result<Report> {
    in_run(move |mut p: Process<Down>| async move {
        let server = mote::server::start(Echo).await?;
        let mut plateau = Plateau::default();
        for _ in 0..size.waves {
            let per = size.calls_per_caller as u64;
            for c in 0..size.callers as u64 {
                p.spawn_monitor(move |_q: Process<()>| async move {
                    for i in 0..per {
                        let n = c * per + i;
                        match server.call(n, Duration::from_secs(30)).await {
                            Ok(r) if r == n => {}
                            other => return ExitReason::custom(format!("call {n}: {other:?}")),
                        }
                    }
                    ExitReason::Normal
                });
            }
            for _ in 0..size.callers {
                match p.recv_timeout(Duration::from_secs(60)).await {
                    Some(Down {
                        reason: ExitReason::Normal,
                        ..
                    }) => {}
                    Some(d) => bail!("a caller failed: {}", d.reason),
                    None => bail!("callers stopped finishing"),
                }
            }
            plateau.sample();
        }
        let calls = size.waves * size.callers * size.calls_per_caller;
        Ok(Report {
            checked: format!(
                "{} calls from {} concurrent callers, every reply right; {}",
                count(calls as u64),
                size.callers,
                plateau.check()?
            ),
        })
    })
}

/// Waves of timers: half to processes that end first (each timer must end with its
/// process and never fire), half to this process (each must arrive, once).
pub fn timer_plateau(size: Size) -> Result<Report> {
    in_run(move |mut p: Process<u64>| async move {
        let mut plateau = Plateau::default();
        let half = size.timers_per_wave / 2;
        let mut fired = 0u64;
        for _ in 0..size.waves {
            let mut doomed = Vec::with_capacity(half);
            let mut timers = Vec::with_capacity(half);
            for _ in 0..half {
                let pid = mote::spawn(|mut c: Process<u64>| async move {
                    c.recv().await;
                });
                timers.push(mote::send_after(pid, 0, Duration::from_secs(3600)));
                doomed.push(pid);
            }
            for pid in &doomed {
                pid.send(1);
            }
            for i in 0..half as u64 {
                mote::send_after(p.pid(), i, Duration::from_millis(1 + i % 5));
            }
            let mut seen = vec![false; half];
            for _ in 0..half {
                let Some(i) = p.recv_timeout(Duration::from_secs(30)).await else {
                    bail!("timers stopped firing");
                };
                if std::mem::replace(&mut seen[i as usize], true) {
                    bail!("timer {i} fired twice");
                }
                fired += 1;
            }
            wait_until(
                "the doomed processes have ended",
                Duration::from_secs(30),
                || doomed.iter().all(|d| !mote::is_alive(*d)),
            )
            .await?;
            if let Some(t) = timers.iter().find(|t| mote::read_timer(t).is_some()) {
                bail!("a timer outlived its destination: {t:?}");
            }
            plateau.sample();
        }
        Ok(Report {
            checked: format!(
                "{} timers fired exactly once, {} ended with their destination; {}",
                count(fired),
                count((half * size.waves) as u64),
                plateau.check()?
            ),
        })
    })
}

/// Waves of monitors: monitor and demonitor a live process (each demonitor finds its
/// monitor active), and monitors on processes that end (each gives one `Down`).
pub fn monitor_plateau(size: Size) -> Result<Report> {
    in_run(move |mut p: Process<Down>| async move {
        let target = mote::spawn(|mut t: Process<()>| async move { t.recv().await });
        let mut plateau = Plateau::default();
        let dying = size.monitors_per_wave / 10;
        for _ in 0..size.waves {
            for _ in 0..size.monitors_per_wave {
                let r = p.monitor(target);
                if !p.demonitor_info(r) {
                    bail!("a monitor on a live process was not active");
                }
            }
            for _ in 0..dying {
                p.spawn_monitor(|_c: Process<()>| async {});
            }
            for _ in 0..dying {
                match p.recv_timeout(Duration::from_secs(30)).await {
                    Some(Down {
                        reason: ExitReason::Normal,
                        ..
                    }) => {}
                    other => bail!("expected a normal Down, got {other:?}"),
                }
            }
            plateau.sample();
        }
        if let Some(stray) = p.try_recv() {
            bail!("a Down nobody asked for: {stray:?}");
        }
        target.send(());
        Ok(Report {
            checked: format!(
                "{} monitors made and removed, {} Downs; {}",
                count((size.monitors_per_wave * size.waves) as u64),
                count((dying * size.waves) as u64),
                plateau.check()?
            ),
        })
    })
}
