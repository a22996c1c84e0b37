//! Names instead of pids, and timers: cancelled, told apart by their id, and ended with
//! the process they were for.

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

        // `start_timer` says which timer fired (Erlang's `{timeout, Ref, Msg}`).
        let waiter = mote::spawn(
            |mut w: Process<mote::TimerFired<&'static str>>| async move {
                let first = mote::start_timer(w.pid(), "first", Duration::from_millis(10));
                let fired = w.recv().await;
                assert_eq!(fired.timer, first.id());
                println!("timer {:?} fired with {:?}", fired.timer, fired.message);
            },
        );

        // A timer to a process that ends is cancelled with it: nothing is left pending.
        let short_lived = mote::spawn(|_s: Process<&'static str>| async {});
        let orphan = mote::send_after(short_lived, "lost", Duration::from_secs(3600));
        while mote::is_alive(short_lived) || mote::is_alive(waiter) {
            mote::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(mote::read_timer(&orphan), None);
        println!("the timer to a dead process is gone");
    })
    .unwrap();
}
