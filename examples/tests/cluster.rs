//! The cluster example, run as a test: this test binary starts copies of itself as the
//! worker nodes (the `cluster_worker_node` entry, idle unless `CLUSTER_WORKER` is set).

#[path = "../cluster.rs"]
#[allow(dead_code)]
mod cluster;

use std::process::Command;

#[test]
fn cluster_worker_node() {
    let Ok(args) = std::env::var("CLUSTER_WORKER") else {
        return; // run directly: nothing to do
    };
    let parts: Vec<&str> = args.split(' ').collect();
    cluster::worker_node(parts[0], parts[1].parse().unwrap(), parts[2]);
}

#[test]
fn three_nodes_survive_the_loss_of_a_worker_node() {
    if std::env::var("CLUSTER_WORKER").is_ok() {
        return;
    }
    let outcome = cluster::master_node(|name, epmd, master| {
        Command::new(std::env::current_exe().unwrap())
            .args(["cluster_worker_node", "--exact", "--nocapture"])
            .env("CLUSTER_WORKER", format!("{name} {epmd} {master}"))
            .spawn()
            .expect("worker node starts")
    });
    assert_eq!(outcome.total, outcome.expected, "{outcome:?}");
    assert_eq!(
        outcome.chunks_by_node.len(),
        2,
        "both worker nodes worked: {outcome:?}"
    );
}
