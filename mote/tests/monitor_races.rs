//! Monitors racing the end of their target: what `demonitor` answers must agree with what is
//! delivered.

use std::time::Duration;

use mote::{Down, ExitReason, MonitorRef, Process};

/// Bounds every wait.
const WAIT: Duration = Duration::from_secs(5);

/// Rounds of the race; enough that the target often ends during the demonitor.
const ROUNDS: usize = 20_000;

/// Each round: monitor a busy target twice (`tested`, then `witness`), kill it, and at once
/// demonitor `tested`. The target ends on another thread, during the demonitor or around it.
///
/// * `false` ("no longer active") must mean its `Down` was delivered: it is in the mailbox.
/// * `true` must mean no `Down` ever arrives for it. The witness's `Down` comes after any
///   `Down` of `tested` (one target's monitors fire in the order they were made), so once
///   the witness's is here, `tested`'s would be too.
#[test]
fn demonitor_answers_what_is_delivered_when_the_target_ends_during_it() {
    let (active, inactive) = mote::run(|mut p: Process<Down>| async move {
        let (mut active, mut inactive) = (0usize, 0usize);
        for round in 0..ROUNDS {
            let target = mote::spawn(|_t: Process<()>| busy());
            let tested = p.monitor(target);
            let witness = p.monitor(target);
            mote::exit(target, ExitReason::Kill);
            let still_active = p.demonitor_info(tested);
            let witness_down = p.recv_matching_timeout(|d| d.monitor == witness, WAIT);
            assert!(
                witness_down.await.is_some(),
                "round {round}: no Down for the witness within {WAIT:?}"
            );
            let tested_down = queued_down(&mut p, tested).await;
            if still_active {
                active += 1;
                assert_eq!(
                    tested_down, None,
                    "round {round}: demonitor said active, yet its Down came"
                );
            } else {
                inactive += 1;
                assert!(
                    tested_down.is_some(),
                    "round {round}: demonitor said no longer active, and no Down came"
                );
            }
        }
        (active, inactive)
    })
    .unwrap();
    assert_eq!(active + inactive, ROUNDS);
}

/// Runs until killed, never waiting: an exit signal ends it at its next turn, on whichever
/// thread it runs.
async fn busy() {
    loop {
        mote::yield_now().await;
    }
}

/// The `Down` of monitor `r`, if it is in the mailbox now.
async fn queued_down(p: &mut Process<Down>, r: MonitorRef) -> Option<Down> {
    p.recv_matching_timeout(|d| d.monitor == r, Duration::ZERO)
        .await
}
