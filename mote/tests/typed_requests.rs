//! Typed requests: one server, several request types, each with its own reply type, beside
//! the single-enum `Call` style.

use std::time::Duration;

use mote::server::{self, CallError, Context, Handles, Next, ReplyTo, Request, Server};
use mote::{testkit, ExitReason, Process};

const LONG: Duration = Duration::from_secs(10);

/// A bank account: typed requests, plus an enum-style call for the total of operations.
#[derive(Default)]
struct Account {
    balance: i64,
    operations: u32,
}

enum Legacy {
    Operations,
}

impl Server for Account {
    type Call = Legacy;
    type Reply = u32;
    type Cast = i64;
    type Info = ();
    async fn handle_call(
        &mut self,
        call: Legacy,
        from: ReplyTo<u32>,
        _: &mut Context<Self>,
    ) -> Next {
        match call {
            Legacy::Operations => from.reply(self.operations),
        }
        Next::Continue
    }
    async fn handle_cast(&mut self, amount: i64, _: &mut Context<Self>) -> Next {
        self.balance += amount;
        self.operations += 1;
        Next::Continue
    }
}

/// Derived: the same as `impl Request for Balance { type Reply = i64; }`.
#[derive(Request)]
#[reply(i64)]
struct Balance;

#[derive(Debug, PartialEq)]
struct Insufficient {
    short_by: i64,
}

struct Withdraw(i64);
impl Request for Withdraw {
    type Reply = Result<i64, Insufficient>;
}

struct Explode;
impl Request for Explode {
    type Reply = ();
}

impl Handles<Balance> for Account {
    async fn handle(&mut self, _: Balance, _: &mut Context<Self>) -> i64 {
        self.balance
    }
}

impl Handles<Withdraw> for Account {
    async fn handle(
        &mut self,
        Withdraw(n): Withdraw,
        _: &mut Context<Self>,
    ) -> Result<i64, Insufficient> {
        // A handler may await: the server serves nothing else meanwhile.
        mote::yield_now().await;
        if n > self.balance {
            return Err(Insufficient {
                short_by: n - self.balance,
            });
        }
        self.balance -= n;
        self.operations += 1;
        Ok(self.balance)
    }
}

impl Handles<Explode> for Account {
    async fn handle(&mut self, _: Explode, _: &mut Context<Self>) {
        panic!("exploded on request")
    }
}

#[test]
fn each_request_type_gets_its_own_reply_type_in_mailbox_order() {
    testkit::run_test(LONG, |_p: Process<()>| async move {
        let account = server::start(Account::default()).await.unwrap();
        account.cast(100);
        let balance: i64 = server::call(&account, Balance).await.unwrap();
        assert_eq!(balance, 100);
        assert_eq!(server::call(&account, Withdraw(30)).await, Ok(Ok(70)));
        assert_eq!(
            account.request(Withdraw(100), LONG).await,
            Ok(Err(Insufficient { short_by: 30 }))
        );
        // The enum style works on the same server.
        assert_eq!(account.call(Legacy::Operations, LONG).await, Ok(2));
    });
}

#[test]
fn many_callers_of_typed_requests_each_get_their_own_reply() {
    testkit::run_test(LONG, |mut p: Process<i64>| async move {
        let account = server::start(Account::default()).await.unwrap();
        account.cast(1_000);
        let me = p.pid();
        for _ in 0..100 {
            mote::spawn(move |_c: Process<()>| async move {
                let left = account.request(Withdraw(10), LONG).await.unwrap().unwrap();
                me.send(left);
            });
        }
        let mut left: Vec<i64> = Vec::new();
        for _ in 0..100 {
            left.push(testkit::assert_receive(&mut p, LONG).await);
        }
        left.sort_unstable();
        assert_eq!(left, (0..100).map(|i| i * 10).collect::<Vec<_>>());
    });
}

#[test]
fn a_panicking_typed_handler_stops_the_server_and_fails_the_call() {
    testkit::run_test(LONG, |_p: Process<()>| async move {
        let account = server::start(Account::default()).await.unwrap();
        let failed = account.request(Explode, LONG).await;
        assert_eq!(
            failed,
            Err(CallError::Exit(ExitReason::Panic(
                "exploded on request".into()
            )))
        );
        assert_eq!(
            server::call(&account, Balance).await,
            Err(CallError::NoProc)
        );
    });
}

/// Calls itself with a typed request: refused at once, as with the enum style.
struct Selfish;
impl Server for Selfish {
    type Call = ();
    type Reply = Result<i64, CallError>;
    type Cast = ();
    type Info = ();
    async fn handle_call(
        &mut self,
        _: (),
        from: ReplyTo<Self::Reply>,
        ctx: &mut Context<Self>,
    ) -> Next {
        from.reply(server::call(&ctx.server(), Balance).await);
        Next::Continue
    }
}
impl Handles<Balance> for Selfish {
    async fn handle(&mut self, _: Balance, _: &mut Context<Self>) -> i64 {
        0
    }
}

#[test]
fn a_server_calling_itself_with_a_typed_request_is_refused() {
    testkit::run_test(LONG, |_p: Process<()>| async move {
        let s = server::start(Selfish).await.unwrap();
        assert_eq!(s.call((), LONG).await, Ok(Err(CallError::CallingSelf)));
    });
}
