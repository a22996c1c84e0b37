//! Distribution over TLS against real `erl` nodes with `-proto_dist inet_tls`, using a CA
//! and a node certificate this test generates: ping, sends both ways, and an `erl` without
//! TLS refused. (Its own test binary: one node per OS process, and this one uses TLS.)
//! The nodes have short names on `localhost`: OTP 25 checks a peer's certificate against
//! the host of its node name as a DNS name, which an IP-address host never matches.

mod common;

use std::path::Path;

use common::{erl, erl_or_skip, unique};
use mote::{Pid, Process};
use mote_dist::etf::WireTerm;
use mote_dist::node::{NodeOptions, TlsConfig};

const COOKIE: &str = "node_tls_cookie";

/// Writes a CA, a node certificate (for 127.0.0.1 and localhost, server and client use)
/// and its key into `dir`, and the `-ssl_dist_optfile` for erl.
fn certificates(dir: &Path) {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    };
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "mote test CA");
    let ca_key = KeyPair::generate().unwrap();
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let mut leaf =
        CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
    leaf.distinguished_name
        .push(DnType::CommonName, "mote test node");
    leaf.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
    ];
    let leaf_key = KeyPair::generate().unwrap();
    let leaf_cert = leaf.signed_by(&leaf_key, &ca_cert, &ca_key).unwrap();
    std::fs::write(dir.join("ca.pem"), ca_cert.pem()).unwrap();
    std::fs::write(dir.join("node.pem"), leaf_cert.pem()).unwrap();
    std::fs::write(dir.join("node.key"), leaf_key.serialize_pem()).unwrap();
    let side = format!(
        "[{{certfile, \"{d}/node.pem\"}}, {{keyfile, \"{d}/node.key\"}}, \
         {{cacertfile, \"{d}/ca.pem\"}}, {{verify, verify_peer}}, {{secure_renegotiate, true}}",
        d = dir.display()
    );
    let opts =
        format!("[{{server, {side}, {{fail_if_no_peer_cert, true}}]}}, {{client, {side}]}}].\n");
    std::fs::write(dir.join("dist.conf"), opts).unwrap();
}

#[test]
fn tls_both_ways_with_erl_inet_tls() {
    if !erl_or_skip("tls_both_ways_with_erl_inet_tls") {
        return;
    }
    let has_ssl = std::process::Command::new("erl")
        .args([
            "-noshell",
            "-eval",
            "case code:which(ssl) of non_existing -> halt(1); _ -> halt(0) end.",
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !has_ssl {
        assert_ne!(
            std::env::var("MOTE_REQUIRE_ERL").as_deref(),
            Ok("1"),
            "erl has no ssl application (Debian: apt-get install erlang-ssl)"
        );
        eprintln!("SKIP tls_both_ways_with_erl_inet_tls: erl has no ssl application");
        return;
    }
    // The node's reasons for refusing a connection go to the test's output.
    let _ = tracing_subscriber::fmt().with_test_writer().try_init();
    let dir = std::env::temp_dir().join(unique("mote_tls"));
    std::fs::create_dir_all(&dir).unwrap();
    certificates(&dir);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let tls = TlsConfig::from_pem_files(
            &dir.join("node.pem"),
            &dir.join("node.key"),
            &dir.join("ca.pem"),
        )
        .expect("the test's certificates load");
        let name = format!("{}@localhost", unique("mote"));
        let (node, epmd_port) = common::start_with_epmd(|port| {
            NodeOptions::new(name.clone())
                .cookie(COOKIE)
                .epmd_port(port)
                .start_epmd(true)
                .tls(tls.clone())
        })
        .await;
        let echo = mote::spawn(|mut p: Process<(Pid<WireTerm>, WireTerm)>| async move {
            while let Some((from, term)) = p.recv_timeout(common::WAIT).await {
                from.send(term);
            }
        });
        mote_dist::node::register("echo", echo).unwrap();

        let conf = dir.join("dist.conf");
        let tls_args = [
            "-proto_dist",
            "inet_tls",
            "-ssl_dist_optfile",
            conf.to_str().unwrap(),
        ];
        // erl (TLS) pings, sends by name, gets the echo; then waits for mote's message.
        let erl_name = format!("{}@localhost", unique("erl"));
        let eval = format!(
            "Mote = '{}', R = net_adm:ping(Mote), io:format(\"ping ~p~n\", [R]), \
             {{echo, Mote}} ! {{self(), over_tls}}, \
             receive over_tls -> io:format(\"echoed~n\") after 30000 -> exit(no_echo) end, \
             Big = binary:copy(<<\"tls\">>, 20000), {{echo, Mote}} ! {{self(), Big}}, \
             receive Big -> io:format(\"big echoed~n\") after 30000 -> exit(no_big_echo) end, \
             register(tls_peer, self()), io:format(\"registered~n\"), \
             receive M -> io:format(\"got ~p~n\", [M]) after 30000 -> exit(nothing) end, \
             halt().",
            node.name()
        );
        let mut e = erl("-sname", &erl_name, COOKIE, epmd_port, &tls_args, &eval);
        let ping = e.expect("ping").await;
        if ping != "pong" {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        }
        assert_eq!(ping, "pong", "erl said:\n{}", e.output());
        e.expect("echoed").await;
        // 60 KB: the echo's frame carries it as a piece of its own (not copied), through
        // the TLS writer.
        e.expect("big echoed").await;
        e.expect("registered").await;
        node.send_named("tls_peer", &erl_name, &WireTerm::atom("from_mote").unwrap());
        assert_eq!(e.expect("got").await, "from_mote");

        // mote dials a TLS erl.
        let erl2 = format!("{}@localhost", unique("erl"));
        let mut e2 = erl(
            "-name",
            &erl2,
            COOKIE,
            epmd_port,
            &tls_args,
            "io:format(\"ready~n\"), receive stop -> ok after 30000 -> ok end.",
        );
        e2.expect("ready").await;
        assert!(node.ping(&erl2).await, "mote dials erl over TLS");

        // An erl without TLS is refused.
        let plain = format!("{}@localhost", unique("erl"));
        let eval = format!(
            "R = net_adm:ping('{}'), io:format(\"plain ~p~n\", [R]), halt().",
            node.name()
        );
        let mut e3 = erl("-sname", &plain, COOKIE, epmd_port, &[], &eval);
        assert_eq!(e3.expect("plain").await, "pang");
    });
    let _ = std::fs::remove_dir_all(&dir);
}
