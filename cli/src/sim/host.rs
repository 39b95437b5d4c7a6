//! The host software of both NICs, the same whatever engine runs them: it reads the completion
//! rings in host memory by their phase bit, as a driver polls them, hands the entries back with
//! consumer doorbells, reposts each receive buffer whose message it has read, and watches the
//! wire (the pcap, the frame counts, the UDP source ports).
//!
//! The engine calls it: [`Host::frame`] for every frame as it enters the wire, [`Host::ran`]
//! for every work request served, [`Host::poll`] when the host's turn comes
//! ([`Host::poll_due`]) or the engine waits on it, and asks it how many frames the wire
//! delivers this turn ([`Host::deliveries`]). The pace of the wire and of the polls comes from
//! the run's seed; what lands where does not depend on it, only the order in which the host
//! reads the completions of different queues.

use super::layout::recv_wqe;
use super::link::{Faults, Wire};
use super::{Doorbell, Job, RecvQueue};
use crate::golden::rng::Rng;
use crate::Failure;
use indicatif::{ProgressBar, ProgressStyle};
use rocenic_model::rx::layout::cqe as recv_layout;
use rocenic_model::rx::{RecvCqe, RecvFlags, RecvOpcode, CQE_BYTES as RCQE_BYTES, GRH_AREA};
use rocenic_model::wire::RoceFrame;
use rocenic_model::wqe::layout::cqe as send_layout;
use rocenic_model::wqe::{Cqe, HostMemory, Memory, Ring, SendRing, Status, Wqe, CQE_BYTES};
use std::collections::{BTreeSet, HashMap};
use std::io::{self, IsTerminal};

/// Where frames go as they enter the wire: the side they left, their bytes.
pub type Tap<'a> = dyn FnMut(usize, &[u8]) -> io::Result<()> + 'a;

/// Most frames the wire delivers each way in one turn; the seed picks 1 to this many.
const MAX_DELIVERIES: u64 = 8;
/// Most turns the host lets pass between two polls; the seed picks 0 to this many.
const MAX_POLL_GAP: u64 = 3;

/// One completion the host read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Send(Cqe),
    Recv(RecvCqe),
}

/// A completion with where it was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// The NIC (0: a, 1: b).
    pub side: usize,
    /// The work queue whose ring held it; `None` for the send completion ring.
    pub wq: Option<u16>,
    /// Its index in that ring (running, not wrapped).
    pub index: u32,
    pub entry: Entry,
    /// CRC-32 of the message's bytes: what a send gathered (or carried inline), what a receive
    /// landed after the GRH area. `None` for a failed request and an RDMA WRITE with immediate's
    /// receive (its bytes are not in the buffer).
    pub crc: Option<u32>,
}

/// What one direction of the wire carried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireStats {
    pub frames: u64,
    pub bytes: u64,
    /// What a `[link]` did to them (`None` without one).
    pub faults: Option<Faults>,
    /// Every UDP source port seen.
    pub ports: BTreeSet<u16>,
    /// Frames by UDP source port, in 64 ranges of 1024.
    pub port_bins: [u64; 64],
}

impl Default for WireStats {
    fn default() -> Self {
        WireStats {
            frames: 0,
            bytes: 0,
            faults: None,
            ports: BTreeSet::new(),
            port_bins: [0; 64],
        }
    }
}

/// A receive work queue as the host sees it.
struct HostWq {
    queue: RecvQueue,
    /// Next completion to read.
    consumer: u32,
    /// Next receive ring index to post at.
    producer: u32,
    /// The work request id of the next post.
    next_id: u64,
    /// Posted and not yet completed: work request id to buffer.
    posted: HashMap<u64, u32>,
}

/// One NIC's host side.
struct HostSide {
    cq: Ring,
    cq_base: u64,
    consumer: u32,
    sqs: HashMap<u32, SendRing>,
    wqs: Vec<HostWq>,
}

/// The host of both NICs; see the module docs.
pub struct Host<'a> {
    sides: [HostSide; 2],
    rng: Rng,
    gap: u64,
    tap: &'a mut Tap<'a>,
    progress: Option<ProgressBar>,
    /// Each direction: `wire[s]` is what left NIC s.
    pub wire: [WireStats; 2],
    /// `[link]`'s draws; `None`: a perfect wire.
    link: Option<Wire>,
    /// Every completion read, in the order read.
    pub rows: Vec<Row>,
}

impl<'a> Host<'a> {
    /// The host of `job`'s NICs, before the run: every buffer is posted (`lay_out` wrote the
    /// WQEs; the engine rings the first doorbells). A progress bar counts the work requests
    /// served when standard error is a terminal.
    pub fn new(job: &Job, seed: u64, tap: &'a mut Tap<'a>) -> Host<'a> {
        let sides = std::array::from_fn(|s| {
            let side = &job.sides[s];
            HostSide {
                cq: side.send.cq,
                cq_base: side.send.cq_base,
                consumer: 0,
                sqs: side.send.queues.iter().map(|q| (q.qpn, q.ring)).collect(),
                wqs: side
                    .wqs
                    .iter()
                    .map(|q| HostWq {
                        queue: q.clone(),
                        consumer: 0,
                        producer: q.buffers,
                        next_id: u64::from(q.buffers),
                        posted: (0..q.buffers).map(|i| (u64::from(i), i)).collect(),
                    })
                    .collect(),
            }
        });
        let requests: u64 = job
            .sides
            .iter()
            .flat_map(|s| &s.send.queues)
            .map(|q| u64::from(q.producer))
            .sum();
        let progress = io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(requests);
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} [{bar:40}] {pos}/{len} work requests, {msg} ({elapsed})",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            bar.set_prefix("rocenic sim");
            bar
        });
        Host {
            sides,
            rng: Rng::new(seed),
            gap: 0,
            tap,
            progress,
            wire: std::array::from_fn(|_| WireStats {
                faults: job.link.map(|_| Faults::default()),
                ..WireStats::default()
            }),
            link: job.link.map(|l| Wire::new(l, seed)),
            rows: Vec::new(),
        }
    }

    /// What the wire delivers of `frame`, sent by NIC `side`: the frame, or with a `[link]`
    /// nothing, the frame with a bit flipped, or the frame twice.
    pub fn carry(&mut self, side: usize, frame: Vec<u8>) -> Vec<Vec<u8>> {
        match &mut self.link {
            None => vec![frame],
            Some(w) => {
                let out = w.carry(side, frame);
                self.wire[side].faults = Some(w.faults[side]);
                out
            }
        }
    }

    /// A frame left NIC `side` and entered the wire.
    pub fn frame(&mut self, side: usize, frame: &[u8]) -> Result<(), Failure> {
        let w = &mut self.wire[side];
        w.frames += 1;
        w.bytes += frame.len() as u64;
        if let Ok(f) = RoceFrame::parse(frame) {
            let at = f.udp_offset();
            let port = u16::from_be_bytes([frame[at], frame[at + 1]]);
            w.ports.insert(port);
            w.port_bins[usize::from(port >> 10)] += 1;
        }
        (self.tap)(side, frame).map_err(|e| Failure(format!("cannot write the frames: {e}")))
    }

    /// NIC `side` served one work request.
    pub fn ran(&mut self, _side: usize) {
        if let Some(bar) = &self.progress {
            bar.inc(1);
            if bar.position() % 64 == 0 {
                let frames = self.wire[0].frames + self.wire[1].frames;
                bar.set_message(format!("{frames} frames"));
            }
        }
    }

    /// How many frames the wire delivers each way this turn (at least one).
    pub fn deliveries(&mut self) -> usize {
        1 + self.rng.below(MAX_DELIVERIES) as usize
    }

    /// Whether the host polls this turn.
    pub fn poll_due(&mut self) -> bool {
        if self.gap == 0 {
            self.gap = self.rng.below(MAX_POLL_GAP + 1);
            true
        } else {
            self.gap -= 1;
            false
        }
    }

    /// Reads every new completion of NIC `side` from `mem` (the send ring, then each work
    /// queue's by number), reposts the buffers of the successful receives, and returns the
    /// doorbells to ring: the consumer indices, then the new producer indices.
    pub fn poll(&mut self, side: usize, mem: &mut HostMemory) -> Result<Vec<Doorbell>, Failure> {
        let mut bells = Vec::new();
        let s = &mut self.sides[side];
        let start = s.consumer;
        loop {
            let i = s.consumer;
            let mut b = [0u8; CQE_BYTES];
            let at = s.cq_base + u64::from(s.cq.slot(i)) * CQE_BYTES as u64;
            mem.read(at, &mut b)
                .map_err(|e| bug("the send completion ring", e))?;
            // The owner byte first: an entry not yet written may hold anything.
            if owned(b[send_layout::OWNER.offset]) != s.cq.phase(i) {
                break;
            }
            let c = Cqe::decode(&b).map_err(|e| bug(&format!("send completion {i}"), e))?;
            let crc = (c.status == Status::Success)
                .then(|| {
                    s.sqs
                        .get(&c.qpn)
                        .and_then(|r| sent_crc(mem, r, c.wqe_index))
                })
                .flatten();
            self.rows.push(Row {
                side,
                wq: None,
                index: i,
                entry: Entry::Send(c),
                crc,
            });
            s.consumer = i.wrapping_add(1);
        }
        if s.consumer != start {
            bells.push(Doorbell::SendCq(s.consumer));
        }
        for w in &mut s.wqs {
            let (start, posted) = (w.consumer, w.producer);
            let ring = w.queue.config.cq.ring();
            loop {
                let i = w.consumer;
                let mut b = [0u8; RCQE_BYTES];
                let at = w.queue.config.cq_base + u64::from(ring.slot(i)) * RCQE_BYTES as u64;
                mem.read(at, &mut b)
                    .map_err(|e| bug("a receive completion ring", e))?;
                if owned(b[recv_layout::OWNER.offset]) != ring.phase(i) {
                    break;
                }
                let c = RecvCqe::decode(&b)
                    .map_err(|e| bug(&format!("wq {} completion {i}", w.queue.wq), e))?;
                w.consumer = i.wrapping_add(1);
                let buffer = w.posted.remove(&c.wr_id);
                let crc = match (buffer, c.status, c.opcode) {
                    (Some(k), Status::Success, RecvOpcode::Recv) => {
                        landed_crc(mem, &w.queue, k, &c)
                    }
                    _ => None,
                };
                self.rows.push(Row {
                    side,
                    wq: Some(w.queue.wq),
                    index: i,
                    entry: Entry::Recv(c),
                    crc,
                });
                // A failed or flushed receive leaves its queue or QP in error: the buffer is
                // not posted again (a real application would reset the queue first).
                if let (Some(k), Status::Success) = (buffer, c.status) {
                    let p = w.producer;
                    mem.write(
                        w.queue.config.ring.addr(p),
                        &recv_wqe(&w.queue, k, w.next_id),
                    )
                    .map_err(|e| bug("a receive ring", e))?;
                    w.posted.insert(w.next_id, k);
                    w.next_id += 1;
                    w.producer = p.wrapping_add(1);
                }
            }
            if w.consumer != start {
                bells.push(Doorbell::RecvCq(w.queue.wq, w.consumer));
            }
            if w.producer != posted {
                bells.push(Doorbell::Post(w.queue.wq, w.producer));
            }
        }
        Ok(bells)
    }

    /// The run is over: the progress bar goes.
    pub fn finish(&mut self) {
        if let Some(bar) = self.progress.take() {
            bar.finish_and_clear();
        }
    }
}

/// The phase bit of an owner byte (bit 0, in both completion formats).
fn owned(owner: u8) -> bool {
    owner & 1 != 0
}

/// A ring the host laid out refused it: a bug, not a scenario error.
fn bug(what: &str, e: impl std::fmt::Display) -> Failure {
    Failure(format!("the host cannot read {what}: {e}"))
}

/// CRC-32 of the bytes the WQE at `index` of `ring` sends: its inline bytes, or what its
/// gather list names (a TSO request's payload, the header template not counted).
fn sent_crc(mem: &HostMemory, ring: &SendRing, index: u32) -> Option<u32> {
    let mut wqe = vec![0u8; ring.stride_blocks() as usize * rocenic_model::wqe::BLOCK_BYTES];
    mem.read(ring.addr(index), &mut wqe).ok()?;
    let wqe = Wqe::decode(&wqe).ok()?;
    let mut crc = crc32fast::Hasher::new();
    if wqe.payload_len() > 0 && wqe.inline().is_empty() {
        let mut i = 0;
        while let Some(s) = wqe.sge(i) {
            let mut bytes = vec![0u8; s.length as usize];
            mem.read(s.addr, &mut bytes).ok()?;
            crc.update(&bytes);
            i += 1;
        }
    } else {
        crc.update(wqe.inline());
    }
    Some(crc.finalize())
}

/// CRC-32 of what a receive landed in buffer `k` of `queue`, after the GRH area of a UD
/// receive.
fn landed_crc(mem: &HostMemory, queue: &RecvQueue, k: u32, c: &RecvCqe) -> Option<u32> {
    let addr = queue.addr + u64::from(k) * u64::from(queue.size);
    let mut bytes = vec![0u8; c.byte_len as usize];
    mem.read(addr, &mut bytes).ok()?;
    let skip = if c.flags.contains(RecvFlags::GRH) {
        GRH_AREA
    } else {
        0
    };
    Some(crc32fast::hash(bytes.get(skip..)?))
}
