//! `call` on mote: the server is a `mote::server` (the OTP layer's gen_server: a call is a
//! reply slot watched for the server's exit, with a timeout).

use super::{Serve, Tally};
use crate::harness::outcome::ms_since;
use crate::workloads::common::shares;
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::server::{self, Context, Next, ReplyTo, Server};
use mote::Process;
use std::time::{Duration, Instant};

/// Replies `i + 1` to a call with `i`.
struct Increment;

impl Server for Increment {
    type Call = u64;
    type Reply = u64;
    type Cast = ();
    type Info = ();

    async fn handle_call(&mut self, i: u64, from: ReplyTo<u64>, _ctx: &mut Context<Self>) -> Next {
        from.reply(i + 1);
        Next::Continue
    }
}

/// Every call's timeout: long enough never to fire, so each call pays for a live timer as
/// a real caller's does.
const TIMEOUT: Duration = Duration::from_secs(5);

impl Serve for Mote {
    fn serve(&self, r: u64, callers: u64) -> Result<Measured<Tally>> {
        mote_main(move |mut main: Process<Tally>| async move {
            let start = Instant::now();
            let server = server::start(Increment).await?;
            let report = main.pid();
            for share in shares(r, callers) {
                mote::spawn(move |_client: Process<()>| async move {
                    let mut tally = Tally::default();
                    for i in share {
                        match server.call(i, TIMEOUT).await {
                            Ok(v) => tally.wrong += u64::from(v != i + 1),
                            Err(_) => break,
                        }
                        tally.calls += 1;
                    }
                    report.send(tally);
                });
            }
            let mut tally = Tally::default();
            for _ in 0..callers {
                tally.add(main.recv().await);
            }
            let wall_ms = ms_since(start);
            server.stop(mote::ExitReason::Normal, TIMEOUT).await?;
            Ok(Measured::new(wall_ms, tally))
        })
    }
}
