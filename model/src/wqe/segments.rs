//! Codecs of the fixed-size segments: control, UD address vector, remote address, data.

use super::layout::{av, control as c, data, raddr, SegField};
use super::view::WqeLayout;
use super::{get_u16, get_u32, get_u64, zero, Error, Flags, Opcode};
use super::{AV_BYTES, BLOCK_BYTES, CONTROL_BYTES, DATA_BYTES, MAX_BLOCKS, RADDR_BYTES};

pub(crate) fn put(b: &mut [u8], f: SegField, v: u64) {
    let bytes = v.to_le_bytes();
    b[f.offset..f.offset + f.bytes].copy_from_slice(&bytes[..f.bytes]);
}

/// `v` fits the low `f.bits` bits.
pub(crate) fn fits(f: SegField, v: u64) -> bool {
    f.bits >= 64 || v >> f.bits == 0
}

/// The control segment (bytes 0..32 of a WQE's first block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Control {
    /// The operation.
    pub opcode: Opcode,
    /// Send flags.
    pub flags: Flags,
    /// 64-byte blocks of the WQE, 1..=[`MAX_BLOCKS`].
    pub blocks: u8,
    /// Data segments (0 with INLINE).
    pub nsge: u8,
    /// The producer index this WQE was posted at.
    pub index: u32,
    /// Immediate data; 0 unless the opcode carries one.
    pub imm: u32,
    /// Inline bytes; 0 unless INLINE.
    pub inline_len: u16,
    /// A UD address-vector segment follows.
    pub av: bool,
    /// The caller's work-request id.
    pub wr_id: u64,
    /// TSO: payload bytes per segment; 0 for other opcodes.
    pub mss: u16,
    /// TSO: bytes of the header template; 0 for other opcodes.
    pub hdr_len: u16,
}

/// Bytes a TSO header template of `len` bytes takes in the WQE: padded to 16, so the data
/// segments after it stay aligned.
pub const fn header_area(len: usize) -> usize {
    len.div_ceil(DATA_BYTES) * DATA_BYTES
}

impl Control {
    /// The segment offsets this control segment implies, or why it is inconsistent: blocks
    /// outside 1..=16, an immediate on an opcode without one, INLINE with data segments or an
    /// inline length without INLINE, segments past the WQE's blocks.
    pub fn layout(&self) -> Result<WqeLayout, Error> {
        let blocks = usize::from(self.blocks);
        if blocks == 0 || blocks > MAX_BLOCKS {
            return Err(Error::BadBlocks(self.blocks));
        }
        if !self.opcode.has_imm() && self.imm != 0 {
            return Err(Error::Reserved { field: c::IMM.name });
        }
        let inline = self.flags.contains(Flags::INLINE);
        if (inline && self.nsge != 0) || (!inline && self.inline_len != 0) {
            return Err(Error::InlineMismatch);
        }
        let tso = self.opcode == Opcode::Tso;
        if !tso && self.mss != 0 {
            return Err(Error::Reserved { field: c::MSS.name });
        }
        if !tso && self.hdr_len != 0 {
            return Err(Error::Reserved {
                field: c::HDR_LEN.name,
            });
        }
        if tso && self.hdr_len == 0 {
            return Err(Error::TsoMismatch);
        }
        // Every term is small (at most 65535 + 255 × 16 + 96): no overflow in usize ≥ 32 bits.
        let mut at = CONTROL_BYTES;
        let av = if self.av {
            at += AV_BYTES;
            Some(at - AV_BYTES)
        } else {
            None
        };
        let raddr = if self.opcode.has_raddr() {
            at += RADDR_BYTES;
            Some(at - RADDR_BYTES)
        } else {
            None
        };
        let header = if tso {
            at += header_area(self.hdr_len.into());
            Some(at - header_area(self.hdr_len.into()))
        } else {
            None
        };
        let payload = if inline {
            usize::from(self.inline_len)
        } else {
            usize::from(self.nsge) * DATA_BYTES
        };
        let end = at + payload;
        let have = blocks * BLOCK_BYTES;
        if end > have {
            return Err(Error::Overflow { need: end, have });
        }
        Ok(WqeLayout {
            av,
            raddr,
            header,
            data: at,
            end,
        })
    }

    /// Decodes and checks the control segment of a WQE's first block.
    pub fn decode(block: &[u8; BLOCK_BYTES]) -> Result<Control, Error> {
        let b = &block[..];
        let op = b[c::OPCODE.offset];
        let opcode = Opcode::from_u8(op).ok_or(Error::UnknownOpcode(op))?;
        let flags = Flags::from_bits(b[c::FLAGS.offset]).ok_or(Error::Reserved {
            field: c::FLAGS.name,
        })?;
        let av = b[c::AV.offset];
        if !fits(c::AV, u64::from(av)) {
            return Err(Error::Reserved { field: c::AV.name });
        }
        zero(b, c::RSVD0.offset, c::RSVD0.bytes, "CONTROL.RSVD0")?;
        zero(b, c::RSVD1.offset, c::RSVD1.bytes, "CONTROL.RSVD1")?;
        let ctrl = Control {
            opcode,
            flags,
            blocks: b[c::BLOCKS.offset],
            nsge: b[c::NSGE.offset],
            index: get_u32(b, c::INDEX.offset),
            imm: get_u32(b, c::IMM.offset),
            inline_len: get_u16(b, c::INLINE_LEN.offset),
            av: av == 1,
            wr_id: get_u64(b, c::WR_ID.offset),
            mss: get_u16(b, c::MSS.offset),
            hdr_len: get_u16(b, c::HDR_LEN.offset),
        };
        ctrl.layout()?;
        Ok(ctrl)
    }

    /// Writes bytes 0..32 of `block` (the rest is left alone) after the checks of
    /// [`Control::layout`].
    pub fn encode(&self, block: &mut [u8; BLOCK_BYTES]) -> Result<(), Error> {
        self.layout()?;
        let b = &mut block[..];
        b[..CONTROL_BYTES].fill(0);
        put(b, c::OPCODE, self.opcode as u64);
        put(b, c::FLAGS, self.flags.bits().into());
        put(b, c::BLOCKS, self.blocks.into());
        put(b, c::NSGE, self.nsge.into());
        put(b, c::INDEX, self.index.into());
        put(b, c::IMM, self.imm.into());
        put(b, c::INLINE_LEN, self.inline_len.into());
        put(b, c::AV, self.av.into());
        put(b, c::WR_ID, self.wr_id);
        put(b, c::MSS, self.mss.into());
        put(b, c::HDR_LEN, self.hdr_len.into());
        Ok(())
    }
}

/// An 802.1Q tag's priority and VLAN id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vlan {
    /// VLAN identifier, 12 bits.
    pub vid: u16,
    /// Priority code point, 3 bits.
    pub pcp: u8,
}

/// The UD address vector (48 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressVector {
    /// Destination QPN, 24 bits.
    pub dqpn: u32,
    /// Q_Key.
    pub qkey: u32,
    /// Destination IPv6 address, or `::ffff:a.b.c.d` for IPv4 (as a RoCEv2 GID).
    pub dgid: [u8; 16],
    /// Destination MAC.
    pub dmac: [u8; 6],
    /// The 802.1Q tag to insert, if any.
    pub vlan: Option<Vlan>,
    /// IPv6 flow label, 20 bits; 0 takes the entropy unit's.
    pub flow_label: u32,
    /// Traffic class (TOS for IPv4).
    pub tclass: u8,
    /// Hop limit (TTL for IPv4).
    pub hop_limit: u8,
}

impl AddressVector {
    /// The IPv4 address when `dgid` is IPv4-mapped.
    pub fn ipv4(&self) -> Option<[u8; 4]> {
        let g = &self.dgid;
        if g[..10].iter().all(|&x| x == 0) && g[10] == 0xFF && g[11] == 0xFF {
            Some([g[12], g[13], g[14], g[15]])
        } else {
            None
        }
    }

    /// The IPv4-mapped GID of an IPv4 address.
    pub fn mapped(ip: [u8; 4]) -> [u8; 16] {
        let mut g = [0u8; 16];
        g[10] = 0xFF;
        g[11] = 0xFF;
        g[12..].copy_from_slice(&ip);
        g
    }

    /// Decodes and checks an address-vector segment.
    pub fn decode(seg: &[u8; AV_BYTES]) -> Result<AddressVector, Error> {
        let b = &seg[..];
        let dqpn = get_u32(b, av::DQPN.offset);
        let flow_label = get_u32(b, av::FLOW_LABEL.offset);
        let tci = get_u16(b, av::VLAN.offset);
        let flags = b[av::AV_FLAGS.offset];
        for (f, v) in [(av::DQPN, dqpn), (av::FLOW_LABEL, flow_label)] {
            if !fits(f, v.into()) {
                return Err(Error::Reserved { field: f.name });
            }
        }
        if flags & !1 != 0 {
            return Err(Error::Reserved {
                field: av::AV_FLAGS.name,
            });
        }
        let vid = av::VLAN_BITS[0];
        let pcp = av::VLAN_BITS[1];
        let known = vid.put(u32::MAX) | pcp.put(u32::MAX);
        if u32::from(tci) & !known != 0 || (flags == 0 && tci != 0) {
            return Err(Error::Reserved {
                field: av::VLAN.name,
            });
        }
        zero(b, av::RSVD0.offset, av::RSVD0.bytes, "AV.RSVD0")?;
        zero(b, av::RSVD1.offset, av::RSVD1.bytes, "AV.RSVD1")?;
        let mut dgid = [0u8; 16];
        dgid.copy_from_slice(&b[av::DGID.offset..av::DGID.offset + 16]);
        let mut dmac = [0u8; 6];
        dmac.copy_from_slice(&b[av::DMAC.offset..av::DMAC.offset + 6]);
        Ok(AddressVector {
            dqpn,
            qkey: get_u32(b, av::QKEY.offset),
            dgid,
            dmac,
            vlan: (flags == 1).then(|| Vlan {
                vid: vid.get(tci.into()) as u16,
                pcp: pcp.get(tci.into()) as u8,
            }),
            flow_label,
            tclass: b[av::TCLASS.offset],
            hop_limit: b[av::HOP_LIMIT.offset],
        })
    }

    /// Writes the whole segment; `TooWide` names a value past its field.
    pub fn encode(&self, seg: &mut [u8; AV_BYTES]) -> Result<(), Error> {
        if !fits(av::DQPN, self.dqpn.into()) {
            return Err(Error::TooWide {
                field: av::DQPN.name,
            });
        }
        if !fits(av::FLOW_LABEL, self.flow_label.into()) {
            return Err(Error::TooWide {
                field: av::FLOW_LABEL.name,
            });
        }
        let (vid, pcp) = (av::VLAN_BITS[0], av::VLAN_BITS[1]);
        let tci = match self.vlan {
            None => 0,
            Some(v) => {
                if u32::from(v.vid) > vid.max_value() || u32::from(v.pcp) > pcp.max_value() {
                    return Err(Error::TooWide {
                        field: av::VLAN.name,
                    });
                }
                vid.put(v.vid.into()) | pcp.put(v.pcp.into())
            }
        };
        let b = &mut seg[..];
        b.fill(0);
        put(b, av::DQPN, self.dqpn.into());
        put(b, av::QKEY, self.qkey.into());
        b[av::DGID.offset..av::DGID.offset + 16].copy_from_slice(&self.dgid);
        b[av::DMAC.offset..av::DMAC.offset + 6].copy_from_slice(&self.dmac);
        put(b, av::VLAN, tci.into());
        put(b, av::FLOW_LABEL, self.flow_label.into());
        put(b, av::TCLASS, self.tclass.into());
        put(b, av::HOP_LIMIT, self.hop_limit.into());
        put(b, av::AV_FLAGS, self.vlan.is_some().into());
        Ok(())
    }
}

/// The remote-address segment of an RDMA WRITE (16 bytes): the RETH's address and key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoteAddress {
    /// Remote virtual address.
    pub addr: u64,
    /// R_Key.
    pub rkey: u32,
}

impl RemoteAddress {
    /// Decodes and checks a remote-address segment.
    pub fn decode(seg: &[u8; RADDR_BYTES]) -> Result<RemoteAddress, Error> {
        zero(seg, raddr::RSVD.offset, raddr::RSVD.bytes, "RADDR.RSVD")?;
        Ok(RemoteAddress {
            addr: get_u64(seg, raddr::RADDR.offset),
            rkey: get_u32(seg, raddr::RKEY.offset),
        })
    }

    /// Writes the whole segment.
    pub fn encode(&self, seg: &mut [u8; RADDR_BYTES]) {
        seg.fill(0);
        put(seg, raddr::RADDR, self.addr);
        put(seg, raddr::RKEY, self.rkey.into());
    }
}

/// A data (gather) segment (16 bytes). Every value is valid here; the engine checks the
/// length and the lkey against the memory-region table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataSegment {
    /// Host address.
    pub addr: u64,
    /// Bytes.
    pub length: u32,
    /// Local key.
    pub lkey: u32,
}

impl DataSegment {
    /// Decodes a data segment.
    pub fn decode(seg: &[u8; DATA_BYTES]) -> DataSegment {
        DataSegment {
            addr: get_u64(seg, data::ADDR.offset),
            length: get_u32(seg, data::LENGTH.offset),
            lkey: get_u32(seg, data::LKEY.offset),
        }
    }

    /// Writes the segment.
    pub fn encode(&self, seg: &mut [u8; DATA_BYTES]) {
        put(seg, data::ADDR, self.addr);
        put(seg, data::LENGTH, self.length.into());
        put(seg, data::LKEY, self.lkey.into());
    }
}
