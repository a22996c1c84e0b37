//! The scenarios: each runs in a `mote::run` of its own and checks what it promises,
//! returning what it checked and measured, or the first broken promise.

use std::time::{Duration, Instant};

use anyhow::{bail, Result};

pub mod kill_storm;
pub mod leaks;
pub mod messages;
pub mod panics;
pub mod races;

use crate::size::Size;

/// What a scenario checked, in words and figures, for the report.
pub struct Report {
    pub checked: String,
}

/// A scenario: its name (for `--only`) and its body.
pub struct Scenario {
    pub name: &'static str,
    pub run: fn(Size) -> Result<Report>,
}

/// Every scenario, in the order they run.
pub const ALL: &[Scenario] = &[
    Scenario {
        name: "fanin_order",
        run: messages::fanin_order,
    },
    Scenario {
        name: "panic_isolation",
        run: panics::panic_isolation,
    },
    Scenario {
        name: "kill_storm",
        run: kill_storm::kill_storm,
    },
    Scenario {
        name: "spawn_plateau",
        run: leaks::spawn_plateau,
    },
    Scenario {
        name: "call_plateau",
        run: leaks::call_plateau,
    },
    Scenario {
        name: "timer_plateau",
        run: leaks::timer_plateau,
    },
    Scenario {
        name: "monitor_plateau",
        run: leaks::monitor_plateau,
    },
    Scenario {
        name: "race_register",
        run: races::register_vs_register,
    },
    Scenario {
        name: "race_exit_vs_normal",
        run: races::exit_vs_normal_exit,
    },
    Scenario {
        name: "race_demonitor_vs_down",
        run: races::demonitor_vs_down,
    },
    Scenario {
        name: "race_link_to_dying",
        run: races::link_to_dying,
    },
    Scenario {
        name: "race_call_vs_stop",
        run: races::call_vs_stop,
    },
    Scenario {
        name: "race_stale_pids",
        run: races::stale_pids_of_another_type,
    },
];

/// Waits (asynchronously, inside a process) until `done` holds; fails after `limit`.
pub async fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) -> Result<()> {
    let start = Instant::now();
    while !done() {
        if start.elapsed() > limit {
            bail!("timed out waiting until {what}");
        }
        mote::sleep(Duration::from_millis(1)).await;
    }
    Ok(())
}

/// A small fast random generator (xorshift64*), so runs need no extra crate.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    }
}

/// Thousands separators, for reports.
pub fn count(n: impl Into<u64>) -> String {
    let s = n.into().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Runs `body` as a process in a run of its own, turning its exit reason into an error.
pub fn in_run<M, F, Fut>(body: F) -> Result<Report>
where
    M: Send + 'static,
    F: FnOnce(mote::Process<M>) -> Fut,
    Fut: std::future::Future<Output = Result<Report>> + Send + 'static,
{
    match mote::run(body) {
        Ok(result) => result,
        Err(reason) => bail!("the scenario's process ended with {reason}"),
    }
}
