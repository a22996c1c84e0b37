//! Any tokio library works inside a process: here a TCP echo over loopback.

use mote::Process;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

fn main() {
    let echoed = mote::run(|_p: Process<()>| async move {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind on loopback");
        let addr = listener.local_addr().unwrap();
        // The server is another process, using tokio sockets.
        mote::spawn(move |_s: Process<()>| async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 5];
            socket.read_exact(&mut buf).await.unwrap();
            socket.write_all(&buf).await.unwrap();
        });
        let mut client = TcpStream::connect(addr).await.unwrap();
        client.write_all(b"hello").await.unwrap();
        let mut buf = [0u8; 5];
        client.read_exact(&mut buf).await.unwrap();
        String::from_utf8_lossy(&buf).into_owned()
    })
    .unwrap();
    println!("echoed: {echoed}");
}
