//! Calls racing their server's death: whatever the interleaving, every call ends (a reply,
//! the server's exit reason, or `NoProc`) long before its timeout. A request that went in as
//! the server was ending must not sit unread until the server's slot is recycled, which may
//! be never on an idle runtime.

use std::time::Duration;

use mote::server::{self, CallError, Context, Next, ReplyTo, Server};
use mote::{ExitReason, Process};

struct Echo;

impl Server for Echo {
    type Call = u64;
    type Reply = u64;
    type Cast = ();
    type Info = ();

    async fn handle_call(&mut self, n: u64, from: ReplyTo<u64>, _: &mut Context<Self>) -> Next {
        from.reply(n);
        Next::Continue
    }
}

const ROUNDS: u64 = 20_000;

#[test]
fn calls_racing_a_kill_never_wait_for_their_timeout() {
    mote::run(|mut p: Process<Result<u64, CallError>>| async move {
        let me = p.pid();
        let mut outcomes = [0u64; 4];
        for round in 0..ROUNDS {
            let s = server::start(Echo).await.unwrap();
            for _ in 0..2 {
                mote::spawn(move |_c: Process<()>| async move {
                    me.send(s.call(round, Duration::from_secs(2)).await);
                });
            }
            mote::exit(s.id(), ExitReason::Kill);
            for _ in 0..2 {
                let outcome = p.recv().await;
                let kind = match outcome {
                    Ok(n) if n == round => 0,
                    Err(CallError::Exit(ExitReason::Killed)) => 1,
                    Err(CallError::NoProc) => 2,
                    other => panic!("round {round}: {other:?}"),
                };
                outcomes[kind] += 1;
            }
        }
        eprintln!("replies, killed, noproc: {outcomes:?}");
    })
    .unwrap();
}
