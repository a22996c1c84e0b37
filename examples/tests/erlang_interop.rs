//! The Erlang interop example against a real `erl` (skipped without one, unless
//! `MOTE_REQUIRE_ERL=1`): Erlang's calls get the counter's replies and its monitor by
//! `{Name, Node}` gets the mote server's exit reason.

#[path = "../erlang_interop.rs"]
#[allow(dead_code)]
mod erlang_interop;

#[test]
fn erlang_calls_and_monitors_a_mote_server() {
    let seen = erlang_interop::run();
    if seen.is_empty() {
        assert_ne!(
            std::env::var("MOTE_REQUIRE_ERL").as_deref(),
            Ok("1"),
            "erl required"
        );
        return;
    }
    assert!(seen.iter().any(|l| l == "erlang: counter is 7"), "{seen:?}");
    let down = seen
        .iter()
        .find(|l| l.starts_with("erlang: DOWN"))
        .unwrap_or_else(|| panic!("no DOWN: {seen:?}"));
    assert!(down.ends_with("{shutdown,closing}"), "{down}");
    assert!(
        down.contains("{counter,'mote"),
        "the DOWN names {{Name, Node}}: {down}"
    );
}
