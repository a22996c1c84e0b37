//! One-shot children, names at start, and typed references from bare ids.

use std::time::Duration;

use mote::server::{self, Context, Next, ReplyTo, Server, ServerOptions, ServerRef};
use mote::supervisor::{
    ChildSpec, DynamicSupervisor, DynamicSupervisorRef, Restart, Strategy, Supervisor,
    SupervisorError, SupervisorRef,
};
use mote::{testkit, ExitReason, Process, SpawnOptions};

const LONG: Duration = Duration::from_secs(10);

/// A value that cannot be cloned, like a socket.
struct Owned(u32);

struct Holder(Owned);
impl Server for Holder {
    type Call = ();
    type Reply = u32;
    type Cast = ();
    type Info = ();
    async fn handle_call(&mut self, _: (), from: ReplyTo<u32>, _: &mut Context<Self>) -> Next {
        from.reply(self.0 .0);
        Next::Continue
    }
}

#[test]
fn a_one_shot_child_gets_its_value_moved_in_and_is_never_started_twice() {
    testkit::run_test(LONG, |_p: Process<()>| async move {
        let sup = DynamicSupervisor::new().start_link().await.unwrap();
        let value = Owned(7);
        let spec = ChildSpec::temporary_once("holder", move || async move {
            Ok(server::start_link(Holder(value)).await?.id())
        });
        let again = spec.clone();
        let pid = sup.start_child(spec).await.unwrap();
        let holder = ServerRef::<Holder>::from_id(pid).unwrap();
        assert_eq!(holder.call((), LONG).await, Ok(7));
        assert_eq!(
            sup.start_child(again).await,
            Err(SupervisorError::StartFailed(ExitReason::custom(
                "already_started_once"
            )))
        );
        // Temporary: a crash is not restarted, and the child is forgotten.
        mote::exit(pid, ExitReason::custom("crash"));
        testkit::wait_exit(pid, LONG).await;
        while sup.count_children().await.unwrap().specs != 0 {
            mote::sleep(Duration::from_millis(1)).await;
        }
    });
}

#[test]
#[should_panic(expected = "cannot be restarted")]
fn a_one_shot_child_cannot_be_made_permanent() {
    let _ = ChildSpec::temporary_once("x", || async { Ok(mote::ProcessId::NONE) })
        .restart(Restart::Permanent);
}

#[test]
fn a_named_server_child_is_found_under_its_name_after_a_restart() {
    testkit::run_test(LONG, |_p: Process<()>| async move {
        let spec = ChildSpec::server_with(
            "holder",
            ServerOptions::new().name("ergonomics_holder"),
            || Holder(Owned(1)),
        );
        let _sup = Supervisor::new(Strategy::OneForOne)
            .child(spec)
            .start_link()
            .await
            .unwrap();
        let first = ServerRef::<Holder>::named("ergonomics_holder").unwrap();
        mote::exit(first.id(), ExitReason::Kill);
        let second = loop {
            match ServerRef::<Holder>::named("ergonomics_holder") {
                Ok(s) if s != first => break s,
                _ => mote::sleep(Duration::from_millis(1)).await,
            }
        };
        assert_eq!(second.call((), LONG).await, Ok(1));
    });
}

#[test]
fn refs_from_ids_check_what_the_process_is() {
    testkit::run_test(LONG, |p: Process<()>| async move {
        let sup = Supervisor::new(Strategy::OneForOne).start().await.unwrap();
        let dynamic = DynamicSupervisor::new()
            .name("ergonomics_dyn")
            .start_link()
            .await
            .unwrap();
        assert_eq!(SupervisorRef::from_id(sup.id()), Some(sup));
        assert_eq!(SupervisorRef::from_id(dynamic.id()), None);
        assert_eq!(DynamicSupervisorRef::from_id(dynamic.id()), Some(dynamic));
        assert_eq!(DynamicSupervisorRef::from_id(sup.id()), None);
        assert_eq!(DynamicSupervisorRef::from_id(p.id()), None);
        assert_eq!(DynamicSupervisorRef::named("ergonomics_dyn"), Ok(dynamic));
        assert!(SupervisorRef::named("ergonomics_dyn").is_err());
        // A dead supervisor's id gives nothing.
        sup.stop(ExitReason::Shutdown, LONG).await.unwrap();
        assert_eq!(SupervisorRef::from_id(sup.id()), None);
    });
}

#[test]
fn a_process_spawned_with_a_name_is_registered_before_it_runs() {
    testkit::run_test(LONG, |mut p: Process<bool>| async move {
        let me = p.pid();
        let pid = SpawnOptions::new().name("ergonomics_named").spawn(
            move |mut c: Process<()>| async move {
                // Its own name is there from its first instruction.
                me.send(mote::whereis("ergonomics_named") == Some(c.id()));
                c.recv().await;
            },
        );
        assert!(testkit::assert_receive(&mut p, LONG).await);
        pid.send(());
        testkit::wait_exit(pid, LONG).await;
        assert_eq!(mote::whereis("ergonomics_named"), None);
        assert_eq!(
            SpawnOptions::new()
                .name("undefined")
                .try_spawn(|_c: Process<()>| async {}),
            Err(mote::SpawnError::BadName)
        );
    });
}

#[test]
fn an_io_error_is_an_exit_reason() {
    let e = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset");
    let reason: ExitReason = e.into();
    assert!(reason.is_abnormal());
}

/// A child started by the supervisor's `init` may look its supervisor up by id at once:
/// the supervisor is recorded as one before its `init` runs.
#[test]
fn a_child_finds_its_supervisor_by_id_from_its_first_instruction() {
    testkit::run_test(LONG, |mut p: Process<bool>| async move {
        let me = p.pid();
        for _ in 0..200 {
            let spec = ChildSpec::new("looker", move || {
                let sup = mote::self_id().expect("start functions run in the supervisor");
                async move {
                    let pid =
                        SpawnOptions::new()
                            .linked()
                            .spawn(move |mut c: Process<()>| async move {
                                me.send(SupervisorRef::from_id(sup).is_some());
                                c.recv().await;
                            });
                    Ok(pid.id())
                }
            });
            let sup = Supervisor::new(Strategy::OneForOne)
                .child(spec)
                .start()
                .await
                .unwrap();
            assert!(testkit::assert_receive(&mut p, LONG).await);
            sup.stop(ExitReason::Shutdown, LONG).await.unwrap();
        }
    });
}
