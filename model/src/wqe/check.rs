//! The checks a WQE passes before any payload DMA, in the order the engine makes them; the first
//! failure decides the completion's status (docs/wqe.md, "Checks and statuses"):
//!
//! 1. the WQE decodes (known opcode, reserved bits zero, consistent layout): else `loc_qp_op_err`;
//! 2. the opcode suits the QP (UD: SEND, SEND_WITH_IMM and, on an engine with TSO, TSO; RC:
//!    everything but TSO; raw: SEND and, with TSO, TSO) and the address vector is there
//!    exactly for UD: else `loc_qp_op_err`;
//!    An RDMA READ is RC only and takes no inline data (its gather list is where the bytes
//!    land): else `loc_qp_op_err`;
//! 3. the gather list (a READ's entries must also allow local write): at most `max_sge` entries (`loc_qp_op_err`), then each entry in order by
//!    the memory-region check (`loc_len_err` for a zero or oversized entry, `loc_prot_err` for
//!    a bad lkey, PD or bounds), then the total (`loc_len_err` above 2^31);
//! 4. TSO: the segmenter takes the header template, MSS and payload length ([`crate::tso`]):
//!    a template that is not IPoIB (UD) or Ethernet (raw) + IPv4/IPv6 + TCP, too long, an MSS
//!    of 0 or too large give `loc_qp_op_err`, a payload over the engine's `max_tso`
//!    `loc_len_err`;
//! 5. UD: every packet fits the path MTU (the message, or a TSO segment: header and MSS); raw:
//!    every frame is [`MIN_RAW_FRAME`]..=[`MAX_RAW_FRAME`] bytes (the message, or the template
//!    and the largest segment): else `loc_len_err`.

use super::{Flags, Opcode, Wqe, DATA_BYTES};
use crate::qp::{check_gather_for, Access, MrTable, QpContext, QpKind, Sge, Status};
use crate::tso::{self, Limits, Segmenter};
use crate::wire::LinkType;

/// The most data segments a WQE can hold (16 blocks less the control segment, 16 bytes each).
pub const FORMAT_MAX_SGE: usize = (super::MAX_WQE_BYTES - super::CONTROL_BYTES) / DATA_BYTES;
/// The port's largest frame, the most one frame of a raw-packet QP may be: what the receive
/// path takes whole ([`crate::rx::MAX_FRAME`]).
pub const MAX_RAW_FRAME: usize = crate::rx::MAX_FRAME;
/// The smallest frame a raw-packet QP may send: an Ethernet header.
pub const MIN_RAW_FRAME: usize = crate::wire::ethernet::HEADER_LEN;

/// A WQE that passed: its decoded view and its message length.
#[derive(Clone, Copy, Debug)]
pub struct Checked<'a> {
    /// The WQE.
    pub wqe: Wqe<'a>,
    /// Message bytes.
    pub len: u32,
}

/// Checks the WQE in `bytes` of QP `qp` against `mrs`, allowing `max_sge` data segments, and
/// TSO within `tso` when the engine has it.
pub fn check<'a, const M: usize>(
    qp: &QpContext,
    mrs: &MrTable<M>,
    max_sge: usize,
    tso: Option<Limits>,
    bytes: &'a [u8],
) -> Result<Checked<'a>, Status> {
    let wqe = Wqe::decode(bytes).map_err(|_| Status::LocQpOpErr)?;
    let control = wqe.control();
    let kind = qp.config().qp_type;
    let ud = kind == QpKind::Ud;
    let raw = kind == QpKind::Raw;
    let op_ok = match control.opcode {
        Opcode::Send => true,
        Opcode::SendImm => !raw,
        Opcode::RdmaWrite | Opcode::RdmaWriteImm => kind == QpKind::Rc,
        Opcode::RdmaRead => kind == QpKind::Rc && !control.flags.contains(Flags::INLINE),
        Opcode::Tso => kind != QpKind::Rc && tso.is_some(),
    };
    if !op_ok || control.av != ud {
        return Err(Status::LocQpOpErr);
    }
    let len = if control.flags.contains(Flags::INLINE) {
        u32::from(control.inline_len)
    } else {
        let mut sges = [Sge::default(); FORMAT_MAX_SGE];
        let n = usize::from(control.nsge);
        if n > FORMAT_MAX_SGE {
            // The decoder's layout check already bounds NSGE by the blocks; kept explicit.
            return Err(Status::LocQpOpErr);
        }
        for (i, s) in sges.iter_mut().enumerate().take(n) {
            let d = wqe.sge(i).ok_or(Status::LocQpOpErr)?;
            *s = Sge {
                addr: d.addr,
                length: d.length,
                lkey: d.lkey,
            };
        }
        let access = if control.opcode == Opcode::RdmaRead {
            Access::LOCAL_WRITE
        } else {
            Access::NONE
        };
        check_gather_for(mrs, qp.config().pd, &sges[..n], max_sge, access)?
    };
    let packet = match (control.opcode, tso) {
        (Opcode::Tso, Some(limits)) => {
            let mss = usize::from(control.mss);
            let link = if raw {
                LinkType::Ethernet
            } else {
                LinkType::Ipoib
            };
            Segmenter::with_len(link, wqe.header(), len as usize, mss, limits).map_err(
                |e| match e {
                    tso::Error::PayloadTooLong { .. } => Status::LocLenErr,
                    _ => Status::LocQpOpErr,
                },
            )?;
            wqe.header().len() + mss.min(len as usize)
        }
        _ => len as usize,
    };
    if ud && packet > qp.config().mtu.bytes() as usize {
        return Err(Status::LocLenErr);
    }
    if raw && !(MIN_RAW_FRAME..=MAX_RAW_FRAME).contains(&packet) {
        return Err(Status::LocLenErr);
    }
    Ok(Checked { wqe, len })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qp::{MemoryRegion, PathMtu, Psn, QpConfig, QpTable};
    use crate::wqe::{DataSegment, Payload, RemoteAddress, WorkRequest, MAX_WQE_BYTES};

    #[test]
    fn a_read_is_rc_only_gathers_into_writable_memory_and_takes_no_inline_data() {
        let mut qps = QpTable::<2>::default();
        let rc = QpConfig {
            qp_type: QpKind::Rc,
            pd: 1,
            mtu: PathMtu::Mtu1024,
            psn: Psn::new(0).unwrap(),
            dest_qpn: 0x22,
            q_key: 0,
            av: Some(crate::qp::AddressVector::new(
                crate::qp::IpPair::V4 {
                    src: crate::wire::Ipv4Address::new(10, 0, 0, 1),
                    dst: crate::wire::Ipv4Address::new(10, 0, 0, 2),
                },
                crate::wire::EthernetAddress([2, 0, 0, 0, 0, 1]),
                crate::wire::EthernetAddress([2, 0, 0, 0, 0, 2]),
            )),
        };
        qps.create(0x11, rc).unwrap();
        let mut mrs = MrTable::<2>::new();
        for (lkey, access) in [(1, Access::NONE), (2, Access::LOCAL_WRITE)] {
            mrs.register(MemoryRegion {
                lkey,
                base: 0x1000,
                length: 0x1000,
                pd: 1,
                access,
            })
            .unwrap();
        }
        let run = |opcode: Opcode, lkey: u32, inline: bool| {
            let sge = [DataSegment {
                addr: 0x1000,
                length: 100,
                lkey,
            }];
            let wr = WorkRequest {
                opcode,
                flags: Flags::SIGNALED,
                index: 0,
                imm: 0,
                wr_id: 7,
                av: None,
                raddr: opcode.has_raddr().then_some(RemoteAddress {
                    addr: 0x9000,
                    rkey: 5,
                }),
                payload: if inline {
                    Payload::Inline(&[1, 2, 3])
                } else {
                    Payload::Gather(&sge)
                },
                tso: None,
            };
            let mut b = [0u8; MAX_WQE_BYTES];
            Wqe::encode(&wr, &mut b).unwrap();
            let qp = qps.get(0x11).unwrap();
            check(qp, &mrs, 4, None, &b).map(|c| c.len)
        };
        assert_eq!(run(Opcode::RdmaRead, 2, false), Ok(100));
        assert_eq!(run(Opcode::RdmaRead, 1, false), Err(Status::LocProtErr));
        assert_eq!(
            run(Opcode::RdmaWrite, 1, false),
            Ok(100),
            "a WRITE only reads"
        );
        assert_eq!(run(Opcode::RdmaRead, 2, true), Err(Status::LocQpOpErr));
    }
}
