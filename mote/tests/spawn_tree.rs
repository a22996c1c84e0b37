//! Where a process spawned while its thread's queue is deep waits: on the thread's spawn
//! stack, run newest first, so a spawning tree is walked depth-first and its processes end
//! before the rest of the tree is spawned, not all at once. In a file of its own, so the
//! runtime has exactly one scheduler thread and the order is the scheduler's alone (its
//! tests take turns: each needs the queue to itself).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

static TURN: Mutex<()> = Mutex::new(());

use mote::{Pid, Process};

fn one_thread() {
    let _ = mote::Builder::new().worker_threads(1).install();
    assert_eq!(mote::worker_threads(), 1);
}

/// Processes spawned and not yet ended, and the most there were at once.
#[derive(Default)]
struct Live {
    now: AtomicUsize,
    most: AtomicUsize,
}

impl Live {
    fn spawned(&self) {
        let now = self.now.fetch_add(1, Ordering::Relaxed) + 1;
        self.most.fetch_max(now, Ordering::Relaxed);
    }

    fn ended(&self) {
        self.now.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `skynet`'s tree: a node over `size` leaves spawns ten children over a tenth each and
/// sends the sum of their replies to its parent.
fn node(off: u64, size: u64, parent: Pid<u64>, live: Arc<Live>) {
    live.spawned();
    mote::spawn(move |mut p: Process<u64>| async move {
        let mut sum = off;
        if size > 1 {
            let child = size / 10;
            for i in 0..10 {
                node(off + i * child, child, p.pid(), Arc::clone(&live));
            }
            sum = 0;
            for _ in 0..10 {
                sum += p.recv().await;
            }
        }
        live.ended();
        parent.send(sum);
    });
}

/// Breadth-first (every spawn at the back of the queue, as before the spawn stack), all
/// 100,000 leaves of this tree waited in the queue at once: 111,111 processes alive.
/// Depth-first once the queue is deep: a few hundred queued subtrees and the path being
/// walked.
#[test]
fn a_spawning_tree_is_walked_depth_first_once_the_queue_is_deep() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    one_thread();
    let l = 100_000;
    let live = Arc::new(Live::default());
    let sum = mote::run({
        let live = Arc::clone(&live);
        move |mut p: Process<u64>| async move {
            node(0, l, p.pid(), live);
            p.recv().await
        }
    })
    .unwrap();
    assert_eq!(sum, l * (l - 1) / 2);
    let most = live.most.load(Ordering::Relaxed);
    assert!(most < 5_000, "{most} processes of the tree alive at once");
}

/// A process that spawns its successor and ends, forever, while the queue is deep: each
/// successor goes to the spawn stack and would run before anything queued. Every so many
/// takes the queue comes first, so the queued processes all run while the chain goes on.
#[test]
fn a_chain_of_spawns_on_the_stack_does_not_starve_the_queue() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    one_thread();
    const QUEUED: usize = 300;
    const LINKS: usize = 200_000;
    fn link(n: usize, ran: Arc<AtomicUsize>, done: Pid<usize>) {
        mote::spawn(move |_p: Process<()>| async move {
            // Until every queued process has run, or the chain is long enough to say they
            // were starved.
            if ran.load(Ordering::Relaxed) == QUEUED || n == LINKS {
                done.send(n);
            } else {
                link(n + 1, ran, done);
            }
        });
    }
    let links = mote::run(|mut p: Process<usize>| async move {
        let ran = Arc::new(AtomicUsize::new(0));
        // In this order in the queue: the chain's first link, then the processes it must
        // not starve (enough to make the queue deep).
        link(0, Arc::clone(&ran), p.pid());
        for _ in 0..QUEUED {
            let ran = Arc::clone(&ran);
            mote::spawn(move |_q: Process<()>| async move {
                ran.fetch_add(1, Ordering::Relaxed);
            });
        }
        p.recv().await
    })
    .unwrap();
    assert!(
        links < LINKS,
        "the queued processes waited behind {links} spawns"
    );
}
