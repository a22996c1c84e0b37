//! No message lost, and order kept per sender, under a heavy fan-in.

use anyhow::{bail, Result};

use super::{count, in_run, Report};
use crate::size::Size;

/// `fanin_senders` processes each send `fanin_per_sender` numbered messages to one
/// receiver, all at once; the receiver checks each sender's numbers arrive complete and in
/// order (Erlang's only ordering promise, per sender-receiver pair).
pub fn fanin_order(size: Size) -> Result<Report> {
    in_run(move |mut p: mote::Process<(u32, u64)>| async move {
        let me = p.pid();
        let per = size.fanin_per_sender;
        for s in 0..size.fanin_senders as u32 {
            mote::spawn(move |_q: mote::Process<()>| async move {
                for i in 0..per {
                    me.send((s, i));
                    if i % 1024 == 0 {
                        mote::yield_now().await;
                    }
                }
            });
        }
        let mut next = vec![0u64; size.fanin_senders];
        let total = size.fanin_senders as u64 * per;
        for _ in 0..total {
            let Some((s, i)) = p.recv_timeout(std::time::Duration::from_secs(30)).await else {
                bail!("messages stopped arriving: {next:?}");
            };
            let expected = &mut next[s as usize];
            if i != *expected {
                bail!("sender {s}: got message {i}, expected {expected}");
            }
            *expected += 1;
        }
        if p.try_recv().is_some() {
            bail!("more messages than were sent");
        }
        Ok(Report {
            checked: format!(
                "{} messages from {} senders, none lost, each sender's in order",
                count(total),
                size.fanin_senders
            ),
        })
    })
}
