//! Conformance: edge rules of processes and the registry, each checked first on a real BEAM
//! (OTP 25, `erl -noshell -eval '...' -s init stop`). The Erlang snippet and what the BEAM
//! answered are in the comment of each test, in our words.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use mote::{Down, ExitReason, Process, RegistryError, Signal};

/// Generous bound on any wait: a hang becomes a failure.
const WAIT: Duration = Duration::from_secs(10);

type Msg = Signal<&'static str>;

/// Waits for the `Down` of `r`, failing after [`WAIT`].
async fn down_of(p: &mut Process<Msg>, r: mote::MonitorRef) -> Down {
    match p
        .recv_matching_timeout(|m| matches!(m, Signal::Down(d) if d.monitor == r), WAIT)
        .await
    {
        Some(Signal::Down(d)) => d,
        _ => panic!("no DOWN within {WAIT:?}"),
    }
}

/// ```erlang
/// R = monitor(process, self()), is_reference(R).          % true
/// demonitor(R).                                            % true
/// {P, M} = spawn_monitor(fun() -> monitor(process, self()),
///                                 receive X -> X after 100 -> ok end, exit(done) end).
/// % the process's own mailbox never gets a DOWN (its receive times out); the outside
/// % monitor sees {'DOWN', M, process, P, done}
/// ```
#[test]
fn monitoring_oneself_gives_a_ref_and_never_a_down() {
    mote::run(|mut p: Process<Msg>| async move {
        let tx = p.pid();
        let (_, r) = p.spawn_monitor(move |mut c: Process<Msg>| async move {
            let r = c.monitor(c.id());
            // A marker sent after the monitor is the first thing in the mailbox: no DOWN
            // (not even a `noproc` one) was delivered when the monitor was made.
            c.pid().send(Signal::Msg("marker"));
            let first = c.recv_timeout(WAIT).await;
            assert!(matches!(first, Some(Signal::Msg("marker"))));
            assert!(c.try_recv().is_none(), "no DOWN for a monitor of oneself");
            // A second monitor of oneself, left in place when the process ends.
            c.monitor(c.id());
            assert!(c.demonitor(r));
            tx.send(Signal::Msg("checked"));
            ExitReason::custom("done")
        });
        assert!(matches!(
            p.recv_timeout(WAIT).await,
            Some(Signal::Msg("checked"))
        ));
        assert_eq!(down_of(&mut p, r).await.reason, ExitReason::custom("done"));
    })
    .unwrap();
}

/// ```erlang
/// link(self()).                     % true
/// process_info(self(), links).      % {links, [<0.0.0>]}: the shell's links only, not itself
/// unlink(self()).                   % true
/// ```
#[test]
fn linking_oneself_is_a_successful_no_op() {
    mote::run(|p: Process<Msg>| async move {
        assert_eq!(p.link(p.id()), Ok(()));
        let links = mote::process_info(p.id()).unwrap().links;
        assert!(
            !links.contains(&p.id()),
            "a process is not in its own links"
        );
        p.unlink(p.id());
    })
    .unwrap();
}

/// ```erlang
/// {P, M} = spawn_monitor(fun() -> catch exit(self(), boom),
///                                 receive after 200 -> ok end, exit(survived) end).
/// % {'DOWN', M, process, P, boom}: the signal ended it although the call was caught
/// {P, M} = spawn_monitor(fun() -> try exit(self(), boom) catch _:_ -> ok end,
///                                 receive after 200 -> ok end, exit(survived) end).
/// % {'DOWN', M, process, P, boom}
/// ```
/// (Unlike `catch exit(boom)`, Erlang's `exit/1`, which is an exception: the process goes
/// on and ends with `survived`.)
#[test]
fn exit_signal_to_oneself_ends_the_process_even_if_the_unwind_is_caught() {
    mote::run(|mut p: Process<Msg>| async move {
        // The process catches the unwind, then waits: the pending signal ends it.
        let (_, r) = p.spawn_monitor(|mut c: Process<Msg>| async move {
            let me = c.id();
            let _ = catch_unwind(AssertUnwindSafe(|| {
                mote::exit(me, ExitReason::custom("boom"))
            }));
            let _ = c.recv_timeout(WAIT).await;
            ExitReason::custom("survived")
        });
        assert_eq!(down_of(&mut p, r).await.reason, ExitReason::custom("boom"));

        // The process catches the unwind and returns at once, in the same poll.
        let (_, r) = p.spawn_monitor(|c: Process<Msg>| async move {
            let me = c.id();
            let _ = catch_unwind(AssertUnwindSafe(|| {
                mote::exit(me, ExitReason::custom("boom"))
            }));
            ExitReason::custom("survived")
        });
        assert_eq!(down_of(&mut p, r).await.reason, ExitReason::custom("boom"));
    })
    .unwrap();
}

/// ```erlang
/// spawn_monitor(fun() -> catch exit(self(), normal), receive after 200 -> ok end,
///                        exit(survived) end).           % DOWN reason normal
/// spawn_monitor(fun() -> catch exit(self(), kill), receive after 200 -> ok end,
///                        exit(survived) end).           % DOWN reason killed
/// ```
#[test]
fn normal_and_kill_to_oneself_end_the_process_even_if_caught() {
    mote::run(|mut p: Process<Msg>| async move {
        for (sent, seen) in [
            (ExitReason::Normal, ExitReason::Normal),
            (ExitReason::Kill, ExitReason::Killed),
        ] {
            let (_, r) = p.spawn_monitor(move |mut c: Process<Msg>| async move {
                let me = c.id();
                let _ = catch_unwind(AssertUnwindSafe(|| mote::exit(me, sent)));
                let _ = c.recv_timeout(WAIT).await;
                ExitReason::custom("survived")
            });
            assert_eq!(down_of(&mut p, r).await.reason, seen);
        }
    })
    .unwrap();
}

/// ```erlang
/// P = spawn(fun() -> process_flag(trap_exit, true), catch exit(self(), boom),
///                    receive X -> io:format("~p~n", [X]) end end).
/// % prints {'EXIT', P, boom}: a trapping process gets its own signal as a message
/// ```
#[test]
fn exit_signal_to_oneself_while_trapping_is_a_message() {
    mote::run(|mut p: Process<Msg>| async move {
        p.trap_exit(true);
        mote::exit(p.id(), ExitReason::custom("boom"));
        match p.recv_timeout(WAIT).await {
            Some(Signal::Exit(e)) => {
                assert_eq!((e.from, e.reason), (p.id(), ExitReason::custom("boom")))
            }
            _ => panic!("expected the trapped signal"),
        }
    })
    .unwrap();
}

/// ```erlang
/// catch register(undefined, self()).   % {'EXIT', {badarg, ...}}
/// whereis(undefined).                  % undefined
/// catch unregister(undefined).         % {'EXIT', {badarg, ...}}
/// catch (undefined ! hi).              % {'EXIT', {badarg, ...}}
/// R = monitor(process, undefined).     % a ref; then {'DOWN', R, process,
///                                      %   {undefined, nonode@nohost}, noproc} arrives
/// ```
#[test]
fn undefined_is_refused_as_a_name_and_monitoring_it_gives_noproc() {
    mote::run(|mut p: Process<Msg>| async move {
        assert_eq!(
            mote::register("undefined", p.pid()),
            Err(RegistryError::ReservedName)
        );
        assert_eq!(mote::whereis("undefined"), None);
        assert!(mote::unregister("undefined").is_err());
        assert!(mote::send_named("undefined", Signal::Msg("hi")).is_err());
        let r = p.monitor_name("undefined").unwrap();
        let down = down_of(&mut p, r).await;
        assert_eq!(down.reason, ExitReason::NoProc);
        assert_eq!(down.by_name.unwrap().name, "undefined");
    })
    .unwrap();
}

/// ```erlang
/// T = spawn(fun() -> receive _ -> ok end end),
/// M3 = monitor(process, T), demonitor(M3).                 % true
/// M4 = monitor(process, T), T ! go, timer:sleep(50),
/// demonitor(M4).                                           % true  (the DOWN came)
/// demonitor(M4, [info]).                                   % false
/// M5 = make_ref(), demonitor(M5), demonitor(M5, [info]).   % true, false
/// T2 = spawn(...), M6 = monitor(process, T2),
/// demonitor(M6, [info]).                                   % true  (still active)
/// ```
#[test]
fn demonitor_always_answers_true_and_demonitor_info_says_whether_it_was_active() {
    mote::run(|mut p: Process<Msg>| async move {
        let t = mote::spawn(|mut c: Process<()>| async move { c.recv().await });
        let live = p.monitor(t);
        assert!(p.demonitor(live));
        let fired = p.monitor(t);
        t.send(());
        let _ = down_of(&mut p, fired).await;
        assert!(p.demonitor(fired));
        assert!(!p.demonitor_info(fired));

        let t2 = mote::spawn(|mut c: Process<()>| async move { c.recv().await });
        let active = p.monitor(t2);
        assert!(p.demonitor_info(active));
        assert!(p.demonitor(active), "already removed: still true");
        assert!(!p.demonitor_info(active));
        t2.send(());
    })
    .unwrap();
}
