//! The charts' history: the runtime's counters sampled at a fixed interval, the last N kept.

use std::collections::VecDeque;

use mote::metrics::{self, ExitCounts};
use serde::Serialize;

/// The runtime's counters at one sample time, as `GET /api/metrics` lists them. Counters
/// only grow: the page charts the difference between two samples over their time apart.
///
/// ```json
/// {"t_ms": 2012, "processes": 15, "spawned": 108,
///  "exited": {"normal": 84, "shutdown": 0, "killed": 0, "panic": 9, "other": 0},
///  "messages_sent": 5210, "run_queue": 0, "busy_ns": [31287121, 27442734],
///  "memory": 16280, "mailboxes": 0}
/// ```
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Sample {
    /// Milliseconds since the runtime started.
    pub t_ms: u64,
    /// Live processes.
    pub processes: usize,
    /// Processes spawned so far.
    pub spawned: u64,
    /// Processes ended so far, by reason class.
    pub exited: ExitCounts,
    /// Messages sent so far.
    pub messages_sent: u64,
    /// Processes waiting to run, in all run queues.
    pub run_queue: usize,
    /// Each scheduler thread's busy time so far, in nanoseconds.
    pub busy_ns: Vec<u64>,
    /// The processes' memory estimates, summed.
    pub memory: u64,
    /// The processes' published mailbox lengths, summed.
    pub mailboxes: u64,
}

impl Sample {
    /// Reads the counters now.
    pub(crate) fn take() -> Sample {
        let m = metrics::snapshot();
        let (memory, mailboxes) = metrics::processes()
            .iter()
            .fold((0u64, 0u64), |(mem, mbox), p| {
                (mem + p.memory as u64, mbox + p.mailbox_len)
            });
        Sample {
            t_ms: m.uptime_ns / 1_000_000,
            processes: m.processes,
            spawned: m.spawned,
            exited: m.exited,
            messages_sent: m.messages_sent,
            run_queue: m.run_queue(),
            busy_ns: m.workers.iter().map(|w| w.busy_ns).collect(),
            memory,
            mailboxes,
        }
    }
}

/// The last `keep` samples, oldest first.
#[derive(Debug)]
pub(crate) struct History {
    samples: VecDeque<Sample>,
    keep: usize,
}

impl History {
    pub(crate) fn new(keep: usize) -> Self {
        History {
            samples: VecDeque::with_capacity(keep),
            keep,
        }
    }

    pub(crate) fn push(&mut self, sample: Sample) {
        if self.samples.len() == self.keep {
            self.samples.pop_front();
        }
        self.samples.push_back(sample);
    }

    pub(crate) fn samples(&self) -> impl Iterator<Item = &Sample> {
        self.samples.iter()
    }

    pub(crate) fn keep(&self) -> usize {
        self.keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_samples() {
        let mut h = History::new(3);
        for t in 0..5 {
            let mut s = Sample::take();
            s.t_ms = t;
            h.push(s);
        }
        let kept: Vec<u64> = h.samples().map(|s| s.t_ms).collect();
        assert_eq!(kept, [2, 3, 4]);
    }
}
