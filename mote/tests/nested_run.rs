//! `mote::run` from inside a process is refused at once with a clear error, never a hang:
//! blocking a scheduler thread on a run would hang once every thread waits so (three deep
//! on two threads did). `run_async` nests freely.

use std::sync::mpsc;
use std::time::Duration;

use mote::Process;

#[test]
fn nested_runs_on_two_threads() {
    mote::Builder::new().worker_threads(2).install().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let refused = mote::run(|_p: Process<()>| async {
            mote::run(|_q: Process<()>| async { mote::run(|_r: Process<()>| async { 3 }) })
        });
        let nested = mote::run(|_p: Process<()>| async {
            mote::run_async(|_q: Process<()>| async {
                mote::run_async(|_r: Process<()>| async { 3 }).await
            })
            .await
        });
        tx.send((refused, nested)).unwrap();
    });
    let (refused, nested) = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("nested runs hung");
    // The outer run's root got the refusal as its nested run's result, and returned it.
    match refused {
        Ok(Err(reason)) => {
            assert!(reason.to_string().contains("run_async"), "{reason}");
        }
        other => panic!("expected the nested run to be refused, got {other:?}"),
    }
    assert_eq!(nested, Ok(Ok(Ok(3))));
}
