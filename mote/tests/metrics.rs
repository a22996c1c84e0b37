//! The runtime's metrics: counters of spawns, exits by reason class and sends, the
//! scheduler threads' busy time, tasks and run queues, each process's counters, and (with
//! the `metrics` feature) their export through the `metrics` facade.
//!
//! The tests of this binary share one runtime and run at once, so a counter may grow by
//! more than a test's own events: they check that it grew by at least as much. The runtime
//! has a single scheduler thread here, so that processes spawned by a running process wait
//! in its queue, visibly, until it yields.

use std::time::{Duration, Instant};

use mote::{metrics, testkit, Down, ExitReason, Process, SpawnOptions, Status};

const WAIT: Duration = Duration::from_secs(10);

fn runtime() {
    // The first test to get here configures it; the others find it running.
    let _ = mote::Builder::new().worker_threads(1).install();
}

fn run<T: Send + 'static, Fut>(f: impl FnOnce(Process<Down>) -> Fut) -> T
where
    Fut: std::future::Future<Output = T> + Send + 'static,
{
    runtime();
    mote::run(f).expect("the test's root process ends normally")
}

#[test]
fn spawns_and_exits_are_counted_by_reason_class() {
    run(|mut p: Process<Down>| async move {
        let before = metrics::snapshot();
        async fn ends_with(reason: ExitReason) -> ExitReason {
            reason
        }
        async fn panics() {
            panic!("counted")
        }
        async fn waits(mut c: Process<()>) {
            c.recv().await
        }
        let mut expected = Vec::new();
        for reason in [
            ExitReason::Normal,
            ExitReason::Shutdown,
            ExitReason::shutdown_with("detail"),
            ExitReason::custom("bad_config"),
        ] {
            let (pid, _) = p.spawn_monitor(move |_c: Process<()>| ends_with(reason));
            expected.push(pid.id());
        }
        let (crashed, _) = p.spawn_monitor(|_c: Process<()>| panics());
        let (killed, _) = p.spawn_monitor(waits);
        mote::exit(killed, ExitReason::Kill);
        expected.extend([crashed.id(), killed.id()]);
        for _ in 0..expected.len() {
            let down = testkit::assert_receive(&mut p, WAIT).await;
            assert!(expected.contains(&down.pid), "{down:?}");
        }

        let after = metrics::snapshot();
        assert!(after.spawned - before.spawned >= 6);
        let (a, b) = (after.exited, before.exited);
        assert!(a.normal - b.normal >= 1, "{b:?} -> {a:?}");
        assert!(a.shutdown - b.shutdown >= 2, "{b:?} -> {a:?}");
        assert!(a.other - b.other >= 1, "{b:?} -> {a:?}");
        assert!(a.panic - b.panic >= 1, "{b:?} -> {a:?}");
        assert!(a.killed - b.killed >= 1, "{b:?} -> {a:?}");
        assert!(a.total() - b.total() >= 6);
        // Ended processes are no longer live: spawned - exited is at least what lives now
        // (processes are counted live before their spawn is, and dead before their exit).
        assert!(after.spawned >= after.exited.total());
    });
}

#[test]
fn sends_are_counted_from_processes_and_from_other_threads() {
    run(|mut p: Process<Down>| async move {
        let before = metrics::snapshot().messages_sent;
        let sink = mote::spawn(|mut c: Process<u32>| async move {
            let mut got = 0;
            while got < 2_000 {
                c.recv().await;
                got += 1;
            }
        });
        p.monitor(sink);
        for i in 0..1_000 {
            sink.send(i);
        }
        // From a thread that is no scheduler thread: its own shard.
        std::thread::spawn(move || (0..1_000).for_each(|i| sink.send(i)))
            .join()
            .unwrap();
        let down = testkit::assert_receive(&mut p, WAIT).await;
        assert_eq!(down.reason, ExitReason::Normal);
        let sent = metrics::snapshot().messages_sent - before;
        assert!(sent >= 2_000, "{sent} sends counted");
    });
}

#[test]
fn a_busy_worker_counts_its_busy_time_and_tasks() {
    run(|_p: Process<Down>| async move {
        let before = metrics::snapshot();
        assert_eq!(before.workers.len(), mote::worker_threads());
        // Hold the only scheduler thread for 50 ms of wall time: it is awake throughout.
        let spin = Duration::from_millis(50);
        let start = Instant::now();
        while start.elapsed() < spin {
            std::hint::spin_loop();
        }
        mote::yield_now().await;
        let after = metrics::snapshot();
        let busy = |m: &metrics::RuntimeMetrics| m.workers.iter().map(|w| w.busy_ns).sum::<u64>();
        let grew = busy(&after) - busy(&before);
        assert!(
            grew >= spin.as_nanos() as u64,
            "busy time grew by {grew} ns"
        );
        let tasks =
            |m: &metrics::RuntimeMetrics| m.workers.iter().map(|w| w.tasks_run).sum::<u64>();
        assert!(
            tasks(&after) > tasks(&before),
            "the yield ran this process again"
        );
        for w in &after.workers {
            assert!(w.busy_ns <= after.uptime_ns, "{w:?} busy longer than up");
        }
    });
}

#[test]
fn processes_waiting_to_run_are_in_the_run_queue() {
    run(|_p: Process<Down>| async move {
        // Spawned from this process, they queue on its scheduler thread (the only one),
        // which runs none of them before this poll ends.
        let pids: Vec<_> = (0..100)
            .map(|_| mote::spawn(|_c: Process<()>| async {}))
            .collect();
        let m = metrics::snapshot();
        assert!(m.run_queue() >= 100, "run queue {}: {m:?}", m.run_queue());
        assert!(m.workers[0].run_queue >= 100);
        for pid in pids {
            testkit::wait_exit(pid, WAIT).await;
        }
    });
}

#[test]
fn a_processs_counters_are_its_own() {
    run(|_p: Process<Down>| async move {
        // A process that takes only 0 leaves the others in its mailbox.
        let picky =
            SpawnOptions::new()
                .name("metrics_picky")
                .spawn(|mut c: Process<u32>| async move {
                    c.recv_matching(|m| *m == 0).await;
                    for _ in 0..5 {
                        c.recv().await;
                    }
                });
        for i in 1..=5 {
            picky.send(i);
        }
        let deadline = Instant::now() + WAIT;
        let m = loop {
            let m = metrics::process(picky.id()).expect("alive");
            if m.status == Status::Waiting && m.mailbox_len == 5 {
                break m;
            }
            assert!(
                Instant::now() < deadline,
                "never seen waiting with 5 queued: {m:?}"
            );
            mote::sleep(Duration::from_millis(1)).await;
        };
        assert_eq!(m.name.as_deref(), Some("metrics_picky"));
        assert_eq!(
            m.messages_received, 5,
            "5 taken out of the queue, all saved"
        );
        assert!(m.polls >= 1);
        assert!(metrics::processes().iter().any(|x| x.id == picky.id()));

        picky.send(0);
        testkit::wait_exit(picky, WAIT).await;
        assert_eq!(metrics::process(picky.id()), None);
    });
}

#[test]
fn memory_grows_with_what_a_process_holds() {
    run(|_p: Process<Down>| async move {
        async fn holds_a_buffer(mut c: Process<()>) {
            let buffer = [7u8; 64 * 1024];
            c.recv().await;
            std::hint::black_box(&buffer);
        }
        let small = mote::spawn(|mut c: Process<()>| async move { c.recv().await });
        let big = mote::spawn(holds_a_buffer);
        let small_bytes = metrics::process(small.id()).unwrap().memory;
        let big_bytes = metrics::process(big.id()).unwrap().memory;
        assert!(big_bytes > 64 * 1024, "{big_bytes}");
        assert!(small_bytes < 4 * 1024, "{small_bytes}");
        small.send(());
        big.send(());
    });
}

#[cfg(feature = "serde")]
#[test]
fn snapshots_serialize() {
    run(|p: Process<Down>| async move {
        let json = serde_json::to_value(metrics::snapshot()).unwrap();
        assert!(json["exited"]["panic"].is_u64(), "{json}");
        assert!(json["workers"][0]["busy_ns"].is_u64(), "{json}");
        let json = serde_json::to_value(metrics::process(p.id()).unwrap()).unwrap();
        assert_eq!(json["status"], "active", "{json}");
    });
}

#[cfg(feature = "metrics")]
#[test]
fn export_publishes_the_snapshot_through_the_facade() {
    use metrics_util::debugging::{DebugValue, DebuggingRecorder};

    run(|_p: Process<Down>| async move {
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        let before = metrics::snapshot();
        ::metrics::with_local_recorder(&recorder, metrics::export);
        let values = snapshotter.snapshot().into_vec();
        let find = |name: &str, label: Option<(&str, &str)>| {
            values
                .iter()
                .find(|(key, _, _, _)| {
                    let key = key.key();
                    key.name() == name
                        && label.is_none_or(|(k, v)| {
                            key.labels().any(|l| l.key() == k && l.value() == v)
                        })
                })
                .map(|(_, _, _, value)| value)
                .unwrap_or_else(|| panic!("{name} {label:?} not exported: {values:?}"))
        };
        let DebugValue::Counter(spawned) = find("mote_processes_spawned_total", None) else {
            panic!("spawned is a counter")
        };
        assert!(*spawned >= before.spawned && *spawned > 0);
        for reason in ["normal", "shutdown", "killed", "panic", "other"] {
            find("mote_processes_exited_total", Some(("reason", reason)));
        }
        find("mote_messages_sent_total", None);
        find("mote_worker_busy_microseconds_total", Some(("worker", "0")));
        find("mote_run_queue_length", Some(("worker", "global")));
        let DebugValue::Gauge(live) = find("mote_processes", None) else {
            panic!("processes is a gauge")
        };
        assert!(live.into_inner() >= 1.0);
    });
}
