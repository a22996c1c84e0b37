//! `mote-bench remote`: messages between two nodes on loopback, mote and Erlang side by
//! side: round trips (ping-pong with an echo process) and one-way throughput (N messages to
//! a sink, then one synchronising round trip), with a small message (an integer) and a
//! large one (a 64 KiB binary), for each pair of client and server nodes: mote to mote,
//! Erlang to Erlang (`peers/erlang/remote_bench.erl`), mote to Erlang and Erlang to mote.
//!
//! Every node is its own OS process except the mote client (this process). The server
//! nodes start once; the rounds interleave the pairs, and each figure is the median of the
//! rounds. Every message goes by registered name (`{echo, Node} ! {self(), Msg}`) on both
//! sides, and every payload is a dynamic term on the mote side (`WireTerm`), as a BEAM
//! process receives any term.

use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use mote::{Pid, Process};
use mote_dist::etf::WireTerm;
use mote_dist::node::{Node, NodeOptions};

use crate::cli::{RemoteArgs, RemoteNodeArgs};

const COOKIE: &str = "mote-bench-remote";

/// A measurement: what, with which payload.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Pingpong,
    Throughput,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Pingpong => "pingpong",
            Kind::Throughput => "throughput",
        }
    }
}

fn payload(large: bool) -> WireTerm {
    if large {
        WireTerm::Binary(vec![7u8; 65536].into())
    } else {
        WireTerm::Int(42)
    }
}

/// `mote-bench remote-node NAME EPMD_PORT`: a mote server node (its echo and sink).
pub fn node_main(args: RemoteNodeArgs) -> ExitCode {
    let r = mote::run(move |_p: Process<()>| async move {
        let _node = NodeOptions::new(args.name)
            .cookie(COOKIE)
            .epmd_port(args.epmd_port)
            .start()
            .await?;
        let echo = mote::spawn(|mut p: Process<(Pid<WireTerm>, WireTerm)>| async move {
            loop {
                let (from, message) = p.recv().await;
                from.send(message);
            }
            #[allow(unreachable_code)]
            ()
        });
        mote_dist::node::register("echo", echo)?;
        let sink = mote::spawn(|mut p: Process<WireTerm>| async move {
            let mut count = 0i64;
            loop {
                match p.recv().await {
                    WireTerm::Tuple(t)
                        if t.len() == 2 && t[0] == WireTerm::atom("sync").unwrap() =>
                    {
                        if let WireTerm::Pid(from) = &t[1] {
                            let from = mote_dist::node_table::typed_pid::<WireTerm>(from).ok();
                            if let Some(from) = from {
                                from.send(WireTerm::Tuple(vec![
                                    WireTerm::atom("count").unwrap(),
                                    WireTerm::Int(count),
                                ]));
                            }
                        }
                        count = 0;
                    }
                    _ => count += 1,
                }
            }
            #[allow(unreachable_code)]
            ()
        });
        mote_dist::node::register("sink", sink)?;
        println!("serving");
        loop {
            mote::sleep(Duration::from_secs(3600)).await;
        }
        #[allow(unreachable_code)]
        Ok::<(), anyhow::Error>(())
    });
    match r {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("remote-node: {e:#}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("remote-node: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A child process killed when dropped.
struct Kid(Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `cmd` and waits for the line `serving` on its stdout.
fn serve(mut cmd: Command, what: &str) -> Result<Kid> {
    use std::io::BufRead;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {what}"))?;
    let out = child.stdout.take().expect("piped");
    let kid = Kid(child);
    let mut lines = std::io::BufReader::new(out).lines();
    loop {
        match lines.next() {
            Some(Ok(line)) if line.trim() == "serving" => break,
            Some(Ok(_)) => continue,
            _ => bail!("{what} ended before serving"),
        }
    }
    // Keep reading (and dropping) its output so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Ok(kid)
}

fn erl(dir: &PathBuf, name: &str, epmd: u16, eval: &str) -> Command {
    let mut cmd = Command::new("erl");
    cmd.env("ERL_EPMD_PORT", epmd.to_string()).args([
        "-noshell",
        "-start_epmd",
        "false",
        "-name",
        name,
        "-setcookie",
        COOKIE,
        "-pa",
    ]);
    cmd.arg(dir).args(["-eval", eval]);
    cmd
}

/// An Erlang client run: its measured time.
fn erl_client(
    dir: &PathBuf,
    epmd: u16,
    server: &str,
    kind: Kind,
    n: u64,
    large: bool,
) -> Result<Duration> {
    let name = format!(
        "erlclient{}_{}@127.0.0.1",
        std::process::id(),
        rand_suffix()
    );
    let eval = format!(
        "remote_bench:client('{server}', {}, {n}, {}), halt().",
        kind.name(),
        if large { "large" } else { "small" }
    );
    let out = erl(dir, &name, epmd, &eval)
        .stdin(Stdio::null())
        .output()
        .context("running the erl client")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let ns: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("RESULT ns="))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| {
            anyhow!(
                "erl client printed no result: {text} {}",
                String::from_utf8_lossy(&out.stderr)
            )
        })?;
    Ok(Duration::from_nanos(ns))
}

fn rand_suffix() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A mote client run (in a process of this node): its measured time.
async fn mote_client(
    node: &Node,
    server: &str,
    kind: Kind,
    n: u64,
    large: bool,
) -> Result<Duration> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let (node, server_name) = (node.clone(), server.to_owned());
    mote::spawn(move |mut p: Process<WireTerm>| async move {
        mote::dist::expose(p.pid());
        let message = payload(large);
        let me = p.pid();
        let sync = WireTerm::Tuple(vec![
            WireTerm::atom("sync").unwrap(),
            WireTerm::Pid(mote_dist::node_table::to_wire(p.id())),
        ]);
        let mut run = async |count: u64| -> bool {
            match kind {
                Kind::Pingpong => {
                    for _ in 0..count {
                        node.send_named("echo", &server_name, &(me, &message));
                        if p.recv_timeout(Duration::from_secs(60)).await.is_none() {
                            return false;
                        }
                    }
                    true
                }
                Kind::Throughput => {
                    for _ in 0..count {
                        node.send_named("sink", &server_name, &message);
                    }
                    node.send_named("sink", &server_name, &sync);
                    p.recv_timeout(Duration::from_secs(60)).await
                        == Some(WireTerm::Tuple(vec![
                            WireTerm::atom("count").unwrap(),
                            WireTerm::Int(count as i64),
                        ]))
                }
            }
        };
        let warm = run(100).await;
        let started = Instant::now();
        let ok = warm && run(n).await;
        let _ = tx.send(ok.then(|| started.elapsed()));
    });
    rx.await?
        .ok_or_else(|| anyhow!("mote client: no answer in time from {server}"))
}

/// `mote-bench remote`.
pub fn main(args: RemoteArgs) -> ExitCode {
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mote-bench remote: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: RemoteArgs) -> Result<()> {
    let peers = crate::peers::locate_dir().join("erlang");
    let build = std::env::temp_dir().join(format!("mote-bench-remote-{}", std::process::id()));
    std::fs::create_dir_all(&build)?;
    let status = Command::new("erlc")
        .arg("-o")
        .arg(&build)
        .arg(peers.join("remote_bench.erl"))
        .status()
        .context("running erlc (Debian: apt-get install erlang-base)")?;
    if !status.success() {
        bail!("erlc failed on peers/erlang/remote_bench.erl");
    }
    let rounds = args.rounds.max(1);
    let build_dir = build.clone();
    let result = mote::run(move |_p: Process<()>| async move {
        let epmd = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let id = std::process::id();
        let node = NodeOptions::new(format!("moteclient{id}@127.0.0.1"))
            .cookie(COOKIE)
            .epmd_port(epmd)
            .start_epmd(true)
            .start()
            .await?;
        let mote_srv = format!("motesrv{id}@127.0.0.1");
        let erl_srv = format!("erlsrv{id}@127.0.0.1");
        let exe = std::env::current_exe()?;
        let mut cmd = Command::new(exe);
        cmd.args(["remote-node", &mote_srv, &epmd.to_string()]);
        let _mote_kid = serve(cmd, "the mote server node")?;
        let _erl_kid = serve(
            erl(&build, &erl_srv, epmd, "remote_bench:serve()."),
            "the erl server node",
        )?;

        let all_pairs = [
            ("mote->mote", true, mote_srv.as_str()),
            ("erl->erl", false, erl_srv.as_str()),
            ("mote->erl", true, erl_srv.as_str()),
            ("erl->mote", false, mote_srv.as_str()),
        ];
        let pairs: Vec<_> = all_pairs
            .into_iter()
            .filter(|(name, _, _)| args.pairs.is_empty() || args.pairs.iter().any(|p| p == name))
            .collect();
        let cases = [
            (Kind::Pingpong, false, args.trips),
            (Kind::Pingpong, true, args.trips / 10),
            (Kind::Throughput, false, args.messages),
            (Kind::Throughput, true, args.messages / 100),
        ];
        let label = |kind: Kind, large: bool| {
            let size = if large { "64 KiB binary" } else { "integer" };
            format!("{} {size}", kind.name())
        };
        let cases: Vec<_> = cases
            .into_iter()
            .filter(|(kind, large, _)| {
                args.case
                    .as_deref()
                    .is_none_or(|c| label(*kind, *large).contains(c))
            })
            .collect();
        let column = |name: &str| pairs.iter().position(|(n, _, _)| *n == name);
        let ratio = column("mote->mote").zip(column("erl->erl"));
        println!(
            "remote: {rounds} rounds, pairs interleaved; median time per message (round trip for pingpong)"
        );
        let names: Vec<&str> = pairs.iter().map(|(n, _, _)| *n).collect();
        let ratio_head = if ratio.is_some() {
            " mote->mote / erl->erl |"
        } else {
            ""
        };
        println!("| case | n | {} |{ratio_head}", names.join(" | "));
        println!(
            "|---|---|{}{}",
            "---|".repeat(names.len()),
            if ratio.is_some() { "---|" } else { "" }
        );
        for (kind, large, n) in cases {
            let n = n.max(1);
            let mut times: Vec<Vec<Duration>> = vec![Vec::new(); pairs.len()];
            for _ in 0..rounds {
                for (i, (_, mote_client_side, server)) in pairs.iter().enumerate() {
                    let t = if *mote_client_side {
                        mote_client(&node, server, kind, n, large).await?
                    } else {
                        let (build, server) = (build.clone(), server.to_string());
                        tokio::task::spawn_blocking(move || {
                            erl_client(&build, epmd, &server, kind, n, large)
                        })
                        .await??
                    };
                    times[i].push(t);
                }
            }
            let per = |ts: &mut Vec<Duration>| {
                ts.sort();
                ts[ts.len() / 2].as_nanos() as f64 / n as f64
            };
            let medians: Vec<f64> = times.iter_mut().map(per).collect();
            let fmt = |ns: f64| {
                if ns >= 1000.0 {
                    format!("{:.1} µs", ns / 1000.0)
                } else {
                    format!("{ns:.0} ns")
                }
            };
            let cells: Vec<String> = medians.iter().map(|&m| fmt(m)).collect();
            let ratio_cell = ratio
                .map(|(m, e)| format!(" {:.2} |", medians[m] / medians[e]))
                .unwrap_or_default();
            println!(
                "| {} | {n} | {} |{ratio_cell}",
                label(kind, large),
                cells.join(" | ")
            );
        }
        Ok::<(), anyhow::Error>(())
    });
    let _ = std::fs::remove_dir_all(&build_dir);
    result.map_err(|e| anyhow!("{e}"))?
}
