//! A wire between two model NICs: what one sends, the other receives, in order; every frame
//! recorded (which side sent it, at which of its turns) for a pcap. A faulty wire
//! ([`Link::pair_with`]) loses, corrupts or duplicates frames as `model::link::Faults::fate`
//! says for the seed, the direction and each frame's place in it: as the co-simulated cores'
//! wire (`sim::link`) does to the same frames.

use super::ModelDevice;
use rocenic_model::link::{Fate, Faults};
use rocenic_model::wire::{LinkType, PcapWriter};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io;
use std::rc::Rc;

/// An end of a [`Link`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The first device of [`Link::pair`].
    A,
    /// The second.
    B,
}

impl Side {
    /// The other end.
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// A frame as it went on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireFrame {
    /// The side that sent it.
    pub from: Side,
    /// The sender's turn ([`crate::Device::cycle`]) in which it left.
    pub cycle: u64,
    /// The bytes (Ethernet, no FCS).
    pub data: Vec<u8>,
}

#[derive(Default)]
struct Wire {
    /// Frames on their way, by the side that sent them.
    queues: [VecDeque<Vec<u8>>; 2],
    record: Vec<WireFrame>,
    faults: Faults,
    seed: u64,
    /// Frames sent so far by each side, and what the faults did to each.
    fates: [Vec<Fate>; 2],
}

/// Two model NICs back to back. Each device runs its own turns (a device runs when its driver
/// lets it); a frame is at the other's input from the turn after it left until that device
/// takes it. Clones are handles to the same wire.
#[derive(Clone, Default)]
pub struct Link {
    wire: Rc<RefCell<Wire>>,
}

impl Link {
    /// Two fresh devices, `a` and `b`, on one wire.
    pub fn pair() -> (ModelDevice, ModelDevice, Link) {
        Self::pair_with(Faults::NONE, 0)
    }

    /// [`Link::pair`] on a wire with `faults`, drawn from `seed`.
    ///
    /// # Panics
    /// If a fault's probability is not one.
    pub fn pair_with(faults: Faults, seed: u64) -> (ModelDevice, ModelDevice, Link) {
        assert!(faults.valid(), "{faults:?} are not probabilities");
        let link = Link::default();
        {
            let mut w = link.wire.borrow_mut();
            w.faults = faults;
            w.seed = seed;
        }
        let mut a = ModelDevice::new().named("a");
        let mut b = ModelDevice::new().named("b");
        a.attach_link(link.clone(), Side::A);
        b.attach_link(link.clone(), Side::B);
        (a, b, link)
    }

    pub(super) fn send(&self, from: Side, cycle: u64, data: Vec<u8>) {
        let mut w = self.wire.borrow_mut();
        let index = w.fates[from as usize].len() as u64;
        let fate = w.faults.fate(w.seed, from as u8, index, data.len());
        w.fates[from as usize].push(fate);
        let mut bytes = data.clone();
        fate.apply(&mut bytes);
        let copies = match fate {
            Fate::Lost => 0,
            Fate::Duplicate => 2,
            _ => 1,
        };
        for _ in 0..copies {
            w.queues[from as usize].push_back(bytes.clone());
        }
        w.record.push(WireFrame { from, cycle, data });
    }

    /// What the faults did to each frame `from` sent so far, in order.
    pub fn fates(&self, from: Side) -> Vec<Fate> {
        self.wire.borrow().fates[from as usize].clone()
    }

    /// The oldest frame `from` sent that the other side has not taken.
    pub(super) fn receive(&self, from: Side) -> Option<Vec<u8>> {
        self.wire.borrow_mut().queues[from as usize].pop_front()
    }

    /// Frames `from` sent that the other side has not taken yet.
    pub fn waiting(&self, from: Side) -> usize {
        self.wire.borrow().queues[from as usize].len()
    }

    /// Every frame so far, in the order they went on the wire.
    pub fn frames(&self) -> Vec<WireFrame> {
        self.wire.borrow().record.clone()
    }

    /// Frames `from` sent so far.
    pub fn sent(&self, from: Side) -> usize {
        self.wire
            .borrow()
            .record
            .iter()
            .filter(|f| f.from == from)
            .count()
    }

    /// Writes every frame so far as a pcap (Ethernet), in wire order, each stamped with its
    /// sender's turn as microseconds.
    pub fn write_pcap<W: io::Write>(&self, out: W) -> io::Result<W> {
        let mut pcap = PcapWriter::new(out, LinkType::Ethernet)?;
        for f in &self.wire.borrow().record {
            let ts = ((f.cycle / 1_000_000) as u32, (f.cycle % 1_000_000) as u32);
            pcap.write_record(ts, &f.data)?;
        }
        pcap.finish()
    }
}
