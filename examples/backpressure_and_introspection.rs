//! A bounded mailbox gives a fast producer backpressure; introspection shows what each
//! process is doing.

use std::time::Duration;

use mote::{Down, Process, SpawnOptions, TrySendError};

fn main() {
    mote::run(|mut p: Process<Down>| async move {
        // A slow consumer with room for 8 messages.
        let consumer =
            SpawnOptions::new()
                .mailbox_bound(8)
                .spawn(|mut c: Process<u32>| async move {
                    let mut total = 0;
                    loop {
                        let n = c.recv().await;
                        if n == 0 {
                            break;
                        }
                        total += n;
                        mote::sleep(Duration::from_micros(200)).await;
                    }
                    println!("consumer received a total of {total}");
                });
        mote::register("consumer", consumer).unwrap();

        // `try_send` fails fast when the mailbox is full; `send_async` waits for room.
        let mut refused = 0;
        for n in 1..=100 {
            if let Err(TrySendError::Full(n)) = consumer.try_send(n) {
                refused += 1;
                consumer.send_async(n).await;
            }
        }
        println!("{refused} of 100 sends had to wait for room");

        let info = mote::process_info(consumer.id()).expect("the consumer is alive");
        println!(
            "{} ({:?}): status {:?}, {} messages received so far, about {} bytes",
            info.id, info.name, info.status, info.messages_received, info.memory
        );
        println!("live processes: {}", mote::process_count());
        // Stop the consumer and wait until it has finished.
        p.monitor(consumer);
        consumer.send_async(0).await;
        let down = p.recv().await;
        println!("consumer ended: {}", down.reason);
    })
    .unwrap();
}
