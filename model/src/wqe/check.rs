//! The checks a WQE passes before any payload DMA, in the order the engine makes them; the first
//! failure decides the completion's status (docs/wqe.md, "Checks and statuses"):
//!
//! 1. the WQE decodes (known opcode, reserved bits zero, consistent layout): else `loc_qp_op_err`;
//! 2. the opcode suits the QP (UD: SEND and SEND_WITH_IMM only) and the address vector is there
//!    exactly for UD: else `loc_qp_op_err`;
//! 3. the gather list: at most `max_sge` entries (`loc_qp_op_err`), then each entry in order by
//!    the memory-region check (`loc_len_err` for a zero or oversized entry, `loc_prot_err` for
//!    a bad lkey, PD or bounds), then the total (`loc_len_err` above 2^31);
//! 4. UD: the message fits one packet of the path MTU: else `loc_len_err`.

use super::{Flags, Opcode, Wqe, DATA_BYTES};
use crate::entropy::QpType;
use crate::qp::{check_gather, MrTable, QpContext, Sge, Status};

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

/// Checks the WQE in `bytes` of QP `qp` against `mrs`, allowing `max_sge` data segments.
pub fn check<'a, const M: usize>(
    qp: &QpContext,
    mrs: &MrTable<M>,
    max_sge: usize,
    bytes: &'a [u8],
) -> Result<Checked<'a>, Status> {
    let wqe = Wqe::decode(bytes).map_err(|_| Status::LocQpOpErr)?;
    let control = wqe.control();
    let ud = qp.config().qp_type == QpType::Ud;
    let op_ok = !ud || matches!(control.opcode, Opcode::Send | Opcode::SendImm);
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
    if ud && len > qp.config().mtu.bytes() {
        return Err(Status::LocLenErr);
    }
    Ok(Checked { wqe, len })
}
