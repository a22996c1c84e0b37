//! Process groups (Erlang's `pg`): workers join a named group, the root broadcasts to it,
//! and a worker that dies leaves the group by itself.

use std::time::Duration;

use mote::{pg, Down, ExitReason, Process, Signal};

enum Job {
    Greet(mote::Pid<Signal<String>>),
    Stop,
}

fn main() {
    mote::run(|mut p: Process<Signal<String>>| async move {
        let workers: Vec<_> = (0..3)
            .map(|n| {
                mote::spawn(move |mut w: Process<Job>| async move {
                    pg::join("greeters", w.pid()).expect("a live process joins");
                    while let Job::Greet(reply) = w.recv().await {
                        reply.send(Signal::Msg(format!("hello from worker {n}")));
                    }
                })
            })
            .collect();

        // The workers join asynchronously: wait, bounded, until all three are in.
        for _ in 0..1_000 {
            if pg::members::<Job>("greeters").len() == 3 {
                break;
            }
            mote::sleep(Duration::from_millis(1)).await;
        }
        println!("groups: {:?}", pg::which_groups());

        for worker in pg::members::<Job>("greeters") {
            worker.send(Job::Greet(p.pid()));
        }
        for _ in 0..3 {
            if let Some(Signal::Msg(greeting)) = p.recv_timeout(Duration::from_secs(5)).await {
                println!("{greeting}");
            }
        }

        // A worker that dies leaves its groups.
        p.monitor(workers[0]);
        mote::exit(workers[0], ExitReason::Kill);
        if let Some(Signal::Down(Down { reason, .. })) =
            p.recv_timeout(Duration::from_secs(5)).await
        {
            println!("worker 0 ended: {reason}");
        }
        for _ in 0..1_000 {
            if pg::members::<Job>("greeters").len() == 2 {
                break;
            }
            mote::sleep(Duration::from_millis(1)).await;
        }
        println!("greeters now: {:?}", pg::members::<Job>("greeters"));

        for worker in pg::members::<Job>("greeters") {
            worker.send(Job::Stop);
        }
    })
    .expect("the root process ends normally");
}
