//! RoCEv2 entropy: the IPv6 flow label and the UDP source port (docs/reference.md §1).
//!
//! Four profiles are modelled:
//! - [`Profile::Linux`] (default): upstream Linux, as used by mlx5, rxe, irdma, hns and rdma-core's
//!   `ibv_flow_label_to_udp_sport`.
//! - [`Profile::RfcV2`]: the 2020 RFC v2; differs from `linux` only in the CM hash, which is
//!   symmetric.
//! - [`Profile::RfcV1`]: the first RFC; derives the UDP source port directly from folded QPNs or CM
//!   ports and derives no flow label.
//! - [`Profile::Rxe`]: soft-RoCE before an address vector is applied: the port comes from a
//!   multiplicative hash of the local QPN alone.
//!
//! Rules shared by every profile: an application-provided non-zero flow label (the address
//! vector's, or `sin6_flowinfo` for the CM) is what goes on the wire in the 20-bit flow label
//! field. Profiles that derive no flow label (`rfc-v1`, `rxe`) pass it through and report 0 when
//! there is none.

use core::fmt;
use core::str::FromStr;

/// The 20-bit IPv6 flow label field.
pub const FLOW_LABEL_MASK: u32 = 0x000F_FFFF;
/// RoCEv2's UDP destination port (IANA).
pub const ROCE_V2_UDP_DPORT: u16 = 4791;
/// Lowest port of the IANA ephemeral range; every derived source port has these two bits set.
pub const UDP_SPORT_BASE: u16 = 0xC000;
/// The UD multicast QPN, which `rfc-v1` never XORs into a port.
pub const MULTICAST_QPN: u32 = 0x00FF_FFFF;

/// `linux`: the flow label of a QP pair (`rdma_calc_flow_label`).
///
/// The product is taken in 64 bits so that QPNs wider than 24 bits follow the kernel's `u64`
/// arithmetic. Symmetric in its arguments; 0 when either QPN is 0.
pub const fn flow_label(lqpn: u32, rqpn: u32) -> u32 {
    let mut v = lqpn as u64 * rqpn as u64;
    v ^= v >> 20;
    v ^= v >> 40;
    (v as u32) & FLOW_LABEL_MASK
}

/// `linux`: the UDP source port for a flow label (`rdma_flow_label_to_udp_sport`).
///
/// Folds the top 6 of the 20 bits into the low 14; bits above bit 19 are ignored.
pub const fn udp_sport(fl: u32) -> u16 {
    let low = fl & 0x3FFF;
    let high = fl & 0xF_C000;
    ((low ^ (high >> 14)) as u16) | UDP_SPORT_BASE
}

/// `linux`: the UDP source port of a QP (`rdma_get_udp_sport`).
///
/// Falls back to the QPN product only when the whole 32-bit `fl` is 0: `fl = 0x100000` does not
/// fall back and yields `0xC000`.
pub const fn get_udp_sport(fl: u32, lqpn: u32, rqpn: u32) -> u16 {
    let fl = if fl == 0 { flow_label(lqpn, rqpn) } else { fl };
    udp_sport(fl)
}

/// `linux`: the RDMA CM flow label from the CM service ports (`cma.c`); not symmetric.
pub const fn cm_flow_label_linux(src_port: u16, dst_port: u16) -> u32 {
    (src_port as u32 * 31 + dst_port as u32) & FLOW_LABEL_MASK
}

/// `rfc-v2`: the symmetric RDMA CM flow label from the CM service ports.
///
/// The product is unsigned 32-bit: the seed's C overflows a signed int, which is undefined.
pub const fn cm_flow_label_rfc_v2(src_port: u16, dst_port: u16) -> u32 {
    let mut hash = dst_port as u32 * src_port as u32;
    hash ^= hash >> 16;
    hash ^= hash >> 8;
    hash & FLOW_LABEL_MASK
}

/// `rfc-v1`: a QPN folded to 16 bits (byte 0 ^= byte 2, big-endian byte numbering of the low
/// 24 bits as the RFC writes them).
pub const fn rfc_v1_fold(qpn: u32) -> u16 {
    ((qpn & 0xFFFF) ^ ((qpn >> 16) & 0xFF)) as u16
}

/// `rfc-v1`: the UDP source port of an RC QP (fixed in the QP context).
pub const fn rfc_v1_rc_sport(sqpn: u32, dqpn: u32) -> u16 {
    if sqpn != dqpn {
        (rfc_v1_fold(sqpn) ^ rfc_v1_fold(dqpn)) | UDP_SPORT_BASE
    } else {
        rfc_v1_fold(sqpn) | UDP_SPORT_BASE
    }
}

/// `rfc-v1`: the UDP source port of a UD work request.
///
/// The seed writes `AND 0xC000` here, which could only ever give four ports; that is an erratum
/// and OR is used, as for RC.
pub const fn rfc_v1_ud_sport(sqpn: u32, dqpn: u32) -> u16 {
    if sqpn != dqpn && dqpn != MULTICAST_QPN {
        (rfc_v1_fold(sqpn) ^ rfc_v1_fold(dqpn)) | UDP_SPORT_BASE
    } else {
        rfc_v1_fold(sqpn) | UDP_SPORT_BASE
    }
}

/// `rfc-v1`: the UDP source port of a CM connection.
pub const fn rfc_v1_cm_sport(src_port: u16, dst_port: u16) -> u16 {
    (dst_port ^ src_port) | UDP_SPORT_BASE
}

/// The kernel's `GOLDEN_RATIO_32`, the multiplier of `hash_32`.
pub const GOLDEN_RATIO_32: u32 = 0x61C8_8647;

/// The kernel's `hash_32`: multiplicative hashing with the golden-ratio constant, the top `bits`
/// bits of the 32-bit product.
///
/// Any width is taken: 0 bits give 0 (the kernel's shift by 32 would be undefined), 32 and more
/// the whole product.
pub const fn hash_32(v: u32, bits: u32) -> u32 {
    let product = v.wrapping_mul(GOLDEN_RATIO_32);
    match bits {
        0 => 0,
        1..=31 => product >> (32 - bits),
        _ => product,
    }
}

/// `rxe`: the UDP source port soft-RoCE gives a QP at creation, from its own QPN.
pub const fn rxe_sport(qpn: u32) -> u16 {
    UDP_SPORT_BASE + (hash_32(qpn, 14) & 0x3FFF) as u16
}

/// Which definition of the entropy to follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Upstream Linux (the default).
    #[default]
    Linux,
    /// The 2020 RFC v2: symmetric CM hash, otherwise as `linux`.
    RfcV2,
    /// The first RFC: ports from folded QPNs or CM ports, no flow label.
    RfcV1,
    /// Soft-RoCE before an address vector is applied.
    Rxe,
}

impl Profile {
    /// Every profile, in documentation order.
    pub const ALL: [Profile; 4] = [Profile::Linux, Profile::RfcV2, Profile::RfcV1, Profile::Rxe];

    /// Its code on the entropy unit's `s_req_profile` port and in the board core's
    /// `E_CTRL.PROFILE` field ([`PROFILE_BITS`] wide; `rtl/entropy/entropy_pkg.sv` is generated
    /// from it).
    pub const fn code(self) -> u8 {
        match self {
            Profile::Linux => 0,
            Profile::RfcV2 => 1,
            Profile::RfcV1 => 2,
            Profile::Rxe => 3,
        }
    }

    /// The profile of a port code, if any.
    pub const fn from_code(code: u8) -> Option<Profile> {
        match code {
            0 => Some(Profile::Linux),
            1 => Some(Profile::RfcV2),
            2 => Some(Profile::RfcV1),
            3 => Some(Profile::Rxe),
            _ => None,
        }
    }

    /// The name used on the command line and in register maps.
    pub const fn name(self) -> &'static str {
        match self {
            Profile::Linux => "linux",
            Profile::RfcV2 => "rfc-v2",
            Profile::RfcV1 => "rfc-v1",
            Profile::Rxe => "rxe",
        }
    }

    /// Computes the entropy of one request under this profile.
    pub const fn compute(self, request: &Request) -> Entropy {
        match *request {
            Request::Qp {
                lqpn,
                rqpn,
                flow_label: app_fl,
                qp_type,
            } => match self {
                Profile::Linux | Profile::RfcV2 => derived(app_fl, lqpn, rqpn),
                Profile::RfcV1 => Entropy {
                    flow_label: app_fl & FLOW_LABEL_MASK,
                    udp_sport: match qp_type {
                        QpType::Rc => rfc_v1_rc_sport(lqpn, rqpn),
                        QpType::Ud => rfc_v1_ud_sport(lqpn, rqpn),
                    },
                },
                Profile::Rxe => Entropy {
                    flow_label: app_fl & FLOW_LABEL_MASK,
                    udp_sport: rxe_sport(lqpn),
                },
            },
            Request::Cm {
                src_port,
                dst_port,
                flowinfo,
                lqpn,
                rqpn,
            } => {
                // The CM takes the source address's flow label when one is set (IPv6 only; an
                // IPv4 request carries flowinfo 0), masked before the test as cma.c does.
                let app_fl = flowinfo & FLOW_LABEL_MASK;
                match self {
                    Profile::Linux | Profile::RfcV2 => {
                        let fl = if app_fl != 0 {
                            app_fl
                        } else if matches!(self, Profile::Linux) {
                            cm_flow_label_linux(src_port, dst_port)
                        } else {
                            cm_flow_label_rfc_v2(src_port, dst_port)
                        };
                        derived(fl, lqpn, rqpn)
                    }
                    Profile::RfcV1 => Entropy {
                        flow_label: app_fl,
                        udp_sport: rfc_v1_cm_sport(src_port, dst_port),
                    },
                    Profile::Rxe => Entropy {
                        flow_label: app_fl,
                        udp_sport: rxe_sport(lqpn),
                    },
                }
            }
        }
    }
}

/// `linux`/`rfc-v2`: the flow label on the wire and its port, given the address vector's flow
/// label (`fl`, 0 when unset): a zero `fl` falls back to the QPN product.
const fn derived(fl: u32, lqpn: u32, rqpn: u32) -> Entropy {
    let flow_label = if fl != 0 {
        fl & FLOW_LABEL_MASK
    } else {
        flow_label(lqpn, rqpn)
    };
    Entropy {
        flow_label,
        udp_sport: get_udp_sport(fl, lqpn, rqpn),
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A profile or mode name that is not known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownName;

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown name")
    }
}

impl FromStr for Profile {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or(UnknownName)
    }
}

/// Width of a profile's port code ([`Profile::code`]).
pub const PROFILE_BITS: u32 = 2;

/// The request kinds on the entropy unit's one-bit `s_req_mode` port.
pub const MODE_QP: u8 = 0;
/// See [`MODE_QP`].
pub const MODE_CM: u8 = 1;

impl QpType {
    /// Its code on the entropy unit's one-bit `s_req_qp_type` port.
    pub const fn code(self) -> u8 {
        match self {
            QpType::Rc => 0,
            QpType::Ud => 1,
        }
    }
}

/// The transport service of a QP; only `rfc-v1` tells them apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum QpType {
    /// Reliable connected: the port is fixed in the QP context.
    #[default]
    Rc,
    /// Unreliable datagram: the port is chosen per work request.
    Ud,
}

impl FromStr for QpType {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "rc" => Ok(QpType::Rc),
            "ud" => Ok(QpType::Ud),
            _ => Err(UnknownName),
        }
    }
}

/// One entropy request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Request {
    /// A QP without the RDMA CM: entropy from the QPN pair.
    Qp {
        /// Local (source) QPN; 24 bits on the wire, wider values follow the u64 arithmetic.
        lqpn: u32,
        /// Remote (destination) QPN.
        rqpn: u32,
        /// The address vector's flow label; 0 when the application set none.
        flow_label: u32,
        /// RC or UD (matters to `rfc-v1` only).
        qp_type: QpType,
    },
    /// A connection set up by the RDMA CM: entropy from the CM service ports.
    Cm {
        /// CM source port (the REQ private data's).
        src_port: u16,
        /// CM destination port (the service ID's).
        dst_port: u16,
        /// The IPv6 source address's `sin6_flowinfo` flow label; 0 when unset or IPv4.
        flowinfo: u32,
        /// Local QPN, for the drivers' fallback when the flow label comes out 0 (and for `rxe`).
        lqpn: u32,
        /// Remote QPN, for the same fallback.
        rqpn: u32,
    },
}

/// What goes on the wire for a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entropy {
    /// The 20-bit IPv6 flow label.
    pub flow_label: u32,
    /// The RoCEv2 UDP source port, always in `0xC000..=0xFFFF`.
    pub udp_sport: u16,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qp(lqpn: u32, rqpn: u32, fl: u32) -> Request {
        Request::Qp {
            lqpn,
            rqpn,
            flow_label: fl,
            qp_type: QpType::Rc,
        }
    }

    #[test]
    fn reference_worked_example() {
        assert_eq!(flow_label(0xFF_FFFF, 0xFF_FFFF), 0xF_FF1E);
        assert_eq!(udp_sport(0xF_FF1E), 0xFF21);
        let e = Profile::Linux.compute(&qp(0xFF_FFFF, 0xFF_FFFF, 0));
        assert_eq!((e.flow_label, e.udp_sport), (0xF_FF1E, 0xFF21));
    }

    #[test]
    fn by_hand_small_values() {
        // 0x12 * 0x34 = 0x3A8, no bits above 20: the fold leaves it unchanged.
        assert_eq!(flow_label(0x12, 0x34), 0x3A8);
        assert_eq!(udp_sport(0x3A8), 0xC3A8);
        // 0x4000 has only bit 14 set: high part 0x4000 >> 14 = 1 is XORed into low 0.
        assert_eq!(udp_sport(0x4000), 0xC001);
        assert_eq!(flow_label(0, 0x1234), 0);
        assert_eq!(flow_label(1, 1), 1);
    }

    #[test]
    fn wide_qpns_follow_u64_arithmetic() {
        // 0xFFFFFFFF^2 = 0xFFFFFFFE00000001; the folds bring every high bit down.
        let v: u64 = 0xFFFF_FFFE_0000_0001;
        let v = v ^ (v >> 20);
        let v = v ^ (v >> 40);
        assert_eq!(flow_label(u32::MAX, u32::MAX), (v as u32) & FLOW_LABEL_MASK);
    }

    #[test]
    fn fallback_only_on_whole_zero() {
        assert_eq!(get_udp_sport(0x10_0000, 5, 7), 0xC000);
        assert_eq!(get_udp_sport(0, 5, 7), udp_sport(35));
        let e = Profile::Linux.compute(&qp(5, 7, 0x10_0000));
        assert_eq!((e.flow_label, e.udp_sport), (0, 0xC000));
    }

    #[test]
    fn application_flow_label_wins() {
        let e = Profile::Linux.compute(&qp(5, 7, 0xABCDE));
        assert_eq!((e.flow_label, e.udp_sport), (0xABCDE, udp_sport(0xABCDE)));
        let e = Profile::RfcV2.compute(&qp(5, 7, 0xABCDE));
        assert_eq!(e.flow_label, 0xABCDE);
    }

    #[test]
    fn cm_linux_and_rfc_v2() {
        // 18515 * 31 + 4791 = 578756 = 0x8D4C4
        assert_eq!(cm_flow_label_linux(18515, 4791), 0x8_D4C4);
        // 2 * 3 = 6, no high bits.
        assert_eq!(cm_flow_label_rfc_v2(2, 3), 6);
        // 0xFFFF * 0xFFFF = 0xFFFE0001; ^>>16 = 0xFFFE_FFFF... computed by hand below.
        let h: u32 = 0xFFFE_0001;
        let h = h ^ (h >> 16);
        let h = h ^ (h >> 8);
        assert_eq!(cm_flow_label_rfc_v2(0xFFFF, 0xFFFF), h & FLOW_LABEL_MASK);
        let cm = Request::Cm {
            src_port: 18515,
            dst_port: 4791,
            flowinfo: 0,
            lqpn: 0,
            rqpn: 0,
        };
        let e = Profile::Linux.compute(&cm);
        assert_eq!((e.flow_label, e.udp_sport), (0x8_D4C4, udp_sport(0x8_D4C4)));
    }

    #[test]
    fn cm_sin6_flowinfo_rule() {
        let cm = |flowinfo| Request::Cm {
            src_port: 1,
            dst_port: 2,
            flowinfo,
            lqpn: 3,
            rqpn: 4,
        };
        assert_eq!(Profile::Linux.compute(&cm(0x12345)).flow_label, 0x12345);
        // Bits above the flow label are masked before the non-zero test: falls back to ports.
        assert_eq!(
            Profile::Linux.compute(&cm(0x0F00_0000)).flow_label,
            cm_flow_label_linux(1, 2)
        );
    }

    #[test]
    fn cm_zero_falls_back_to_qpns() {
        let cm = Request::Cm {
            src_port: 0,
            dst_port: 0,
            flowinfo: 0,
            lqpn: 0x11,
            rqpn: 0x22,
        };
        let e = Profile::Linux.compute(&cm);
        assert_eq!(e.flow_label, flow_label(0x11, 0x22));
        assert_eq!(e.udp_sport, udp_sport(flow_label(0x11, 0x22)));
    }

    #[test]
    fn rfc_v1_rules() {
        assert_eq!(rfc_v1_fold(0x12_3456), 0x3456 ^ 0x12);
        assert_eq!(
            rfc_v1_rc_sport(0x12_3456, 0x12_3456),
            0xC000 | (0x3456 ^ 0x12)
        );
        assert_eq!(rfc_v1_rc_sport(0x1, 0x2), 0xC003);
        assert_eq!(rfc_v1_ud_sport(0x1, 0x2), 0xC003);
        assert_eq!(rfc_v1_ud_sport(0x1, MULTICAST_QPN), 0xC001);
        // RC has no multicast exception: fold(0xFFFFFF) = 0xFF00.
        assert_eq!(rfc_v1_rc_sport(0x1, MULTICAST_QPN), 0xFF01);
        assert_eq!(rfc_v1_cm_sport(0x1234, 0x00FF), 0xD2CB);
    }

    #[test]
    fn rxe_rule() {
        // 1 * 0x61C88647 >> 18 = 0x1872
        assert_eq!(rxe_sport(1), 0xC000 + 0x1872);
        assert_eq!(rxe_sport(0), 0xC000);
    }

    #[test]
    fn profile_names_round_trip() {
        for p in Profile::ALL {
            assert_eq!(p.name().parse::<Profile>(), Ok(p));
        }
        assert!("mlx5".parse::<Profile>().is_err());
    }
}
