//! A whole WQE: its blocks read as one byte string, the segments in a fixed order, and the
//! encoder that lays a work request out.
//!
//! Order: control (32 bytes), then the address vector when `AV` = 1 (48), then the remote
//! address when the opcode is an RDMA WRITE (16), then for TSO the header template (`HDR_LEN`
//! bytes, padded to 16), then either `NSGE` data segments (16 each) or `INLINE_LEN` bytes of
//! inline data, packed. Every segment starts on a 16-byte boundary; the
//! WQE's blocks are consecutive in host memory (one ring slot), so a segment or the inline data
//! simply continues into the next block. The bytes after the last segment up to the end of the
//! last block are padding: the engine ignores them and the encoder writes them as zero.

use super::{AddressVector, Control, DataSegment, Error, Flags, Opcode, RemoteAddress};
use super::{AV_BYTES, BLOCK_BYTES, DATA_BYTES, MAX_BLOCKS, RADDR_BYTES};

/// Where the segments of a WQE start, from its control segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WqeLayout {
    /// Offset of the address vector, if any.
    pub av: Option<usize>,
    /// Offset of the remote-address segment, if any.
    pub raddr: Option<usize>,
    /// Offset of the TSO header template, if any.
    pub header: Option<usize>,
    /// Offset of the first data segment or of the inline data.
    pub data: usize,
    /// End of the last segment or of the inline data.
    pub end: usize,
}

/// What a WQE sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload<'a> {
    /// A gather list.
    Gather(&'a [DataSegment]),
    /// Bytes copied into the WQE (sets INLINE).
    Inline(&'a [u8]),
}

/// What a TSO work request adds: the header template and the segment size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tso<'a> {
    /// Payload bytes per segment.
    pub mss: u16,
    /// The link, IP and TCP headers every segment starts with (verbs `hdr`, `hdr_sz`).
    pub header: &'a [u8],
}

/// A work request in the terms of the format, for [`Wqe::encode`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkRequest<'a> {
    /// The operation.
    pub opcode: Opcode,
    /// Flags; INLINE is taken from the payload.
    pub flags: Flags,
    /// The producer index the WQE is posted at.
    pub index: u32,
    /// Immediate (0 unless the opcode has one).
    pub imm: u32,
    /// The caller's id.
    pub wr_id: u64,
    /// UD destination.
    pub av: Option<AddressVector>,
    /// RDMA WRITE destination (required exactly for the WRITE opcodes).
    pub raddr: Option<RemoteAddress>,
    /// Gather list or inline bytes.
    pub payload: Payload<'a>,
    /// TSO's header and segment size (required exactly for [`Opcode::Tso`]).
    pub tso: Option<Tso<'a>>,
}

/// A decoded, checked WQE over its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wqe<'a> {
    // Private: the accessors index `bytes` by `layout`, which `decode` has checked.
    control: Control,
    layout: WqeLayout,
    bytes: &'a [u8],
}

fn short(need: usize, have: usize) -> Error {
    Error::Short { need, have }
}

impl<'a> Wqe<'a> {
    /// Checks the WQE at the start of `bytes` (at least its `BLOCKS` × 64 bytes).
    pub fn decode(bytes: &'a [u8]) -> Result<Wqe<'a>, Error> {
        let first: &[u8; BLOCK_BYTES] = bytes
            .get(..BLOCK_BYTES)
            .and_then(|b| b.try_into().ok())
            .ok_or(short(BLOCK_BYTES, bytes.len()))?;
        let control = Control::decode(first)?;
        let layout = control.layout()?;
        let len = usize::from(control.blocks) * BLOCK_BYTES;
        let bytes = bytes.get(..len).ok_or(short(len, bytes.len()))?;
        let wqe = Wqe {
            control,
            layout,
            bytes,
        };
        if let Some(at) = layout.av {
            AddressVector::decode(arr(bytes, at))?;
        }
        if let Some(at) = layout.raddr {
            RemoteAddress::decode(arr(bytes, at))?;
        }
        Ok(wqe)
    }

    /// The control segment.
    pub fn control(&self) -> Control {
        self.control
    }

    /// Where its segments lie.
    pub fn layout(&self) -> WqeLayout {
        self.layout
    }

    /// The address vector, when `AV` = 1.
    pub fn av(&self) -> Option<AddressVector> {
        let at = self.layout.av?;
        AddressVector::decode(arr(self.bytes, at)).ok()
    }

    /// The remote address, for the RDMA WRITE opcodes.
    pub fn raddr(&self) -> Option<RemoteAddress> {
        let at = self.layout.raddr?;
        RemoteAddress::decode(arr(self.bytes, at)).ok()
    }

    /// The TSO header template (empty for other opcodes).
    pub fn header(&self) -> &'a [u8] {
        match self.layout.header {
            Some(at) => &self.bytes[at..at + usize::from(self.control.hdr_len)],
            None => &[],
        }
    }

    /// Data segment `i`, `None` past `NSGE`.
    pub fn sge(&self, i: usize) -> Option<DataSegment> {
        if i >= usize::from(self.control.nsge) {
            return None;
        }
        Some(DataSegment::decode(arr(
            self.bytes,
            self.layout.data + i * DATA_BYTES,
        )))
    }

    /// The inline bytes (empty without INLINE).
    pub fn inline(&self) -> &'a [u8] {
        let at = self.layout.data;
        let len = usize::from(self.control.inline_len);
        &self.bytes[at..at + len]
    }

    /// The payload: bytes in the sum of the data segments' lengths (in u64: 255 × u32::MAX
    /// fits) or the inline length.
    pub fn payload_len(&self) -> u64 {
        if self.control.flags.contains(Flags::INLINE) {
            u64::from(self.control.inline_len)
        } else {
            (0..usize::from(self.control.nsge))
                .filter_map(|i| self.sge(i))
                .map(|s| u64::from(s.length))
                .sum()
        }
    }

    /// Lays `wr` out at the start of `out` in as few blocks as hold it, zero padding included,
    /// and returns its control segment (its `BLOCKS` says how many bytes were written).
    pub fn encode(wr: &WorkRequest<'_>, out: &mut [u8]) -> Result<Control, Error> {
        if wr.opcode.has_raddr() != wr.raddr.is_some() {
            return Err(Error::RaddrMismatch);
        }
        if (wr.opcode == Opcode::Tso) != wr.tso.is_some() {
            return Err(Error::TsoMismatch);
        }
        let (mss, header) = wr.tso.map_or((0, &[][..]), |t| (t.mss, t.header));
        let hdr_len = u16::try_from(header.len()).map_err(|_| too_many(header.len()))?;
        let (nsge, inline_len, flags) = match wr.payload {
            Payload::Gather(s) => (
                u8::try_from(s.len()).map_err(|_| too_many(s.len().saturating_mul(DATA_BYTES)))?,
                0,
                Flags(wr.flags.0 & !Flags::INLINE.0),
            ),
            Payload::Inline(d) => (
                0,
                u16::try_from(d.len()).map_err(|_| too_many(d.len()))?,
                wr.flags.union(Flags::INLINE),
            ),
        };
        let need = super::CONTROL_BYTES
            + usize::from(wr.av.is_some()) * AV_BYTES
            + usize::from(wr.raddr.is_some()) * RADDR_BYTES
            + super::segments::header_area(header.len())
            + usize::from(nsge) * DATA_BYTES
            + usize::from(inline_len);
        let blocks = need.div_ceil(BLOCK_BYTES);
        if blocks > MAX_BLOCKS {
            return Err(too_many_total(need));
        }
        let len = blocks * BLOCK_BYTES;
        let have = out.len();
        let out = out.get_mut(..len).ok_or(short(len, have))?;
        let control = Control {
            opcode: wr.opcode,
            flags,
            blocks: blocks as u8,
            nsge,
            index: wr.index,
            imm: wr.imm,
            inline_len,
            av: wr.av.is_some(),
            wr_id: wr.wr_id,
            mss,
            hdr_len,
        };
        let layout = control.layout()?;
        out.fill(0);
        control.encode(arr_mut(out, 0))?;
        if let (Some(at), Some(av)) = (layout.av, wr.av) {
            av.encode(arr_mut(out, at))?;
        }
        if let (Some(at), Some(r)) = (layout.raddr, wr.raddr) {
            r.encode(arr_mut(out, at));
        }
        if let Some(at) = layout.header {
            out[at..at + header.len()].copy_from_slice(header);
        }
        match wr.payload {
            Payload::Gather(s) => {
                for (i, seg) in s.iter().enumerate() {
                    seg.encode(arr_mut(out, layout.data + i * DATA_BYTES));
                }
            }
            Payload::Inline(d) => out[layout.data..layout.end].copy_from_slice(d),
        }
        Ok(control)
    }
}

fn too_many(payload: usize) -> Error {
    too_many_total(payload.saturating_add(super::CONTROL_BYTES))
}

fn too_many_total(need: usize) -> Error {
    Error::Overflow {
        need,
        have: super::MAX_WQE_BYTES,
    }
}

/// The `N` bytes at `at`; the layout has already checked that they lie inside `b`.
fn arr<const N: usize>(b: &[u8], at: usize) -> &[u8; N] {
    b[at..at + N].try_into().expect("inside the checked layout")
}

fn arr_mut<const N: usize>(b: &mut [u8], at: usize) -> &mut [u8; N] {
    (&mut b[at..at + N])
        .try_into()
        .expect("inside the checked layout")
}
