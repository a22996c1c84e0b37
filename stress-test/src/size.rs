//! How big each scenario runs: `small` fits in CI's time, `full` is the real audit.

/// The sizes of every scenario, from one `--size` flag.
#[derive(Debug, Clone, Copy)]
pub struct Size {
    /// Fan-in: senders, and messages each.
    pub fanin_senders: usize,
    pub fanin_per_sender: u64,
    /// Processes that panic.
    pub panics: usize,
    /// Kills on the supervision tree.
    pub kills: usize,
    /// Waves of the leak scenarios, and the work in each.
    pub waves: usize,
    pub spawns_per_wave: usize,
    pub callers: usize,
    pub calls_per_caller: usize,
    pub timers_per_wave: usize,
    pub monitors_per_wave: usize,
    /// Rounds of each race.
    pub race_rounds: usize,
    /// How long one scenario may take before it counts as hung.
    pub limit_secs: u64,
}

impl Size {
    /// CI's size: the whole suite in well under 3 minutes on 2 cores, in release.
    pub const SMALL: Size = Size {
        fanin_senders: 20,
        fanin_per_sender: 250_000,
        panics: 200_000,
        kills: 10_000,
        waves: 6,
        spawns_per_wave: 200_000,
        callers: 200,
        calls_per_caller: 500,
        timers_per_wave: 200_000,
        monitors_per_wave: 200_000,
        race_rounds: 20_000,
        limit_secs: 120,
    };

    /// The audit's size: 10M messages, 1M panics, 10M spawns.
    pub const FULL: Size = Size {
        fanin_senders: 100,
        fanin_per_sender: 100_000,
        panics: 1_000_000,
        kills: 10_000,
        waves: 10,
        spawns_per_wave: 1_000_000,
        callers: 1_000,
        calls_per_caller: 1_000,
        timers_per_wave: 1_000_000,
        monitors_per_wave: 1_000_000,
        race_rounds: 100_000,
        limit_secs: 1_200,
    };
}
