//! Crash reports and the per-process span, seen by a capturing `tracing` subscriber.
//!
//! OTP writes a crash report when a process's own code ends it abnormally, and none when it
//! ends normally, with a `shutdown` reason, or because another process's exit signal killed
//! it. mote's report is a `tracing` event (target `mote::crash`).

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use mote::{testkit, ExitReason, Process};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

/// One event: its target, its fields, and the `pid` of the innermost span it was in.
#[derive(Debug, Clone)]
struct Seen {
    target: String,
    fields: HashMap<String, String>,
    span_pid: Option<String>,
}

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

/// A span's pid, kept in the span's extensions.
struct SpanPid(String);

struct Capture(Arc<Mutex<Vec<Seen>>>);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut f = Fields::default();
        attrs.record(&mut f);
        if let (Some(pid), Some(span)) = (f.0.remove("pid"), ctx.span(id)) {
            span.extensions_mut().insert(SpanPid(pid));
        }
    }
    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut f = Fields::default();
        event.record(&mut f);
        let span_pid = ctx.event_scope(event).and_then(|mut scope| {
            scope.find_map(|s| s.extensions().get::<SpanPid>().map(|p| p.0.clone()))
        });
        self.0.lock().unwrap().push(Seen {
            target: event.metadata().target().to_string(),
            fields: f.0,
            span_pid,
        });
    }
}

/// Everything seen so far (one subscriber for the whole binary: tests run in parallel, so
/// each looks only at the events of its own processes).
fn seen() -> Arc<Mutex<Vec<Seen>>> {
    static SEEN: OnceLock<Arc<Mutex<Vec<Seen>>>> = OnceLock::new();
    SEEN.get_or_init(|| {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let subscriber = tracing_subscriber::registry().with(Capture(seen.clone()));
        tracing::subscriber::set_global_default(subscriber).unwrap();
        seen
    })
    .clone()
}

fn crash_reports_of(pid: &str) -> Vec<Seen> {
    seen()
        .lock()
        .unwrap()
        .iter()
        .filter(|s| {
            s.target == "mote::crash" && s.fields.get("pid").map(String::as_str) == Some(pid)
        })
        .cloned()
        .collect()
}

const LONG: Duration = Duration::from_secs(10);

fn crash(message: &str) -> ExitReason {
    panic!("{message}")
}

#[test]
fn a_panic_is_reported_with_pid_name_reason_and_place() {
    seen();
    mote::run(|_p: Process<()>| async move {
        let child = mote::spawn(|mut c: Process<u8>| async move {
            mote::register("crash_reports_victim", c.pid()).unwrap();
            c.recv().await;
            crash("the disk is on fire")
        });
        mote::sleep(Duration::from_millis(20)).await;
        let (reason, ()) = tokio::join!(testkit::wait_exit(child, LONG), async { child.send(1) });
        assert_eq!(reason, ExitReason::Panic("the disk is on fire".into()));
        let reports = crash_reports_of(&child.id().to_string());
        assert_eq!(reports.len(), 1, "{reports:?}");
        let f = &reports[0].fields;
        assert_eq!(f["name"], "crash_reports_victim");
        assert_eq!(f["reason"], reason.to_string());
        assert!(f["panicked_at"].contains("crash_reports.rs"), "{f:?}");
        assert_eq!(f["mailbox_len"], "0");
    })
    .unwrap();
}

#[test]
fn an_abnormal_return_is_a_crash_and_carries_the_links() {
    seen();
    mote::run(|_p: Process<()>| async move {
        // A holder that traps exits, so the crash's link signal harms nobody.
        let holder = mote::spawn(|mut h: Process<mote::Signal<u8>>| async move {
            h.trap_exit(true);
            h.recv().await;
        });
        let child = mote::spawn(move |mut c: Process<u8>| async move {
            c.link(holder).unwrap();
            c.recv().await;
            ExitReason::custom("bad_input")
        });
        let (reason, ()) = tokio::join!(testkit::wait_exit(child, LONG), async {
            mote::sleep(Duration::from_millis(20)).await;
            child.send(1)
        });
        assert_eq!(reason, ExitReason::custom("bad_input"));
        let reports = crash_reports_of(&child.id().to_string());
        assert_eq!(reports.len(), 1, "{reports:?}");
        assert_eq!(reports[0].fields["links"], format!("[{}]", holder.id()));
        assert!(!reports[0].fields.contains_key("panicked_at"));
    })
    .unwrap();
}

#[test]
fn normal_shutdown_and_killed_ends_are_not_crashes() {
    seen();
    mote::run(|_p: Process<()>| async move {
        let normal = mote::spawn(|mut c: Process<u8>| async move {
            c.recv().await;
        });
        let shutdown = mote::spawn(|mut c: Process<u8>| async move {
            c.recv().await;
            ExitReason::shutdown_with(mote::Atom::new("done").unwrap())
        });
        let signalled = mote::spawn(|mut c: Process<u8>| async move {
            c.recv().await;
        });
        let (a, b, c, ()) = tokio::join!(
            testkit::wait_exit(normal, LONG),
            testkit::wait_exit(shutdown, LONG),
            testkit::wait_exit(signalled, LONG),
            async {
                mote::sleep(Duration::from_millis(20)).await;
                normal.send(1);
                shutdown.send(1);
                mote::exit(signalled, ExitReason::custom("boom"));
            }
        );
        assert_eq!(a, ExitReason::Normal);
        assert!(b.is_shutdown());
        assert_eq!(c, ExitReason::custom("boom"));
        for pid in [normal.id(), shutdown.id(), signalled.id()] {
            assert!(
                crash_reports_of(&pid.to_string()).is_empty(),
                "{pid} was reported"
            );
        }
    })
    .unwrap();
}

#[test]
fn tracing_inside_a_process_carries_its_pid() {
    let seen = seen();
    mote::run(|p: Process<()>| async move {
        tracing::info!(marker = "inside_a_process", "hello");
        let me = p.id().to_string();
        let events = seen.lock().unwrap().clone();
        let mine: Vec<_> = events
            .iter()
            .filter(|s| s.fields.get("marker").map(String::as_str) == Some("inside_a_process"))
            .collect();
        assert_eq!(mine.len(), 1);
        assert_eq!(mine[0].span_pid.as_deref(), Some(me.as_str()));
    })
    .unwrap();
}
