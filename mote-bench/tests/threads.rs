//! The option `threads` reaches the runtimes: mote's scheduler and tokio's multi-thread
//! runtime run that many worker threads. Its own test binary, since mote's runtime starts
//! once per process.

use mote_bench::workloads::runtimes::{mote_main, mote_threads};
use mote_bench::workloads::Tokio;

#[test]
fn threads_sets_motes_and_tokios_worker_threads() {
    mote_threads(3).unwrap();
    let seen = mote_main(|_p: mote::Process<()>| async { Ok(mote::worker_threads()) }).unwrap();
    assert_eq!(seen, 3);
    // Asked again for the same count it is a no-op; for another it says why it cannot.
    mote_threads(3).unwrap();
    let e = mote_threads(5).unwrap_err();
    assert!(e.to_string().contains("already runs 3"), "{e}");

    for n in [1, 3] {
        let tokio = Tokio {
            style: None,
            threads: Some(n),
        };
        let workers = tokio
            .main(async { Ok(tokio::runtime::Handle::current().metrics().num_workers()) })
            .unwrap();
        assert_eq!(workers, n);
    }
    let one_thread = Tokio {
        style: Some("current_thread"),
        threads: Some(2),
    };
    assert!(one_thread.main(async { Ok(()) }).is_err());
}
