//! An Erlang node calls a typed mote server by name and monitors it: the mote node serves
//! a counter (`mote_dist::node::serve`), an `erl` node (started by this program, if `erl`
//! is installed: Debian's `erlang-base`) runs `gen_server:call({counter, MoteNode}, ...)`,
//! monitors the server by `{Name, Node}`, and sees its `DOWN` with the mote server's exit
//! reason, `{shutdown, closing}`, when the mote side stops it.
//!
//! Run: `cargo run -p examples --example erlang_interop`.

use std::process::Command;
use std::time::Duration;

use mote::server::{self, Context, Next, ReplyTo, Server};
use mote::{ExitReason, Process, Term};
use mote_dist::node::NodeOptions;
use serde::Deserialize;

/// What Erlang asks: `{add, N}` and `get`.
#[derive(Deserialize)]
enum Call {
    Add(i64),
    Get,
}

struct Counter(i64);

impl Server for Counter {
    type Call = Call;
    type Reply = i64;
    type Cast = ();
    type Info = ();

    async fn handle_call(&mut self, call: Call, from: ReplyTo<i64>, _: &mut Context<Self>) -> Next {
        match call {
            Call::Add(n) => self.0 += n,
            Call::Get => {}
        }
        from.reply(self.0);
        Next::Continue
    }
}

/// The Erlang side: two calls, a monitor by name, then the DOWN.
const ERLANG: &str = r#"
    Mote = list_to_atom(os:getenv("MOTE_NODE")),
    5 = gen_server:call({counter, Mote}, {add, 5}),
    7 = gen_server:call({counter, Mote}, {add, 2}),
    io:format("erlang: counter is ~p~n", [gen_server:call({counter, Mote}, get)]),
    Ref = monitor(process, {counter, Mote}),
    %% A call after the monitor travels behind it on the one connection, so once it is
    %% answered the monitor is in place on the mote node.
    7 = gen_server:call({counter, Mote}, get),
    io:format("erlang: monitoring~n"),
    receive {'DOWN', Ref, process, Who, Why} ->
        io:format("erlang: DOWN ~p ~p~n", [Who, Why])
    after 10000 -> io:format("erlang: no DOWN~n")
    end,
    halt()."#;

/// Runs the example; returns what the Erlang node printed (empty without `erl`).
pub fn run() -> Vec<String> {
    mote::run(|_p: Process<()>| async move {
        if Command::new("erl").arg("-version").output().is_err() {
            println!(
                "erl is not installed (Debian: apt-get install erlang-base); nothing to talk to"
            );
            return Vec::new();
        }
        let epmd = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let me = format!("mote{}@127.0.0.1", std::process::id());
        let _node = NodeOptions::new(me.clone())
            .cookie("interop")
            .epmd_port(epmd)
            .start_epmd(true)
            .start()
            .await
            .expect("the mote node starts");
        let counter = server::start(Counter(0)).await.expect("the server starts");
        mote_dist::node::serve("counter", counter).expect("the name is free");

        let erl = tokio::process::Command::new("erl")
            .env("ERL_EPMD_PORT", epmd.to_string())
            .env("MOTE_NODE", &me)
            .args(["-noshell", "-start_epmd", "false", "-name"])
            .arg(format!("erl{}@127.0.0.1", std::process::id()))
            .args(["-setcookie", "interop", "-eval", ERLANG])
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("erl starts");
        let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(
            erl.stdout.expect("piped"),
        ));
        let mut seen = Vec::new();
        while let Ok(Ok(Some(line))) =
            tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await
        {
            println!("{line}");
            if line.contains("monitoring") {
                // The mote side ends the server; Erlang's monitor sees the reason.
                let reason = ExitReason::shutdown_with(Term::atom("closing"));
                let _ = counter.stop(reason, Duration::from_secs(5)).await;
            }
            seen.push(line);
        }
        seen
    })
    .expect("the example runs")
}

#[allow(dead_code)] // the test includes this file and calls `run`
fn main() {
    run();
}
