//! An RC QP's entropy (IPv6 flow label and UDP source port), computed with the model.
//!
//! The WQE engine fixes an RC QP's entropy when it enters RTR, with its entropy unit in QP mode:
//! `Request::Qp` with the QP's QPN, the destination QPN and the flow label staged with the QP
//! (`QP_FLOW_LABEL`), under `CONTROL.PROFILE`. A QP set up by the connection manager takes the
//! CM's entropy instead (`Request::Cm`: the flow label from the CM's service ports, or the
//! address vector's as `sin6_flowinfo`). The firmware gives such a QP the flow label that makes
//! the engine's QP-mode result equal the CM's, as Linux's CM does by writing its flow label into
//! the address vector; [`plan`] finds it and proves it with the model. Under `linux`, `rfc-v2`
//! and `rxe` one always exists; under `rfc-v1` the CM port comes from the CM's ports, which QP
//! mode never sees, and the QP is refused unless the two happen to agree.
//!
//! UD QPs get their entropy per work request, from its destination QPN and flow label
//! ([`ud`]).

use crate::Error;
use rocenic_model::entropy::{Entropy, Profile, QpType, Request};

/// Where an RC QP's entropy comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EntropySource {
    /// QP mode: from the QPN, the destination QPN and the address vector's flow label.
    #[default]
    Qpn,
    /// The connection manager: from its service ports, with the address vector's flow label
    /// taking the part of `sin6_flowinfo`.
    Cm {
        /// The CM's source port.
        src_port: u16,
        /// The CM's destination port.
        dst_port: u16,
    },
}

/// What an RC QP's packets will carry, and the flow label to stage with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The entropy the engine fixes at RTR.
    pub entropy: Entropy,
    /// `QP_FLOW_LABEL`.
    pub flow_label: u32,
}

/// The entropy `source` asks for: `lqpn` the QP, `rqpn` its destination, `av_flow_label` the
/// address vector's flow label (0 when unset).
pub const fn wanted(
    profile: Profile,
    source: EntropySource,
    lqpn: u32,
    rqpn: u32,
    av_flow_label: u32,
) -> Entropy {
    profile.compute(&match source {
        EntropySource::Qpn => Request::Qp {
            lqpn,
            rqpn,
            flow_label: av_flow_label,
            qp_type: QpType::Rc,
        },
        EntropySource::Cm { src_port, dst_port } => Request::Cm {
            src_port,
            dst_port,
            flowinfo: av_flow_label,
            lqpn,
            rqpn,
        },
    })
}

/// What the engine computes at RTR for an RC QP staged with `flow_label`.
pub const fn engine(profile: Profile, lqpn: u32, rqpn: u32, flow_label: u32) -> Entropy {
    profile.compute(&Request::Qp {
        lqpn,
        rqpn,
        flow_label,
        qp_type: QpType::Rc,
    })
}

/// The flow label to stage so that the engine gives the QP the entropy `source` asks for, with
/// that entropy; [`Error::EntropyNotRepresentable`] when none does.
pub fn plan(
    profile: Profile,
    source: EntropySource,
    lqpn: u32,
    rqpn: u32,
    av_flow_label: u32,
) -> Result<Plan, Error> {
    let entropy = wanted(profile, source, lqpn, rqpn, av_flow_label);
    // QP mode puts a non-zero staged label on the wire as it is and derives the port from it
    // (linux, rfc-v2), or passes it through (rfc-v1, rxe); so the wanted label is the one to
    // stage, and a zero one keeps QP mode's own fallback.
    let flow_label = match source {
        EntropySource::Qpn => av_flow_label,
        EntropySource::Cm { .. } => entropy.flow_label,
    };
    check(profile, lqpn, rqpn, flow_label, entropy)
}

/// [`Plan`] of `flow_label` if the engine's result equals `entropy`.
pub fn check(
    profile: Profile,
    lqpn: u32,
    rqpn: u32,
    flow_label: u32,
    entropy: Entropy,
) -> Result<Plan, Error> {
    if engine(profile, lqpn, rqpn, flow_label) == entropy {
        Ok(Plan {
            entropy,
            flow_label,
        })
    } else {
        Err(Error::EntropyNotRepresentable { profile })
    }
}

/// A UD work request's entropy: from QP `lqpn` to `dest_qpn` with the request's flow label.
pub const fn ud(profile: Profile, lqpn: u32, dest_qpn: u32, flow_label: u32) -> Entropy {
    profile.compute(&Request::Qp {
        lqpn,
        rqpn: dest_qpn,
        flow_label,
        qp_type: QpType::Ud,
    })
}
