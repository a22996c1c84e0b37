//! A process's run of sends to one busy receiver is gathered on its thread and queued in one
//! go (the thread's outbox): at the latest when the sender's poll ends, always behind what
//! the sender sent that receiver before and ahead of what it sends or signals after.
//!
//! The facts checked (Erlang's, and mote's rule for when a message may wait):
//! * a send to a receiver that waits for mail goes at once; a later send in the same poll to
//!   a receiver that is not waiting may wait, until the sender's poll ends;
//! * one sender's messages and its exit signal reach a trapping receiver in the order sent;
//! * a call goes behind the casts its caller sent before it;
//! * a process's messages to itself are in its mailbox when the send returns.
//!
//! In a file of its own, so the runtime has one scheduler thread: a process spawned or woken
//! by the one running does not run until that one's poll ends, so "not waiting" is certain.
//! The tests take turns (a lock): one of them reads the runtime's send counter.

use std::sync::Mutex;
use std::time::Duration;

use mote::server::{self, Context, Next, ReplyTo, Server};
use mote::{Exit, ExitReason, Pid, Process};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_thread() -> std::sync::MutexGuard<'static, ()> {
    let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let _ = mote::Builder::new().worker_threads(1).install();
    assert_eq!(mote::worker_threads(), 1);
    turn
}

const LONG: Duration = Duration::from_secs(10);

fn sent() -> u64 {
    mote::metrics::snapshot().messages_sent
}

#[test]
fn a_run_of_sends_to_a_busy_receiver_is_queued_when_the_sender_waits() {
    let _turn = one_thread();
    let seen = mote::run(|mut p: Process<Vec<u32>>| async move {
        let me = p.pid();
        // Spawned, not run yet (one thread, and this poll holds it): not waiting for mail.
        let b = mote::spawn(move |mut b: Process<u32>| async move {
            let mut seen = Vec::new();
            for _ in 0..5 {
                seen.push(b.recv().await);
            }
            me.send(seen);
        });
        let before = sent();
        for i in 1..=5 {
            b.send(i);
        }
        // The first went at once; the other four wait in this thread's outbox.
        assert_eq!(sent() - before, 1, "only the first send is queued yet");
        // The poll ends here: the four are queued, in order, and b gets all five.
        let seen = p.recv_timeout(LONG).await.expect("b reports");
        assert_eq!(sent() - before, 6, "the five, and b's report");
        seen
    })
    .unwrap();
    assert_eq!(seen, [1, 2, 3, 4, 5]);
}

/// What the trapping receiver of the signal-order test gets.
#[derive(Debug, PartialEq)]
enum Got {
    Number(u32),
    Exit(ExitReason),
}

impl From<Exit> for Got {
    fn from(exit: Exit) -> Self {
        Got::Exit(exit.reason)
    }
}

#[test]
fn one_senders_messages_and_exit_signal_arrive_in_the_order_sent() {
    let _turn = one_thread();
    let seen = mote::run(|mut p: Process<Option<Vec<Got>>>| async move {
        let me = p.pid();
        let b: Pid<Got> = mote::spawn(move |mut b: Process<Got>| async move {
            b.trap_exit(true);
            me.send(None);
            let mut seen = Vec::new();
            for _ in 0..6 {
                seen.push(b.recv().await);
            }
            me.send(Some(seen));
        });
        assert_eq!(p.recv_timeout(LONG).await, Some(None), "b traps exits");
        for i in 1..=5 {
            b.send(Got::Number(i));
        }
        mote::exit(b, ExitReason::custom("after five"));
        p.recv_timeout(LONG).await.flatten().expect("b reports")
    })
    .unwrap();
    let mut expected: Vec<Got> = (1..=5).map(Got::Number).collect();
    expected.push(Got::Exit(ExitReason::custom("after five")));
    assert_eq!(seen, expected);
}

/// Counts its casts; a call answers the count.
#[derive(Default)]
struct Counter(u32);

impl Server for Counter {
    type Call = ();
    type Reply = u32;
    type Cast = ();
    type Info = ();

    async fn handle_call(&mut self, _: (), from: ReplyTo<u32>, _: &mut Context<Self>) -> Next {
        from.reply(self.0);
        Next::Continue
    }

    async fn handle_cast(&mut self, _: (), _: &mut Context<Self>) -> Next {
        self.0 += 1;
        Next::Continue
    }
}

#[test]
fn a_call_goes_behind_the_casts_its_caller_sent_before_it() {
    let _turn = one_thread();
    let count = mote::run(|_p: Process<()>| async move {
        let counter = server::start(Counter::default()).await.unwrap();
        for _ in 0..10 {
            counter.cast(());
        }
        counter.call((), LONG).await.unwrap()
    })
    .unwrap();
    assert_eq!(count, 10);
}

#[test]
fn a_process_sending_to_itself_finds_the_messages_in_its_mailbox_at_once() {
    let _turn = one_thread();
    let got = mote::run(|mut p: Process<u32>| async move {
        for i in 1..=3 {
            p.pid().send(i);
        }
        [p.try_recv(), p.try_recv(), p.try_recv()]
    })
    .unwrap();
    assert_eq!(got, [Some(1), Some(2), Some(3)]);
}
