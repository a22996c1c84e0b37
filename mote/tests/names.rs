//! Registered names: what a name can be, and monitors of a name (Erlang's
//! `monitor(process, Name)`).
//!
//! The Erlang outcomes quoted here were observed in an OTP 25 `erl` (node `nonode@nohost`),
//! with `R` standing for the monitor's reference.

use std::time::Duration;

use mote::{Down, ExitReason, Pid, Process, ProcessId, RegisteredName, RegistryError};

/// Bounds every wait.
const WAIT: Duration = Duration::from_secs(5);

#[derive(Debug)]
enum Msg {
    Down(Down),
}

impl From<Down> for Msg {
    fn from(d: Down) -> Self {
        Msg::Down(d)
    }
}

/// A process that waits for its reason to end with, then ends with it.
fn holder(name: &str) -> Pid<ExitReason> {
    let pid = mote::spawn(|mut p: Process<ExitReason>| async move { p.recv().await });
    mote::register(name, pid).expect("a free name");
    pid
}

async fn next_down(p: &mut Process<Msg>) -> Down {
    match p.recv_timeout(WAIT).await {
        Some(Msg::Down(d)) => d,
        None => panic!("no Down within {WAIT:?}"),
    }
}

fn named(name: &str) -> Option<Box<RegisteredName>> {
    Some(Box::new(RegisteredName::local(name.try_into().unwrap())))
}

/// `R = monitor(process, nobody_here)` gives
/// `{'DOWN',R,process,{nobody_here,nonode@nohost},noproc}` at once.
#[test]
fn monitoring_a_name_nobody_holds_gives_noproc_at_once() {
    mote::run(|mut p: Process<Msg>| async move {
        let r = p.monitor_name("nobody_here").unwrap();
        let down = next_down(&mut p).await;
        assert_eq!(down.monitor, r);
        assert_eq!(down.reason, ExitReason::NoProc);
        assert_eq!(down.by_name, named("nobody_here"));
        assert_eq!(down.pid, ProcessId::NONE, "no process held the name");
    })
    .unwrap();
}

/// A process registered as `holder`, monitored with `monitor(process, holder)`, exits with
/// `boom`: `{'DOWN',R,process,{holder,nonode@nohost},boom}`.
#[test]
fn a_name_monitor_fires_when_the_holder_ends_and_names_the_name() {
    mote::run(|mut p: Process<Msg>| async move {
        let h = holder("names_holder");
        let r = p.monitor_name("names_holder").unwrap();
        h.send(ExitReason::custom("boom"));
        let down = next_down(&mut p).await;
        assert_eq!(down.monitor, r);
        assert_eq!(down.reason, ExitReason::custom("boom"));
        assert_eq!(down.by_name, named("names_holder"));
        assert_eq!(down.pid, h.id(), "the process that held the name");
    })
    .unwrap();
}

/// `h3` is held by P3, monitored by name, then unregistered and taken by P4. P4 exits with
/// `second`: no `DOWN`. P3 exits with `first`: `{'DOWN',R,process,{h3,nonode@nohost},first}`.
/// The monitor is on the process that held the name when it was made.
#[test]
fn a_later_holder_of_the_name_is_not_monitored() {
    mote::run(|mut p: Process<Msg>| async move {
        let first = holder("names_h3");
        let r = p.monitor_name("names_h3").unwrap();
        mote::unregister("names_h3").unwrap();
        let second = holder("names_h3");
        // The witness: a monitor of the second holder, made after `r`.
        let witness = p.monitor(second);
        second.send(ExitReason::custom("second"));
        let down = next_down(&mut p).await;
        assert_eq!(
            (down.monitor, down.by_name.is_none()),
            (witness, true),
            "only the witness fires: {down:?}"
        );
        first.send(ExitReason::custom("first"));
        let down = next_down(&mut p).await;
        assert_eq!(down.monitor, r);
        assert_eq!(down.reason, ExitReason::custom("first"));
        assert_eq!(down.by_name, named("names_h3"));
    })
    .unwrap();
}

/// `demonitor(R, [info])` of a live name monitor gives `true`, and no `DOWN` comes when the
/// holder then exits.
#[test]
fn a_name_monitor_can_be_removed() {
    mote::run(|mut p: Process<Msg>| async move {
        let h = holder("names_h5");
        let r = p.monitor_name("names_h5").unwrap();
        assert!(p.demonitor_info(r));
        let witness = p.monitor(h);
        h.send(ExitReason::custom("boom"));
        let down = next_down(&mut p).await;
        assert_eq!(down.monitor, witness, "{down:?}");
        assert_eq!(p.try_recv().map(|Msg::Down(d)| d.monitor), None);
    })
    .unwrap();
}

/// Names are atoms: `list_to_atom` of 256 characters fails with `system_limit` (255 are
/// fine), and `register(undefined, self())` fails with `badarg` (`whereis(undefined)` is how
/// Erlang says "nobody", so nobody may hold it).
#[test]
fn a_name_must_be_an_atom_other_than_undefined() {
    mote::run(|p: Process<Msg>| async move {
        let me = p.pid();
        assert_eq!(
            mote::register("undefined", me),
            Err(RegistryError::ReservedName)
        );
        assert_eq!(mote::whereis("undefined"), None);
        let long = "a".repeat(256);
        assert_eq!(
            mote::register(&long, me),
            Err(RegistryError::NameTooLong { chars: 256 })
        );
        assert_eq!(
            p.monitor_name(&long),
            Err(RegistryError::NameTooLong { chars: 256 })
        );
        // 255 characters: a name like any other.
        let longest = "a".repeat(255);
        assert_eq!(mote::register(&longest, me), Ok(()));
        assert_eq!(mote::whereis(&longest), Some(p.id()));
        assert_eq!(
            mote::registered_name(p.id()).as_deref(),
            Some(longest.as_str())
        );
    })
    .unwrap();
}
