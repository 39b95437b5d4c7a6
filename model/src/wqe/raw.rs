//! A raw-packet QP's sends (`IBV_QPT_RAW_PACKET`, docs/wqe.md "Raw-packet QPs"): the engine adds
//! no headers and takes no PSN.
//!
//! - SEND: the message (gathered or inline) is one whole Ethernet frame, put on the wire as it
//!   is; [`super::check`] has bounded it to [`MIN_RAW_FRAME`]..=[`MAX_RAW_FRAME`] bytes.
//! - TSO: the header template (Ethernet, an optional 802.1Q/802.1ad tag, IPv4 or IPv6, TCP) and
//!   the payload go through [`crate::tso::Segmenter`] in Ethernet mode; each segment is a frame.
//!
//! A frame shorter than Ethernet's minimum (60 bytes without the FCS) gets zeros to that length,
//! as the MAC pads any frame; the completion counts the message (TSO: the payload) only. A DMA
//! fault drops the frame being built and completes the WQE `general_err`, as for RC and UD.

use super::check::{Checked, MAX_RAW_FRAME, MIN_RAW_FRAME};
use super::engine::{gather, Raw};
use super::frame::MIN_FRAME;
use super::{Cqe, Flags, Memory, NotRun, Opcode, SendEngine};
use crate::qp::Status;
use crate::tso::Segmenter;
use crate::wire::LinkType;

/// The length on the wire of a frame of `len` bytes: padded with zeros to [`MIN_FRAME`].
fn padded(buf: &mut [u8], len: usize) -> usize {
    if len < MIN_FRAME {
        buf[len..MIN_FRAME].fill(0);
        MIN_FRAME
    } else {
        len
    }
}

impl<const Q: usize, const M: usize> SendEngine<Q, M> {
    /// A checked WQE of raw-packet QP `qpn`: its frame, or its TSO segments, to `frame`.
    pub(super) fn raw_send(
        &mut self,
        qpn: u32,
        c: &Checked<'_>,
        wqe: &[u8],
        mem: &impl Memory,
        frame: &mut impl FnMut(&[u8]),
    ) -> Result<Option<Cqe>, NotRun> {
        let control = c.wqe.control();
        let mut buf = [0u8; MAX_RAW_FRAME];
        if control.opcode == Opcode::Tso {
            let limits = self.tso.expect("check refuses TSO without it");
            let seg = Segmenter::with_len(
                LinkType::Ethernet,
                c.wqe.header(),
                c.len as usize,
                control.mss.into(),
                limits,
            )
            .expect("check passed the segmenter's checks");
            let mut body = [0u8; MAX_RAW_FRAME];
            for i in 0..seg.segment_count() {
                let range = seg.segment_range(i).expect("i < count");
                let body = &mut body[..range.len()];
                if gather(c, range.start, mem, body).is_err() {
                    return Ok(Some(self.fail(qpn, wqe, Status::GeneralErr)?));
                }
                let len = seg
                    .write_segment_with(i, body, &mut buf)
                    .expect("the segment fits the port's frame, checked");
                let n = padded(&mut buf, len);
                frame(&buf[..n]);
            }
        } else {
            let len = c.len as usize;
            debug_assert!((MIN_RAW_FRAME..=MAX_RAW_FRAME).contains(&len), "checked");
            if gather(c, 0, mem, &mut buf[..len]).is_err() {
                return Ok(Some(self.fail(qpn, wqe, Status::GeneralErr)?));
            }
            let n = padded(&mut buf, len);
            frame(&buf[..n]);
        }
        Ok(control
            .flags
            .contains(Flags::SIGNALED)
            .then(|| Raw::read(wqe, self.tso.is_some(), false).cqe(qpn, Status::Success, c.len)))
    }
}
