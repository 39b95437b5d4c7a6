//! Work completion status: the one definition, with the verbs names and codes
//! (rdma-core `enum ibv_wc_status`; docs/reference.md §6).
//!
//! Every module that completes a work request (the MR check here, the send engine, the CQE
//! format, the CLI's completion CSV) uses this enum; `cargo xtask gen` renders the RTL's codes
//! (`rtl/wqe/wqe_fmt_pkg.sv`) from [`Status::ALL`].

use core::fmt;
use core::str::FromStr;

/// The status of one work completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Status {
    /// The request was carried out.
    Success = 0,
    /// Local length error: a gather entry of length 0, or a message over the maximum size.
    LocLenErr = 1,
    /// Local QP operation error: a malformed request (bad opcode for the QP type, too many
    /// gather entries).
    LocQpOpErr = 2,
    /// Local protection error: a gather entry not inside a memory region valid for the request.
    LocProtErr = 4,
    /// Flushed: the QP was in the error state when the request was (or had been) posted.
    WrFlushErr = 5,
    /// Bad response: the responder answered with something this requester cannot use (an
    /// opcode it did not ask for, an RD-only NAK).
    BadRespErr = 7,
    /// Remote invalid request: the responder NAKed the request as invalid (an opcode out of
    /// sequence, a length that does not fit, an unsupported operation).
    RemInvReqErr = 9,
    /// Remote access error: the responder NAKed the R_Key, PD, rights or bounds.
    RemAccessErr = 10,
    /// Remote operational error: the responder could not carry out a valid request.
    RemOpErr = 11,
    /// Transport retry counter exceeded: `retry_cnt` resends after timeouts or sequence NAKs
    /// brought no acknowledgement.
    RetryExcErr = 12,
    /// RNR retry counter exceeded: the responder answered `rnr_retry` resends with RNR NAKs.
    RnrRetryExcErr = 13,
    /// Any other failure.
    GeneralErr = 21,
}

/// A name that is not a status's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownStatus;

impl Status {
    /// Every status, in code order.
    pub const ALL: [Status; 12] = [
        Status::Success,
        Status::LocLenErr,
        Status::LocQpOpErr,
        Status::LocProtErr,
        Status::WrFlushErr,
        Status::BadRespErr,
        Status::RemInvReqErr,
        Status::RemAccessErr,
        Status::RemOpErr,
        Status::RetryExcErr,
        Status::RnrRetryExcErr,
        Status::GeneralErr,
    ];

    /// Width of the status field in a completion, in bits (the verbs codes go up to 21).
    pub const BITS: u32 = 5;

    /// The verbs code (`IBV_WC_*`).
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The status of a verbs code, if this model knows it.
    pub const fn from_code(code: u8) -> Option<Status> {
        match code {
            0 => Some(Status::Success),
            1 => Some(Status::LocLenErr),
            2 => Some(Status::LocQpOpErr),
            4 => Some(Status::LocProtErr),
            5 => Some(Status::WrFlushErr),
            7 => Some(Status::BadRespErr),
            9 => Some(Status::RemInvReqErr),
            10 => Some(Status::RemAccessErr),
            11 => Some(Status::RemOpErr),
            12 => Some(Status::RetryExcErr),
            13 => Some(Status::RnrRetryExcErr),
            21 => Some(Status::GeneralErr),
            _ => None,
        }
    }

    /// The verbs name without the `IBV_WC_` prefix, lower case (the completion CSV's).
    pub const fn name(self) -> &'static str {
        match self {
            Status::Success => "success",
            Status::LocLenErr => "loc_len_err",
            Status::LocQpOpErr => "loc_qp_op_err",
            Status::LocProtErr => "loc_prot_err",
            Status::WrFlushErr => "wr_flush_err",
            Status::BadRespErr => "bad_resp_err",
            Status::RemInvReqErr => "rem_inv_req_err",
            Status::RemAccessErr => "rem_access_err",
            Status::RemOpErr => "rem_op_err",
            Status::RetryExcErr => "retry_exc_err",
            Status::RnrRetryExcErr => "rnr_retry_exc_err",
            Status::GeneralErr => "general_err",
        }
    }

    /// Whether the request succeeded.
    pub const fn is_success(self) -> bool {
        matches!(self, Status::Success)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Status {
    type Err = UnknownStatus;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Status::ALL
            .into_iter()
            .find(|st| st.name() == s)
            .ok_or(UnknownStatus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_round_trip() {
        for st in Status::ALL {
            assert_eq!(Status::from_code(st.code()), Some(st));
            assert_eq!(st.name().parse::<Status>(), Ok(st));
            assert!(u32::from(st.code()) < 1 << Status::BITS);
        }
        let known = (0..=255u8).filter(|&c| Status::from_code(c).is_some());
        assert_eq!(known.count(), Status::ALL.len());
        assert_eq!("LOC_PROT_ERR".parse::<Status>(), Err(UnknownStatus));
        assert!(Status::Success.is_success() && !Status::GeneralErr.is_success());
    }

    #[test]
    fn verbs_codes() {
        // rdma-core verbs.h numbering.
        assert_eq!(Status::LocProtErr.code(), 4);
        assert_eq!(Status::WrFlushErr.code(), 5);
        assert_eq!(Status::BadRespErr.code(), 7);
        assert_eq!(Status::RemInvReqErr.code(), 9);
        assert_eq!(Status::RemAccessErr.code(), 10);
        assert_eq!(Status::RemOpErr.code(), 11);
        assert_eq!(Status::RetryExcErr.code(), 12);
        assert_eq!(Status::RnrRetryExcErr.code(), 13);
        assert_eq!(Status::GeneralErr.code(), 21);
    }
}
