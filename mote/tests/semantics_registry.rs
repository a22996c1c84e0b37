//! Conformance: the name registry (cases P18-P21 of `mote/tests/conformance/README.md`).
//!
//! Where Erlang raises `badarg`, mote returns a typed `RegistryError` (rustdoc of
//! `RegistryError`: "Registry errors (Erlang raises `badarg` for all of them; mote says
//! which)"). The outcome lines render any `Err` as `error:badarg`; each test then also
//! checks which variant it is.

mod common;

use common::{registry_result, run_case, Driver, Msg};
use mote::{ExitReason, RegistryError, TrySendError};

/// `whereis/1`'s answer: the process's name in the case, or `undefined`.
fn whereis(o: &Driver, name: &str) -> String {
    match mote::whereis(name) {
        Some(id) => o.show(id),
        None => "undefined".into(),
    }
}

#[test]
fn p18_name_released_on_death() {
    let line = run_case("P18-name-released-on-death", |mut o: Driver| async move {
        let b = o.agent("B", false).await;
        let c = o.agent("C", false).await;
        o.call(b, |p| mote::register("sem_p18", p.pid()))
            .await
            .unwrap()
            .unwrap();
        let before = whereis(&o, "sem_p18");
        o.exit_self(b, ExitReason::custom("boom")).await; // returns once O has B's DOWN
        let after = whereis(&o, "sem_p18");
        let reg_c = mote::register("sem_p18", c);
        let now = whereis(&o, "sem_p18");
        vec![
            format!("whereis_before={before}"),
            format!("whereis_after_DOWN={after}"),
            format!("register_C={}", registry_result(&reg_c)),
            format!("whereis={now}"),
        ]
    });
    assert_eq!(
        line,
        "CASE P18-name-released-on-death whereis_before=B whereis_after_DOWN=undefined register_C=true whereis=C"
    );
}

#[test]
fn p19_register_taken_name() {
    let line = run_case("P19-register-taken-name", |mut o: Driver| async move {
        let b = o.agent("B", false).await;
        let c = o.agent("C", false).await;
        o.call(b, |p| mote::register("sem_p19", p.pid()))
            .await
            .unwrap()
            .unwrap();
        let taken = mote::register("sem_p19", c);
        let owner = whereis(&o, "sem_p19");
        let second_name = mote::register("sem_p19b", b);
        let free = mote::register("sem_p19b", c);
        let b_name = match mote::registered_name(b.id()) {
            Some(n) => format!("{{registered_name,{n}}}"),
            None => "[]".into(),
        };
        // mote says which badarg it is.
        assert_eq!(
            taken,
            Err(RegistryError::NameTaken {
                name: "sem_p19".into(),
                owner: b.id()
            })
        );
        assert_eq!(
            second_name,
            Err(RegistryError::AlreadyNamed("sem_p19".into()))
        );
        vec![
            format!("register(sem_p19,C)={}", registry_result(&taken)),
            format!("whereis(sem_p19)={owner}"),
            format!("register(sem_p19b,B)={}", registry_result(&second_name)),
            format!("register(sem_p19b,C)={}", registry_result(&free)),
            format!("registered_name(B)={b_name}"),
        ]
    });
    assert_eq!(
        line,
        "CASE P19-register-taken-name register(sem_p19,C)=error:badarg whereis(sem_p19)=B \
         register(sem_p19b,B)=error:badarg register(sem_p19b,C)=true registered_name(B)={registered_name,sem_p19}"
    );
}

#[test]
fn p20_register_dead_pid() {
    let line = run_case("P20-register-dead-pid", |mut o: Driver| async move {
        let d = o.dead_typed::<()>("D").await;
        let r = mote::register("sem_p20", d);
        assert_eq!(r, Err(RegistryError::NoProc));
        vec![
            format!("register(sem_p20,D)={}", registry_result(&r)),
            format!("whereis(sem_p20)={}", whereis(&o, "sem_p20")),
        ]
    });
    assert_eq!(
        line,
        "CASE P20-register-dead-pid register(sem_p20,D)=error:badarg whereis(sem_p20)=undefined"
    );
}

#[test]
fn p21_send_unregistered_vs_dead() {
    let line = run_case(
        "P21-send-unregistered-vs-dead",
        |mut o: Driver| async move {
            let d = o.agent("D", false).await;
            o.finish(d);
            o.wait_dead(d).await;
            // send(sem_p21_nobody, hi): an unregistered plain name.
            let to_name = mote::send_named("sem_p21_nobody", Msg::User("hi"));
            assert!(
                matches!(&to_name, Err(RegistryError::NotRegistered(n)) if &**n == "sem_p21_nobody")
            );
            let to_name = match to_name {
                Ok(()) => "hi".to_string(),
                Err(_) => "error:badarg".to_string(),
            };
            // Deviation: mote has no separate API for sending to `{Name, node()}` (the BEAM's
            // silent form, `send({name,node()})=hi`): there is only `send_named`, which behaves
            // like the plain-name form. That token is left out of the line below.
            //
            // send(D, hi): `Pid::send` returns nothing and never fails; the message is dropped
            // ("sending to a process that has ended drops the message silently, as in Erlang").
            // Erlang's send returns the message, so a send that returns is rendered `hi`.
            d.send(Msg::User("hi"));
            let to_dead = "hi";
            // mote's fallible variant says why it was dropped.
            assert!(matches!(
                d.try_send(Msg::User("hi")),
                Err(TrySendError::Dead(Msg::User("hi")))
            ));
            vec![
                format!("send(name)={to_name}"),
                format!("send(D)={to_dead}"),
            ]
        },
    );
    // The BEAM's line is
    //   CASE P21-send-unregistered-vs-dead send(name)=error:badarg send({name,node()})=hi send(D)=hi
    // without the `{name,node()}` token, which has no mote counterpart (see above).
    assert_eq!(
        line,
        "CASE P21-send-unregistered-vs-dead send(name)=error:badarg send(D)=hi"
    );
}
