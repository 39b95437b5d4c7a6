//! Which entropy profiles explain a RoCEv2 flow seen on the wire (docs/reference.md §8, the rule
//! in docs/golden.md).
//!
//! A capture shows a flow's UDP source port, its IPv6 flow label (none over IPv4), its
//! destination QPN and, for UD, its source QPN (DETH). The rule that made the port needs both
//! QPNs and whatever flow label the application or the RDMA CM gave the address vector, which
//! the wire shows only over IPv6. So each profile is tried with every flow label the sender could
//! have been given:
//!
//! 1. none: the profile derives the flow (`Request::Qp` with flow label 0);
//! 2. the observed non-zero IPv6 label, as the application's or the CM's (the CM's label reaches
//!    the driver as the address vector's, so the port must follow from it the same way);
//! 3. the label the QP map gives for this destination, if any (the only way to check an IPv4
//!    flow whose sender had a label, the CM's included).
//!
//! A profile explains the flow if one candidate gives the observed port and, over IPv6, the
//! observed label. Without the source QPN nothing can be computed: the result is "unknown".
//! `linux` and `rfc-v2` differ only in the CM hash, which a capture cannot see (the CM service
//! ports are not in the RoCEv2 frames), so they explain the same flows.

use crate::entropy::{Profile, QpType, Request};
use crate::wire::ib::opcode;
use core::fmt;

/// A set of entropy profiles (a bit per [`Profile::code`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProfileSet(u8);

impl ProfileSet {
    /// No profile.
    pub const EMPTY: ProfileSet = ProfileSet(0);
    /// Every profile of [`Profile::ALL`].
    pub const ALL: ProfileSet = ProfileSet(0b1111);

    /// The set holding `p` alone.
    pub const fn single(p: Profile) -> ProfileSet {
        ProfileSet(1 << p.code())
    }

    /// This set with `p` added.
    pub const fn with(self, p: Profile) -> ProfileSet {
        ProfileSet(self.0 | 1 << p.code())
    }

    /// The profiles in both sets.
    pub const fn and(self, other: ProfileSet) -> ProfileSet {
        ProfileSet(self.0 & other.0)
    }

    /// True when `p` is in the set.
    pub const fn contains(self, p: Profile) -> bool {
        self.0 & 1 << p.code() != 0
    }

    /// True when no profile is in the set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many profiles the set holds.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The profiles in the set, in the order of [`Profile::ALL`].
    pub fn iter(self) -> impl Iterator<Item = Profile> {
        Profile::ALL.into_iter().filter(move |p| self.contains(*p))
    }
}

/// The profile names joined by `|` in the order of [`Profile::ALL`], or `none`.
impl fmt::Display for ProfileSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        for (i, p) in self.iter().enumerate() {
            if i > 0 {
                f.write_str("|")?;
            }
            f.write_str(p.name())?;
        }
        Ok(())
    }
}

/// The transport whose port rule an opcode's frames follow, or `None` for frames that carry no
/// entropy of their own: CNPs (the congestion notification point answers with a port of its
/// choosing, the ConnectX-4 Lx one with 0), RD (not modelled) and the vendor-defined opcodes.
/// RC, UC and XRC fix the port in the QP context, as RC does.
pub const fn qp_type(op: u8) -> Option<QpType> {
    match opcode::transport(op) {
        opcode::TRANSPORT_RC | opcode::TRANSPORT_UC | opcode::TRANSPORT_XRC => Some(QpType::Rc),
        opcode::TRANSPORT_UD => Some(QpType::Ud),
        _ => None,
    }
}

/// What one frame of a flow shows, plus what the QP map adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Observed {
    /// The sender's QPN: the DETH's for UD, the QP map's for RC and UC; `None` when unknown.
    pub src_qpn: Option<u32>,
    /// The BTH destination QPN.
    pub dst_qpn: u32,
    /// RC or UD, from the opcode ([`qp_type`]).
    pub qp_type: QpType,
    /// The IPv6 flow label (20 bits); `None` over IPv4.
    pub flow_label: Option<u32>,
    /// The UDP source port.
    pub udp_sport: u16,
    /// The address vector's flow label the QP map gives, if any (up to 32 bits, as the
    /// kernel takes it: `0x100000` is non-zero and gives port `0xC000`).
    pub map_flow_label: Option<u32>,
}

impl Observed {
    /// The profiles whose rule gives this port (and label); `None` when the source QPN is
    /// unknown.
    pub fn profiles(&self) -> Option<ProfileSet> {
        self.src_qpn?;
        Some(
            Profile::ALL
                .into_iter()
                .filter(|p| self.explained_by(*p))
                .fold(ProfileSet::EMPTY, ProfileSet::with),
        )
    }

    /// True when a candidate flow label (see the module docs) makes `profile` give what was
    /// observed; false when the source QPN is unknown.
    pub fn explained_by(&self, profile: Profile) -> bool {
        let Some(lqpn) = self.src_qpn else {
            return false;
        };
        // A zero label from the wire is the same candidate as "none".
        let observed = self.flow_label.filter(|&l| l != 0);
        let candidates = [Some(0), observed, self.map_flow_label];
        candidates.into_iter().flatten().any(|fl| {
            let e = profile.compute(&Request::Qp {
                lqpn,
                rqpn: self.dst_qpn,
                flow_label: fl,
                qp_type: self.qp_type,
            });
            e.udp_sport == self.udp_sport && self.flow_label.is_none_or(|l| l == e.flow_label)
        })
    }
}

/// A flow's verdict against the selected profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The selected profile explains the flow.
    Match,
    /// It does not (another profile may).
    Mismatch,
    /// Nothing could be computed: a QPN is missing, or the frames carry no entropy of their own.
    Unknown,
}

impl Verdict {
    /// The verdict for a flow explained by `profiles` (`None`: unknown) under `selected`.
    pub const fn of(profiles: Option<ProfileSet>, selected: Profile) -> Verdict {
        match profiles {
            None => Verdict::Unknown,
            Some(set) if set.contains(selected) => Verdict::Match,
            Some(_) => Verdict::Mismatch,
        }
    }

    /// `match`, `mismatch` or `unknown`.
    pub const fn name(self) -> &'static str {
        match self {
            Verdict::Match => "match",
            Verdict::Mismatch => "mismatch",
            Verdict::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests;
