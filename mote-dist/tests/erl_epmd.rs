//! EPMD against real Erlang: `erl` registers with our embedded server and we find it;
//! we register with a real `epmd` and `epmd -names` and `erl` see us.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use mote_dist::epmd::{EpmdClient, EpmdServer, NodeEntry, NodeType};
use tokio::process::Command;

#[tokio::test]
async fn erl_registers_with_our_embedded_server() {
    if !erl_or_skip("erl_registers_with_our_embedded_server") {
        return;
    }
    let server = EpmdServer::bind("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let port = server.local_addr().port();
    let client = EpmdClient::new(server.local_addr());
    let ours = unique("mote");
    let _reg = client
        .register(&NodeEntry::new(&ours, 4242, NodeType::Hidden))
        .await
        .unwrap();

    let name = unique("erl");
    let mut erl = erl(
        "-name",
        &format!("{name}@127.0.0.1"),
        "c",
        port,
        &[],
        "{ok, Names} = net_adm:names(), io:format(\"names ~p~n\", [Names]), receive stop -> ok end.",
    );
    let names = erl.expect("names ").await;
    assert!(
        names.contains(&format!("{{\"{ours}\",4242}}")),
        "erl listed {names}"
    );
    assert!(names.contains(&format!("\"{name}\"")), "erl listed {names}");

    let entry = client
        .port_please(&name)
        .await
        .unwrap()
        .expect("erl registered");
    assert_eq!(entry.node_type, NodeType::Normal);
    assert!(entry.highest_version >= 6 && entry.lowest_version <= 6);
    assert!(entry.port > 0);

    // The registration ends with erl's socket.
    erl.kill().await;
    forgotten(&client, &name).await;
    // A taken name is refused; creations differ between registrations.
    let err = client
        .register(&NodeEntry::new(&ours, 1, NodeType::Normal))
        .await
        .unwrap_err();
    assert!(
        matches!(err, mote_dist::epmd::EpmdError::Refused { .. }),
        "{err}"
    );
    let a = client
        .register(&NodeEntry::new("a", 1, NodeType::Normal))
        .await
        .unwrap();
    let b = client
        .register(&NodeEntry::new("b", 2, NodeType::Normal))
        .await
        .unwrap();
    assert_ne!(a.creation(), b.creation());
}

#[tokio::test]
async fn we_register_with_a_real_epmd() {
    if !erl_or_skip("we_register_with_a_real_epmd") {
        return;
    }
    let (_epmd, port) = real_epmd().await;
    let client = EpmdClient::new(SocketAddr::from(([127, 0, 0, 1], port)));
    let ours = unique("mote");
    let reg = client
        .register(&NodeEntry::new(&ours, 4243, NodeType::Hidden))
        .await
        .unwrap();
    assert_ne!(reg.creation(), 0);

    let names = epmd_names(port).await;
    assert!(
        names.contains(&format!("name {ours} at port 4243")),
        "epmd -names said {names}"
    );
    let entry = client.port_please(&ours).await.unwrap().unwrap();
    assert_eq!((entry.port, entry.node_type), (4243, NodeType::Hidden));
    assert_eq!(client.names().await.unwrap(), [(ours.clone(), 4243)]);

    let name = unique("erl");
    let mut erl = erl(
        "-name",
        &format!("{name}@127.0.0.1"),
        "c",
        port,
        &[],
        "{ok, Names} = net_adm:names(), io:format(\"names ~p~n\", [Names]), halt().",
    );
    let seen = erl.expect("names ").await;
    assert!(
        seen.contains(&format!("{{\"{ours}\",4243}}")),
        "erl listed {seen}"
    );

    reg.close().await;
    forgotten(&client, &ours).await;
    assert!(!epmd_names(port).await.contains(&ours));
}

async fn epmd_names(port: u16) -> String {
    let out = within(
        "epmd -names",
        Command::new("epmd")
            .args(["-port", &port.to_string(), "-names"])
            .output(),
    )
    .await
    .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Waits until EPMD no longer knows `name` (polling: EPMD has no notification).
async fn forgotten(client: &EpmdClient, name: &str) {
    within("EPMD to forget a node", async {
        while client.port_please(name).await.unwrap().is_some() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}
