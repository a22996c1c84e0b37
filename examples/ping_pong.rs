//! Two processes exchange messages; each knows the other only by its typed `Pid`.

use mote::{Pid, Process};

enum Ball {
    Ping(u32, Pid<Ball>),
    Pong(u32),
}

fn main() {
    let rounds = mote::run(|mut p: Process<Ball>| async move {
        let partner = mote::spawn(|mut q: Process<Ball>| async move {
            while let Ball::Ping(n, from) = q.recv().await {
                from.send(Ball::Pong(n));
                if n == 9 {
                    break;
                }
            }
        });
        let mut rounds = 0;
        for n in 0..10 {
            partner.send(Ball::Ping(n, p.pid()));
            if let Ball::Pong(m) = p.recv().await {
                assert_eq!(m, n);
                rounds += 1;
            }
        }
        rounds
    })
    .expect("the root process ends normally");
    println!("{rounds} round trips");
}
