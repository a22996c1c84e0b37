//! The dashboard's JSON API and page over plain HTTP, without a browser: a known tree, its
//! processes, one process's detail, the history, kill, and stop.

mod common;

use std::time::Duration;

use common::{eventually, path_pid, request, request_text, start_tree};
use mote::{Process, ProcessId, SpawnOptions};
use serde_json::Value;

fn dashboard() -> mote_dashboard::DashboardHandle {
    mote_dashboard::Dashboard::new()
        .sample_every(Duration::from_millis(50))
        .history(5)
        .serve("127.0.0.1:0")
        .expect("the dashboard starts")
}

/// The tree node named `name`, anywhere under `nodes`.
fn find<'a>(nodes: &'a Value, name: &str) -> Option<&'a Value> {
    nodes.as_array()?.iter().find_map(|n| {
        if n["name"] == name {
            Some(n)
        } else {
            find(&n["children"], name)
        }
    })
}

fn names(nodes: &Value) -> Vec<String> {
    nodes
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn the_page_is_served() {
    let d = dashboard();
    let (status, page) = request_text(d.local_addr(), "GET", "/");
    assert_eq!(status, 200);
    assert!(page.contains("<title>mote dashboard</title>"), "{page}");
    assert!(page.contains(r#"id="tree""#) && page.contains(r#"id="processes""#));
    let (status, _) = request_text(d.local_addr(), "GET", "/nothing-here");
    assert_eq!(status, 404);
    d.stop();
}

#[test]
fn the_tree_shows_the_known_supervisors_and_children() {
    let tree = start_tree("api_tree");
    let d = dashboard();
    let (status, body) = request(d.local_addr(), "GET", "/api/tree");
    assert_eq!(status, 200, "{body}");
    let root = find(&body["roots"], "api_tree_root").unwrap_or_else(|| panic!("no root: {body}"));
    assert_eq!(root["pid"], tree.root.to_string());
    assert_eq!(root["kind"], "supervisor");
    assert_eq!(
        names(&root["children"]),
        ["api_tree_worker", "api_tree_inner", "api_tree_sessions"]
    );
    let worker = &root["children"][0];
    assert_eq!(worker["child_id"], "worker");
    assert_eq!(worker["restart"], "permanent");
    assert_eq!(worker["kind"], "worker");
    assert_eq!(worker["status"], "waiting");
    let inner = find(&body["roots"], "api_tree_inner").unwrap();
    assert_eq!(inner["kind"], "supervisor");
    assert_eq!(names(&inner["children"]), ["api_tree_leaf"]);
    let sessions = find(&body["roots"], "api_tree_sessions").unwrap();
    assert_eq!(sessions["kind"], "dynamic_supervisor");
    assert_eq!(sessions["children"][0]["pid"], tree.temporary.to_string());
    assert_eq!(sessions["children"][0]["restart"], "temporary");
    // Children are not roots.
    assert!(body["roots"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["name"] != "api_tree_inner"));
    d.stop();
}

#[test]
fn processes_sort_by_each_column() {
    // A process that waits for a message that never comes, with 50 others queued. Spawned
    // from outside any process, so no run's end takes it away.
    let pid = SpawnOptions::new().spawn(|mut c: Process<u32>| async move {
        c.recv_matching(|m| *m == u32::MAX).await;
    });
    (0..50).for_each(|i| pid.send(i));
    let stuck = pid.id();
    let d = dashboard();
    let addr = d.local_addr();
    let column = |sort: &str, order: &str, field: &str| -> Vec<u64> {
        let (status, body) = request(
            addr,
            "GET",
            &format!("/api/processes?sort={sort}&order={order}"),
        );
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["sort"], sort);
        let rows = body["processes"].as_array().unwrap();
        assert_eq!(rows.len() as u64, body["total"].as_u64().unwrap());
        rows.iter().map(|r| r[field].as_u64().unwrap()).collect()
    };
    let sorted = |v: &[u64], descending: bool| {
        v.windows(2).all(|w| {
            if descending {
                w[0] >= w[1]
            } else {
                w[0] <= w[1]
            }
        })
    };
    for (sort, field) in [
        ("memory", "memory"),
        ("messages", "messages_received"),
        ("polls", "polls"),
    ] {
        assert!(sorted(&column(sort, "desc", field), true), "{sort} desc");
        assert!(sorted(&column(sort, "asc", field), false), "{sort} asc");
    }
    // The stuck process publishes its mailbox once it waits: then it heads the table.
    let top = eventually("the stuck process to head the mailbox column", || {
        let (_, body) = request(addr, "GET", "/api/processes?sort=mailbox&limit=1");
        let top = body["processes"][0].clone();
        (top["pid"] == stuck.to_string()).then_some(top)
    });
    assert_eq!(top["mailbox_len"], 50);
    assert!(sorted(&column("mailbox", "desc", "mailbox_len"), true));
    // By pid, ascending by default.
    let (_, body) = request(addr, "GET", "/api/processes?sort=pid");
    let pids: Vec<ProcessId> = body["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["pid"].as_str().unwrap().parse().unwrap())
        .collect();
    assert!(pids.windows(2).all(|w| w[0] < w[1]), "{pids:?}");
    let (_, body) = request(addr, "GET", "/api/processes?sort=memory&limit=3");
    assert_eq!(body["processes"].as_array().unwrap().len(), 3);
    let (status, body) = request(addr, "GET", "/api/processes?sort=colour");
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].as_str().unwrap().contains("colour"));
    mote::exit(stuck, mote::ExitReason::Kill);
    d.stop();
}

#[test]
fn a_process_shows_its_links_status_and_children() {
    let tree = start_tree("api_detail");
    let d = dashboard();
    let addr = d.local_addr();
    let (status, root) = request(
        addr,
        "GET",
        &format!("/api/process/{}", path_pid(tree.root)),
    );
    assert_eq!(status, 200, "{root}");
    assert_eq!(root["name"], "api_detail_root");
    assert_eq!(root["supervisor"], "supervisor");
    assert_eq!(root["trap_exit"], true, "a supervisor traps exits");
    let children: Vec<&str> = root["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["child_id"].as_str().unwrap())
        .collect();
    assert_eq!(children, ["worker", "inner", "sessions"]);
    let links: Vec<&str> = root["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["pid"].as_str().unwrap())
        .collect();
    for child in [tree.worker, tree.inner, tree.sessions] {
        assert!(links.contains(&child.to_string().as_str()), "{root}");
    }

    // The brackets may be left out.
    let bare = tree.worker.to_string().replace(['<', '>'], "");
    let (status, worker) = request(addr, "GET", &format!("/api/process/{bare}"));
    assert_eq!(status, 200, "{worker}");
    assert_eq!(worker["name"], "api_detail_worker");
    assert_eq!(worker["status"], "waiting");
    assert_eq!(worker["trap_exit"], false);
    assert_eq!(worker["supervisor"], Value::Null);
    assert_eq!(worker["links"][0]["name"], "api_detail_root");
    assert_eq!(worker["links"][0]["alive"], true);
    assert!(worker["memory"].as_u64().unwrap() > 0);

    let (status, _) = request(addr, "GET", "/api/process/not-a-pid");
    assert_eq!(status, 400);
    let (status, body) = request(addr, "GET", "/api/process/0.999999.0");
    assert_eq!(status, 404, "{body}");
    d.stop();
}

#[test]
fn kill_ends_a_process_and_its_supervisor_restarts_it() {
    let tree = start_tree("api_kill");
    let d = dashboard();
    let addr = d.local_addr();
    let (status, body) = request(
        addr,
        "POST",
        &format!("/api/process/{}/kill", path_pid(tree.worker)),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["killed"], tree.worker.to_string());
    // A permanent child: back under a new pid.
    let again: ProcessId = eventually("the worker's restart", || {
        let (_, body) = request(addr, "GET", "/api/tree");
        let pid = find(&body["roots"], "api_kill_worker")?["pid"]
            .as_str()?
            .parse()
            .ok()?;
        (pid != tree.worker).then_some(pid)
    });
    assert!(!mote::is_alive(tree.worker));
    let (status, _) = request(
        addr,
        "GET",
        &format!("/api/process/{}", path_pid(tree.worker)),
    );
    assert_eq!(status, 404);
    let (status, _) = request(addr, "GET", &format!("/api/process/{}", path_pid(again)));
    assert_eq!(status, 200);

    // A temporary child: gone from the tree.
    let (status, _) = request(
        addr,
        "POST",
        &format!("/api/process/{}/kill", path_pid(tree.temporary)),
    );
    assert_eq!(status, 200);
    eventually("the temporary child to leave the tree", || {
        let (_, body) = request(addr, "GET", "/api/tree");
        find(&body["roots"], "api_kill_sessions")?["children"]
            .as_array()?
            .is_empty()
            .then_some(())
    });
    // Dead now: nothing to kill.
    let (status, _) = request(
        addr,
        "POST",
        &format!("/api/process/{}/kill", path_pid(tree.temporary)),
    );
    assert_eq!(status, 404);
    // Not the dashboard itself, and not by GET.
    let (status, _) = request(
        addr,
        "POST",
        &format!("/api/process/{}/kill", path_pid(d.id())),
    );
    assert_eq!(status, 403);
    assert!(mote::is_alive(d.id()));
    let (status, _) = request(
        addr,
        "GET",
        &format!("/api/process/{}/kill", path_pid(again)),
    );
    assert_eq!(status, 405);
    d.stop();
}

#[test]
fn the_history_keeps_the_last_samples() {
    let d = dashboard();
    let addr = d.local_addr();
    let body = eventually("a full history", || {
        let (_, body) = request(addr, "GET", "/api/metrics");
        (body["samples"].as_array()?.len() == 5).then_some(body)
    });
    assert_eq!(body["interval_ms"], 50);
    assert_eq!(body["keep"], 5);
    let samples = body["samples"].as_array().unwrap();
    let workers = body["workers"].as_u64().unwrap();
    assert_eq!(workers as usize, mote::worker_threads());
    for pair in samples.windows(2) {
        assert!(
            pair[0]["t_ms"].as_u64() <= pair[1]["t_ms"].as_u64(),
            "oldest first"
        );
        assert!(pair[0]["spawned"].as_u64() <= pair[1]["spawned"].as_u64());
    }
    for s in samples {
        assert_eq!(s["busy_ns"].as_array().unwrap().len() as u64, workers);
        assert!(
            s["processes"].as_u64().unwrap() >= 1,
            "the dashboard at least"
        );
        assert!(s["exited"]["panic"].is_u64());
    }
    d.stop();
}

#[test]
fn stop_closes_the_listener() {
    let d = dashboard();
    let (status, _) = request_text(d.local_addr(), "GET", "/api/metrics");
    assert_eq!(status, 200);
    d.stop();
    eventually("the dashboard's process to end", || {
        (!mote::is_alive(d.id())).then_some(())
    });
    assert!(std::net::TcpStream::connect(d.local_addr()).is_err());
}
