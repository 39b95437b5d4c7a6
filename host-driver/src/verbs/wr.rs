//! Work requests (`ibv_send_wr`, `ibv_recv_wr`) and their encoding into WQEs with the
//! model's encoder (`model::wqe::Wqe::encode`, docs/wqe.md).

use super::pd::AddressHandle;
use super::QpType;
use super::{Error, Feature, Invalid};
use rocenic_model::wqe::{self, Opcode, Payload, RemoteAddress, WorkRequest, Wqe, BLOCK_BYTES};

/// A gather (or scatter) entry (`ibv_sge`): `length` bytes at `addr` of the region `lkey`.
pub use rocenic_model::wqe::DataSegment as Sge;
/// Send flags (`ibv_send_flags`): `SIGNALED`, `SOLICITED`, `FENCE`, `IP_CSUM`; `INLINE`
/// follows from [`Data::Inline`].
pub use rocenic_model::wqe::Flags as SendFlags;

/// An RDMA WRITE's target in the peer's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoteAddr {
    /// The peer's virtual address.
    pub addr: u64,
    /// The peer region's R_Key.
    pub rkey: u32,
}

/// The operation of a send work request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendOp<'a> {
    /// `IBV_WR_SEND`.
    Send,
    /// `IBV_WR_SEND_WITH_IMM`, with the immediate.
    SendWithImm(u32),
    /// `IBV_WR_RDMA_WRITE` (RC).
    RdmaWrite(RemoteAddr),
    /// `IBV_WR_RDMA_WRITE_WITH_IMM` (RC).
    RdmaWriteWithImm(RemoteAddr, u32),
    /// `IBV_WR_RDMA_READ` (RC, a device with the reliable transport): the peer's bytes at the
    /// remote address land in the gather list, which may not be inline.
    RdmaRead(RemoteAddr),
    /// `IBV_WR_TSO` (UD): the IPoIB, IP and TCP headers every segment starts with, and the
    /// TCP payload bytes per segment.
    Tso {
        /// Payload bytes per segment.
        mss: u16,
        /// The header template (`hdr`, `hdr_sz`).
        header: &'a [u8],
    },
}

/// Where a send's bytes come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Data<'a> {
    /// Gathered from registered memory.
    Sgl(&'a [Sge]),
    /// Copied into the WQE (`IBV_SEND_INLINE`).
    Inline(&'a [u8]),
}

/// A UD work request's destination (`wr.ud`).
#[derive(Clone, Copy, Debug)]
pub struct UdDest<'a> {
    /// Where.
    pub ah: &'a AddressHandle<'a>,
    /// The destination QP.
    pub remote_qpn: u32,
    /// Its Q_Key; with the top bit set, the sending QP's own.
    pub remote_qkey: u32,
}

/// A send work request.
#[derive(Clone, Copy, Debug)]
pub struct SendWr<'a> {
    /// Returned in its completion.
    pub wr_id: u64,
    /// What it does.
    pub op: SendOp<'a>,
    /// Its bytes.
    pub data: Data<'a>,
    /// Its flags.
    pub flags: SendFlags,
    /// UD: its destination; RC: `None` (the QP's peer).
    pub ud: Option<UdDest<'a>>,
}

impl<'a> SendWr<'a> {
    /// `op` over `data`, unsignaled, without a UD destination.
    pub fn new(wr_id: u64, op: SendOp<'a>, data: Data<'a>) -> Self {
        SendWr {
            wr_id,
            op,
            data,
            flags: SendFlags::default(),
            ud: None,
        }
    }

    /// With a completion on success too.
    pub fn signaled(mut self) -> Self {
        self.flags = self.flags.union(SendFlags::SIGNALED);
        self
    }

    /// With the solicited-event bit on its last packet.
    pub fn solicited(mut self) -> Self {
        self.flags = self.flags.union(SendFlags::SOLICITED);
        self
    }

    /// To a UD destination.
    pub fn to(mut self, ud: UdDest<'a>) -> Self {
        self.ud = Some(ud);
        self
    }
}

/// What a QP's send queue allows, for [`SendWr::encode`].
#[derive(Clone, Copy, Debug)]
pub(super) struct SqShape {
    pub(super) qp_type: QpType,
    pub(super) max_sge: u32,
    pub(super) max_inline: u32,
    pub(super) sig_all: bool,
    pub(super) stride_blocks: u32,
    pub(super) tso: bool,
    /// The device runs RDMA READ (the reliable transport).
    pub(super) read: bool,
}

impl SendWr<'_> {
    /// The WQE of this request at send-queue `index`, into `out`; returns its bytes. Every
    /// check verbs makes before posting, in its order: the device's support, the opcode
    /// against the QP's type, the destination, the gather list or inline length.
    pub(super) fn encode(&self, sq: &SqShape, index: u32, out: &mut [u8]) -> Result<usize, Error> {
        let ud = sq.qp_type == QpType::Ud;
        let raw = sq.qp_type == QpType::RawPacket;
        let (opcode, imm, raddr, tso) = match self.op {
            SendOp::Send => (Opcode::Send, 0, None, None),
            SendOp::SendWithImm(imm) => (Opcode::SendImm, imm, None, None),
            SendOp::RdmaWrite(r) => (Opcode::RdmaWrite, 0, Some(r), None),
            SendOp::RdmaWriteWithImm(r, imm) => (Opcode::RdmaWriteImm, imm, Some(r), None),
            SendOp::RdmaRead(r) => (Opcode::RdmaRead, 0, Some(r), None),
            SendOp::Tso { mss, header } => (Opcode::Tso, 0, None, Some(wqe::Tso { mss, header })),
        };
        if opcode == Opcode::Tso && !sq.tso {
            return Err(Error::Unsupported(Feature::Tso));
        }
        if opcode == Opcode::RdmaRead && !sq.read {
            return Err(Error::Unsupported(Feature::RdmaRead));
        }
        match (sq.qp_type, opcode) {
            (QpType::RawPacket, Opcode::SendImm | Opcode::RdmaWrite | Opcode::RdmaWriteImm) => {
                return Err(Invalid::Opcode("a raw packet QP sends SEND and TSO only").into())
            }
            (QpType::Ud, Opcode::RdmaWrite | Opcode::RdmaWriteImm) => {
                return Err(Invalid::Opcode("RDMA WRITE needs an RC QP").into())
            }
            (QpType::Ud | QpType::RawPacket, Opcode::RdmaRead) => {
                return Err(Invalid::Opcode("RDMA READ needs an RC QP").into())
            }
            (QpType::Rc, Opcode::Tso) => {
                return Err(Invalid::Opcode("TSO needs a UD or raw packet QP").into())
            }
            _ => {}
        }
        if opcode == Opcode::RdmaRead && matches!(self.data, Data::Inline(_)) {
            return Err(
                Invalid::Opcode("an RDMA READ lands in its gather list: no inline data").into(),
            );
        }
        let av = match (ud, self.ud) {
            (true, Some(d)) => Some(d.ah.attr().ud_vector(d.remote_qpn, d.remote_qkey)),
            (true, None) => {
                return Err(Invalid::Attr("a UD work request needs a destination").into())
            }
            (false, Some(_)) if raw => {
                return Err(Invalid::Attr("a raw packet frame carries its own addresses").into())
            }
            (false, Some(_)) => {
                return Err(Invalid::Attr("an RC work request goes to the QP's peer").into())
            }
            (false, None) => None,
        };
        let payload = match self.data {
            Data::Sgl(s) if s.len() > sq.max_sge as usize => {
                return Err(Invalid::TooManySge {
                    n: s.len(),
                    max: sq.max_sge,
                }
                .into())
            }
            Data::Inline(b) if b.len() > sq.max_inline as usize => {
                return Err(Invalid::InlineTooLong {
                    len: b.len(),
                    max: sq.max_inline,
                }
                .into())
            }
            Data::Sgl(s) => Payload::Gather(s),
            Data::Inline(b) => Payload::Inline(b),
        };
        let flags = if sq.sig_all {
            self.flags.union(SendFlags::SIGNALED)
        } else {
            self.flags
        };
        let wr = WorkRequest {
            opcode,
            flags,
            index,
            imm,
            wr_id: self.wr_id,
            av,
            raddr: raddr.map(|r| RemoteAddress {
                addr: r.addr,
                rkey: r.rkey,
            }),
            payload,
            tso,
        };
        let control = Wqe::encode(&wr, out).map_err(Invalid::Wqe)?;
        if u32::from(control.blocks) > sq.stride_blocks {
            // Only a TSO header longer than the QP was sized for gets here.
            return Err(Invalid::Size(
                "WQE blocks",
                control.blocks.into(),
                sq.stride_blocks.into(),
            )
            .into());
        }
        Ok(usize::from(control.blocks) * BLOCK_BYTES)
    }
}

/// The blocks of the largest WQE a send queue of `qp_type` with these limits must hold: the
/// model's encoder run on the worst request of each shape (every gather entry, every inline
/// byte, a UD address vector or an RDMA WRITE's remote address, a TSO header template).
pub(super) fn slot_blocks(
    qp_type: QpType,
    max_sge: u32,
    max_inline: u32,
    tso_header: usize,
) -> Result<u32, Error> {
    let sges = vec![
        Sge {
            addr: 0,
            length: 1,
            lkey: 0,
        };
        max_sge as usize
    ];
    let inline = vec![0u8; max_inline as usize];
    let header = vec![0u8; tso_header];
    let av = wqe::AddressVector {
        dqpn: 0,
        qkey: 0,
        dgid: [0; 16],
        dmac: [0; 6],
        vlan: None,
        flow_label: 0,
        tclass: 0,
        hop_limit: 1,
    };
    let raddr = RemoteAddress { addr: 0, rkey: 0 };
    let mut shapes = Vec::new();
    match qp_type {
        QpType::Ud => {
            shapes.push((Opcode::Send, Some(av), None, None));
            if tso_header > 0 {
                let t = wqe::Tso {
                    mss: 1,
                    header: &header,
                };
                shapes.push((Opcode::Tso, Some(av), None, Some(t)));
            }
        }
        QpType::Rc => shapes.push((Opcode::RdmaWrite, None, Some(raddr), None)),
        QpType::RawPacket => {
            shapes.push((Opcode::Send, None, None, None));
            if tso_header > 0 {
                let t = wqe::Tso {
                    mss: 1,
                    header: &header,
                };
                shapes.push((Opcode::Tso, None, None, Some(t)));
            }
        }
    }
    let mut out = [0u8; wqe::MAX_WQE_BYTES];
    let mut blocks = 1;
    for (opcode, av, raddr, tso) in shapes {
        for payload in [Payload::Gather(&sges), Payload::Inline(&inline)] {
            let wr = WorkRequest {
                opcode,
                flags: SendFlags::default(),
                index: 0,
                imm: 0,
                wr_id: 0,
                av,
                raddr,
                payload,
                tso,
            };
            let c = Wqe::encode(&wr, &mut out).map_err(Invalid::Wqe)?;
            blocks = blocks.max(u32::from(c.blocks));
        }
    }
    Ok(blocks)
}

/// A receive work request (`ibv_recv_wr`).
#[derive(Clone, Copy, Debug)]
pub struct RecvWr<'a> {
    /// Returned in its completion.
    pub wr_id: u64,
    /// Where the received bytes go.
    pub sgl: &'a [Sge],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_hold_the_largest_request() {
        // Control 32 + remote address 16 + 4 × 16 gather = 112: two blocks.
        assert_eq!(slot_blocks(QpType::Rc, 4, 0, 0), Ok(2));
        // Control 32 + address vector 48 + 944 inline bytes: 16 blocks exactly, one more
        // byte does not fit any WQE.
        assert_eq!(slot_blocks(QpType::Ud, 1, 944, 0), Ok(16));
        assert!(matches!(
            slot_blocks(QpType::Ud, 1, 945, 0),
            Err(Error::Invalid(Invalid::Wqe(_)))
        ));
        assert_eq!(slot_blocks(QpType::Rc, 0, 0, 0), Ok(1));
        // Control 32 + vector 48 + a 96-byte TSO header template + one gather entry: 192
        // bytes, three blocks; one header byte more pads the template to 112 and takes four.
        assert_eq!(slot_blocks(QpType::Ud, 1, 0, 96), Ok(3));
        assert_eq!(slot_blocks(QpType::Ud, 1, 0, 97), Ok(4));
    }
}
