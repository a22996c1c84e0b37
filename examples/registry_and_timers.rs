//! Names instead of pids, and a timer that can be cancelled.

use std::time::Duration;

use mote::Process;

fn main() {
    mote::run(|mut p: Process<&'static str>| async move {
        mote::register("clock", p.pid()).expect("the name is free");
        mote::send_named("clock", "hello by name").unwrap();
        println!("{}", p.recv().await);

        let tick = mote::send_after(p.pid(), "tick", Duration::from_millis(20));
        let cancelled = mote::send_after(p.pid(), "never", Duration::from_secs(5));
        println!(
            "time left on the cancelled timer: {:?}",
            mote::cancel_timer(&cancelled)
        );
        println!("{}", p.recv().await);
        assert_eq!(mote::cancel_timer(&tick), None, "it already fired");
    })
    .unwrap();
}
