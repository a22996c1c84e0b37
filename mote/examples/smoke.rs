use mote::{Pid, Process};
use std::time::Instant;

fn main() {
    let m: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(10_000);
    let n: u64 = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(10_000);
    let k: usize = std::env::args().nth(3).map(|s| s.parse().unwrap()).unwrap_or(1_000_000);
    if std::env::var("W").is_ok() { mote::Builder::new().worker_threads(std::env::var("W").unwrap().parse().unwrap()).install().unwrap(); }
    let r = mote::run(move |mut p: Process<u64>| async move {
        let t = Instant::now();
        let mut next: Pid<u64> = p.pid();
        for _ in 0..m {
            let to = next;
            next = mote::spawn(move |mut c: Process<u64>| async move {
                loop {
                    let v = c.recv().await;
                    to.send(v);
                    if v == u64::MAX { break; }
                }
            });
        }
        for i in 0..n {
            next.send(i);
        }
        let mut sum = 0;
        for _ in 0..n {
            sum += p.recv().await;
        }
        assert_eq!(sum, n * (n - 1) / 2);
        println!("chain m={m} n={n}: {:?}", t.elapsed());
        let info = mote::process_info(next.id()).unwrap();
        println!("head: received {} polls {}", info.messages_received, info.polls);
        let info = mote::process_info(mote::processes()[m / 2]).unwrap();
        println!("mid: received {} polls {}", info.messages_received, info.polls);
        let t = Instant::now();
        let me = p.pid();
        let mut pids = Vec::with_capacity(k);
        for _ in 0..k {
            pids.push(mote::spawn(move |mut c: Process<()>| async move {
                c.recv().await;
                me.send(1);
            }));
        }
        let spawned = t.elapsed();
        for pid in &pids {
            pid.send(());
        }
        for _ in 0..k {
            p.recv().await;
        }
        println!("million k={k}: spawn {:?} total {:?} live {}", spawned, t.elapsed(), mote::process_count());
    });
    r.unwrap();
    let mut ru: libc_rusage = unsafe { std::mem::zeroed() };
    unsafe { getrusage(0, &mut ru) };
    println!("peak rss {} MB", ru.maxrss / 1024);
}
#[repr(C)]
struct libc_rusage { utime: [i64; 2], stime: [i64; 2], maxrss: i64, rest: [i64; 13] }
extern "C" { fn getrusage(who: i32, r: *mut libc_rusage) -> i32; }
