//! A three-node mote cluster (three OS processes on this machine) running a work-stealing
//! master: idle workers on the two worker nodes ask the master for the next chunk of
//! numbers to factorize, and the master counts the prime factors they report. Halfway, one
//! worker node is killed: the master's monitors of its workers fire with `noconnection`,
//! their chunks go back in the queue and the surviving node redoes them. The total is
//! checked against a sequential count.
//!
//! Run: `cargo run -p examples --example cluster` (the program starts its worker nodes
//! itself, as copies of itself, and an embedded EPMD, so nothing else is needed).

use std::collections::{HashMap, VecDeque};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use mote::{Down, Pid, Process};
use mote_dist::node::{Node, NodeOptions};
use serde::{Deserialize, Serialize};

const COOKIE: &str = "cluster-example";
/// Numbers 1..=N are factorized, in chunks of CHUNK.
const N: u64 = 400_000;
const CHUNK: u64 = 2_000;
/// Worker processes on each worker node.
const WORKERS_PER_NODE: usize = 2;

/// What the master receives.
#[derive(Serialize, Deserialize, Debug)]
enum ToMaster {
    /// An idle worker asks for work (work stealing: the workers pull).
    Ask(Pid<ToWorker>),
    /// A chunk's count of prime factors.
    Result {
        worker: Pid<ToWorker>,
        chunk: u64,
        factors: u64,
    },
    /// A worker (or its node) is gone.
    #[serde(skip)]
    Down(Down),
}

impl From<Down> for ToMaster {
    fn from(d: Down) -> Self {
        ToMaster::Down(d)
    }
}

/// What a worker receives.
#[derive(Serialize, Deserialize, Debug)]
enum ToWorker {
    Work { chunk: u64 },
    Done,
}

/// How many prime factors `m` has, with multiplicity (trial division, as the seed's
/// Cloud Haskell example does).
fn prime_factors(mut m: u64) -> u64 {
    let mut count = 0;
    let mut d = 2;
    while d * d <= m {
        while m % d == 0 {
            m /= d;
            count += 1;
        }
        d += 1;
    }
    count + u64::from(m > 1)
}

fn chunk_factors(chunk: u64) -> u64 {
    let first = chunk * CHUNK + 1;
    (first..(first + CHUNK).min(N + 1)).map(prime_factors).sum()
}

/// A worker node: `WORKERS_PER_NODE` processes that ask the master for chunks until it
/// says `Done`.
pub fn worker_node(name: &str, epmd_port: u16, master: &str) {
    let (name, master) = (name.to_owned(), master.to_owned());
    mote::run(move |_p: Process<()>| async move {
        let node = NodeOptions::new(name)
            .cookie(COOKIE)
            .epmd_port(epmd_port)
            .start()
            .await
            .expect("worker node starts");
        let mut workers = Vec::new();
        for _ in 0..WORKERS_PER_NODE {
            let (node, master) = (node.clone(), master.clone());
            workers.push(mote::spawn(move |mut w: Process<ToWorker>| async move {
                mote::dist::expose(w.pid());
                loop {
                    node.send_named("master", &master, &ToMaster::Ask(w.pid()));
                    match w.recv().await {
                        ToWorker::Work { chunk } => {
                            let factors = chunk_factors(chunk);
                            let result = ToMaster::Result {
                                worker: w.pid(),
                                chunk,
                                factors,
                            };
                            node.send_named("master", &master, &result);
                        }
                        ToWorker::Done => return,
                    }
                }
            }));
        }
        for w in workers {
            while mote::is_alive(w) {
                mote::sleep(Duration::from_millis(20)).await;
            }
        }
    })
    .expect("worker node runs");
}

/// What the master saw.
#[derive(Debug)]
pub struct Outcome {
    pub total: u64,
    pub expected: u64,
    pub chunks_by_node: HashMap<String, u64>,
    pub redone: u64,
    pub elapsed: Duration,
}

/// The master node: starts the embedded EPMD and itself, starts two worker nodes with
/// `start_worker(name, epmd_port, master)`, hands out chunks to whoever asks, kills the
/// second worker node when half the chunks are done, and redoes its lost chunks.
pub fn master_node(start_worker: impl Fn(&str, u16, &str) -> Child + Send + 'static) -> Outcome {
    mote::run(move |mut p: Process<ToMaster>| async move {
        let epmd_port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let me = format!("master{}@127.0.0.1", std::process::id());
        let _node: Node = NodeOptions::new(me.clone())
            .cookie(COOKIE)
            .epmd_port(epmd_port)
            .start_epmd(true)
            .start()
            .await
            .expect("master node starts");
        mote_dist::node::register("master", p.pid()).expect("the name is free");
        let names = [1, 2].map(|i| format!("worker{i}_{}@127.0.0.1", std::process::id()));
        let mut children: Vec<Child> = names
            .iter()
            .map(|n| start_worker(n, epmd_port, &me))
            .collect();

        let started = Instant::now();
        let chunks = N.div_ceil(CHUNK);
        let mut queue: VecDeque<u64> = (0..chunks).collect();
        let mut in_flight: HashMap<Pid<ToWorker>, u64> = HashMap::new();
        let mut known: HashMap<Pid<ToWorker>, ()> = HashMap::new();
        let mut idle: Vec<Pid<ToWorker>> = Vec::new();
        let mut done = 0;
        let mut total = 0;
        let mut redone = 0;
        let mut chunks_by_node: HashMap<String, u64> = HashMap::new();
        let mut killed = false;
        while done < chunks {
            let Some(msg) = p.recv_timeout(Duration::from_secs(60)).await else {
                panic!("no progress for 60 s");
            };
            match msg {
                ToMaster::Ask(worker) => {
                    if known.insert(worker, ()).is_none() {
                        // A worker that dies (or whose node does) gives its chunk back.
                        p.monitor(worker);
                    }
                    match queue.pop_front() {
                        Some(chunk) => {
                            in_flight.insert(worker, chunk);
                            worker.send(ToWorker::Work { chunk });
                        }
                        None => idle.push(worker),
                    }
                }
                ToMaster::Result {
                    worker,
                    chunk,
                    factors,
                } => {
                    if in_flight.remove(&worker) == Some(chunk) {
                        done += 1;
                        total += factors;
                        let node_name = mote_dist::node_table::node_name(worker.id().node())
                            .map(|a| a.as_str().to_owned())
                            .unwrap_or_default();
                        *chunks_by_node.entry(node_name).or_default() += 1;
                    }
                    if !killed && done >= chunks / 2 {
                        killed = true;
                        println!("master: killing {} at {done}/{chunks} chunks", names[1]);
                        let _ = children[1].kill();
                    }
                }
                ToMaster::Down(down) => {
                    // Its node is gone (`noconnection`) or the worker ended: requeue.
                    let worker = in_flight.keys().copied().find(|w| w.id() == down.pid);
                    if let Some(chunk) = worker.and_then(|w| in_flight.remove(&w)) {
                        println!("master: {} lost chunk {chunk} ({})", down.pid, down.reason);
                        queue.push_back(chunk);
                        redone += 1;
                        if let Some(w) = idle.pop() {
                            let chunk = queue.pop_back().expect("just pushed");
                            in_flight.insert(w, chunk);
                            w.send(ToWorker::Work { chunk });
                        }
                    }
                }
            }
        }
        let elapsed = started.elapsed();
        for w in known.keys() {
            w.send(ToWorker::Done);
        }
        mote::sleep(Duration::from_millis(200)).await;
        for c in &mut children {
            let _ = c.kill();
            let _ = c.wait();
        }
        Outcome {
            total,
            expected: (0..chunks).map(chunk_factors).sum(),
            chunks_by_node,
            redone,
            elapsed,
        }
    })
    .expect("master runs")
}

#[allow(dead_code)] // the test includes this file and has its own entry point
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("worker") {
        return worker_node(&args[2], args[3].parse().unwrap(), &args[4]);
    }
    let outcome = master_node(|name, epmd, master| {
        Command::new(std::env::current_exe().unwrap())
            .args(["worker", name, &epmd.to_string(), master])
            .spawn()
            .expect("worker node starts")
    });
    println!(
        "{} prime factors in 1..={N} ({} expected), {:?}; chunks by node: {:?}; {} chunks redone after the node loss",
        outcome.total, outcome.expected, outcome.elapsed, outcome.chunks_by_node, outcome.redone
    );
    assert_eq!(outcome.total, outcome.expected);
}
