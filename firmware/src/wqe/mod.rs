//! The WQE engine's control plane (`rtl/wqe/wqe_ctrl.sv`; registers `model::wqe::regs`,
//! docs/wqe-registers.md): the NIC's addresses and entropy profile, the completion ring, the
//! engine's enable, status and counters here; QPs and doorbells in `qp.rs`
//! ([`WqeEngine::create_qp`], [`WqeEngine::modify_qp`], [`WqeEngine::bring_up`],
//! [`WqeEngine::destroy_qp`], [`WqeEngine::ring_doorbell`]); memory regions in `mr.rs`
//! ([`WqeEngine::register_mr`], [`WqeEngine::deregister_mr`]).
//!
//! The block runs QP and region commands from staging registers: the firmware writes the
//! staged values, then `COMMAND`, then reads `STATUS` until `BUSY` clears (the block holds
//! every further register write meanwhile) and turns `CMD_ERROR` into [`Error::Refused`].
//!
//! The registers do not read QP contexts back, so the firmware keeps what it wrote: each slot's
//! QPN, state, ring and entropy, and each region slot's lkey. It expects the block out of reset
//! when it opens it.

mod mr;
mod qp;

pub use qp::QpInfo;

use crate::bus::{caps_count, command, fits, identify, poll};
use crate::{Bus, Error, DEFAULT_POLLS};
use qp::Slot;
use rocenic_model::entropy::Profile;
use rocenic_model::rc::Reliable;
use rocenic_model::wqe::regs::{self, caps, caps2, control, rc_timing, status};
use rocenic_model::wqe::{Nic, Ring};

/// What the block was built with (`CAPS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// QP slots.
    pub qps: u32,
    /// Memory-region table entries.
    pub mrs: u32,
    /// Data segments a WQE may have.
    pub max_sge: u32,
    /// Bytes per beat of the frame output.
    pub data_bytes: u32,
    /// TSO work requests, at the segmenter's limits (`tso::Limits::default()`).
    pub tso: bool,
    /// Raw-packet QPs.
    pub raw: bool,
    /// The reliable transport on RC QPs (`CAPS2.RELIABLE`).
    pub reliable: bool,
}

impl Caps {
    /// The fields of a `CAPS` word and a `CAPS2` word.
    pub const fn from_words(w: u32, w2: u32) -> Caps {
        Caps {
            qps: caps_count(caps::QPS.get(w)),
            mrs: caps_count(caps::MRS.get(w)),
            max_sge: caps::MAX_SGE.get(w),
            // Six bits: 64 reads as 0.
            data_bytes: match caps::DATA_BYTES.get(w) {
                0 => 64,
                n => n,
            },
            tso: caps::TSO.get(w) != 0,
            raw: caps::RAW.get(w) != 0,
            reliable: caps2::RELIABLE.get(w2) != 0,
        }
    }
}

// `bus::command` reads `BUSY` and `CMD_ERROR` at these bits.
const _: () = assert!(status::BUSY.lsb == 0 && status::CMD_ERROR.lsb == 1);

/// `STATUS`, decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Status {
    /// A command is being carried out.
    pub busy: bool,
    /// The last command was refused.
    pub cmd_error: bool,
    /// A doorbell was more than a ring ahead (sticky).
    pub db_error: bool,
    /// A completion write faulted and the engine stopped (sticky).
    pub cq_fault: bool,
    /// No WQE in flight and no command pending.
    pub idle: bool,
}

impl Status {
    /// The fields of a `STATUS` word.
    pub const fn from_word(w: u32) -> Status {
        Status {
            busy: status::BUSY.get(w) != 0,
            cmd_error: status::CMD_ERROR.get(w) != 0,
            db_error: status::DB_ERROR.get(w) != 0,
            cq_fault: status::CQ_FAULT.get(w) != 0,
            idle: status::IDLE.get(w) != 0,
        }
    }
}

/// The WQE engine's control plane over bus `B`, with tables for up to `QPS` QP slots and `MRS`
/// memory-region slots. A block with more of either is refused at [`open`](Self::open), since a
/// QPN may name any QP slot (its low bits) and an lkey any region slot.
pub struct WqeEngine<B: Bus, const QPS: usize = 64, const MRS: usize = 64> {
    bus: B,
    caps: Caps,
    profile: Profile,
    enabled: bool,
    /// The reliable transport's settings, `None` when off.
    reliable: Option<Reliable>,
    polls: u32,
    slots: [Option<Slot>; QPS],
    mrs: [Option<u32>; MRS],
}

impl<B: Bus, const QPS: usize, const MRS: usize> WqeEngine<B, QPS, MRS> {
    /// Checks `ID`, reads `CAPS`, `CAPS2` and `CONTROL` (the engine's enable and profile; the
    /// transport is taken as off, as after reset).
    pub fn open(mut bus: B) -> Result<Self, Error> {
        identify(&mut bus, regs::ID, regs::ID_VALUE)?;
        let caps = Caps::from_words(bus.read(regs::CAPS)?, bus.read(regs::CAPS2)?);
        // A QPN may name any QP slot (its low bits) and an lkey any region slot.
        fits(&[
            ("QP slots", caps.qps, QPS),
            ("memory-region slots", caps.mrs, MRS),
        ])?;
        let ctrl = bus.read(regs::CONTROL)?;
        Ok(WqeEngine {
            bus,
            caps,
            profile: Profile::from_code(control::PROFILE.get(ctrl) as u8).unwrap_or_default(),
            enabled: control::ENABLE.get(ctrl) != 0,
            reliable: None,
            polls: DEFAULT_POLLS,
            slots: [None; QPS],
            mrs: [None; MRS],
        })
    }

    /// The block's parameters.
    pub fn caps(&self) -> Caps {
        self.caps
    }

    /// QP slots: the block's (`CAPS.QPS`, at most `QPS`).
    pub fn qp_slots(&self) -> usize {
        self.caps.qps as usize
    }

    /// The entropy profile.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Whether the engine serves the send queues.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    crate::bus::block_access!();

    /// Sets the NIC's addresses (the source of UD packets) and the entropy profile; the engine
    /// must be disabled. Writes `NIC_*` and `CONTROL`.
    pub fn configure(&mut self, nic: &Nic, profile: Profile) -> Result<(), Error> {
        if self.enabled {
            return Err(Error::Enabled);
        }
        let mut writes = regs::nic_writes(nic, profile, false);
        // The last write is CONTROL's: it keeps the transport as set.
        if let Some((addr, w)) = writes.last_mut() {
            debug_assert_eq!(*addr, regs::CONTROL);
            *w = regs::control_word(false, profile, self.reliable.is_some());
        }
        self.bus.write_all(&writes)?;
        self.profile = profile;
        Ok(())
    }

    /// Turns the reliable transport on RC QPs on with settings `rel`, its clock ticking every
    /// `tick` cycles (`RC_CLOCK.TICK`; 512 is 4.096 µs at 125 MHz, with `rel.scale` 1), or off
    /// with `None` (docs/wqe-reliable.md). The engine must be disabled, and no RC QP created
    /// yet: each takes the settings at its `QP_WRITE`. Refused: an engine without the transport
    /// (`CAPS2.RELIABLE`), and settings `RC_TIMING` and `RC_CLOCK` cannot hold.
    pub fn set_reliable(&mut self, rel: Option<Reliable>, tick: u16) -> Result<(), Error> {
        if self.enabled {
            return Err(Error::Enabled);
        }
        if let Some(r) = &rel {
            if !self.caps.reliable {
                return Err(Error::NoReliable);
            }
            let fits = u32::from(r.timeout) <= rc_timing::TIMEOUT.max_value()
                && u32::from(r.retry_cnt) <= rc_timing::RETRY_CNT.max_value()
                && u32::from(r.rnr_retry) <= rc_timing::RNR_RETRY.max_value()
                && (1..=rc_timing::MAX_INFLIGHT.max_value()).contains(&r.max_inflight)
                && (1..=0xFFFF).contains(&r.scale.0)
                && tick != 0;
            if !fits {
                return Err(Error::ReliableSettings(*r, tick));
            }
        }
        self.bus.write_all(&regs::reliable_writes(
            rel.as_ref(),
            tick,
            self.profile,
            false,
        ))?;
        self.reliable = rel;
        Ok(())
    }

    /// The reliable transport's settings, `None` when off.
    pub fn reliable(&self) -> Option<Reliable> {
        self.reliable
    }

    /// Places the completion ring: 2^`log2` CQEs of 32 bytes at `base` (32-byte aligned), its
    /// indices restarting at 0. The engine must be disabled, and software must have zeroed the
    /// ring (docs/wqe.md, "Rings and indices").
    pub fn set_completion_ring(&mut self, base: u64, log2: u32) -> Result<(), Error> {
        let ring = Ring::new(log2).ok_or(Error::RingSize(log2))?;
        let align = rocenic_model::wqe::CQE_BYTES as u64;
        if !base.is_multiple_of(align) {
            return Err(Error::Misaligned { addr: base, align });
        }
        let bytes = u64::from(ring.entries()) * align;
        if base.checked_add(bytes - 1).is_none() {
            return Err(Error::RingPastEnd { base, bytes });
        }
        if self.enabled {
            return Err(Error::Enabled);
        }
        self.bus.write_all(&regs::cq_writes(base, log2))?;
        Ok(())
    }

    /// Starts serving the send queues.
    pub fn enable(&mut self) -> Result<(), Error> {
        self.set_enable(true)
    }

    /// Stops starting WQEs (those in flight finish).
    pub fn disable(&mut self) -> Result<(), Error> {
        self.set_enable(false)
    }

    fn set_enable(&mut self, on: bool) -> Result<(), Error> {
        let word = regs::control_word(on, self.profile, self.reliable.is_some());
        self.bus.write(regs::CONTROL, word)?;
        self.enabled = on;
        Ok(())
    }

    /// Releases the completions before index `consumer` (the completion ring's doorbell).
    pub fn release_completions(&mut self, consumer: u32) -> Result<(), Error> {
        Ok(self.bus.write(regs::CQ_CONSUMER, consumer)?)
    }

    /// The index of the next completion the engine writes.
    pub fn cq_producer(&mut self) -> Result<u32, Error> {
        Ok(self.bus.read(regs::CQ_PRODUCER)?)
    }

    /// WQEs completed since reset (wraps).
    pub fn wqes(&mut self) -> Result<u32, Error> {
        Ok(self.bus.read(regs::WQES)?)
    }

    /// Frames sent since reset (wraps).
    pub fn frames(&mut self) -> Result<u32, Error> {
        Ok(self.bus.read(regs::FRAMES)?)
    }

    /// `STATUS`.
    pub fn status(&mut self) -> Result<Status, Error> {
        Ok(Status::from_word(self.bus.read(regs::STATUS)?))
    }

    /// Clears the sticky `DB_ERROR` and `CQ_FAULT` (after a fault, the engine starts again).
    pub fn clear_errors(&mut self) -> Result<(), Error> {
        let ones = status::DB_ERROR.put(1) | status::CQ_FAULT.put(1);
        Ok(self.bus.write(regs::STATUS, ones)?)
    }

    /// Waits until no WQE is in flight and no command is pending (`STATUS.IDLE`).
    pub fn wait_idle(&mut self) -> Result<Status, Error> {
        let w = poll(&mut self.bus, regs::STATUS, self.polls, |s| {
            status::IDLE.get(s) != 0
        })?;
        Ok(Status::from_word(w))
    }

    /// Writes a `COMMAND` (an encoder's write) and waits for it: [`Error::Refused`] when the
    /// block refused it.
    fn command(&mut self, write: regs::Write32) -> Result<(), Error> {
        command(&mut self.bus, regs::STATUS, self.polls, write)
    }
}
