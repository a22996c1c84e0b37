//! The supervision trees, read from the supervisors themselves: every live process that is
//! a supervisor is asked for its children (`which_children`), and the supervisors that no
//! other supervisor lists are the roots.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use mote::supervisor::{ChildInfo, ChildKind, DynamicSupervisorRef, Restart, SupervisorRef};
use mote::ProcessId;
use serde::Serialize;

/// How long a supervisor may take to list its children before the tree shows it without
/// them (a supervisor busy restarting a slow child answers late).
const ASK_FOR: Duration = Duration::from_secs(2);

/// Which kind of supervisor a process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SupKind {
    Supervisor,
    DynamicSupervisor,
}

/// Whether `id` is a supervisor, and which kind.
pub(crate) fn supervisor_kind(id: ProcessId) -> Option<SupKind> {
    if SupervisorRef::from_id(id).is_some() {
        Some(SupKind::Supervisor)
    } else if DynamicSupervisorRef::from_id(id).is_some() {
        Some(SupKind::DynamicSupervisor)
    } else {
        None
    }
}

/// A supervisor's children, or `None` if it did not answer (ended meanwhile, or slow).
pub(crate) async fn children(id: ProcessId, kind: SupKind) -> Option<Vec<ChildInfo>> {
    let asked = async {
        match kind {
            SupKind::Supervisor => SupervisorRef::from_id(id)?.which_children().await.ok(),
            SupKind::DynamicSupervisor => DynamicSupervisorRef::from_id(id)?
                .which_children()
                .await
                .ok(),
        }
    };
    tokio::time::timeout(ASK_FOR, asked).await.ok().flatten()
}

/// One node of a tree, as `GET /api/tree` gives it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Node {
    /// The process, if it runs (a child that is not running has none).
    pub(crate) pid: Option<String>,
    /// Its registered name.
    pub(crate) name: Option<String>,
    /// Its id in its supervisor's child specs (none for a root).
    pub(crate) child_id: Option<String>,
    /// `supervisor`, `dynamic_supervisor` or `worker`.
    pub(crate) kind: &'static str,
    /// Its restart type in its supervisor (none for a root).
    pub(crate) restart: Option<&'static str>,
    /// `waiting`, `active`, `exiting`, or `not_running`.
    pub(crate) status: &'static str,
    pub(crate) children: Vec<Node>,
}

/// The supervision trees of this node, roots in pid order.
pub(crate) async fn trees() -> Vec<Node> {
    let supervisors: Vec<(ProcessId, SupKind)> = mote::processes()
        .into_iter()
        .filter_map(|id| supervisor_kind(id).map(|k| (id, k)))
        .collect();
    let answers = futures_util::future::join_all(
        supervisors
            .iter()
            .map(|&(id, kind)| async move { (id, children(id, kind).await) }),
    )
    .await;
    let listed: HashMap<ProcessId, Vec<ChildInfo>> = answers
        .into_iter()
        .map(|(id, c)| (id, c.unwrap_or_default()))
        .collect();
    let supervised: HashSet<ProcessId> = listed
        .values()
        .flat_map(|children| children.iter().filter_map(|c| c.pid))
        .collect();
    let kinds: HashMap<ProcessId, SupKind> = supervisors.iter().copied().collect();
    let mut roots: Vec<ProcessId> = supervisors
        .iter()
        .map(|&(id, _)| id)
        .filter(|id| !supervised.contains(id))
        .collect();
    roots.sort();
    let mut seen = HashSet::new();
    roots
        .into_iter()
        .map(|id| node(id, None, &kinds, &listed, &mut seen))
        .collect()
}

fn node(
    id: ProcessId,
    child: Option<&ChildInfo>,
    kinds: &HashMap<ProcessId, SupKind>,
    listed: &HashMap<ProcessId, Vec<ChildInfo>>,
    seen: &mut HashSet<ProcessId>,
) -> Node {
    let kind = match kinds.get(&id) {
        Some(SupKind::Supervisor) => "supervisor",
        Some(SupKind::DynamicSupervisor) => "dynamic_supervisor",
        None if child.is_some_and(|c| c.kind == ChildKind::Supervisor) => "supervisor",
        None => "worker",
    };
    let info = mote::process_info(id);
    // A supervisor listed twice (it cannot be, but the lists are read at different
    // moments) is shown once, so the tree stays a tree.
    let children = if seen.insert(id) {
        listed
            .get(&id)
            .map(|children| {
                children
                    .iter()
                    .map(|c| match c.pid {
                        Some(pid) => node(pid, Some(c), kinds, listed, seen),
                        None => not_running(c),
                    })
                    .collect()
            })
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    Node {
        pid: Some(id.to_string()),
        name: info
            .as_ref()
            .and_then(|i| i.name.as_ref())
            .map(|n| n.to_string()),
        child_id: child.map(|c| c.id.to_string()),
        kind,
        restart: child.map(|c| restart(c.restart)),
        status: info.map_or("exiting", |i| crate::api::status(i.status)),
        children,
    }
}

fn not_running(c: &ChildInfo) -> Node {
    Node {
        pid: None,
        name: None,
        child_id: Some(c.id.to_string()),
        kind: match c.kind {
            ChildKind::Supervisor => "supervisor",
            ChildKind::Worker => "worker",
        },
        restart: Some(restart(c.restart)),
        status: "not_running",
        children: Vec::new(),
    }
}

fn restart(r: Restart) -> &'static str {
    match r {
        Restart::Permanent => "permanent",
        Restart::Transient => "transient",
        Restart::Temporary => "temporary",
    }
}
