//! Selective receive takes the first matching message and leaves the rest in order.

use mote::Process;

fn main() {
    mote::run(|mut p: Process<&'static str>| async move {
        for m in ["low: a", "low: b", "urgent: c"] {
            p.pid().send(m);
        }
        let first = p.recv_matching(|m| m.starts_with("urgent")).await;
        let rest = [p.recv().await, p.recv().await];
        println!("handled {first} first, then {rest:?}");
        assert_eq!(rest, ["low: a", "low: b"]);
    })
    .unwrap();
}
