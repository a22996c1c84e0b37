//! A timer too far away to fire (`send_after(pid, msg, Duration::MAX)`): no panic, no task
//! left behind, and `read_timer`/`cancel_timer` answer as for any pending timer.
//!
//! One test in this file: it counts the tasks of mote's tokio runtime, which other tests
//! running beside it would change.

use std::time::Duration;

use mote::Process;

#[test]
fn a_timer_too_far_away_neither_panics_nor_keeps_a_task() {
    mote::run(|p: Process<u8>| async move {
        // Processes run on threads that entered mote's tokio runtime.
        let tokio = tokio::runtime::Handle::current();
        let me = p.pid();
        let tasks_before = tokio.metrics().num_alive_tasks();
        let made = std::panic::catch_unwind(|| mote::send_after(me, 1, Duration::MAX));
        let tasks_after = tokio.metrics().num_alive_tasks();
        assert_eq!(
            tasks_after, tasks_before,
            "a timer that never fires keeps a task"
        );
        let timer = made.unwrap_or_else(|_| panic!("send_after panicked"));

        // Pending, with (nearly) all of `Duration::MAX` left.
        let left = mote::read_timer(&timer).expect("a timer that never fires is pending");
        assert!(left > Duration::MAX / 2, "{left:?} left");
        let left = mote::cancel_timer(&timer).expect("cancelling a pending timer");
        assert!(left > Duration::MAX / 2, "{left:?} left");
        assert_eq!(mote::cancel_timer(&timer), None);
        assert_eq!(mote::read_timer(&timer), None);
    })
    .unwrap();
}
