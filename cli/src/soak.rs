//! `rocenic soak`: the reliable connection's proof run (docs/soak.md). Two NICs back to back
//! run random messages (SENDs, SENDs with immediate, RDMA WRITEs with and without immediate,
//! RDMA READs; 1 B to 64 KiB) over up to 8 RC QPs each way on a wire that loses, corrupts and
//! duplicates frames. The host keeps 16 messages in flight per QP and checks each one as its
//! sender's completion arrives: the completion in order and successful, the receive completion
//! it consumed (in order, its length and immediate), and its bytes where they landed. At the
//! end every responder must have executed each message once and no receive completion may be
//! left over. A run with no completion for many timeouts' worth of turns is a hang, reported
//! with its turn.
//!
//! The reference model runs it; the co-simulated cores' transport is checked by
//! `tests/tests/rc_lossy.rs` for now.

mod run;
mod side;
mod summary;

use crate::golden::rng::Rng;
use crate::sim::link::{Link, Wire};
use crate::{Failure, Outcome};
use rocenic_model::rc::Reliable;
use rocenic_model::wqe::Opcode;
use run::{Broken, Soak, Tally};
use side::{side, MAX_LEN, MAX_QPS};
use std::io::IsTerminal;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Messages in all, both ways (1..=10,000,000).
    #[arg(long, default_value_t = 100_000)]
    messages: u64,
    /// RC QPs each way (1..=8).
    #[arg(long, default_value_t = 8)]
    qps: usize,
    /// The largest message in bytes (1..=65536); sizes are uniform from --min-len.
    #[arg(long, default_value_t = MAX_LEN)]
    max_len: u32,
    /// The smallest message in bytes (1..=--max-len).
    #[arg(long, default_value_t = 1)]
    min_len: u32,
    /// The kinds of message, drawn alike: send, send_imm, rdma_write, rdma_write_imm,
    /// rdma_read (all by default), comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = parse_op)]
    ops: Vec<Opcode>,
    /// Probability that the wire loses a frame (each frame, each way; 0 to 0.5).
    #[arg(long, default_value_t = 0.01)]
    loss: f64,
    /// Probability that it flips one bit of a frame (the receiver's ICRC check drops it).
    #[arg(long, default_value_t = 0.001)]
    corrupt: f64,
    /// Probability that it delivers a frame twice.
    #[arg(long, default_value_t = 0.0)]
    duplicate: f64,
    /// Verbs `timeout` (1..=20): the local ACK timeout is 2^timeout turns.
    #[arg(long, default_value_t = 8)]
    timeout: u8,
    /// Seeds the messages, the PSNs and the wire's faults.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(args: Args) -> Outcome {
    check_args(&args)?;
    let started = Instant::now();
    let mut rng = Rng::new(args.seed);
    // Some QPs start their PSNs just before the 2^24 wrap, so that every run crosses it.
    let psns = |rng: &mut Rng| -> Vec<u32> {
        (0..args.qps)
            .map(|i| {
                if i % 3 == 0 {
                    0xFF_FFFF - rng.below(256) as u32
                } else {
                    rng.below(1 << 24) as u32
                }
            })
            .collect()
    };
    let (pa, pb) = (psns(&mut rng), psns(&mut rng));
    let rel = Reliable {
        timeout: args.timeout,
        ..Reliable::default()
    };
    let mut sides = [
        side(1, args.qps, &pa, &pb, rel, &mut rng),
        side(2, args.qps, &pb, &pa, rel, &mut rng),
    ];
    let link = Link {
        loss: args.loss,
        duplicate: args.duplicate,
        corrupt: args.corrupt,
        reliable: rel,
    };
    let mut soak = Soak {
        wire: Wire::new(link, args.seed),
        rng: rng.fork(0x50a4),
        quota: quotas(args.messages, args.qps),
        done: [vec![0; args.qps], vec![0; args.qps]],
        rdone: [vec![0; args.qps], vec![0; args.qps]],
        flight: [Vec::new(), Vec::new()],
        tally: Tally::default(),
        lens: (args.min_len, args.max_len),
        ops: if args.ops.is_empty() {
            OPS.to_vec()
        } else {
            args.ops.clone()
        },
        // Far more than retry_cnt + 1 timeouts with no completion anywhere.
        stall: (1u64 << args.timeout) * (u64::from(rel.retry_cnt) + 2) * 8,
    };
    let shown = std::io::stderr().is_terminal();
    let result = soak.run(&mut sides, shown);
    let elapsed = started.elapsed().as_secs_f64();
    summary::print_summary(&args, &soak, &sides, elapsed);
    match result {
        Ok(()) => {
            println!(
                "every message delivered exactly once, in order, byte for byte; every work \
                 request completed once"
            );
            Ok(true)
        }
        Err(Broken(why)) => {
            println!("FAILED: {why}");
            Ok(false)
        }
    }
}

fn check_args(a: &Args) -> Result<(), Failure> {
    if !(1..=10_000_000).contains(&a.messages) {
        return Err(Failure(format!(
            "--messages {} is not 1..=10000000",
            a.messages
        )));
    }
    if !(1..=MAX_QPS).contains(&a.qps) {
        return Err(Failure(format!("--qps {} is not 1..={MAX_QPS}", a.qps)));
    }
    if !(1..=MAX_LEN).contains(&a.max_len) {
        return Err(Failure(format!(
            "--max-len {} is not 1..={MAX_LEN}",
            a.max_len
        )));
    }
    if !(1..=a.max_len).contains(&a.min_len) {
        return Err(Failure(format!(
            "--min-len {} is not 1..={} (--max-len)",
            a.min_len, a.max_len
        )));
    }
    for (name, p) in [
        ("loss", a.loss),
        ("corrupt", a.corrupt),
        ("duplicate", a.duplicate),
    ] {
        if !(0.0..=0.5).contains(&p) {
            return Err(Failure(format!(
                "--{name} {p} is not a probability from 0 to 0.5"
            )));
        }
    }
    if !(1..=20).contains(&a.timeout) {
        return Err(Failure(format!("--timeout {} is not 1..=20", a.timeout)));
    }
    Ok(())
}

/// A message kind by its name in the completion CSV.
fn parse_op(s: &str) -> Result<Opcode, String> {
    OPS.iter().copied().find(|o| o.name() == s).ok_or_else(|| {
        format!("{s:?} is not one of send, send_imm, rdma_write, rdma_write_imm, rdma_read")
    })
}

/// Every kind of message the soak sends.
const OPS: [Opcode; 5] = [
    Opcode::Send,
    Opcode::SendImm,
    Opcode::RdmaWrite,
    Opcode::RdmaWriteImm,
    Opcode::RdmaRead,
];

/// Messages per side and QP: `n` dealt in turn to side a's QP 0, side b's QP 0, a's QP 1, …
fn quotas(n: u64, qps: usize) -> [Vec<u32>; 2] {
    let mut q = [vec![0u32; qps], vec![0u32; qps]];
    for j in 0..n {
        q[(j % 2) as usize][((j / 2) % qps as u64) as usize] += 1;
    }
    q
}
