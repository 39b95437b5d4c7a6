//! The RSS pipeline's control (`rtl/rss/rss_pipeline.sv`; registers `model::rss::regs`,
//! docs/rss-registers.md): RSS contexts with their keys and indirection tables
//! ([`RssPipeline::set_context`], [`RssPipeline::set_hash`], [`RssPipeline::set_table`]) and
//! steering rules ([`RssPipeline::set_rule`], [`RssPipeline::disable_rule`]).
//!
//! Rules and contexts are staged and committed: the firmware writes the staging registers, then
//! `COMMIT`, then reads `STATUS` until `BUSY` clears. The pipeline applies a commit between two
//! packets, so each packet sees the whole old or the whole new rule or context. A context's
//! indirection table has two banks: the firmware writes the bank the context does not use and
//! then commits the context with that bank, so a table changes at run time without a packet
//! seeing half of it. The block's context registers are write-only as far as their effect goes
//! (a commit takes the whole staged context), so the firmware keeps each context's function,
//! fields, key, size and bank.

mod context;
mod rule;

pub use context::{key_min_len, ContextConfig, HASH_FIELDS, SYMMETRIC_KEY};

use crate::bus::{caps_count, identify, poll};
use crate::{Bus, Error, DEFAULT_POLLS};
use rocenic_model::rss::regs::{self, caps, status, ContextRegs, Write32, KEY_BYTES};
use rocenic_model::rss::{Function, HashFields};

/// What the block was built with (`CAPS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Steering rules.
    pub rules: u32,
    /// RSS contexts.
    pub contexts: u32,
    /// log2 of the largest indirection table.
    pub table_log2: u32,
    /// Bits of a queue number.
    pub queue_w: u32,
}

impl Caps {
    /// The fields of a `CAPS` word.
    pub const fn from_word(w: u32) -> Caps {
        Caps {
            rules: caps::RULES.get(w),
            contexts: caps_count(caps::CONTEXTS.get(w)),
            table_log2: caps::TABLE_LOG2.get(w),
            queue_w: caps::QUEUE_W.get(w),
        }
    }
}

/// The reset state of a context: Toeplitz over no field with a zero key, a one-entry table in
/// bank 0 (every packet it takes goes to queue 0).
const RESET_CONTEXT: ContextRegs = ContextRegs {
    function: Function::Toeplitz,
    fields: HashFields::NONE,
    key: [0; KEY_BYTES],
    table_log2: 0,
    bank: 0,
};

/// The RSS pipeline's control over bus `B`, keeping up to `CONTEXTS` contexts (a block with
/// more is used up to `CONTEXTS`).
pub struct RssPipeline<B: Bus, const CONTEXTS: usize = 4> {
    bus: B,
    caps: Caps,
    polls: u32,
    contexts: [ContextRegs; CONTEXTS],
}

impl<B: Bus, const CONTEXTS: usize> RssPipeline<B, CONTEXTS> {
    /// Checks `ID` and reads `CAPS`. The block must be out of reset (every context as reset
    /// leaves it).
    pub fn open(mut bus: B) -> Result<Self, Error> {
        identify(&mut bus, regs::ID, regs::ID_VALUE)?;
        let caps = Caps::from_word(bus.read(regs::CAPS)?);
        Ok(RssPipeline {
            bus,
            caps,
            polls: DEFAULT_POLLS,
            contexts: [RESET_CONTEXT; CONTEXTS],
        })
    }

    /// The block's parameters.
    pub fn caps(&self) -> Caps {
        self.caps
    }

    /// Contexts in use: the block's, up to `CONTEXTS`.
    pub fn contexts(&self) -> usize {
        CONTEXTS.min(self.caps.contexts as usize)
    }

    /// Context `index` as committed (function, fields, key, table size and bank).
    pub fn context(&self, index: usize) -> Option<&ContextRegs> {
        self.contexts[..self.contexts()].get(index)
    }

    crate::bus::block_access!();

    /// Packets parsed since reset (wraps).
    pub fn packets(&mut self) -> Result<u32, Error> {
        Ok(self.bus.read(regs::PACKETS)?)
    }

    /// Writes a `COMMIT` (an encoder's write) and waits until the pipeline applied it.
    fn commit(&mut self, (addr, word): Write32) -> Result<(), Error> {
        self.bus.write(addr, word)?;
        poll(&mut self.bus, regs::STATUS, self.polls, |s| {
            status::BUSY.get(s) == 0
        })?;
        Ok(())
    }

    fn check_queue(&self, queue: u16) -> Result<(), Error> {
        if u32::from(queue) >> self.caps.queue_w.min(16) != 0 {
            return Err(Error::QueueTooWide {
                queue,
                width: self.caps.queue_w,
            });
        }
        Ok(())
    }

    fn check_context(&self, index: usize) -> Result<(), Error> {
        if index >= self.contexts() {
            return Err(Error::ContextIndex {
                index,
                contexts: self.contexts(),
            });
        }
        Ok(())
    }
}
