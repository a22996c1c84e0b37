//! The live dashboard over a small, busy supervision tree.
//!
//! ```text
//! app (one_for_one, "app")
//! ├── ticker        sends a tick to the counter every 10 ms ("ticker")
//! ├── counter       counts the ticks ("counter")
//! ├── pipeline (one_for_all, "pipeline")
//! │   ├── producer  sends batches to the consumer ("producer")
//! │   └── consumer  takes them, slowly enough that its mailbox is seen ("consumer")
//! └── sessions (a dynamic supervisor, "sessions") with a few temporary sessions
//! ```
//!
//! A process outside the tree spawns short-lived jobs all the time (some of which panic),
//! so the charts move. Open the printed address, click a process, and kill it: the
//! supervisors restart what they own.
//!
//! `cargo run -p examples --example dashboard [ADDRESS] [SECONDS]`: by default on
//! 127.0.0.1:4000, until stopped.

use std::time::Duration;

use mote::supervisor::{ChildSpec, DynamicSupervisor, Strategy, Supervisor};
use mote::{Process, SpawnOptions};

/// A child spec for a plain process registered as `id`, linked to its supervisor.
fn worker<Fut>(id: &'static str, body: fn(Process<u64>) -> Fut) -> ChildSpec
where
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    ChildSpec::new(id, move || async move {
        Ok(SpawnOptions::new().name(id).linked().spawn(body).id())
    })
}

async fn ticker(_p: Process<u64>) {
    let mut n: u64 = 0;
    loop {
        mote::sleep(Duration::from_millis(10)).await;
        n += 1;
        // Dropped while the counter is being restarted (killed from the dashboard, say).
        let _ = mote::send_named("counter", n);
    }
}

async fn counter(mut p: Process<u64>) {
    let mut total = 0u64;
    loop {
        total = total.wrapping_add(p.recv().await);
    }
}

async fn producer(_p: Process<u64>) {
    loop {
        for i in 0..200u64 {
            // The consumer may be restarting (the pipeline is one_for_all): then the batch
            // is dropped.
            let _ = mote::send_named("consumer", i);
        }
        mote::sleep(Duration::from_millis(50)).await;
    }
}

async fn consumer(mut p: Process<u64>) {
    loop {
        p.recv().await;
        // Slower than the producer for a moment after each batch: a mailbox to look at.
        if p.recv_timeout(Duration::ZERO).await.is_some() {
            mote::yield_now().await;
        }
    }
}

/// A session: holds a buffer (memory to sort by) and waits.
async fn session(mut p: Process<u64>) {
    let buffer = vec![0u8; 16 * 1024];
    p.recv().await;
    drop(buffer);
}

/// Short jobs, every 20 ms; one in ten panics: spawns and exits for the charts.
async fn churn(_p: Process<()>) {
    async fn job(n: u64) {
        if n % 10 == 0 {
            panic!("job {n} failed on purpose");
        }
        mote::sleep(Duration::from_millis(30)).await;
    }
    let mut n = 0;
    loop {
        n += 1;
        mote::spawn(move |_j: Process<()>| job(n));
        mote::sleep(Duration::from_millis(20)).await;
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:4000".into());
    let seconds: Option<u64> = args.next().map(|s| s.parse().expect("SECONDS is a number"));
    // The jobs' panics are expected: keep their crash reports off the terminal.
    let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry());

    mote::run(move |_p: Process<()>| async move {
        let pipeline = Supervisor::new(Strategy::OneForAll)
            .name("pipeline")
            .child(worker("producer", producer))
            .child(worker("consumer", consumer));
        let app = Supervisor::new(Strategy::OneForOne)
            .name("app")
            .intensity(100, Duration::from_secs(10))
            .child(worker("ticker", ticker))
            .child(worker("counter", counter))
            .child(pipeline.into_child_spec("pipeline"))
            .child(
                DynamicSupervisor::new()
                    .name("sessions")
                    .into_child_spec("sessions"),
            )
            .start()
            .await
            .expect("the tree starts");
        let sessions = mote::supervisor::DynamicSupervisorRef::named("sessions").unwrap();
        for _ in 0..3 {
            let spec = ChildSpec::new("session", || async {
                Ok(SpawnOptions::new().linked().spawn(session).id())
            })
            .restart(mote::supervisor::Restart::Temporary);
            sessions.start_child(spec).await.unwrap();
        }
        mote::spawn(churn);

        // The one line that turns the dashboard on.
        let dashboard = mote_dashboard::serve(addr.as_str()).expect("binding the dashboard");
        println!("supervision tree {} started", app.id());
        println!("dashboard: {}", dashboard.url());
        match seconds {
            Some(s) => mote::sleep(Duration::from_secs(s)).await,
            None => loop {
                mote::sleep(Duration::from_secs(3600)).await;
            },
        }
        dashboard.stop();
    })
    .unwrap();
}
