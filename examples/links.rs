//! Links propagate failure; a process that traps exits turns it into a message.

use mote::{ExitReason, Process, Signal};

fn main() {
    mote::run(|mut p: Process<Signal<()>>| async move {
        p.trap_exit(true);
        let worker = p.spawn_link(|_w: Process<()>| async { ExitReason::custom("disk_full") });
        match p.recv().await {
            Signal::Exit(exit) => {
                assert_eq!(exit.from, worker.id());
                println!("worker {} exited: {}", exit.from, exit.reason);
            }
            other => panic!("unexpected {other:?}"),
        }
    })
    .unwrap();
}
