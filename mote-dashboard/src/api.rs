//! The HTTP side: the page and the JSON API (see the crate docs for the routes).

use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::{Path, Query, State as Shared};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use mote::metrics::{self, ProcessMetrics};
use mote::{ExitReason, ProcessId, Status};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use crate::history::{History, Sample};
use crate::tree::{self, SupKind};

/// The page: one file, no build step.
const PAGE: &str = include_str!("page.html");

/// What the handlers share with the dashboard's process.
#[derive(Debug)]
pub(crate) struct State {
    history: Mutex<History>,
    every: Duration,
    /// The dashboard's own process, which its kill button refuses to kill.
    own: OnceLock<ProcessId>,
}

impl State {
    pub(crate) fn new(every: Duration, keep: usize) -> Self {
        State {
            history: Mutex::new(History::new(keep)),
            every,
            own: OnceLock::new(),
        }
    }

    pub(crate) fn set_own(&self, id: ProcessId) {
        let _ = self.own.set(id);
    }

    pub(crate) fn every(&self) -> Duration {
        self.every
    }

    /// Adds a sample of the runtime's counters to the history.
    pub(crate) fn sample(&self) {
        let sample = Sample::take();
        self.history.lock().push(sample);
    }
}

pub(crate) fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/api/processes", get(processes))
        .route("/api/process/{pid}", get(process))
        .route("/api/process/{pid}/kill", post(kill))
        .route("/api/tree", get(trees))
        .route("/api/metrics", get(history))
        .with_state(state)
}

/// An error answer: a status and `{"error": "..."}`.
struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        #[derive(Serialize)]
        struct Body {
            error: String,
        }
        (self.0, Json(Body { error: self.1 })).into_response()
    }
}

type Answer<T> = Result<Json<T>, ApiError>;

pub(crate) fn status(s: Status) -> &'static str {
    match s {
        Status::Waiting => "waiting",
        Status::Active => "active",
        Status::Exiting => "exiting",
    }
}

fn parse_pid(text: &str) -> Result<ProcessId, ApiError> {
    text.parse().map_err(|_| {
        ApiError(
            StatusCode::BAD_REQUEST,
            format!("{text:?} is not a process id like <0.42.0>"),
        )
    })
}

fn not_alive(id: ProcessId) -> ApiError {
    ApiError(StatusCode::NOT_FOUND, format!("{id} is not alive"))
}

async fn page() -> Html<&'static str> {
    Html(PAGE)
}

/// `GET /api/processes`'s query.
#[derive(Debug, Deserialize)]
struct ListQuery {
    sort: Option<String>,
    order: Option<String>,
    limit: Option<usize>,
}

/// One row of the process table.
#[derive(Debug, Serialize)]
struct Row {
    pid: String,
    name: Option<String>,
    status: &'static str,
    mailbox_len: u64,
    messages_received: u64,
    polls: u64,
    memory: usize,
    /// Set for supervisors.
    supervisor: Option<SupKind>,
}

impl Row {
    fn of(m: &ProcessMetrics) -> Row {
        Row {
            pid: m.id.to_string(),
            name: m.name.as_ref().map(|n| n.to_string()),
            status: status(m.status),
            mailbox_len: m.mailbox_len,
            messages_received: m.messages_received,
            polls: m.polls,
            memory: m.memory,
            supervisor: tree::supervisor_kind(m.id),
        }
    }
}

#[derive(Debug, Serialize)]
struct List {
    /// Live processes.
    total: usize,
    sort: &'static str,
    order: &'static str,
    processes: Vec<Row>,
}

async fn processes(Query(q): Query<ListQuery>) -> Answer<List> {
    type Key = fn(&ProcessMetrics, &ProcessMetrics) -> Ordering;
    let (sort, key): (&'static str, Key) = match q.sort.as_deref().unwrap_or("memory") {
        "pid" => ("pid", |a, b| a.id.cmp(&b.id)),
        "name" => ("name", |a, b| a.name.cmp(&b.name)),
        "status" => ("status", |a, b| status(a.status).cmp(status(b.status))),
        "mailbox" => ("mailbox", |a, b| a.mailbox_len.cmp(&b.mailbox_len)),
        "memory" => ("memory", |a, b| a.memory.cmp(&b.memory)),
        "messages" => ("messages", |a, b| {
            a.messages_received.cmp(&b.messages_received)
        }),
        "polls" => ("polls", |a, b| a.polls.cmp(&b.polls)),
        other => {
            return Err(ApiError(
                StatusCode::BAD_REQUEST,
                format!(
                    "unknown sort {other:?}: pid, name, status, mailbox, memory, messages or polls"
                ),
            ))
        }
    };
    let descending = match q.order.as_deref() {
        None => !matches!(sort, "pid" | "name" | "status"),
        Some("desc") => true,
        Some("asc") => false,
        Some(other) => {
            return Err(ApiError(
                StatusCode::BAD_REQUEST,
                format!("unknown order {other:?}: asc or desc"),
            ))
        }
    };
    let mut all = metrics::processes();
    // Ties in pid order, whichever way the key goes, so the table does not shuffle.
    all.sort_by(|a, b| {
        let by_key = if descending { key(b, a) } else { key(a, b) };
        by_key.then(a.id.cmp(&b.id))
    });
    let total = all.len();
    let limit = q.limit.unwrap_or(1000);
    Ok(Json(List {
        total,
        sort,
        order: if descending { "desc" } else { "asc" },
        processes: all.iter().take(limit).map(Row::of).collect(),
    }))
}

/// Another process, as a process's detail names it.
#[derive(Debug, Serialize)]
struct Ref {
    pid: String,
    name: Option<String>,
    alive: bool,
}

impl Ref {
    fn of(id: ProcessId) -> Ref {
        Ref {
            pid: id.to_string(),
            name: mote::registered_name(id).map(|n| n.to_string()),
            alive: mote::is_alive(id),
        }
    }
}

/// A supervisor's child, in a process's detail.
#[derive(Debug, Serialize)]
struct Child {
    child_id: String,
    pid: Option<String>,
    kind: &'static str,
}

/// `GET /api/process/{pid}`.
#[derive(Debug, Serialize)]
struct Detail {
    /// What the process table shows of it.
    #[serde(flatten)]
    row: Row,
    trap_exit: bool,
    links: Vec<Ref>,
    monitors: Vec<Ref>,
    monitored_by: Vec<Ref>,
    /// A supervisor's children (none if it did not answer in time).
    children: Option<Vec<Child>>,
    /// Whether this is the dashboard's own process.
    dashboard: bool,
}

async fn process(Shared(state): Shared<Arc<State>>, Path(pid): Path<String>) -> Answer<Detail> {
    let id = parse_pid(&pid)?;
    let info = mote::process_info(id).ok_or_else(|| not_alive(id))?;
    let row = Row::of(&mote::metrics::process(id).ok_or_else(|| not_alive(id))?);
    let children = match row.supervisor {
        Some(kind) => tree::children(id, kind).await.map(|children| {
            children
                .into_iter()
                .map(|c| Child {
                    child_id: c.id.to_string(),
                    pid: c.pid.map(|p| p.to_string()),
                    kind: match c.kind {
                        mote::supervisor::ChildKind::Supervisor => "supervisor",
                        mote::supervisor::ChildKind::Worker => "worker",
                    },
                })
                .collect()
        }),
        None => None,
    };
    let refs = |ids: &[ProcessId]| ids.iter().copied().map(Ref::of).collect();
    Ok(Json(Detail {
        row,
        trap_exit: info.trap_exit,
        links: refs(&info.links),
        monitors: refs(&info.monitors),
        monitored_by: refs(&info.monitored_by),
        children,
        dashboard: state.own.get() == Some(&id),
    }))
}

#[derive(Debug, Serialize)]
struct Killed {
    killed: String,
}

/// `POST /api/process/{pid}/kill`: an untrappable kill, as observer's "kill" does.
async fn kill(Shared(state): Shared<Arc<State>>, Path(pid): Path<String>) -> Answer<Killed> {
    let id = parse_pid(&pid)?;
    if state.own.get() == Some(&id) {
        return Err(ApiError(
            StatusCode::FORBIDDEN,
            "the dashboard does not kill its own process".into(),
        ));
    }
    if !mote::is_alive(id) {
        return Err(not_alive(id));
    }
    mote::exit(id, ExitReason::Kill);
    Ok(Json(Killed {
        killed: id.to_string(),
    }))
}

#[derive(Debug, Serialize)]
struct Trees {
    roots: Vec<tree::Node>,
}

async fn trees() -> Answer<Trees> {
    Ok(Json(Trees {
        roots: tree::trees().await,
    }))
}

#[derive(Debug, Serialize)]
struct HistoryAnswer {
    interval_ms: u64,
    keep: usize,
    workers: usize,
    samples: Vec<Sample>,
}

async fn history(Shared(state): Shared<Arc<State>>) -> Answer<HistoryAnswer> {
    let history = state.history.lock();
    Ok(Json(HistoryAnswer {
        interval_ms: state.every.as_millis() as u64,
        keep: history.keep(),
        workers: mote::worker_threads(),
        samples: history.samples().cloned().collect(),
    }))
}
