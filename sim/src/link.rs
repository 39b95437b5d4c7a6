//! A link between two co-simulated NICs: each direction a [`Wire`] that takes a sender's frame
//! stream (AXI-Stream beats, [`crate::axis::Beat`]) and offers it to the receiver after a
//! configurable delay, losing, corrupting (one bit flipped) or duplicating whole frames with
//! seeded probabilities (none by default; each frame's fate is `model::link::Faults::fate` of
//! the seed, the direction and its place in the stream, as the model NICs' wire draws it), or
//! dropping exactly the frames it is told to ([`Wire::drop_frame`]); and recording every frame
//! for a pcap ([`Link::write_pcap`], the model's `PcapWriter`).
//!
//! Like [`crate::stream`]'s models it holds no DUT: each cycle the bench calls
//! [`Wire::offer`] for the wire's outputs (its ready toward the sender, a beat toward the
//! receiver), drives them, and hands the sender's beat and the receiver's ready to
//! [`Wire::accepted`], which takes the clock edge's handshakes. The outputs never depend on
//! the same cycle's inputs, as if registered.
//!
//! Store and forward: a frame is whole before it leaves, so a lost frame never shows in part.
//! Its first beat may be offered `delay` cycles after the edge that took its last beat; then
//! one beat per cycle while the receiver is ready, packed from lane 0 and full but the last (as
//! every rocenic stream). A wire never pushes back on its sender, as a cable does not: frames
//! wait in it, in order, while the receiver holds its ready low.

use crate::axis::{beats, Beat};
use rocenic_model::link::{Fate, Faults};
use rocenic_model::wire::{LinkType, PcapWriter};
use std::collections::{BTreeSet, VecDeque};

/// How a wire behaves.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Lanes of a beat on both ends (8: the core's 64-bit streams).
    pub lanes: usize,
    /// Cycles from the edge that takes a frame's last beat to the first cycle its first beat
    /// may be offered; at least 1.
    pub delay: u64,
    /// Probability that a frame is lost whole, drawn once per frame.
    pub loss: f64,
    /// Probability that one bit of a frame (not lost) is flipped.
    pub corrupt: f64,
    /// Probability that a frame (not lost, not corrupted) is delivered twice.
    pub duplicate: f64,
}

impl Config {
    /// 64-bit beats, `delay` cycles, drawing `faults`.
    pub fn with_faults(delay: u64, faults: Faults) -> Self {
        Config {
            delay,
            loss: faults.loss,
            corrupt: faults.corrupt,
            duplicate: faults.duplicate,
            ..Config::default()
        }
    }

    /// The faults it draws.
    pub fn faults(&self) -> Faults {
        Faults {
            loss: self.loss,
            corrupt: self.corrupt,
            duplicate: self.duplicate,
        }
    }
}

impl Default for Config {
    /// 64-bit beats, one cycle, no loss.
    fn default() -> Self {
        Config {
            lanes: 8,
            delay: 1,
            loss: 0.0,
            corrupt: 0.0,
            duplicate: 0.0,
        }
    }
}

/// A direction of a [`Link`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    /// From side A's transmitter to side B's receiver.
    AtoB,
    /// From side B's transmitter to side A's receiver.
    BtoA,
}

/// A frame as it went on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Its direction.
    pub dir: Dir,
    /// The bytes.
    pub data: Vec<u8>,
    /// `tuser` of its first beat (the RSS pipeline's InfiniBand flag).
    pub user: bool,
    /// The cycle whose edge took its last beat from the sender.
    pub sent: u64,
    /// The cycle whose edge handed its last beat to the receiver; `None` while on its way, or
    /// if lost.
    pub delivered: Option<u64>,
    /// What the wire did to it: delivered as sent, lost (drawn, or dropped as told),
    /// corrupted or delivered twice.
    pub fate: Fate,
}

impl Frame {
    /// Whether the wire dropped it.
    pub fn lost(&self) -> bool {
        self.fate == Fate::Lost
    }
}

/// A wire's outputs in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WireOut {
    /// `tready` toward the sender (always set: a wire does not push back).
    pub tx_ready: bool,
    /// The beat offered to the receiver (`tvalid`), if any.
    pub rx: Option<Beat>,
}

/// What a wire has carried.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Frames taken from the sender, and their bytes.
    pub frames: u64,
    /// Bytes taken from the sender.
    pub bytes: u64,
    /// Frames handed whole to the receiver.
    pub delivered: u64,
    /// Frames dropped.
    pub lost: u64,
    /// Frames delivered with a bit flipped.
    pub corrupted: u64,
    /// Frames delivered twice (counted once in `delivered` per copy).
    pub duplicated: u64,
    /// The most frames in the wire at once (delayed or waiting for the receiver).
    pub max_queued: usize,
}

/// One direction: a sender's stream to a receiver's.
pub struct Wire {
    dir: Dir,
    cfg: Config,
    seed: u64,
    /// Frames (by their place in the stream) to drop whatever their draw.
    drops: BTreeSet<u64>,
    cycle: u64,
    /// The frame coming in from the sender: bytes so far, its `tuser`.
    incoming: Option<(Vec<u8>, bool)>,
    /// Frames on their way: index in `frames`, first cycle they may go, their beats.
    queue: VecDeque<(usize, u64, VecDeque<Beat>)>,
    frames: Vec<Frame>,
    counters: Counters,
}

impl Wire {
    /// A wire carrying direction `dir`, its faults drawn from `seed` (see
    /// [`crate::stream::seed`]).
    ///
    /// # Panics
    /// If `cfg.lanes` is 0 or a fault's probability is not one.
    pub fn new(dir: Dir, cfg: Config, seed: u64) -> Self {
        assert!(cfg.lanes > 0, "a beat has at least one lane");
        assert!(
            cfg.faults().valid(),
            "{:?} are not probabilities",
            cfg.faults()
        );
        Wire {
            dir,
            seed,
            drops: BTreeSet::new(),
            cfg,
            cycle: 0,
            incoming: None,
            queue: VecDeque::new(),
            frames: Vec::new(),
            counters: Counters::default(),
        }
    }

    /// This cycle's outputs.
    pub fn offer(&self) -> WireOut {
        let rx = self
            .queue
            .front()
            .filter(|(_, due, _)| *due <= self.cycle)
            .and_then(|(_, _, b)| b.front().cloned());
        WireOut { tx_ready: true, rx }
    }

    /// The clock edge: the sender's beat this cycle (`tvalid` and its fields; the wire is always
    /// ready, so it is taken) and the receiver's `tready`.
    pub fn accepted(&mut self, tx: Option<&Beat>, rx_ready: bool) {
        let offered = self.offer().rx.is_some();
        if offered && rx_ready {
            let (i, _, beats) = self.queue.front_mut().expect("a frame on offer");
            beats.pop_front();
            if beats.is_empty() {
                self.frames[*i].delivered = Some(self.cycle);
                self.counters.delivered += 1;
                self.queue.pop_front();
            }
        }
        if let Some(b) = tx {
            let (bytes, _) = self.incoming.get_or_insert_with(|| (Vec::new(), b.user));
            bytes.extend_from_slice(b.bytes());
            if b.last {
                let (data, user) = self.incoming.take().expect("a frame coming in");
                self.frame_in(data, user);
            }
        }
        self.cycle += 1;
    }

    /// Drops frame `index` of this direction (counted from 0, the next one the sender finishes
    /// being [`Wire::frames`]'s length), whatever its draw: a test's exact loss.
    pub fn drop_frame(&mut self, index: u64) {
        self.drops.insert(index);
    }

    /// A whole frame from the sender, at this cycle's edge.
    fn frame_in(&mut self, data: Vec<u8>, user: bool) {
        let index = self.frames.len() as u64;
        let fate = if self.drops.remove(&index) {
            Fate::Lost
        } else {
            self.cfg
                .faults()
                .fate(self.seed, self.dir as u8, index, data.len())
        };
        self.counters.frames += 1;
        self.counters.bytes += data.len() as u64;
        let due = self.cycle + self.cfg.delay.max(1);
        let copies = match fate {
            Fate::Lost => {
                self.counters.lost += 1;
                0
            }
            Fate::Corrupt { .. } => {
                self.counters.corrupted += 1;
                1
            }
            Fate::Duplicate => {
                self.counters.duplicated += 1;
                2
            }
            Fate::Pass => 1,
        };
        let mut bytes = data.clone();
        fate.apply(&mut bytes);
        for _ in 0..copies {
            let b = beats(&bytes, self.cfg.lanes, user).into();
            self.queue.push_back((self.frames.len(), due, b));
        }
        self.counters.max_queued = self.counters.max_queued.max(self.queue.len());
        self.frames.push(Frame {
            dir: self.dir,
            data,
            user,
            sent: self.cycle,
            delivered: None,
            fate,
        });
    }

    /// Every frame the sender finished, in order.
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// What it has carried.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Nothing on its way: no frame coming in, delayed, or waiting for the receiver.
    pub fn idle(&self) -> bool {
        self.incoming.is_none() && self.queue.is_empty()
    }
}

/// Two NICs back to back: a [`Wire`] each way.
pub struct Link {
    /// Side A's transmitter to side B's receiver.
    pub a_to_b: Wire,
    /// Side B's transmitter to side A's receiver.
    pub b_to_a: Wire,
}

impl Link {
    /// Both directions configured alike, their randomness from one seed.
    pub fn new(cfg: Config, seed: u64) -> Self {
        Link {
            a_to_b: Wire::new(Dir::AtoB, cfg.clone(), seed),
            b_to_a: Wire::new(Dir::BtoA, cfg, seed),
        }
    }

    /// Nothing on its way either way.
    pub fn idle(&self) -> bool {
        self.a_to_b.idle() && self.b_to_a.idle()
    }

    /// Every frame of both directions in the order they went on the wire (by the cycle their
    /// last beat was sent; A to B first in a tie).
    pub fn frames(&self) -> Vec<&Frame> {
        let mut all: Vec<&Frame> = self
            .a_to_b
            .frames()
            .iter()
            .chain(self.b_to_a.frames())
            .collect();
        all.sort_by_key(|f| (f.sent, f.dir));
        all
    }

    /// Writes every frame sent, lost ones too (a tap at the senders sees them), as an Ethernet
    /// pcap in the order of [`Link::frames`], each stamped with the cycle it was sent at a
    /// clock of `mhz` MHz.
    pub fn write_pcap<W: std::io::Write>(&self, out: W, mhz: u64) -> std::io::Result<W> {
        let mut pcap = PcapWriter::new(out, LinkType::Ethernet)?;
        for f in self.frames() {
            let us = f.sent / mhz.max(1);
            pcap.write_record(((us / 1_000_000) as u32, (us % 1_000_000) as u32), &f.data)?;
        }
        pcap.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::{rng, Sink, Source};
    use rand::Rng;
    use rocenic_model::wire::PcapReader;

    /// Random frames of 1..=300 bytes, every tenth with `tuser`.
    fn frames(seed: u64, n: usize) -> Vec<(Vec<u8>, bool)> {
        let mut r = rng(seed);
        (0..n)
            .map(|i| {
                let len = r.gen_range(1..=300);
                ((0..len).map(|_| r.gen()).collect(), i % 10 == 3)
            })
            .collect()
    }

    /// Sends `sent` through a wire with random sender gaps and receiver stalls; returns what
    /// arrived (bytes, tuser) and the wire.
    fn carry(
        cfg: Config,
        seed: u64,
        sent: &[(Vec<u8>, bool)],
        stall: f64,
    ) -> (Vec<(Vec<u8>, bool)>, Wire) {
        carry_dropping(cfg, seed, sent, stall, &[])
    }

    /// [`carry`], the wire told to drop frames `drops`.
    fn carry_dropping(
        cfg: Config,
        seed: u64,
        sent: &[(Vec<u8>, bool)],
        stall: f64,
        drops: &[u64],
    ) -> (Vec<(Vec<u8>, bool)>, Wire) {
        let lanes = cfg.lanes;
        let mut w = Wire::new(Dir::AtoB, cfg, seed);
        for &d in drops {
            w.drop_frame(d);
        }
        let mut src: Source<Beat> = Source::new(seed, 0.3);
        for (f, user) in sent {
            for b in beats(f, lanes, *user) {
                src.push(b);
            }
        }
        let mut sink = Sink::new(seed, stall);
        let (mut got, mut cur) = (Vec::new(), Vec::new());
        let mut user = None;
        for _ in 0..100_000 {
            if src.remaining() == 0 && w.idle() {
                break;
            }
            let out = w.offer();
            assert!(out.tx_ready);
            let ready = sink.ready();
            let tx = src.offer().cloned();
            if let Some(b) = out.rx.as_ref().filter(|_| ready) {
                assert_eq!(b.data.len(), lanes);
                assert!(b.last || b.keep == lanes, "only the last beat may be short");
                user.get_or_insert(b.user);
                cur.extend_from_slice(b.bytes());
                if b.last {
                    got.push((std::mem::take(&mut cur), user.take().unwrap()));
                }
            }
            w.accepted(tx.as_ref(), ready);
            src.accepted(out.tx_ready);
        }
        assert!(w.idle(), "the wire drained");
        (got, w)
    }

    #[test]
    fn frames_cross_whole_in_order() {
        let seed = crate::stream::seed("link::frames_cross_whole_in_order");
        let sent = frames(seed, 200);
        let (got, w) = carry(Config::default(), seed, &sent, 0.5);
        assert_eq!(got, sent);
        let c = w.counters();
        assert_eq!((c.frames, c.delivered, c.lost), (200, 200, 0));
        assert!(w
            .frames()
            .iter()
            .all(|f| f.delivered.is_some_and(|d| d > f.sent)));
    }

    #[test]
    fn delay_is_exact() {
        for delay in [1, 2, 17, 500] {
            let cfg = Config {
                delay,
                ..Config::default()
            };
            let mut w = Wire::new(Dir::BtoA, cfg, 1);
            // A 20-byte frame in three beats, sent back to back from cycle 0.
            for b in beats(&[7; 20], 8, false) {
                assert!(w.offer().rx.is_none());
                w.accepted(Some(&b), true);
            }
            // Its last beat was taken at cycle 2: its first beat is offered at 2 + delay.
            let mut first = None;
            for c in 3..3 + delay + 10 {
                if w.offer().rx.is_some() && first.is_none() {
                    first = Some(c);
                }
                w.accepted(None, true);
            }
            assert_eq!(first, Some(2 + delay), "delay {delay}");
            assert_eq!(w.frames()[0].delivered, Some(2 + delay + 2));
        }
    }

    #[test]
    fn losses_are_seeded_whole_frames() {
        let seed = crate::stream::seed("link::losses_are_seeded_whole_frames");
        let sent = frames(seed, 2000);
        let cfg = Config {
            loss: 0.1,
            delay: 40,
            ..Config::default()
        };
        let (got, w) = carry(cfg.clone(), seed, &sent, 0.2);
        let c = w.counters();
        assert_eq!(c.frames, 2000);
        assert_eq!(c.delivered + c.lost, 2000);
        assert!(
            (120..=280).contains(&c.lost),
            "{} lost of 2000 at 10%",
            c.lost
        );
        // What arrived is exactly the frames not lost, whole and in order.
        let kept: Vec<_> = sent
            .iter()
            .zip(w.frames())
            .filter(|(_, f)| !f.lost())
            .map(|(s, _)| s.clone())
            .collect();
        assert_eq!(got, kept);
        // The same seed loses the same frames.
        let (_, again) = carry(cfg, seed, &sent, 0.2);
        let lost = |w: &Wire| w.frames().iter().map(|f| f.lost()).collect::<Vec<_>>();
        assert_eq!(lost(&w), lost(&again));
        // Everything lost, nothing arrives.
        let all = Config {
            loss: 1.0,
            ..Config::default()
        };
        let (got, _) = carry(all, seed, &sent[..50], 0.0);
        assert!(got.is_empty());
    }

    /// Corruption, duplication and loss together: what arrives is each frame as
    /// `model::link::Faults::fate` says (the model NICs' wire draws the same), and a frame the
    /// wire is told to drop is dropped whatever its draw.
    #[test]
    fn faults_are_the_models() {
        let seed = crate::stream::seed("link::faults_are_the_models");
        let sent = frames(seed, 1500);
        let cfg = Config {
            loss: 0.05,
            corrupt: 0.05,
            duplicate: 0.05,
            delay: 7,
            ..Config::default()
        };
        let (got, w) = carry_dropping(cfg.clone(), seed, &sent, 0.3, &[0, 700]);
        let mut want = Vec::new();
        for (i, (f, user)) in sent.iter().enumerate() {
            let fate = if i == 0 || i == 700 {
                Fate::Lost
            } else {
                cfg.faults().fate(seed, Dir::AtoB as u8, i as u64, f.len())
            };
            assert_eq!(w.frames()[i].fate, fate, "frame {i}");
            let mut bytes = f.clone();
            fate.apply(&mut bytes);
            match fate {
                Fate::Lost => {}
                Fate::Duplicate => want.extend([(bytes.clone(), *user), (bytes, *user)]),
                _ => want.push((bytes, *user)),
            }
        }
        assert_eq!(got, want);
        let c = w.counters();
        assert_eq!(c.delivered, got.len() as u64);
        for (n, what) in [
            (c.lost, "lost"),
            (c.corrupted, "corrupted"),
            (c.duplicated, "duplicated"),
        ] {
            assert!(
                (40..=120).contains(&n),
                "{n} {what} of 1500 at 5 % (seed {seed})"
            );
        }
        // The pcap's tap sees frames as sent: the first one, lost, is there unflipped.
        assert_eq!(w.frames()[0].data, sent[0].0);
    }

    #[test]
    fn pcap_holds_both_directions_in_wire_order() {
        let mut link = Link::new(Config::default(), 3);
        // A sends a 64-byte frame over cycles 0..=7, B a 10-byte one at cycles 3 and 8: A's
        // ends first.
        let a = beats(&[0xAA; 64], 8, false);
        let b = beats(&[0xBB; 10], 8, false);
        for c in 0..20usize {
            let b_tx = match c {
                3 => Some(&b[0]),
                8 => Some(&b[1]),
                _ => None,
            };
            link.a_to_b.accepted(a.get(c), true);
            link.b_to_a.accepted(b_tx, true);
        }
        assert!(link.idle());
        let order: Vec<(Dir, usize)> = link
            .frames()
            .iter()
            .map(|f| (f.dir, f.data.len()))
            .collect();
        assert_eq!(order, [(Dir::AtoB, 64), (Dir::BtoA, 10)]);
        let file = link.write_pcap(Vec::new(), 125).unwrap();
        let r = PcapReader::new(&file).unwrap();
        let recs: Vec<Vec<u8>> = r.records().map(|x| x.unwrap().data.to_vec()).collect();
        assert_eq!(recs, [vec![0xAA; 64], vec![0xBB; 10]]);
    }
}
