//! Rings of 2^k entries, free-running indices, the completion phase bit and the doorbell rule.
//!
//! Indices are `u32` and count without bound, wrapping at 2^32; the slot of index `i` is
//! `i mod 2^k`. Because 2^32 is a multiple of every ring size (k ≤ 16), the slot and the phase
//! stay right across the wrap, and `producer - consumer` (wrapping) is the number of entries in
//! use.
//!
//! Doorbells: software writes the index it has produced up to. The engine keeps the `max`, in
//! ring order from its consumer, of what it has and what was written: a write at or behind what
//! it already has (repeated, reordered or stale) changes nothing, a write up to `2^k` entries
//! ahead of the consumer moves the producer there, and a write further ahead is reported as an
//! error and changes nothing (it is never taken as a wrap). "Behind" means within 2^31 below the
//! consumer, "ahead" within 2^31 above it; the two halves of the index space never overlap.

use core::fmt;

/// A ring of `2^log2` entries, `log2` ≤ [`Ring::MAX_LOG2`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ring {
    log2: u32,
}

impl Ring {
    /// The largest ring: 2^16 entries.
    pub const MAX_LOG2: u32 = 16;

    /// A ring of `2^log2` entries, `None` past [`Ring::MAX_LOG2`].
    pub const fn new(log2: u32) -> Option<Ring> {
        if log2 <= Self::MAX_LOG2 {
            Some(Ring { log2 })
        } else {
            None
        }
    }

    /// log2 of the entries.
    pub const fn log2(self) -> u32 {
        self.log2
    }

    /// Entries.
    pub const fn entries(self) -> u32 {
        1 << self.log2
    }

    /// The slot of index `i`.
    pub const fn slot(self, i: u32) -> u32 {
        i & (self.entries() - 1)
    }

    /// The owner/phase bit the engine writes into the completion at index `i`: 1 on laps 0, 2,
    /// 4, … and 0 on odd laps. Software zeroes the ring before use and the indices start at a
    /// multiple of 2^(k+1) ([`CompletionRing::new`]), so an entry is new exactly when its bit
    /// equals `phase(consumer)`.
    pub const fn phase(self, i: u32) -> bool {
        (i >> self.log2) & 1 == 0
    }

    /// Entries in use between `consumer` and `producer`, `None` when they are more than the
    /// ring apart (or the producer is behind).
    pub const fn used(self, producer: u32, consumer: u32) -> Option<u32> {
        let d = producer.wrapping_sub(consumer);
        if d <= self.entries() {
            Some(d)
        } else {
            None
        }
    }

    /// The ring order of a written index `value` against `base` (the consumer) and `top`
    /// (what the engine has, `base..=base + 2^k`): `Ok(Some(new))` to advance, `Ok(None)` for a
    /// write that changes nothing, `Err` for a write past `base + 2^k`.
    fn advance(self, base: u32, top: u32, value: u32) -> Result<Option<u32>, DoorbellError> {
        let ahead = value.wrapping_sub(base);
        let have = top.wrapping_sub(base);
        if ahead > i32::MAX as u32 || ahead <= have {
            Ok(None)
        } else if ahead > self.entries() {
            Err(DoorbellError::TooFarAhead {
                written: value,
                base,
                entries: self.entries(),
            })
        } else {
            Ok(Some(value))
        }
    }
}

/// A doorbell write the engine rejects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DoorbellError {
    /// `written` is more than `entries` ahead of `base` (the send queue's consumer, or for a
    /// completion ring's consumer doorbell, ahead of the engine's producer).
    TooFarAhead {
        /// The index written.
        written: u32,
        /// The index it was measured from.
        base: u32,
        /// How far ahead is allowed.
        entries: u32,
    },
}

impl fmt::Display for DoorbellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DoorbellError::TooFarAhead {
                written,
                base,
                entries,
            } => write!(
                f,
                "doorbell index {written} is more than {entries} entries ahead of {base}"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for DoorbellError {}

/// The engine's view of a send ring: software produces, the engine consumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Doorbell {
    ring: Ring,
    producer: u32,
    consumer: u32,
}

impl Doorbell {
    /// An empty ring whose indices start at `start` (0 after a QP reset).
    pub const fn new(ring: Ring, start: u32) -> Doorbell {
        Doorbell {
            ring,
            producer: start,
            consumer: start,
        }
    }

    /// The ring.
    pub const fn ring(&self) -> Ring {
        self.ring
    }

    /// The producer index the engine has taken.
    pub const fn producer(&self) -> u32 {
        self.producer
    }

    /// The next index the engine reads.
    pub const fn consumer(&self) -> u32 {
        self.consumer
    }

    /// WQEs posted and not yet taken.
    pub const fn pending(&self) -> u32 {
        self.producer.wrapping_sub(self.consumer)
    }

    /// A doorbell write of producer index `value`: how many WQEs it adds (0 for a repeated or
    /// stale write), or the error for one more than the ring ahead of the consumer.
    pub fn write(&mut self, value: u32) -> Result<u32, DoorbellError> {
        match self.ring.advance(self.consumer, self.producer, value)? {
            Some(p) => {
                let added = p.wrapping_sub(self.producer);
                self.producer = p;
                Ok(added)
            }
            None => Ok(0),
        }
    }

    /// Takes the next posted WQE: its index, `None` when none is pending.
    pub fn take(&mut self) -> Option<u32> {
        if self.pending() == 0 {
            return None;
        }
        let i = self.consumer;
        self.consumer = i.wrapping_add(1);
        Some(i)
    }
}

/// The engine's view of a completion ring: the engine produces, software consumes and writes
/// its consumer index back through a doorbell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompletionRing {
    ring: Ring,
    producer: u32,
    consumer: u32,
}

impl CompletionRing {
    /// An empty ring whose indices start at `start`, which must be at the first slot of an
    /// even lap (a multiple of 2^(k+1); 0 after a reset): software initialises every owner byte
    /// to 0, and only then does an entry not yet written read as old at every index from
    /// `start` on. `None` for any other start.
    pub const fn new(ring: Ring, start: u32) -> Option<CompletionRing> {
        if start & ((ring.entries() << 1) - 1) != 0 {
            return None;
        }
        Some(CompletionRing {
            ring,
            producer: start,
            consumer: start,
        })
    }

    /// The ring.
    pub const fn ring(&self) -> Ring {
        self.ring
    }

    /// The next index the engine writes.
    pub const fn producer(&self) -> u32 {
        self.producer
    }

    /// The consumer index software has reported.
    pub const fn consumer(&self) -> u32 {
        self.consumer
    }

    /// Completions written and not yet reported consumed.
    pub const fn used(&self) -> u32 {
        self.producer.wrapping_sub(self.consumer)
    }

    /// Claims the next entry: its index and the phase bit to write, `None` when the ring is
    /// full (the engine waits; it never overwrites an unconsumed completion).
    pub fn push(&mut self) -> Option<(u32, bool)> {
        if self.used() >= self.ring.entries() {
            return None;
        }
        let i = self.producer;
        self.producer = i.wrapping_add(1);
        Some((i, self.ring.phase(i)))
    }

    /// A consumer doorbell write: how many entries it frees (0 when repeated or stale), or the
    /// error for an index past the producer.
    pub fn write_consumer(&mut self, value: u32) -> Result<u32, DoorbellError> {
        // The same rule as the send doorbell from the other side: up to 2^31 − 1 past the
        // producer is an error, a new consumer in consumer..=producer moves, the rest is stale.
        let past = value.wrapping_sub(self.producer);
        if past != 0 && past <= i32::MAX as u32 {
            return Err(DoorbellError::TooFarAhead {
                written: value,
                base: self.producer,
                entries: 0,
            });
        }
        let ahead = value.wrapping_sub(self.consumer);
        if ahead == 0 || ahead > self.used() {
            return Ok(0);
        }
        self.consumer = value;
        Ok(ahead)
    }
}

/// Where a send ring's WQEs lie in host memory: 2^k slots of a fixed stride of 2^s blocks
/// (s ≤ 4, so a slot holds the largest WQE at s = 4). A WQE's `BLOCKS` may be fewer than the
/// stride, never more, so a WQE never wraps past the ring's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendRing {
    ring: Ring,
    stride_log2: u32,
    base: u64,
}

impl SendRing {
    /// The largest stride: 2^4 = 16 blocks.
    pub const MAX_STRIDE_LOG2: u32 = 4;

    /// A ring at host address `base`; `None` when the stride is past 16 blocks, `base` is not
    /// 64-byte aligned, or the ring would run past the end of the 64-bit address space.
    pub fn new(ring: Ring, stride_log2: u32, base: u64) -> Option<SendRing> {
        if stride_log2 > Self::MAX_STRIDE_LOG2 || !base.is_multiple_of(super::BLOCK_BYTES as u64) {
            return None;
        }
        let r = SendRing {
            ring,
            stride_log2,
            base,
        };
        // The last byte must be addressable: base + bytes − 1 ≤ u64::MAX.
        base.checked_add(r.bytes() - 1)?;
        Some(r)
    }

    /// The ring.
    pub const fn ring(&self) -> Ring {
        self.ring
    }

    /// Blocks per slot.
    pub const fn stride_blocks(&self) -> u32 {
        1 << self.stride_log2
    }

    /// Bytes of the whole ring (at most 2^16 × 1 KiB).
    pub const fn bytes(&self) -> u64 {
        (self.ring.entries() as u64) << (self.stride_log2 + 6)
    }

    /// The host address of the WQE at index `i` (inside the ring, which `new` checked).
    pub const fn addr(&self, i: u32) -> u64 {
        self.base + ((self.ring.slot(i) as u64) << (self.stride_log2 + 6))
    }

    /// `BadBlocks` when a WQE's `BLOCKS` exceeds the stride.
    pub fn check(&self, control: &super::Control) -> Result<(), super::Error> {
        if u32::from(control.blocks) > self.stride_blocks() {
            return Err(super::Error::BadBlocks(control.blocks));
        }
        Ok(())
    }
}
