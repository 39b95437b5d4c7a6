//! Peak memory of every streaming `rocenic` command at 100k and 1M packets or rows (issue 15,
//! "Bounded memory"): the goal is that the peak at 1M is within 8 MiB of the peak at 100k, that
//! is, memory does not grow with the input. Exits non-zero when a command misses it.
//!
//! Run: `cargo bench -p rocenic --no-default-features --bench memory` (the model engine; the
//! release binary). Inputs are generated from a fixed seed into `CARGO_TARGET_TMPDIR` and reused
//! by later runs; `ROCENIC_MEMBENCH_SEED` replays another seed. Without `--bench` (as `cargo test
//! --benches` runs it) the sizes are 1k and 10k, to check that the benchmark itself works.

#[path = "memory/inputs.rs"]
mod inputs;
#[path = "memory/measure.rs"]
mod measure;

use inputs::Input;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

const SEED: u64 = 0x15_B0DE_D3E3_0001;
/// How much more the peak at the larger size may be: allocator and page-granularity noise, not
/// a buffer that scales with the input.
const GOAL_KIB: u64 = 8 * 1024;
const MIB: f64 = 1024.0 * 1024.0;

/// The inputs at one size.
struct Inputs {
    roce: Input,
    sends: Input,
    qp_pairs: Input,
    hash_inputs: Input,
}

/// A command as measured: its name, what it counts, its input and arguments.
struct Case<'a> {
    name: &'static str,
    input: &'a Input,
    args: Vec<String>,
}

fn cases<'a>(i: &'a Inputs, tso_out: &Path) -> Vec<Case<'a>> {
    let p = |input: &Input| input.path.display().to_string();
    vec![
        Case {
            name: "icrc",
            input: &i.roce,
            args: vec!["icrc".into(), p(&i.roce)],
        },
        Case {
            name: "rss",
            input: &i.roce,
            args: vec!["rss".into(), "--pcap".into(), p(&i.roce)],
        },
        Case {
            name: "tso",
            input: &i.sends,
            args: [
                "tso",
                "-i",
                &p(&i.sends),
                "-o",
                &tso_out.display().to_string(),
            ]
            .into_iter()
            .chain(["--mss", "1000"])
            .map(String::from)
            .collect(),
        },
        Case {
            name: "entropy",
            input: &i.qp_pairs,
            args: vec!["entropy".into(), "-i".into(), p(&i.qp_pairs)],
        },
        Case {
            name: "toeplitz",
            input: &i.hash_inputs,
            args: vec!["toeplitz".into(), "-i".into(), p(&i.hash_inputs)],
        },
    ]
}

/// The count a command reports on standard error, where it reports one: `tso` its packets in,
/// `rss` the sum of its per-queue histogram.
fn reported_count(name: &str, stderr: &str) -> Option<u64> {
    match name {
        "tso" => stderr
            .strip_prefix("rocenic tso: ")?
            .split(' ')
            .next()?
            .parse()
            .ok(),
        "rss" => stderr
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(1)?.parse::<u64>().ok())
            .sum(),
        _ => None,
    }
}

/// One measured run.
struct Row {
    name: &'static str,
    n: u64,
    input_bytes: u64,
    peak_kib: u64,
    wall_s: f64,
}

fn measure(sizes: [u64; 2], seed: u64, dir: &Path) -> Result<Vec<Row>, String> {
    let io = |e: std::io::Error| format!("generating inputs in {}: {e}", dir.display());
    let mut rows = Vec::new();
    for n in sizes {
        let inputs = Inputs {
            roce: inputs::roce(dir, seed, n).map_err(io)?,
            sends: inputs::sends(dir, seed, n).map_err(io)?,
            qp_pairs: inputs::qp_pairs(dir, seed, n).map_err(io)?,
            hash_inputs: inputs::hash_inputs(dir, seed, n).map_err(io)?,
        };
        let tso_out = dir.join(format!("membench-tso-out-{n}.pcap"));
        for case in cases(&inputs, &tso_out) {
            let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
            let log = dir.join(format!("membench-{}-{n}.stderr", case.name));
            let cost = measure::run(&args, &log)?;
            if let Some(count) = reported_count(case.name, &cost.stderr) {
                if count != n {
                    return Err(format!(
                        "rocenic {}: reported {count} packets, not {n}:\n{}",
                        case.args.join(" "),
                        cost.stderr
                    ));
                }
            }
            eprintln!(
                "{} {n}: {:.1} MiB peak, {:.2} s",
                case.name,
                cost.peak_kib as f64 / 1024.0,
                cost.wall.as_secs_f64()
            );
            rows.push(Row {
                name: case.name,
                n,
                input_bytes: case.input.bytes,
                peak_kib: cost.peak_kib,
                wall_s: cost.wall.as_secs_f64(),
            });
        }
        // The segments of 1M sends take gigabytes; nothing reads them.
        let _ = std::fs::remove_file(&tso_out);
    }
    Ok(rows)
}

/// `1000000` as `1,000,000`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Prints the tables; the names of the commands that miss the goal.
fn report(rows: &[Row], sizes: [u64; 2]) -> Vec<&'static str> {
    println!("| command | packets/rows | input MB | peak RSS MB | wall s |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for r in rows {
        println!(
            "| {} | {} | {:.1} | {:.1} | {:.2} |",
            r.name,
            grouped(r.n),
            r.input_bytes as f64 / MIB,
            r.peak_kib as f64 / 1024.0,
            r.wall_s
        );
    }
    println!();
    let (small, large) = (grouped(sizes[0]), grouped(sizes[1]));
    println!("| command | peak growth {small} to {large}, MB | ratio | goal |");
    println!("| --- | ---: | ---: | --- |");
    let mut missed = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.name) {
            names.push(r.name);
        }
    }
    for name in names {
        let peak = |n| {
            rows.iter()
                .find(|r| r.name == name && r.n == n)
                .map(|r| r.peak_kib)
        };
        let (Some(a), Some(b)) = (peak(sizes[0]), peak(sizes[1])) else {
            continue;
        };
        let met = b <= a + GOAL_KIB;
        if !met {
            missed.push(name);
        }
        // Rounded first, so that a fall of under 0.05 MB reads +0.0, not -0.0.
        let growth = ((b as f64 - a as f64) / 102.4).round() / 10.0 + 0.0;
        println!(
            "| {name} | {growth:+.1} | {:.2} | {} |",
            b as f64 / a as f64,
            if met { "met" } else { "MISSED" }
        );
    }
    println!();
    println!(
        "MB = 2^20 bytes; peak RSS is the child's ru_maxrss from wait4. Goal: every command's \
         peak at {large} within {} MB of its peak at {small}.",
        GOAL_KIB / 1024
    );
    missed
}

fn main() -> ExitCode {
    let bench = std::env::args().any(|a| a == "--bench");
    let sizes = if bench {
        [100_000, 1_000_000]
    } else {
        [1_000, 10_000]
    };
    let seed = match std::env::var("ROCENIC_MEMBENCH_SEED") {
        Err(_) => SEED,
        Ok(s) => match u64::from_str_radix(s.trim().trim_start_matches("0x"), 16) {
            Ok(seed) => seed,
            Err(e) => {
                eprintln!("ROCENIC_MEMBENCH_SEED={s}: not a hex number: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    println!("memory benchmark: seed {seed:#x} (ROCENIC_MEMBENCH_SEED={seed:x} replays it)");
    println!("inputs in {}", dir.display());
    println!();
    let started = Instant::now();
    let rows = match measure(sizes, seed, dir) {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("memory benchmark FAILED: {e}");
            return ExitCode::FAILURE;
        }
    };
    let missed = report(&rows, sizes);
    println!(
        "total {:.0} s (input generation included)",
        started.elapsed().as_secs_f64()
    );
    if missed.is_empty() {
        println!("goal met by every command");
        ExitCode::SUCCESS
    } else {
        eprintln!("goal MISSED by: {}", missed.join(", "));
        ExitCode::FAILURE
    }
}
