//! The memory-region check (`rtl/wqe/wqe_mr.sv`) on its ports: table writes, lookups and their
//! answers, one clock at a time, and the model's table kept as the RTL holds it ([`Mirror`]),
//! whose [`MrTable::check`] every answer is compared with.

use crate::duts::{WqeMr, WqeMrPorts};
use crate::harness::Sim;
use rocenic_model::qp::{mr_slot, Access, MemoryRegion, MrTable, Status};
use std::fmt;

/// Clocks from a lookup's acceptance to its answer when nothing waits (the RTL's pipeline; the
/// tests hold it to this).
pub const LATENCY: u64 = 7;

/// The lowest lkey bit of the slot index (the RTL's `MR_IDX_LSB`, as the DUTs are built).
pub const IDX_LSB: u32 = 8;

/// Regions the mirror's model table can hold: the largest DUT's table.
pub const MAX_MRS: usize = 64;

/// One table write: `region` into `slot`, or (`None`) the slot freed.
///
/// A free drives `wr_slot` and `wr_valid` only. The region is written as it is, including ranges the model refuses to register (length 0,
/// past 2^64) and a slot other than its lkey's: [`Mirror::apply`] says what the RTL makes of
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableWrite {
    /// The slot written.
    pub slot: u32,
    /// What it holds from then on.
    pub region: Option<MemoryRegion>,
}

/// One lookup, as the request port carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lookup {
    /// The gather entry's lkey.
    pub lkey: u32,
    /// The QP's protection domain.
    pub pd: u32,
    /// First byte.
    pub addr: u64,
    /// Bytes.
    pub len: u32,
    /// Rights needed.
    pub access: Access,
    /// Carried to the answer.
    pub tag: u8,
}

/// One answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The check's outcome.
    pub status: Status,
    /// The lookup's tag.
    pub tag: u8,
}

/// What one clock did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// The offered lookup was accepted.
    pub accepted: bool,
    /// The answer taken in this clock (ready was high).
    pub answer: Option<Answer>,
}

/// A broken port rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protocol {
    /// The clock it was seen in.
    pub cycle: u64,
    /// What happened.
    pub what: String,
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cycle {}: {}", self.cycle, self.what)
    }
}

impl std::error::Error for Protocol {}

/// The co-simulated check (by default the 64-slot build).
pub struct MrRtl<D: WqeMrPorts = WqeMr> {
    sim: Sim<D>,
    /// The answer offered last clock and not taken: it must stay, unchanged.
    held: Option<(u8, u8)>,
}

impl<D: WqeMrPorts> MrRtl<D> {
    /// A check out of reset, every slot free; `run` names its VCD when `ROCENIC_VCD` is set.
    pub fn new(run: &str) -> Self {
        let mut sim: Sim<D> = Sim::new(run);
        sim.dut.set_wr_en(false);
        sim.dut.set_s_req_valid(false);
        sim.dut.set_m_res_ready(false);
        sim.reset(4);
        MrRtl { sim, held: None }
    }

    /// Slots in the table (`MRS`).
    pub fn slots(&self) -> u32 {
        1 << D::WR_SLOT_BITS
    }

    /// The simulation, for tests that drive the ports themselves.
    pub fn sim(&mut self) -> &mut Sim<D> {
        &mut self.sim
    }

    /// Holds reset for a few clocks (every slot freed, nothing in flight).
    pub fn reset(&mut self) {
        self.sim.dut.set_wr_en(false);
        self.sim.dut.set_s_req_valid(false);
        self.sim.reset(4);
        self.held = None;
    }

    /// One clock: `write` on the table port (`None`: `wr_en` low), `lookup` offered (`None`:
    /// `s_req_valid` low; once offered, a lookup must be offered again until accepted), and the
    /// answer's `ready`. Checks that no output follows an input in the same clock and that an
    /// answer not taken stays, unchanged.
    pub fn cycle(
        &mut self,
        write: Option<&TableWrite>,
        lookup: Option<&Lookup>,
        ready: bool,
    ) -> Result<Clock, Protocol> {
        let cycle = self.sim.cycle();
        let err = |what: String| Protocol { cycle, what };
        let outputs = |d: &D| {
            (
                d.s_req_ready(),
                d.m_res_valid(),
                d.m_res_status(),
                d.m_res_tag(),
            )
        };
        let before = outputs(&self.sim.dut);
        let dut = &mut self.sim.dut;
        dut.set_wr_en(write.is_some());
        if let Some(w) = write {
            dut.set_wr_slot(w.slot as u8);
            dut.set_wr_valid(w.region.is_some());
        }
        // A free drives the slot alone: the region's fields keep the last write's, as staging
        // registers would; the RTL must not take them for a freed slot.
        if let Some(r) = write.and_then(|w| w.region) {
            dut.set_wr_lkey(r.lkey);
            dut.set_wr_base(r.base);
            dut.set_wr_length(r.length);
            dut.set_wr_pd(r.pd);
            dut.set_wr_access(r.access.bits() as u8);
        }
        dut.set_s_req_valid(lookup.is_some());
        if let Some(l) = lookup {
            dut.set_s_req_lkey(l.lkey);
            dut.set_s_req_pd(l.pd);
            dut.set_s_req_addr(l.addr);
            dut.set_s_req_len(l.len);
            dut.set_s_req_access(l.access.bits() as u8);
            dut.set_s_req_tag(l.tag);
        }
        dut.set_m_res_ready(ready);
        self.sim.settle();
        let (s_ready, m_valid, status, tag) = outputs(&self.sim.dut);
        if (s_ready, m_valid, status, tag) != before {
            return Err(err(format!(
                "outputs moved with the inputs, before the clock: {before:?} -> {:?}",
                (s_ready, m_valid, status, tag)
            )));
        }
        if let Some(h) = self.held {
            if !m_valid || (status, tag) != h {
                return Err(err(format!(
                    "answer {h:?} withdrawn or changed while not taken: valid {m_valid}, \
                     ({status}, {tag})"
                )));
            }
        }
        let answer = if m_valid && ready {
            let status = Status::from_code(status)
                .ok_or_else(|| err(format!("status code {status} is no status")))?;
            Some(Answer { status, tag })
        } else {
            None
        };
        self.held = (m_valid && !ready).then_some((status, tag));
        let accepted = lookup.is_some() && s_ready;
        self.sim.step();
        Ok(Clock { accepted, answer })
    }
}

/// The model's view of the RTL's table: which region each slot holds, and an [`MrTable`] of
/// those a lookup can find, so that its [`MrTable::check`] is the RTL's expected answer.
#[derive(Clone, Debug)]
pub struct Mirror {
    /// Per slot: the region written there, and whether the model table holds it.
    slots: Vec<Option<(MemoryRegion, bool)>>,
    table: MrTable<MAX_MRS>,
}

impl Mirror {
    /// An empty table of `slots` slots (at most [`MAX_MRS`]).
    pub fn new(slots: u32) -> Self {
        assert!(slots as usize <= MAX_MRS, "a mirror holds {MAX_MRS} slots");
        Mirror {
            slots: vec![None; slots as usize],
            table: MrTable::new(),
        }
    }

    /// Slots in the table.
    pub fn slots(&self) -> u32 {
        self.slots.len() as u32
    }

    /// The slot of `lkey`.
    pub fn slot_of(&self, lkey: u32) -> u32 {
        mr_slot(lkey, self.slots(), IDX_LSB)
    }

    /// What `slot` holds (as written).
    pub fn get(&self, slot: u32) -> Option<&MemoryRegion> {
        self.slots[slot as usize].as_ref().map(|(r, _)| r)
    }

    /// Regions the model table holds.
    pub fn findable(&self) -> usize {
        self.table.len()
    }

    /// The write, as the RTL takes it: the slot's old region goes; the new one is found by its
    /// lkey only in its own lkey's slot; a length of 0 finds nothing; a region past 2^64 is cut
    /// there (the model's [`MrTable::register`] refuses both, the RTL stays safe).
    pub fn apply(&mut self, w: &TableWrite) {
        let slot = w.slot as usize;
        if let Some((old, true)) = self.slots[slot] {
            self.table
                .deregister(old.lkey)
                .expect("a findable region is in the model table");
        }
        self.slots[slot] = w.region.map(|r| {
            let mut found = r;
            // Past 2^64: keep the bytes up to 2^64 (base > 0 there, so this is 2^64 - base).
            if r.length > 0 && r.length - 1 > u64::MAX - r.base {
                found.length = r.base.wrapping_neg();
            }
            let findable = self.slot_of(r.lkey) == w.slot && found.length > 0;
            if findable {
                self.table
                    .register(found)
                    .expect("one findable region per slot, each in its own lkey's slot");
            }
            (r, findable)
        });
    }

    /// Every slot freed (the RTL's reset).
    pub fn clear(&mut self) {
        *self = Mirror::new(self.slots());
    }

    /// The model's answer to `l`.
    pub fn check(&self, l: &Lookup) -> Answer {
        let status = match self
            .table
            .check(l.lkey, l.pd, l.addr, u64::from(l.len), l.access)
        {
            Ok(()) => Status::Success,
            Err(s) => s,
        };
        Answer { status, tag: l.tag }
    }
}
