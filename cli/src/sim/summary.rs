//! What `rocenic sim` writes: the summary on standard output, the completions CSV and the QP
//! map for `rocenic golden check-pcap` (docs/scenario.md, "The output").

use super::host::{Entry, Row, WireStats};
use super::scenario::SIDES;
use super::{Job, Report};
use crate::engine::Engine;
use rocenic_model::entropy::QpType;
use rocenic_model::qp::Status;
use rocenic_model::rx::{Discard, RecvFlags, RecvOpcode, Target};
use rocenic_model::wqe::Opcode;
use std::fmt::Write as _;
use std::io::{self, Write};

/// The completion CSV's header.
pub const HEADER: &str =
    "nic,cq,index,wr_id,qpn,status,opcode,byte_len,wqe_index,imm,src_qp,hash,flags,crc32";

/// A receive work queue as the summary names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueName {
    pub wq: u16,
    /// The QP its completions name.
    pub qpn: u32,
    /// `own`, `shared` or `rss`.
    pub kind: &'static str,
}

/// Each NIC's work queues in number order, with what they serve.
pub fn queue_names(job: &Job) -> [Vec<QueueName>; 2] {
    std::array::from_fn(|s| {
        let side = &job.sides[s];
        let mut out: Vec<QueueName> = side
            .wqs
            .iter()
            .map(|q| {
                let named = side.receivers.iter().find_map(|r| match r.target {
                    Target::Own(w) if w == q.wq => Some("own"),
                    Target::Shared(w) if w == q.wq => Some("shared"),
                    _ => None,
                });
                QueueName {
                    wq: q.wq,
                    qpn: q.config.qpn,
                    kind: named.unwrap_or(if q.config.raw { "raw" } else { "rss" }),
                }
            })
            .collect();
        out.sort_by_key(|q| q.wq);
        out
    })
}

/// Everything the summary reports.
pub struct Run<'a> {
    pub scenario: &'a str,
    pub seed: u64,
    pub engine: &'a Engine,
    pub report: &'a Report,
    pub wire: &'a [WireStats; 2],
    pub rows: &'a [Row],
    pub wqs: &'a [Vec<QueueName>; 2],
}

/// One number of a NIC's reliable transport.
type Count = fn(&crate::sim::Transport) -> u64;

/// The longest bar of the work queues' histogram.
const BAR: usize = 20;

/// A label and one number per column, right-aligned.
fn line(out: &mut String, label: &str, values: &[String]) {
    let _ = write!(out, "  {label:<26}");
    for v in values {
        let _ = write!(out, "{v:>12}");
    }
    out.push('\n');
}

/// The summary, one table after another (docs/scenario.md shows one).
pub fn summary(run: &Run) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "rocenic sim: {}, engine {}, seed {}",
        run.scenario, run.engine, run.seed
    );
    let counts = &run.report.counts;
    let _ = writeln!(out, "wire {:>36}{:>12}", "a -> b", "b -> a");
    line(&mut out, "frames", &run.wire.each(|w| w.frames.to_string()));
    line(&mut out, "bytes", &run.wire.each(|w| w.bytes.to_string()));
    line(
        &mut out,
        "taken by the receiver",
        &[
            counts[1].accepted.to_string(),
            counts[0].accepted.to_string(),
        ],
    );
    if let [Some(ab), Some(ba)] = run.wire.each(|w| w.faults) {
        line(&mut out, "lost", &[ab.lost, ba.lost].map(|n| n.to_string()));
        line(
            &mut out,
            "duplicated",
            &[ab.duplicated, ba.duplicated].map(|n| n.to_string()),
        );
        line(
            &mut out,
            "corrupted",
            &[ab.corrupted, ba.corrupted].map(|n| n.to_string()),
        );
    }
    match run.report.cycles {
        Some(c) => {
            let bytes = run.wire[0].bytes + run.wire[1].bytes;
            let _ = writeln!(
                out,
                "cycles: {c} ({:.3} bytes per cycle)",
                bytes as f64 / c.max(1) as f64
            );
        }
        None => out.push_str("cycles: n/a (model)\n"),
    }
    let _ = writeln!(out, "completions {:>29}{:>12}", "a", "b");
    for (kind, is) in [("send", true), ("receive", false)] {
        for st in Status::ALL {
            let n: [u64; 2] = std::array::from_fn(|s| {
                run.rows
                    .iter()
                    .filter(|r| r.side == s && matches!(r.entry, Entry::Send(_)) == is)
                    .filter(|r| status(r) == st)
                    .count() as u64
            });
            if n != [0, 0] {
                line(
                    &mut out,
                    &format!("{kind} {}", st.name()),
                    &n.map(|x| x.to_string()),
                );
            }
        }
    }
    if let Some(rc) = &run.report.rc {
        let _ = writeln!(out, "reliable transport {:>22}{:>12}", "a", "b");
        let rows: [(&str, Count); 8] = [
            ("packets sent again", |t| t.requesters.resent),
            ("timeouts", |t| t.requesters.timeouts),
            ("NAKs sent: sequence", |t| t.nic.seq_naks_sent),
            ("NAKs sent: RNR", |t| t.nic.rnr_naks_sent),
            ("NAKs sent: fatal", |t| t.nic.fatal_naks_sent),
            ("NAKs acted on", |t| {
                t.requesters.seq_naks + t.requesters.rnr_naks
            }),
            ("ACKs sent", |t| t.nic.acks_sent),
            ("ACK and NAK frames taken", |t| t.nic.acks_received),
        ];
        for (label, get) in rows {
            line(&mut out, label, &rc.each(|t| get(t).to_string()));
        }
    }
    let _ = writeln!(out, "discards {:>32}{:>12}", "a", "b");
    let mut none = true;
    for d in Discard::ALL {
        let n = counts.each(|c| c.discarded(d));
        if n != [0, 0] {
            none = false;
            line(&mut out, d.name(), &n.map(|x| x.to_string()));
        }
    }
    if none {
        out.push_str("  none\n");
    }
    let _ = writeln!(
        out,
        "receive work queues {:>21}{:>12}",
        "completions", "bytes"
    );
    let most = run
        .wqs
        .iter()
        .enumerate()
        .flat_map(|(s, wqs)| wqs.iter().map(move |q| (s, q.wq)))
        .map(|(s, w)| {
            run.rows
                .iter()
                .filter(|r| r.side == s && r.wq == Some(w))
                .count()
        })
        .max()
        .unwrap_or(0);
    for (s, wqs) in run.wqs.iter().enumerate() {
        for q in wqs {
            let mine = || {
                run.rows
                    .iter()
                    .filter(move |r| r.side == s && r.wq == Some(q.wq))
            };
            let bytes: u64 = mine()
                .filter(|r| status(r) == Status::Success)
                .map(|r| match r.entry {
                    Entry::Recv(c) => u64::from(c.byte_len),
                    Entry::Send(_) => 0,
                })
                .sum();
            let n = mine().count();
            line(
                &mut out,
                &format!("{} wq{:<3}{:<7}qp 0x{:x}", SIDES[s], q.wq, q.kind, q.qpn),
                &[n.to_string(), bytes.to_string()],
            );
            // The histogram: a bar of up to BAR characters, the fullest queue's the longest.
            let bar = (n * BAR).div_ceil(most.max(1));
            out.pop();
            let _ = writeln!(out, "  {}", "#".repeat(bar));
        }
    }
    let _ = writeln!(out, "UDP source ports {:>24}{:>12}", "a -> b", "b -> a");
    line(
        &mut out,
        "distinct",
        &run.wire.each(|w| w.ports.len().to_string()),
    );
    for bin in 0..64 {
        let n = run.wire.each(|w| w.port_bins[bin]);
        if n != [0, 0] {
            let lo = bin << 10;
            line(
                &mut out,
                &format!("0x{lo:04x}-0x{:04x}", lo + 0x3FF),
                &n.map(|x| x.to_string()),
            );
        }
    }
    out
}

/// One value per side.
trait Each<T> {
    fn each<U>(&self, f: impl Fn(&T) -> U) -> [U; 2];
}

impl<T> Each<T> for [T; 2] {
    fn each<U>(&self, f: impl Fn(&T) -> U) -> [U; 2] {
        [f(&self[0]), f(&self[1])]
    }
}

fn status(r: &Row) -> Status {
    match r.entry {
        Entry::Send(c) => c.status,
        Entry::Recv(c) => c.status,
    }
}

/// The completion CSV, one row per completion in the order the host read them (docs/
/// scenario.md lists the columns).
pub fn completions(out: &mut impl Write, rows: &[Row]) -> io::Result<()> {
    writeln!(out, "{HEADER}")?;
    let crc = |r: &Row| r.crc.map_or(String::new(), |c| format!("{c:#010x}"));
    for r in rows {
        let nic = SIDES[r.side];
        match r.entry {
            Entry::Send(c) => writeln!(
                out,
                "{nic},send,{},{},{:#x},{},{},{},{},,,,,{}",
                r.index,
                c.wr_id,
                c.qpn,
                c.status.name(),
                c.opcode.map_or("unknown", Opcode::name),
                c.byte_len,
                c.wqe_index,
                crc(r)
            )?,
            Entry::Recv(c) => {
                let has = |f: RecvFlags| c.flags.contains(f);
                let hex = |on: bool, v: u32| if on { format!("{v:#x}") } else { String::new() };
                let flags: Vec<&str> = [
                    (RecvFlags::IMM, "imm"),
                    (RecvFlags::GRH, "grh"),
                    (RecvFlags::CSUM_OK, "csum_ok"),
                    (RecvFlags::HASHED, "hashed"),
                ]
                .iter()
                .filter(|(f, _)| has(*f))
                .map(|(_, n)| *n)
                .collect();
                writeln!(
                    out,
                    "{nic},wq{},{},{},{:#x},{},{},{},,{},{},{},{},{}",
                    r.wq.unwrap_or(0),
                    r.index,
                    c.wr_id,
                    c.qpn,
                    c.status.name(),
                    match c.opcode {
                        RecvOpcode::Recv => "recv",
                        RecvOpcode::RecvRdmaWithImm => "recv_rdma_with_imm",
                    },
                    c.byte_len,
                    hex(has(RecvFlags::IMM), c.imm),
                    hex(has(RecvFlags::GRH), c.src_qp),
                    hex(has(RecvFlags::HASHED), c.hash),
                    flags.join("|"),
                    crc(r)
                )?
            }
        }
    }
    Ok(())
}

/// Who sends to each RC QP, for `rocenic golden check-pcap --qp-map`: (sender, destination,
/// the sender's flow label when its address vector sets one). A destination two QPs name is
/// left out (the map holds one sender per destination).
pub fn qp_map(job: &Job) -> Vec<(u32, u32, Option<u32>)> {
    let all: Vec<(u32, u32, Option<u32>)> = job
        .sides
        .iter()
        .flat_map(|s| &s.send.queues)
        .filter(|q| q.config.qp_type == QpType::Rc)
        .map(|q| {
            let fl = q.config.av.map(|a| a.flow_label).filter(|&f| f != 0);
            (q.qpn, q.config.dest_qpn, fl)
        })
        .collect();
    all.iter()
        .filter(|(_, d, _)| all.iter().filter(|(_, e, _)| e == d).count() == 1)
        .copied()
        .collect()
}

/// The QP map as `rocenic golden check-pcap --qp-map` reads it.
pub fn write_qp_map(out: &mut impl Write, map: &[(u32, u32, Option<u32>)]) -> io::Result<()> {
    writeln!(out, "src_qpn,dst_qpn,fl")?;
    for (src, dst, fl) in map {
        let fl = fl.map_or(String::new(), |f| format!("{f:#x}"));
        writeln!(out, "{src:#x},{dst:#x},{fl}")?;
    }
    Ok(())
}
