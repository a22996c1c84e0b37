//! An agent: a process holding a state, changed through closures that are moved in.
//!
//! A word-count agent shared by eight writer processes; each writer moves its closure (and
//! the words it captures) into the agent, never copying them. Then a reader takes a
//! snapshot with `get`, and `get_and_update` resets the counts atomically.
//!
//! Run: `cargo run -p examples --example agent`

use std::collections::HashMap;
use std::time::Duration;

use mote::agent::Agent;
use mote::{Down, Process};

const T: Duration = Duration::from_secs(5);

fn main() {
    mote::run(|mut p: Process<Down>| async move {
        let counts = Agent::start(HashMap::<String, u64>::new)
            .await
            .expect("the agent starts");
        let text = "the quick brown fox jumps over the lazy dog the end";
        for writer in 0..8 {
            let words: Vec<String> = text.split(' ').map(str::to_owned).collect();
            p.spawn_monitor(move |_w: Process<()>| async move {
                // The closure owns `words`: it moves into the agent's process.
                counts
                    .update(
                        move |c| {
                            for w in words {
                                *c.entry(w).or_default() += 1;
                            }
                        },
                        T,
                    )
                    .await
                    .expect("the agent is alive");
                println!("writer {writer} done");
            });
        }
        for _ in 0..8 {
            p.recv().await;
        }
        let the = counts.get(|c| c.get("the").copied(), T).await;
        println!("'the' counted {:?} times (8 writers x 3)", the);
        let snapshot = counts
            .get_and_update(std::mem::take, T)
            .await
            .expect("alive");
        let mut top: Vec<_> = snapshot.into_iter().collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        println!("top words: {:?}", &top[..3]);
        println!(
            "after reset: {:?} entries",
            counts.get(|c| c.len(), T).await
        );
        counts
            .stop(mote::ExitReason::Normal, T)
            .await
            .expect("stops");
    })
    .expect("the example runs");
}
