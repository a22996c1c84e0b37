//! Running one measured child process: spawn, capture its output, enforce the timeout, reap it
//! with `wait4` for its peak RSS. A stop asked for with Ctrl-C ([`super::interrupt`]) kills
//! the child at once.

use super::interrupt;
use super::rusage::{kill_group, wait_child, Exit};
use anyhow::{Context, Result};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Everything the harness learns from one child.
#[derive(Debug, Clone)]
pub struct ChildRun {
    /// How it ended (after a timeout: the kill signal).
    pub exit: Exit,
    /// True when the harness killed it for running past the timeout.
    pub timed_out: bool,
    /// True when the harness killed it because a stop was asked for (Ctrl-C).
    pub interrupted: bool,
    /// Peak RSS of the child (and its reaped descendants) in KiB, from `wait4`.
    pub peak_rss_kb: u64,
    /// Its whole stdout.
    pub stdout: String,
    /// Its whole stderr.
    pub stderr: String,
    /// Wall time from spawn to reaping, startup included (the workload's own time is in the
    /// RESULT line).
    pub elapsed: Duration,
}

impl ChildRun {
    /// The last `lines` lines of stderr, for failure reports.
    pub fn stderr_tail(&self, lines: usize) -> String {
        tail(&self.stderr, lines)
    }
}

/// The last `lines` lines of `text`.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// How often the wait looks at the interrupt flag.
const POLL: Duration = Duration::from_millis(20);

/// Runs `cmd` to completion, until `timeout`, or until a stop is asked for, whichever comes
/// first; in the last two cases the child's process group is killed. stdout and stderr are
/// captured (stdin is closed).
pub fn run(mut cmd: Command, timeout: Duration) -> Result<ChildRun> {
    let shown = format!("{cmd:?}");
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so a timeout kill reaches grandchildren too.
        .process_group(0);
    let started = Instant::now();
    let mut child = cmd.spawn().with_context(|| format!("starting {shown}"))?;
    let pid = child.id();
    // Pipes are drained on their own threads: a child blocked on a full pipe would otherwise
    // never finish.
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    // The reaping wait4 blocks, so it runs on a thread and the timeout is a channel wait.
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(wait_child(pid));
    });
    let deadline = started + timeout;
    let (mut timed_out, mut interrupted) = (false, false);
    let waited = loop {
        let now = Instant::now();
        if let Ok(w) = rx.recv_timeout(POLL.min(deadline.saturating_duration_since(now))) {
            break w;
        }
        timed_out = Instant::now() >= deadline;
        interrupted = interrupt::requested();
        if timed_out || interrupted {
            kill_group(pid);
            break rx.recv().context("reaper thread vanished")?;
        }
    };
    let (exit, peak_rss_kb) = waited.with_context(|| format!("waiting for {shown}"))?;
    let stdout = finish(out);
    let stderr = finish(err);
    Ok(ChildRun {
        exit,
        timed_out,
        interrupted,
        peak_rss_kb,
        stdout,
        stderr,
        elapsed: started.elapsed(),
    })
}

/// How long to wait for a pipe to close after the child is reaped. A daemonised descendant
/// (outside the child's process group) could hold it open forever; its output is not worth a
/// hung suite.
const PIPE_GRACE: Duration = Duration::from_secs(5);

fn finish(reader: thread::JoinHandle<String>) -> String {
    let deadline = Instant::now() + PIPE_GRACE;
    while !reader.is_finished() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(5));
    }
    if reader.is_finished() {
        reader.join().unwrap_or_default()
    } else {
        "<output lost: a descendant of the child kept the pipe open>".to_string()
    }
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut buf);
        }
        String::from_utf8_lossy(&buf).into_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        c
    }

    #[test]
    fn captures_output_and_status() {
        let r = run(
            sh("echo out; echo err >&2; exit 3"),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(r.exit, Exit::Code(3));
        assert!(!r.timed_out);
        assert_eq!(r.stdout, "out\n");
        assert_eq!(r.stderr_tail(5), "err");
    }

    #[test]
    fn kills_on_timeout() {
        let r = run(sh("sleep 30"), Duration::from_millis(200)).unwrap();
        assert!(r.timed_out);
        assert_eq!(r.exit, Exit::Signal(libc::SIGKILL));
        assert!(r.elapsed < Duration::from_secs(10));
    }

    #[test]
    fn tail_keeps_last_lines() {
        assert_eq!(tail("a\nb\nc\n", 2), "b\nc");
        assert_eq!(tail("", 2), "");
    }
}
