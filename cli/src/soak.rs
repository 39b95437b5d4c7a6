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
//! The reference model runs it; the co-simulated cores have no reliable transport yet.

mod side;

use crate::golden::rng::Rng;
use crate::sim::link::{Link, Wire};
use crate::{Failure, Outcome};
use rocenic_model::qp::Status;
use rocenic_model::rc::Reliable;
use rocenic_model::rx::{RecvCqe, RecvOpcode};
use rocenic_model::wqe::{Cqe, Memory, Opcode, Step};
use side::{message, side, Msg, Side, MAX_LEN, MAX_QPS, WINDOW};
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

/// What a run did.
#[derive(Default)]
struct Tally {
    turns: u64,
    delivered: u64,
    bytes: u64,
    by_opcode: [u64; 5],
    frames: [u64; 2],
    discarded: u64,
}

/// A message that did not arrive as sent, or a run that stopped.
struct Broken(String);

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
    print_summary(&args, &soak, &sides, elapsed);
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

/// The run's state apart from the NICs.
struct Soak {
    wire: Wire,
    rng: Rng,
    /// Per side and QP: messages to send.
    quota: [Vec<u32>; 2],
    /// Per side and QP: messages completed at the sender, and receive completions matched.
    done: [Vec<u32>; 2],
    rdone: [Vec<u32>; 2],
    /// Frames each side sent this turn, delivered next turn.
    flight: [Vec<Vec<u8>>; 2],
    tally: Tally,
    /// Message sizes, smallest and largest, and kinds.
    lens: (u32, u32),
    ops: Vec<Opcode>,
    stall: u64,
}

impl Soak {
    fn run(&mut self, sides: &mut [Side; 2], shown: bool) -> Result<(), Broken> {
        let total: u64 = self.quota.iter().flatten().map(|&q| u64::from(q)).sum();
        let mut last_progress = 0u64;
        let mut shown_tenth = 0;
        while self.tally.delivered < total {
            self.tally.turns += 1;
            let turn = self.tally.turns;
            self.post(sides);
            self.deliver(sides)?;
            for s in 0..2 {
                if self.step(sides, s)? {
                    last_progress = turn;
                }
            }
            if turn - last_progress > self.stall {
                return Err(Broken(format!(
                    "a hang: no completion from turn {last_progress} to turn {turn}; in flight \
                     per QP: a {:?}, b {:?}",
                    sides[0].flight.iter().map(|f| f.len()).collect::<Vec<_>>(),
                    sides[1].flight.iter().map(|f| f.len()).collect::<Vec<_>>(),
                )));
            }
            let tenth = self.tally.delivered * 10 / total;
            if shown && tenth > shown_tenth {
                shown_tenth = tenth;
                eprintln!(
                    "soak: {} of {total} messages, turn {turn}",
                    self.tally.delivered
                );
            }
        }
        // The last ACKs and duplicates settle; nothing may complete twice.
        for _ in 0..4 {
            self.tally.turns += 1;
            self.deliver(sides)?;
            for s in 0..2 {
                if self.step(sides, s)? {
                    return Err(Broken("a completion after every message completed".into()));
                }
            }
        }
        self.finish(sides)
    }

    /// Posts new messages while a QP has room in its window.
    fn post(&mut self, sides: &mut [Side; 2]) {
        for s in 0..2 {
            let t = 1 - s;
            for i in 0..self.quota[s].len() {
                while sides[s].flight[i].len() < WINDOW && sides[s].posted[i] < self.quota[s][i] {
                    let k = sides[s].posted[i];
                    let m = message(&mut self.rng, i, k, self.lens, &self.ops);
                    if m.takes_wqe() {
                        sides[t].post_recv(i, m.dst);
                    }
                    sides[s].post_send(i, m);
                }
            }
        }
    }

    /// Last turn's frames through the wire into the other NIC.
    fn deliver(&mut self, sides: &mut [Side; 2]) -> Result<(), Broken> {
        for s in 0..2 {
            let t = 1 - s;
            for f in std::mem::take(&mut self.flight[s]) {
                self.tally.frames[s] += 1;
                for frame in self.wire.carry(s, f) {
                    let to = &mut sides[t];
                    match to.nic.receive(&mut to.mem, &frame) {
                        Ok(acc) => {
                            if let (Some(w), Some((index, c))) = (acc.wq, acc.completion) {
                                if c.status != Status::Success {
                                    return Err(Broken(format!(
                                        "{} QP {:#x}: a receive completed {:?}: {c:?}",
                                        side_name(t),
                                        c.qpn,
                                        c.status
                                    )));
                                }
                                to.nic
                                    .rx
                                    .cq_doorbell(w, index.wrapping_add(1))
                                    .map_err(|e| Broken(format!("receive CQ doorbell: {e}")))?;
                                to.recvd[usize::from(w)].push_back(c);
                            }
                        }
                        // A corrupted frame, a duplicate, a packet after a gap: the transport
                        // recovers them.
                        Err(_) => self.tally.discarded += 1,
                    }
                }
            }
        }
        Ok(())
    }

    /// One send turn of side `s`; whether it completed a message.
    fn step(&mut self, sides: &mut [Side; 2], s: usize) -> Result<bool, Broken> {
        let flight = &mut self.flight[s];
        let from = &mut sides[s];
        let step = from
            .nic
            .send_step(&mut from.mem, &mut |f: &[u8]| flight.push(f.to_vec()))
            .map_err(|e| Broken(format!("NIC {}: {e:?}", side_name(s))))?;
        let Step::Ran {
            qpn,
            cqe: Some((index, c)),
        } = step
        else {
            return Ok(false);
        };
        from.nic
            .queues
            .cq_doorbell(index.wrapping_add(1))
            .map_err(|e| Broken(format!("send CQ doorbell: {e:?}")))?;
        let i = from
            .qpns
            .iter()
            .position(|&q| q == qpn)
            .ok_or_else(|| Broken(format!("a completion of QP {qpn:#x}, not the soak's")))?;
        self.complete(sides, s, i, c)?;
        Ok(true)
    }

    /// Side `s`'s QP `i` completed `c`: its oldest message must have arrived as sent.
    fn complete(
        &mut self,
        sides: &mut [Side; 2],
        s: usize,
        i: usize,
        c: Cqe,
    ) -> Result<(), Broken> {
        let t = 1 - s;
        let k = self.done[s][i];
        let at = format!("{} QP {:#x} message {k}", side_name(s), sides[s].qpns[i]);
        let m = sides[s].flight[i]
            .pop_front()
            .ok_or_else(|| Broken(format!("{at}: a completion with nothing in flight: {c:?}")))?;
        if (c.wr_id, c.status, c.byte_len) != (u64::from(k), Status::Success, m.len) {
            return Err(Broken(format!(
                "{at} ({:?}, {} B): completed {:?} (WR id {}, {} B)",
                m.opcode, m.len, c.status, c.wr_id, c.byte_len
            )));
        }
        if m.takes_wqe() {
            let r = sides[t].recvd[i].pop_front().ok_or_else(|| {
                Broken(format!(
                    "{at} ({:?}): acknowledged with no receive completion",
                    m.opcode
                ))
            })?;
            self.received(&at, &m, &r, self.rdone[t][i])?;
            self.rdone[t][i] += 1;
        }
        let (src, dst) = if m.opcode == Opcode::RdmaRead {
            (t, s)
        } else {
            (s, t)
        };
        let want = sides[src].read(m.src, m.len);
        let got = sides[dst].read(m.dst, m.len);
        if got != want {
            let first = got.iter().zip(&want).position(|(g, w)| g != w).unwrap_or(0);
            return Err(Broken(format!(
                "{at} ({:?}, {} B): landed bytes differ from byte {first}",
                m.opcode, m.len
            )));
        }
        // Cleared, so that the slot's next message cannot pass on these bytes.
        sides[dst]
            .mem
            .write(m.dst, &vec![0u8; m.len as usize])
            .map_err(|e| Broken(format!("{at}: {e:?}")))?;
        self.done[s][i] += 1;
        self.tally.delivered += 1;
        self.tally.bytes += u64::from(m.len);
        self.tally.by_opcode[opcode_slot(m.opcode)] += 1;
        Ok(())
    }

    /// The receive completion `r`, the `n`th of its queue, for message `m`.
    fn received(&self, at: &str, m: &Msg, r: &RecvCqe, n: u32) -> Result<(), Broken> {
        let opcode = if m.opcode == Opcode::RdmaWriteImm {
            RecvOpcode::RecvRdmaWithImm
        } else {
            RecvOpcode::Recv
        };
        let imm = if m.opcode.has_imm() { m.imm } else { 0 };
        let want = (u64::from(n), Status::Success, m.len, opcode, imm);
        let got = (r.wr_id, r.status, r.byte_len, r.opcode, r.imm);
        if got != want {
            return Err(Broken(format!(
                "{at} ({:?}, {} B): receive completion (WR id, status, length, opcode, \
                 immediate) {got:?}, expected {want:?}",
                m.opcode, m.len
            )));
        }
        Ok(())
    }

    /// After the last completion: every message executed once, no receive left over.
    fn finish(&self, sides: &[Side; 2]) -> Result<(), Broken> {
        for s in 0..2 {
            let t = 1 - s;
            for i in 0..self.quota[s].len() {
                let qpn = sides[t].qpns[i];
                if let Some(r) = sides[t].recvd[i].front() {
                    return Err(Broken(format!(
                        "{} QP {qpn:#x}: a receive completion no message explains: {r:?}",
                        side_name(t)
                    )));
                }
                let msn = sides[t].nic.rx.responder(qpn).map_or(0, |r| r.msn());
                let want = self.quota[s][i] & 0xFF_FFFF;
                if msn != want {
                    return Err(Broken(format!(
                        "{} QP {qpn:#x}: the responder executed {msn} messages (MSN), {want} \
                         were sent",
                        side_name(t)
                    )));
                }
            }
        }
        Ok(())
    }
}

fn side_name(s: usize) -> &'static str {
    ["a", "b"][s]
}

fn opcode_slot(o: Opcode) -> usize {
    match o {
        Opcode::Send => 0,
        Opcode::SendImm => 1,
        Opcode::RdmaWrite => 2,
        Opcode::RdmaWriteImm => 3,
        _ => 4,
    }
}

fn print_summary(args: &Args, soak: &Soak, sides: &[Side; 2], secs: f64) {
    let t = &soak.tally;
    println!(
        "soak: {} messages over {} RC QPs each way, {} to {} bytes, seed {}; link loss {}, \
         corrupt {}, duplicate {}, timeout 2^{} turns",
        args.messages,
        args.qps,
        args.min_len,
        args.max_len,
        args.seed,
        args.loss,
        args.corrupt,
        args.duplicate,
        args.timeout
    );
    println!(
        "  delivered          {} ({} bytes; SEND {}, SEND_IMM {}, WRITE {}, WRITE_IMM {}, READ {})",
        t.delivered,
        t.bytes,
        t.by_opcode[0],
        t.by_opcode[1],
        t.by_opcode[2],
        t.by_opcode[3],
        t.by_opcode[4]
    );
    println!(
        "  turns              {} ({:.1} message bytes a turn)",
        t.turns,
        t.bytes as f64 / t.turns.max(1) as f64
    );
    println!("{:<20} {:>12} {:>12}", "", "a", "b");
    let f = soak.wire.faults;
    let row = |name: &str, a: u64, b: u64| println!("  {name:<18} {a:>12} {b:>12}");
    row("frames sent", t.frames[0], t.frames[1]);
    row("lost", f[0].lost, f[1].lost);
    row("corrupted", f[0].corrupted, f[1].corrupted);
    row("duplicated", f[0].duplicated, f[1].duplicated);
    let c = [0, 1].map(|s| sides[s].nic.queues.rc_counters());
    let n = [0, 1].map(|s| sides[s].nic.rc_counts());
    row("packets resent", c[0].resent, c[1].resent);
    row("timeouts", c[0].timeouts, c[1].timeouts);
    row("seq NAKs sent", n[0].seq_naks_sent, n[1].seq_naks_sent);
    row("NAKs acted on", c[0].seq_naks, c[1].seq_naks);
    row("RNR NAKs sent", n[0].rnr_naks_sent, n[1].rnr_naks_sent);
    row(
        "fatal NAKs sent",
        n[0].fatal_naks_sent,
        n[1].fatal_naks_sent,
    );
    row("ACKs dropped", n[0].acks_dropped, n[1].acks_dropped);
    row("READ gaps", c[0].read_gaps, c[1].read_gaps);
    row("ACKs sent", n[0].acks_sent, n[1].acks_sent);
    println!("  frames dropped by the receivers: {}", t.discarded);
    println!(
        "  {secs:.1} s, {:.0} messages/s, {:.1} MB/s of messages",
        t.delivered as f64 / secs.max(1e-9),
        t.bytes as f64 / secs.max(1e-9) / 1e6
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two NICs with one QP each way and a run of one message from a (the seed's first is
    /// a SEND of 5,000 bytes) on a wire losing `loss` of the frames, a hang declared after
    /// `stall` turns.
    fn one_message(rel: Reliable, loss: f64, stall: u64) -> ([Side; 2], Soak) {
        let mut rng = Rng::new(5);
        let sides = [
            side(1, 1, &[10], &[20], rel, &mut rng),
            side(2, 1, &[20], &[10], rel, &mut rng),
        ];
        let link = Link {
            loss,
            duplicate: 0.0,
            corrupt: 0.0,
            reliable: rel,
        };
        let soak = Soak {
            wire: Wire::new(link, 1),
            rng: Rng::new(1),
            quota: [vec![1], vec![0]],
            done: [vec![0], vec![0]],
            rdone: [vec![0], vec![0]],
            flight: [Vec::new(), Vec::new()],
            tally: Tally::default(),
            lens: (1, 5000),
            ops: OPS.to_vec(),
            stall,
        };
        (sides, soak)
    }

    /// [`one_message`] on a perfect wire, run by hand; `meddle` runs after every delivery,
    /// with the sides.
    fn one_send(meddle: impl Fn(&mut [Side; 2])) -> Result<(), Broken> {
        let (mut sides, mut soak) = one_message(Reliable::default(), 0.0, 1000);
        soak.post(&mut sides);
        assert_eq!(
            sides[0].flight[0][0].opcode,
            Opcode::Send,
            "the seed's first message"
        );
        for _ in 0..200 {
            soak.deliver(&mut sides)?;
            meddle(&mut sides);
            for s in 0..2 {
                soak.step(&mut sides, s)?;
            }
            if soak.tally.delivered == 1 {
                return soak.finish(&sides);
            }
        }
        Err(Broken("not delivered".into()))
    }

    #[test]
    fn a_message_as_sent_passes() {
        assert!(one_send(|_| {}).is_ok());
    }

    /// No completion for `stall` turns (every frame lost, a timeout far longer than that): the
    /// run stops and names the turns, not waiting for ever.
    #[test]
    fn a_stall_is_reported() {
        let rel = Reliable {
            timeout: 20,
            ..Reliable::default()
        };
        let (mut sides, mut soak) = one_message(rel, 1.0, 300);
        let Err(Broken(why)) = soak.run(&mut sides, false) else {
            panic!("a run on a dead wire passed")
        };
        assert!(
            why.contains("a hang: no completion from turn 0 to turn 301"),
            "{why}"
        );
    }

    /// A byte of the landed message changed before the sender's completion: caught.
    #[test]
    fn a_changed_byte_is_caught() {
        let r = one_send(|s| {
            if let Some(c) = s[1].recvd[0].front() {
                // The last byte, made unlike the source's (the same each turn).
                let m = s[0].flight[0][0];
                let last = u64::from(c.byte_len) - 1;
                let src = s[0].read(m.src + last, 1)[0];
                s[1].mem.write(m.dst + last, &[!src]).unwrap();
            }
        });
        let Err(Broken(why)) = r else {
            panic!("passed")
        };
        assert!(why.contains("landed bytes differ from byte"), "{why}");
    }

    /// The receive completion lost: caught at the sender's completion.
    #[test]
    fn a_missing_receive_completion_is_caught() {
        let r = one_send(|s| {
            s[1].recvd[0].clear();
        });
        let Err(Broken(why)) = r else {
            panic!("passed")
        };
        assert!(
            why.contains("acknowledged with no receive completion"),
            "{why}"
        );
    }

    /// A receive completion twice: the second is left over at the end.
    #[test]
    fn a_receive_completion_twice_is_caught() {
        let r = one_send(|s| {
            if let Some(&c) = s[1].recvd[0].front() {
                if s[1].recvd[0].len() == 1 {
                    s[1].recvd[0].push_back(c);
                }
            }
        });
        let Err(Broken(why)) = r else {
            panic!("passed")
        };
        assert!(
            why.contains("a receive completion no message explains"),
            "{why}"
        );
    }
}
