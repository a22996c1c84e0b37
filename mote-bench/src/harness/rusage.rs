//! Peak resident set size from the kernel: of this process (`getrusage`) and of a reaped child
//! (`wait4`), the latter also standing for the child's waited-for descendants.

use anyhow::Result;
use std::io;

/// Peak RSS of the calling process in KiB (`ru_maxrss` is in KiB on Linux).
pub fn self_peak_rss_kb() -> u64 {
    // SAFETY: `rusage` is plain old data, so all-zero bytes are a valid value, and getrusage
    // only writes into the struct we pass by exclusive reference.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    usage.ru_maxrss.max(0) as u64
}

/// How a reaped child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Exited with this status.
    Code(i32),
    /// Killed by this signal.
    Signal(i32),
}

/// Blocks until the child `pid` ends, reaps it and returns how it ended with its peak RSS in KiB.
pub fn wait_child(pid: u32) -> Result<(Exit, u64)> {
    let pid = libc::pid_t::try_from(pid)?;
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: all-zero bytes are a valid `rusage`; wait4 writes only into `status` and
        // `usage`, which are live locals passed by exclusive reference.
        let (ret, usage) = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            let ret = libc::wait4(pid, &mut status, 0, &mut usage);
            (ret, usage)
        };
        if ret == pid {
            let exit = if libc::WIFEXITED(status) {
                Exit::Code(libc::WEXITSTATUS(status))
            } else {
                Exit::Signal(libc::WTERMSIG(status))
            };
            return Ok((exit, usage.ru_maxrss.max(0) as u64));
        }
        let err = io::Error::last_os_error();
        // A signal landing in the harness interrupts the wait; the child is still there.
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err.into());
        }
    }
}

/// Sends SIGKILL to the process group `pid` leads (the child was started as a group leader so
/// that its own children, e.g. the BEAM under the `elixir` script, die with it).
pub fn kill_group(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill has no memory-safety preconditions; a group that is already gone
        // yields ESRCH, which is harmless here.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_rss_is_plausible() {
        let kb = self_peak_rss_kb();
        assert!(kb > 100 && kb < 64 * 1024 * 1024, "{kb}");
    }

    #[test]
    fn wait_child_reports_exit_code_and_rss() {
        // Reaped by wait_child itself, which is what is under test.
        #[allow(clippy::zombie_processes)]
        let child = std::process::Command::new("sh")
            .args(["-c", "exit 7"])
            .spawn()
            .unwrap();
        let (exit, rss) = wait_child(child.id()).unwrap();
        assert_eq!(exit, Exit::Code(7));
        assert!(rss > 0);
    }
}
