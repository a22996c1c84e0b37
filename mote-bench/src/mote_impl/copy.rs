//! `copy`: uniq, frequencies and a shuffle of N random ints, R times, one after another in main
//! (`seq`) or as three parallel processes (`par`). The input is shared through an `Arc`, never
//! copied: that sharing is what the Elixir seed lacks. The three computations are the tokio
//! implementation's, so both do exactly the same work.

use super::{bad_variant, run_main};
use crate::common::{frequencies, shuffle, uniq};
use crate::common::{random_ints, DEFAULT_SEED};
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use mote::Process;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// What one repetition produces.
struct Results {
    uniq: Vec<i64>,
    freqs: HashMap<i64, u64>,
    shuffled: Vec<i64>,
}

/// One result sent back to main by a `par` process.
enum Part {
    Uniq(Vec<i64>),
    Freqs(HashMap<i64, u64>),
    Shuffled(Vec<i64>),
}

/// Runs `copy` (`seq` or `par`).
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    let (n, r) = (p.get_usize("n")?, p.get("r")?);
    let data: Arc<[i64]> = random_ints(n, 1, 1000, DEFAULT_SEED).into();
    let (wall_ms, results) = match variant {
        "seq" => {
            let start = Instant::now();
            let results: Vec<Results> = (0..r)
                .map(|_| Results {
                    uniq: uniq(&data),
                    freqs: frequencies(&data),
                    shuffled: shuffle(&data),
                })
                .collect();
            (ms_since(start), results)
        }
        "par" => parallel(Arc::clone(&data), r)?,
        other => return Err(bad_variant("copy", other)),
    };
    let sum: i64 = data.iter().sum();
    for (i, res) in results.iter().enumerate() {
        check_one(i, res, n, sum)?;
    }
    check(results.len() as u64 == r, || {
        format!("copy: {} repetitions of {r}", results.len())
    })?;
    Ok(Outcome::new(wall_ms))
}

fn check_one(rep: usize, res: &Results, n: usize, sum: i64) -> Result<()> {
    let freq_total: u64 = res.freqs.values().sum();
    let uniq_ok = n < 100_000 || res.uniq.len() == 1000;
    let shuffle_ok = res.shuffled.len() == n && res.shuffled.iter().sum::<i64>() == sum;
    check(uniq_ok && freq_total == n as u64 && shuffle_ok, || {
        format!(
            "copy rep {rep}: uniq {} values, frequencies total {freq_total}, shuffle of {} \
             ints (expected 1000, {n}, {n} with the input's sum)",
            res.uniq.len(),
            res.shuffled.len()
        )
    })
}

/// Each repetition spawns one process per computation, each holding a clone of the `Arc`,
/// and main receives the three results in whatever order they finish.
fn parallel(data: Arc<[i64]>, r: u64) -> Result<(f64, Vec<Results>)> {
    run_main(move |mut main: Process<Part>| async move {
        let start = Instant::now();
        let to_main = main.pid();
        let mut results = Vec::with_capacity(r as usize);
        for _ in 0..r {
            let d = Arc::clone(&data);
            mote::spawn(move |_p: Process<()>| async move { to_main.send(Part::Uniq(uniq(&d))) });
            let d = Arc::clone(&data);
            mote::spawn(move |_p: Process<()>| async move {
                to_main.send(Part::Freqs(frequencies(&d)))
            });
            let d = Arc::clone(&data);
            mote::spawn(
                move |_p: Process<()>| async move { to_main.send(Part::Shuffled(shuffle(&d))) },
            );
            let (mut u, mut f, mut s) = (None, None, None);
            for _ in 0..3 {
                match main.recv().await {
                    Part::Uniq(v) => u = Some(v),
                    Part::Freqs(v) => f = Some(v),
                    Part::Shuffled(v) => s = Some(v),
                }
            }
            let (Some(uniq), Some(freqs), Some(shuffled)) = (u, f, s) else {
                anyhow::bail!("copy par: a computation replied twice, another not at all");
            };
            results.push(Results {
                uniq,
                freqs,
                shuffled,
            });
        }
        Ok((ms_since(start), results))
    })
}
