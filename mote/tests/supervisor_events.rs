//! Supervisor reports through `tracing` (target `mote::supervisor`), seen by a capturing
//! subscriber.
//!
//! OTP's supervisors log what they do to their children through `logger`:
//!
//! ```erlang
//! %% A permanent child killed under a one_for_one supervisor of intensity 1:
//! %%   progress report   {supervisor, Sup}, {started, [{pid, P1}, {id, w}, ...]}
//! %% exit(P1, kill):
//! %%   supervisor report {errorContext, child_terminated}, {reason, killed},
//! %%                     {offender, [{pid, P1}, {id, w}, ...]}
//! %%   progress report   {started, [{pid, P2}, {id, w}, ...]}
//! %% exit(P2, kill) within the period, one restart too many:
//! %%   supervisor report {errorContext, child_terminated}, {reason, killed}, ...
//! %%   supervisor report {errorContext, shutdown}, {reason, reached_max_restart_intensity}
//! ```
//!
//! mote gives the same facts as events: `child_started`, `child_restarted` (the
//! `child_terminated` report and the new start in one event, with the reason), and
//! `shutdown` for the give-up; `child_terminated` is mote's event for a child the
//! supervisor stopped itself.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use mote::server::Server;
use mote::supervisor::{ChildSpec, Strategy, Supervisor};
use mote::{testkit, ExitReason, Process, ProcessId};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

#[derive(Default)]
struct Fields(HashMap<String, String>);
impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
}

/// The fields of each event seen, with its level.
type Seen = Arc<Mutex<Vec<HashMap<String, String>>>>;

struct Capture(Seen);

impl<S: Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() != "mote::supervisor" {
            return;
        }
        let mut f = Fields::default();
        event.record(&mut f);
        f.0.insert("level".into(), event.metadata().level().to_string());
        self.0.lock().unwrap().push(f.0);
    }
}

/// Every supervisor event so far (one subscriber per test binary; each test looks only at
/// its own supervisor's events).
fn seen() -> Seen {
    static SEEN: OnceLock<Seen> = OnceLock::new();
    SEEN.get_or_init(|| {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let subscriber = tracing_subscriber::registry().with(Capture(seen.clone()));
        tracing::subscriber::set_global_default(subscriber).unwrap();
        seen
    })
    .clone()
}

/// The events of supervisor `sup`, in order, as (event, fields).
fn events_of(sup: ProcessId) -> Vec<HashMap<String, String>> {
    let sup = sup.to_string();
    seen()
        .lock()
        .unwrap()
        .iter()
        .filter(|f| f.get("supervisor") == Some(&sup))
        .cloned()
        .collect()
}

fn kinds(events: &[HashMap<String, String>]) -> Vec<&str> {
    events.iter().map(|e| e["event"].as_str()).collect()
}

const LONG: Duration = Duration::from_secs(10);

#[derive(Default)]
struct Worker;
impl Server for Worker {
    type Call = ();
    type Reply = ();
    type Cast = ();
    type Info = ();
}

#[test]
fn start_restart_and_terminate_are_reported_with_pids_and_reason() {
    seen();
    mote::run(|_p: Process<()>| async move {
        let sup = Supervisor::new(Strategy::OneForOne)
            .name("events_sup")
            .child(ChildSpec::server("w", Worker::default))
            .start_link()
            .await
            .unwrap();
        let first = sup.which_children().await.unwrap()[0].pid.unwrap();
        mote::exit(first, ExitReason::custom("boom"));
        let second = loop {
            match sup.which_children().await.unwrap()[0].pid {
                Some(p) if p != first => break p,
                _ => mote::sleep(Duration::from_millis(1)).await,
            }
        };
        sup.terminate_child("w").await.unwrap();

        let events = events_of(sup.id());
        assert_eq!(
            kinds(&events),
            [
                "child_started",
                "child_started",
                "child_restarted",
                "child_terminated"
            ],
            "{events:?}"
        );
        for e in &events {
            assert_eq!(e["supervisor_name"], "events_sup");
            assert_eq!(e["child_id"], "w");
        }
        assert_eq!(events[0]["child_pid"], first.to_string());
        assert_eq!(events[0]["level"], "INFO");
        let restarted = &events[2];
        assert_eq!(restarted["level"], "ERROR");
        assert_eq!(restarted["child_pid"], second.to_string());
        assert_eq!(restarted["old_pid"], first.to_string());
        assert_eq!(restarted["reason"], ExitReason::custom("boom").to_string());
        assert_eq!(restarted["cause"], "w");
        assert_eq!(events[3]["child_pid"], second.to_string());
    })
    .unwrap();
}

#[test]
fn one_for_all_reports_the_sibling_restart_with_the_cause() {
    seen();
    mote::run(|_p: Process<()>| async move {
        let sup = Supervisor::new(Strategy::OneForAll)
            .child(ChildSpec::server("a", Worker::default))
            .child(ChildSpec::server("b", Worker::default))
            .start_link()
            .await
            .unwrap();
        let before = sup.which_children().await.unwrap();
        let (a, b) = (before[0].pid.unwrap(), before[1].pid.unwrap());
        mote::exit(a, ExitReason::Kill);
        while sup.which_children().await.unwrap()[1].pid == Some(b) {
            mote::sleep(Duration::from_millis(1)).await;
        }
        let events = events_of(sup.id());
        let restarted: Vec<_> = events
            .iter()
            .filter(|e| e["event"] == "child_restarted")
            .collect();
        assert_eq!(restarted.len(), 2, "{events:?}");
        assert_eq!(restarted[0]["child_id"], "a");
        assert_eq!(restarted[1]["child_id"], "b");
        assert_eq!(restarted[1]["old_pid"], b.to_string());
        for r in restarted {
            assert_eq!(r["cause"], "a");
            assert_eq!(r["reason"], ExitReason::Killed.to_string());
        }
        // `b` was stopped by the strategy before its restart.
        assert!(events
            .iter()
            .any(|e| e["event"] == "child_terminated" && e["child_pid"] == b.to_string()));
    })
    .unwrap();
}

#[test]
fn giving_up_is_reported_with_the_last_exit() {
    seen();
    mote::run(|_p: Process<()>| async move {
        let sup = Supervisor::new(Strategy::OneForOne)
            .intensity(0, Duration::from_secs(60))
            .child(ChildSpec::server("fragile", Worker::default))
            .start()
            .await
            .unwrap();
        let child = sup.which_children().await.unwrap()[0].pid.unwrap();
        mote::exit(child, ExitReason::custom("fatal"));
        assert_eq!(testkit::wait_exit(sup, LONG).await, ExitReason::Shutdown);
        let events = events_of(sup.id());
        let gave_up: Vec<_> = events.iter().filter(|e| e["event"] == "shutdown").collect();
        assert_eq!(gave_up.len(), 1, "{events:?}");
        assert_eq!(gave_up[0]["level"], "ERROR");
        assert_eq!(gave_up[0]["child_id"], "fragile");
        assert_eq!(gave_up[0]["child_pid"], child.to_string());
        assert_eq!(
            gave_up[0]["reason"],
            ExitReason::custom("fatal").to_string()
        );
        assert!(!events.iter().any(|e| e["event"] == "child_restarted"));
    })
    .unwrap();
}

#[test]
fn a_temporary_child_that_ends_is_reported_as_exited() {
    seen();
    mote::run(|_p: Process<()>| async move {
        let sup = Supervisor::new(Strategy::OneForOne)
            .start_link()
            .await
            .unwrap();
        let pid = sup
            .start_child(
                ChildSpec::server("temp", Worker::default)
                    .restart(mote::supervisor::Restart::Temporary),
            )
            .await
            .unwrap();
        mote::exit(pid, ExitReason::custom("gone"));
        while sup.count_children().await.unwrap().specs != 0 {
            mote::sleep(Duration::from_millis(1)).await;
        }
        let events = events_of(sup.id());
        assert_eq!(
            kinds(&events),
            ["child_started", "child_exited"],
            "{events:?}"
        );
        assert_eq!(events[1]["level"], "ERROR");
        assert_eq!(events[1]["reason"], ExitReason::custom("gone").to_string());
    })
    .unwrap();
}
