//! `STATUS.IDLE` of the whole path while it is enabled (docs/rx.md, "Idle"): set at rest (the
//! data path runs flush steps that find nothing), clear while a frame is in the path, from
//! its first beat until the data path has finished it, and set again after it.

use rocenic_model::rx::regs::{self, control, status};
use rocenic_model::wqe::HostMemory;
use rocenic_sim::axil::{Done, Op};
use rocenic_sim::rx::check::Rss;
use rocenic_sim::rx::path::{Bench, Event, Load};
use rocenic_sim::stream;
use rocenic_sim::wqe::host_memory::Config as DmaConfig;

/// Cycles a read may take to reflect what changed (AR to the state it shows, and the
/// registers between the data path and STATUS).
const SLACK: u64 = 8;

/// STATUS read over and over; returns each answer's cycle (AR accepted) and IDLE, until
/// `until` says stop (given the bench and the frames finished so far).
fn poll(
    bench: &mut Bench,
    tag: &mut u64,
    mut until: impl FnMut(&Bench, usize) -> bool,
) -> (Vec<(u64, bool)>, Vec<u64>) {
    let mut reads = Vec::new();
    let mut done_at = Vec::new();
    let mut outstanding = false;
    while !until(bench, done_at.len()) {
        assert!(bench.cycle() < 200_000, "rx_path idle: no end");
        if !outstanding {
            *tag += 1;
            bench.push(Op::Read { addr: regs::STATUS }, *tag);
            outstanding = true;
        }
        let (done, events) = bench.step().expect("DMA protocol");
        if let Some(Done { data, at, .. }) = done {
            reads.push((at, status::IDLE.get(data) == 1));
            outstanding = false;
        }
        done_at.extend(
            events
                .iter()
                .filter(|e| **e == Event::Frame)
                .map(|_| bench.cycle()),
        );
    }
    (reads, done_at)
}

#[test]
fn idle_while_enabled() {
    let seed = stream::seed("rx_path_idle");
    let load = Load {
        dma: DmaConfig::ideal(8, 4),
        frame_idle: 0.5,
        axil_delay: 0.0,
        err_lag: 1,
        ack_stall: 0.0,
    };
    let mut bench = Bench::new("rx_path_idle", HostMemory::new(), &load, seed);
    let mut tag = 0;
    bench.push(Op::write(regs::CONTROL, control::ENABLE.put(1)), 0);
    // At rest: no queue, no QP, nothing to flush.
    let start = bench.cycle();
    let (rest, _) = poll(&mut bench, &mut tag, |b, _| b.cycle() > start + 300);
    let settled: Vec<bool> = rest
        .iter()
        .filter(|(at, _)| *at > start + 100)
        .map(|r| r.1)
        .collect();
    assert!(
        !settled.is_empty() && settled.iter().all(|&i| i),
        "seed {seed}: enabled and at rest, IDLE read {settled:?}"
    );
    // A frame of 1,514 bytes (raw, for a queue that does not exist: discarded at the end),
    // fed a beat every other cycle or so.
    let mut frame = vec![0u8; 1514];
    frame[..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
    frame[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 2]);
    frame[12..14].copy_from_slice(&[0x88, 0xB5]);
    let fed_at = bench.cycle();
    bench.feed(
        &frame,
        Rss {
            queue: 3,
            hash: 0,
            hash_type: 0,
        },
    );
    let (during, done) = poll(&mut bench, &mut tag, |b, n| {
        n == 1 && b.cycle() > fed_at + 600
    });
    let end = done[0];
    let busy: Vec<&(u64, bool)> = during
        .iter()
        .filter(|(at, _)| *at > fed_at + SLACK && *at < end)
        .collect();
    assert!(
        busy.len() > 10 && busy.iter().all(|r| !r.1),
        "seed {seed}: a frame in the path from cycle {fed_at} to {end}, IDLE read {busy:?}"
    );
    let after: Vec<bool> = during
        .iter()
        .filter(|(at, _)| *at > end + 100)
        .map(|r| r.1)
        .collect();
    assert!(
        !after.is_empty() && after.iter().all(|&i| i),
        "seed {seed}: after the frame ({end}), IDLE read {after:?}"
    );
    println!(
        "rx_path_idle: seed {seed}, frame fed at {fed_at}, finished at {end}, {} reads busy; \
         first IDLE after it at {:?}",
        busy.len(),
        during.iter().find(|(at, i)| *at > end && *i).map(|r| r.0)
    );
}
