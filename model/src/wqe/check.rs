//! The checks a WQE passes before any payload DMA, in the order the engine makes them; the first
//! failure decides the completion's status (docs/wqe.md, "Checks and statuses"):
//!
//! 1. the WQE decodes (known opcode, reserved bits zero, consistent layout): else `loc_qp_op_err`;
//! 2. the opcode suits the QP (UD: SEND, SEND_WITH_IMM and, on an engine with TSO, TSO; RC:
//!    everything but TSO) and the address vector is there exactly for UD: else `loc_qp_op_err`;
//! 3. the gather list: at most `max_sge` entries (`loc_qp_op_err`), then each entry in order by
//!    the memory-region check (`loc_len_err` for a zero or oversized entry, `loc_prot_err` for
//!    a bad lkey, PD or bounds), then the total (`loc_len_err` above 2^31);
//! 4. TSO: the segmenter takes the header template, MSS and payload length ([`crate::tso`]):
//!    a template that is not IPoIB + IPv4/IPv6 + TCP, too long, an MSS of 0 or too large give
//!    `loc_qp_op_err`, a payload over the engine's `max_tso` `loc_len_err`;
//! 5. UD: every packet fits the path MTU (the message, or a TSO segment: header and MSS): else
//!    `loc_len_err`.

use super::{Flags, Opcode, Wqe, DATA_BYTES};
use crate::entropy::QpType;
use crate::qp::{check_gather, MrTable, QpContext, Sge, Status};
use crate::tso::{self, Limits, Segmenter};
use crate::wire::LinkType;

/// The most data segments a WQE can hold (16 blocks less the control segment, 16 bytes each).
pub const FORMAT_MAX_SGE: usize = (super::MAX_WQE_BYTES - super::CONTROL_BYTES) / DATA_BYTES;

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
    let ud = qp.config().qp_type == QpType::Ud;
    let op_ok = match control.opcode {
        Opcode::Send | Opcode::SendImm => true,
        Opcode::RdmaWrite | Opcode::RdmaWriteImm => !ud,
        Opcode::Tso => ud && tso.is_some(),
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
        check_gather(mrs, qp.config().pd, &sges[..n], max_sge)?
    };
    let packet = match (control.opcode, tso) {
        (Opcode::Tso, Some(limits)) => {
            let mss = usize::from(control.mss);
            Segmenter::with_len(LinkType::Ipoib, wqe.header(), len as usize, mss, limits).map_err(
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
    Ok(Checked { wqe, len })
}
