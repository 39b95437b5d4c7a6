//! A QP's attributes: those it is created with, and those each state change to INIT, RTR and
//! RTS brings, as typed values (verbs passes them as one `ibv_qp_attr` and a mask).

use super::mr::AccessFlags;
use super::pd::AhAttr;
use rocenic_firmware::EntropySource;
use rocenic_model::qp::{PathMtu, Psn, QpKind, QpState};

/// A QP's transport service (`ibv_qp_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QpType {
    /// `IBV_QPT_RC`.
    Rc,
    /// `IBV_QPT_UD`.
    Ud,
    /// `IBV_QPT_RAW_PACKET`: SEND puts a whole Ethernet frame on the wire, TSO its segments;
    /// only on a device whose `DeviceInfo::raw` says so (`EOPNOTSUPP` otherwise).
    RawPacket,
}

impl QpType {
    /// The model's kind of QP.
    pub fn kind(self) -> QpKind {
        match self {
            QpType::Rc => QpKind::Rc,
            QpType::Ud => QpKind::Ud,
            QpType::RawPacket => QpKind::Raw,
        }
    }
}

/// What a QP is created with (`ibv_qp_init_attr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpInitAttr {
    /// RC, UD or raw packet.
    pub qp_type: QpType,
    /// Send work requests outstanding at once (rounded up to a power of two).
    pub max_send_wr: u32,
    /// Gather entries of a send work request.
    pub max_send_sge: u32,
    /// Inline bytes of a send work request.
    pub max_inline_data: u32,
    /// Receive work requests: 0 on a device without a receive path.
    pub max_recv_wr: u32,
    /// Scatter entries of a receive work request: 0 on a device without a receive path.
    pub max_recv_sge: u32,
    /// Every send work request completes, signaled or not.
    pub sq_sig_all: bool,
}

impl QpInitAttr {
    /// A send-only QP of `qp_type`: 64 work requests of up to 4 gather entries, no inline
    /// data, completions only for signaled requests.
    pub fn new(qp_type: QpType) -> Self {
        QpInitAttr {
            qp_type,
            max_send_wr: 64,
            max_send_sge: 4,
            max_inline_data: 0,
            max_recv_wr: 0,
            max_recv_sge: 0,
            sq_sig_all: false,
        }
    }
}

/// RESET → INIT (and INIT → INIT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InitAttr {
    /// The port (the device has one: 1).
    pub port: u8,
    /// The P_Key index (the device has the default P_Key only: 0).
    pub pkey_index: u16,
    /// UD: the QP's Q_Key, which a work request's Q_Key with its top bit set stands for.
    pub qkey: u32,
    /// RC: what a peer may do to this side's memory (the receive path checks it).
    pub access: AccessFlags,
}

impl Default for InitAttr {
    fn default() -> Self {
        InitAttr {
            port: 1,
            pkey_index: 0,
            qkey: 0,
            access: AccessFlags::NONE,
        }
    }
}

impl InitAttr {
    /// A UD QP's: Q_Key `qkey`.
    pub fn ud(qkey: u32) -> Self {
        InitAttr {
            qkey,
            ..Self::default()
        }
    }
}

/// An RC QP's peer, set at RTR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RcPeer {
    /// The connected QP.
    pub dest_qpn: u32,
    /// Where it is.
    pub ah: AhAttr,
    /// Where the QP's UDP source port and flow label come from: its QPNs (the default) or
    /// the connection manager's service ports.
    pub entropy: EntropySource,
}

/// INIT → RTR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtrAttr {
    /// The path MTU: RC cuts messages by it; a UD message must fit in one.
    pub path_mtu: PathMtu,
    /// The first PSN expected from the peer (the receive path's).
    pub rq_psn: Psn,
    /// RC: the peer. UD: `None` (each work request names its destination).
    pub peer: Option<RcPeer>,
}

impl RtrAttr {
    /// An RC QP's: connected to `dest_qpn` at `ah`, entropy from the QPNs.
    pub fn rc(path_mtu: PathMtu, dest_qpn: u32, rq_psn: Psn, ah: AhAttr) -> Self {
        RtrAttr {
            path_mtu,
            rq_psn,
            peer: Some(RcPeer {
                dest_qpn,
                ah,
                entropy: EntropySource::Qpn,
            }),
        }
    }

    /// A UD QP's.
    pub fn ud(path_mtu: PathMtu) -> Self {
        RtrAttr {
            path_mtu,
            rq_psn: Psn::from_bits_truncate(0),
            peer: None,
        }
    }

    /// A raw packet QP's: it has no path MTU (its frames are 14 to 4,218 bytes, whatever the
    /// field says; the context holds 1024, as the model's register decoding gives it), no PSN
    /// and no peer.
    pub fn raw() -> Self {
        Self::ud(PathMtu::Mtu1024)
    }
}

/// RTR → RTS (and RTS → RTS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtsAttr {
    /// The first PSN sent.
    pub sq_psn: Psn,
    /// RC: the local ACK timeout exponent (the reliable transport's, kept).
    pub timeout: u8,
    /// RC: retries on a timeout (kept).
    pub retry_cnt: u8,
    /// RC: retries on an RNR NAK (kept).
    pub rnr_retry: u8,
}

impl RtsAttr {
    /// First PSN `sq_psn`; timeout 14 (67 ms), 7 retries of each kind.
    pub fn new(sq_psn: Psn) -> Self {
        RtsAttr {
            sq_psn,
            timeout: 14,
            retry_cnt: 7,
            rnr_retry: 7,
        }
    }
}

/// A state change and the attributes it brings (`ibv_modify_qp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QpAttr {
    /// To RESET: the QP forgets its attributes and work; its completions are dropped.
    Reset,
    /// To INIT.
    Init(InitAttr),
    /// To RTR.
    Rtr(RtrAttr),
    /// To RTS: the engine takes the QP.
    Rts(RtsAttr),
    /// To ERR: its work completes flushed.
    Err,
}

impl QpAttr {
    /// The state it moves to.
    pub fn state(&self) -> QpState {
        match self {
            QpAttr::Reset => QpState::Reset,
            QpAttr::Init(_) => QpState::Init,
            QpAttr::Rtr(_) => QpState::Rtr,
            QpAttr::Rts(_) => QpState::Rts,
            QpAttr::Err => QpState::Err,
        }
    }
}
