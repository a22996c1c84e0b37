//! mote's stress suite: what a demanding user would try at scale, as programs that check
//! every promise and fail loudly.
//!
//! ```text
//! cargo run --release -p stress-test                   # CI's size (under 3 minutes)
//! cargo run --release -p stress-test -- --size full    # the audit: 10M messages, 1M panics, ...
//! cargo run --release -p stress-test -- --only kill_storm
//! ```

mod rss;
mod scenarios;
mod size;

use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};

use size::Size;

#[derive(Clone, Copy, ValueEnum)]
enum SizeArg {
    Small,
    Full,
}

/// Runs mote's stress scenarios and checks every promise they make.
#[derive(Parser)]
struct Args {
    /// How big: `small` for CI, `full` for the audit.
    #[arg(long, value_enum, default_value = "small")]
    size: SizeArg,
    /// Run only the scenarios whose name contains this.
    #[arg(long)]
    only: Option<String>,
    /// List the scenarios and exit.
    #[arg(long)]
    list: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.list {
        scenarios::ALL.iter().for_each(|s| println!("{}", s.name));
        return ExitCode::SUCCESS;
    }
    let size = match args.size {
        SizeArg::Small => Size::SMALL,
        SizeArg::Full => Size::FULL,
    };
    // Crash reports of the panic scenario would be a million lines: a subscriber that
    // drops every event takes them.
    let _ = tracing::subscriber::set_global_default(tracing::subscriber::NoSubscriber::default());
    let chosen: Vec<_> = scenarios::ALL
        .iter()
        .filter(|s| args.only.as_deref().is_none_or(|o| s.name.contains(o)))
        .collect();
    if chosen.is_empty() {
        eprintln!("no scenario matches {:?} (see --list)", args.only);
        return ExitCode::FAILURE;
    }
    let started = Instant::now();
    let mut failures = 0;
    for s in chosen {
        let t = Instant::now();
        let (tx, rx) = mpsc::channel();
        let run = s.run;
        std::thread::spawn(move || {
            let _ = tx.send(run(size));
        });
        let outcome = match rx.recv_timeout(Duration::from_secs(size.limit_secs)) {
            Ok(Ok(report)) => Ok(report.checked),
            Ok(Err(e)) => Err(format!("{e:#}")),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                Err(format!("hung: no end after {} s", size.limit_secs))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err("the scenario panicked".into()),
        };
        let secs = t.elapsed().as_secs_f64();
        match outcome {
            Ok(checked) => println!("ok   {:<24} {secs:>7.2} s  {checked}", s.name),
            Err(e) => {
                failures += 1;
                println!("FAIL {:<24} {secs:>7.2} s  {e}", s.name);
                if e.starts_with("hung") {
                    // A hung scenario's processes cannot be ended: stop here.
                    break;
                }
            }
        }
    }
    println!(
        "{} failures, {:.1} s in all",
        failures,
        started.elapsed().as_secs_f64()
    );
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
