//! The `serde` feature: process ids round-trip, pids and exit reasons serialize.
#![cfg(feature = "serde")]

use mote::{ExitReason, Process, ProcessId};

#[test]
fn a_process_id_round_trips_through_json() {
    let id = mote::run(|p: Process<()>| async move { p.id() }).unwrap();
    let json = serde_json::to_string(&id).unwrap();
    assert_eq!(serde_json::from_str::<ProcessId>(&json).unwrap(), id);
    // A sequence form too (for formats without field names).
    let parts = format!(
        "[{},{},{},{}]",
        id.node(),
        id.number(),
        id.serial(),
        id.creation()
    );
    assert_eq!(serde_json::from_str::<ProcessId>(&parts).unwrap(), id);
    assert!(serde_json::from_str::<ProcessId>(r#"{"node":0}"#).is_err());
}

#[test]
fn a_pid_serializes_as_its_id_and_a_reason_as_its_erlang_text() {
    mote::run(|p: Process<u8>| async move {
        assert_eq!(
            serde_json::to_value(p.pid()).unwrap(),
            serde_json::to_value(p.id()).unwrap()
        );
    })
    .unwrap();
    let panic = ExitReason::Panic("boom".into());
    assert_eq!(
        serde_json::to_string(&panic).unwrap(),
        r#""{panic,<<\"boom\">>}""#
    );
    assert_eq!(
        serde_json::to_string(&ExitReason::Killed).unwrap(),
        r#""killed""#
    );
}
