//! When `mote::run` returns, the processes its root left behind have ended (as `init:stop`
//! ends every process of a node): their futures dropped, so destructors have run, and their
//! links and monitors fired with `shutdown`. Only that run's processes: another run going on
//! at the same time, and processes spawned outside any process, are untouched.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use mote::{Down, ExitReason, Pid, Process, ProcessId, Signal};

const N: usize = 10_000;

/// Counts its drops.
struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A process that waits forever, owning a `Tracked`.
async fn idler(mut p: Process<u8>, tracked: Tracked) {
    let _owned = tracked;
    loop {
        p.recv().await;
    }
}

#[test]
fn a_run_ends_the_processes_it_leaves_and_only_those() {
    let drops = Arc::new(AtomicUsize::new(0));

    // A watcher in a run of its own, going on while the first run ends: it monitors some of
    // the first run's processes, links to one (trapping exits), and must survive.
    let (watch_tx, watch_rx) = mpsc::channel::<Pid<Signal<Vec<ProcessId>>>>();
    let (report_tx, report_rx) = mpsc::channel::<(Vec<ExitReason>, ExitReason)>();
    let watcher_run = std::thread::spawn(move || {
        mote::run(move |mut w: Process<Signal<Vec<ProcessId>>>| async move {
            w.trap_exit(true);
            watch_tx.send(w.pid()).unwrap();
            let watched = match w.recv().await {
                Signal::Msg(ids) => ids,
                _ => panic!("expected the ids to watch"),
            };
            for id in &watched[1..] {
                w.monitor(*id);
            }
            w.link(watched[0]).expect("the linked process is alive");
            // Tell the first run it may end now.
            let ready = mote::lookup::<u8>("ready_to_end").unwrap();
            ready.send(1);
            let mut downs = Vec::new();
            let mut exit = None;
            while downs.len() < watched.len() - 1 || exit.is_none() {
                match w.recv_timeout(Duration::from_secs(30)).await {
                    Some(Signal::Down(Down { reason, .. })) => downs.push(reason),
                    Some(Signal::Exit(e)) => exit = Some(e.reason),
                    Some(_) => {}
                    None => panic!("the first run's processes did not end"),
                }
            }
            report_tx.send((downs, exit.unwrap())).unwrap();
        })
        .unwrap();
    });
    let watcher = watch_rx.recv().unwrap();

    // An orphan spawned outside any process: belongs to no run.
    let outside_drops = Arc::new(AtomicUsize::new(0));
    let orphan = mote::spawn({
        let t = Tracked(outside_drops.clone());
        move |p: Process<u8>| idler(p, t)
    });

    let d = drops.clone();
    let out = mote::run(move |mut root: Process<u8>| async move {
        mote::register("ready_to_end", root.pid()).unwrap();
        let pids: Vec<Pid<u8>> = (0..N)
            .map(|_| {
                let t = Tracked(d.clone());
                mote::spawn(move |p: Process<u8>| idler(p, t))
            })
            .collect();
        // Some grandchildren too: spawned by the run's processes, they belong to it.
        let t = Tracked(d.clone());
        mote::spawn(move |mut p: Process<u8>| async move {
            mote::spawn(move |q: Process<u8>| idler(q, t));
            p.recv().await;
        });
        watcher.send(Signal::Msg(pids[..100].iter().map(|p| p.id()).collect()));
        root.recv().await; // the watcher is watching
        "done"
    });
    assert_eq!(out, Ok("done"));
    // `run` has returned: every destructor of its processes has run.
    assert_eq!(drops.load(Ordering::SeqCst), N + 1);

    let (downs, exit) = report_rx.recv_timeout(Duration::from_secs(30)).unwrap();
    assert_eq!(downs.len(), 99);
    assert!(
        downs.iter().all(|r| *r == ExitReason::Shutdown),
        "{downs:?}"
    );
    assert_eq!(exit, ExitReason::Shutdown);
    watcher_run.join().unwrap();

    // The orphan outlived both runs.
    assert!(mote::is_alive(orphan));
    assert_eq!(outside_drops.load(Ordering::SeqCst), 0);
    mote::exit(orphan, ExitReason::Kill);
}

/// Counts the processes dropped before they finished (ended from outside).
struct Unfinished {
    finished: bool,
    ended_early: Arc<AtomicUsize>,
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        if !self.finished {
            self.ended_early.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// A run that ends while another run spawns must not end the new processes. A spawn reuses
/// a slot that may last have held a process of the ending run; the ending run's sweep must
/// never pair the new process's id with what it read of the slot's last process (its run
/// group, or that it was alive) and end the new process with `shutdown`. The loom model
/// `loom_a_group_read_beside_a_recycled_slot_names_no_newer_process` checks the read
/// itself; this test runs the two runs side by side.
///
/// The live run waits for its own processes before it ends, so that none of them is ended by
/// its own end (on a busy machine, some wait in another thread's queue for a while).
#[test]
fn a_run_ending_beside_spawns_ends_none_of_the_spawned() {
    const ROUNDS: usize = 3000;
    const PER_ROUND: usize = 500;
    const ENDER_PROCESSES: usize = 5_000;
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Short runs, one after another, each leaving its processes to the sweep at its end.
    let ender = std::thread::spawn({
        let stop = stop.clone();
        move || {
            let mut runs = 0;
            while !stop.load(Ordering::SeqCst) {
                mote::run(|_root: Process<()>| async move {
                    for _ in 0..ENDER_PROCESSES {
                        mote::spawn(|mut p: Process<u8>| async move {
                            p.recv().await;
                        });
                    }
                })
                .unwrap();
                runs += 1;
            }
            runs
        }
    });
    let ended_early = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(AtomicUsize::new(0));
    let (early, done) = (ended_early.clone(), finished.clone());
    mote::run(move |_main: Process<()>| async move {
        for _ in 0..ROUNDS {
            let pids: Vec<Pid<u8>> = (0..PER_ROUND)
                .map(|_| {
                    let guard = Unfinished {
                        finished: false,
                        ended_early: early.clone(),
                    };
                    let done = done.clone();
                    mote::spawn(move |mut p: Process<u8>| async move {
                        let mut guard = guard;
                        p.recv().await;
                        guard.finished = true;
                        done.fetch_add(1, Ordering::SeqCst);
                    })
                })
                .collect();
            for pid in &pids {
                pid.send(0);
            }
            mote::yield_now().await;
        }
        // Every process has finished, or was ended early (and counted so).
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while done.load(Ordering::SeqCst) + early.load(Ordering::SeqCst) < ROUNDS * PER_ROUND {
            assert!(
                std::time::Instant::now() < deadline,
                "the live run's processes neither finished nor ended"
            );
            mote::sleep(Duration::from_millis(1)).await;
        }
    })
    .unwrap();
    stop.store(true, Ordering::SeqCst);
    let runs = ender.join().unwrap();
    assert!(runs > 0);
    assert_eq!(
        ended_early.load(Ordering::SeqCst),
        0,
        "processes of a live run ended by another run's end ({runs} runs ended beside)"
    );
}
