//! Monitors watch a process without being linked to it: a `Down` arrives when it ends.

use mote::{Down, Process};

/// A process body that fails. (A process whose body is only `panic!()` needs a declared
/// return type like this one: an async block that never returns has type `!`.)
async fn crash() {
    panic!("crashed on purpose")
}

fn main() {
    mote::run(|mut p: Process<Down>| async move {
        let (pid, r) = p.spawn_monitor(|_c: Process<()>| crash());
        let down = p.recv().await;
        assert_eq!((down.pid, down.monitor), (pid.id(), r));
        println!("{} went down: {}", down.pid, down.reason);
        // Monitoring a process that is already gone delivers `noproc` at once.
        let again = p.monitor(pid);
        let down = p.recv().await;
        assert_eq!(down.monitor, again);
        println!("monitor of a dead pid: {}", down.reason);
    })
    .unwrap();
}
