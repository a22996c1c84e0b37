//! mote inside `#[tokio::test]`s: several tests in one binary, each with its own tokio
//! runtime that ends with the test, all calling into the one mote runtime. Processes use
//! mote's own tokio runtime for IO and timers, so a test's runtime shutting down does not
//! reach the processes of the next.

use std::time::Duration;

use mote::Process;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn echo_over_tcp(payload: &'static [u8]) -> Vec<u8> {
    mote::run_async(move |_p: Process<()>| async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // The server is a process of its own; the client is this one.
        mote::spawn(move |_s: Process<()>| async move {
            let (mut sock, _) = listener.accept().await.unwrap();
            let mut buf = vec![0; payload.len()];
            sock.read_exact(&mut buf).await.unwrap();
            sock.write_all(&buf).await.unwrap();
        });
        let mut client = tokio::net::TcpStream::connect(addr).await.unwrap();
        client.write_all(payload).await.unwrap();
        let mut back = vec![0; payload.len()];
        client.read_exact(&mut back).await.unwrap();
        mote::sleep(Duration::from_millis(5)).await;
        back
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn first_tokio_test() {
    assert_eq!(echo_over_tcp(b"one").await, b"one");
}

#[tokio::test]
async fn second_tokio_test() {
    assert_eq!(echo_over_tcp(b"two").await, b"two");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn third_tokio_test_multi_thread() {
    assert_eq!(echo_over_tcp(b"three").await, b"three");
}

#[tokio::test]
async fn fourth_tokio_test_after_the_others() {
    for _ in 0..3 {
        assert_eq!(echo_over_tcp(b"again").await, b"again");
    }
}
