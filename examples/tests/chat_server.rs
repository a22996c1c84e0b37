//! The chat server example, driven by real TCP clients: join, talk, a session that crashes
//! (its crash report is seen, the room forgets it, the others go on), quit.

#[path = "../chat_server.rs"]
#[allow(dead_code)]
mod chat_server;

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mote::{testkit, Process};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

const LONG: Duration = Duration::from_secs(10);

/// A chat client over a real socket.
struct Client {
    lines: Lines<BufReader<OwnedReadHalf>>,
    write: OwnedWriteHalf,
}

impl Client {
    async fn connect(addr: std::net::SocketAddr, name: &str) -> (Client, String) {
        let (read, write) = TcpStream::connect(addr).await.unwrap().into_split();
        let mut c = Client {
            lines: BufReader::new(read).lines(),
            write,
        };
        assert_eq!(c.line().await.as_deref(), Some("nickname?"));
        c.send(name).await;
        let welcome = c.line().await.unwrap();
        (c, welcome)
    }

    async fn send(&mut self, line: &str) {
        self.write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    }

    /// The next line, or `None` once the server closed the connection.
    async fn line(&mut self) -> Option<String> {
        tokio::time::timeout(LONG, self.lines.next_line())
            .await
            .expect("a line within the time limit")
            .ok()
            .flatten()
    }
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

/// Every crash report seen. (Set `CHAT_DEBUG` to see every event of mote on stderr.)
type Reports = Arc<Mutex<Vec<HashMap<String, String>>>>;

struct CrashReports(Reports);
impl<S: Subscriber> Layer<S> for CrashReports {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if std::env::var_os("CHAT_DEBUG").is_some() {
            let mut f = Fields::default();
            event.record(&mut f);
            eprintln!("{} {:?}", event.metadata().target(), f.0);
        }
        if event.metadata().target() == "mote::crash" {
            let mut f = Fields::default();
            event.record(&mut f);
            self.0.lock().unwrap().push(f.0);
        }
    }
}

#[test]
fn sessions_talk_and_one_crashing_leaves_the_others_going() {
    let reports: Reports = Arc::default();
    let subscriber = tracing_subscriber::registry().with(CrashReports(reports.clone()));
    tracing::subscriber::set_global_default(subscriber).unwrap();

    testkit::run_test(Duration::from_secs(60), move |_p: Process<()>| async move {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let chat = chat_server::start(listener).await.unwrap();

        let (mut alice, welcome) = Client::connect(addr, "alice").await;
        assert_eq!(welcome, "welcome alice; here: ");
        let (mut bob, welcome) = Client::connect(addr, "bob").await;
        assert_eq!(welcome, "welcome bob; here: alice");
        assert_eq!(alice.line().await.as_deref(), Some("* bob joined"));
        let (mut carol, welcome) = Client::connect(addr, "carol").await;
        assert_eq!(welcome, "welcome carol; here: alice, bob");
        assert_eq!(alice.line().await.as_deref(), Some("* carol joined"));
        assert_eq!(bob.line().await.as_deref(), Some("* carol joined"));

        // A nickname in use is refused.
        let (_dup, refused) = Client::connect(addr, "alice").await;
        assert_eq!(refused, "that nickname is taken");

        alice.send("hello").await;
        assert_eq!(bob.line().await.as_deref(), Some("alice: hello"));
        assert_eq!(carol.line().await.as_deref(), Some("alice: hello"));

        // Bob's session crashes: his connection closes, the room tells the others.
        bob.send("/crash").await;
        assert_eq!(bob.line().await, None);
        assert_eq!(alice.line().await.as_deref(), Some("* bob left"));
        assert_eq!(carol.line().await.as_deref(), Some("* bob left"));

        // The others go on.
        carol.send("still here").await;
        assert_eq!(alice.line().await.as_deref(), Some("carol: still here"));
        alice.send("/who").await;
        assert_eq!(alice.line().await.as_deref(), Some("here: alice, carol"));

        // And a new client can still join.
        let (mut dave, welcome) = Client::connect(addr, "dave").await;
        assert_eq!(welcome, "welcome dave; here: alice, carol");
        assert_eq!(carol.line().await.as_deref(), Some("* dave joined"));
        carol.send("/quit").await;
        assert_eq!(carol.line().await, None);
        assert_eq!(alice.line().await.as_deref(), Some("* dave joined"));
        assert_eq!(alice.line().await.as_deref(), Some("* carol left"));
        assert_eq!(dave.line().await.as_deref(), Some("* carol left"));

        // The supervision tree is intact: same room, same sessions supervisor.
        let counts = chat.count_children().await.unwrap();
        assert_eq!((counts.specs, counts.active), (3, 3));
    });

    // The crash was reported, with the session's panic.
    let reports = reports.lock().unwrap();
    let crash: Vec<_> = reports
        .iter()
        .filter(|r| r["reason"].contains("bob asked for a crash"))
        .collect();
    assert_eq!(crash.len(), 1, "{reports:?}");
    assert!(
        crash[0]["panicked_at"].contains("chat_server.rs"),
        "{crash:?}"
    );
}
