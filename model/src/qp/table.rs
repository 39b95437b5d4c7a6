//! The QP context table: a fixed number of QP contexts keyed by QPN.

use super::{ConfigError, IllegalTransition, QpConfig, QpContext, QpKind, QpState};
use crate::entropy::Profile;

/// QPs a table holds by default (the RTL's parameter default too).
pub const DEFAULT_QPS: usize = 64;

/// Why a table operation was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QpError {
    /// The configuration is invalid.
    Config(ConfigError),
    /// A QP with this QPN exists.
    Duplicate,
    /// Every slot is taken.
    Full,
    /// No QP has this QPN.
    NotFound,
    /// The transition is illegal; the QP is unchanged.
    Transition(IllegalTransition),
    /// A raw-packet QP on a table without raw QPs ([`QpTable::set_raw`]): what the RTL's
    /// `QP_WRITE` does with one (it refuses the path MTU code 0 a raw QP is written with).
    RawUnsupported,
}

/// Up to `N` QP contexts and the entropy profile they derive their ports with.
///
/// Raw-packet QPs are a capability of the engine the table belongs to, off by default as in
/// the RTL engine, which has none yet: without it [`QpTable::create`] refuses them.
#[derive(Clone, Debug)]
pub struct QpTable<const N: usize = DEFAULT_QPS> {
    slots: [Option<QpContext>; N],
    profile: Profile,
    raw: bool,
}

impl<const N: usize> Default for QpTable<N> {
    fn default() -> Self {
        Self::new(Profile::default())
    }
}

impl<const N: usize> QpTable<N> {
    /// An empty table deriving entropy under `profile`.
    pub const fn new(profile: Profile) -> Self {
        QpTable {
            slots: [None; N],
            profile,
            raw: false,
        }
    }

    /// The entropy profile.
    pub const fn profile(&self) -> Profile {
        self.profile
    }

    /// Gives the engine raw-packet QPs (`on`) or takes them away; QPs already created stay.
    pub fn set_raw(&mut self, on: bool) {
        self.raw = on;
    }

    /// Whether raw-packet QPs can be created.
    pub const fn raw(&self) -> bool {
        self.raw
    }

    /// Changes the entropy profile (a register block's `CONTROL.PROFILE`): QPs entering RTR
    /// from now on, and UD requests, derive their entropy under it.
    pub fn set_profile(&mut self, profile: Profile) {
        self.profile = profile;
    }

    /// Creates a QP in RESET.
    pub fn create(&mut self, qpn: u32, config: QpConfig) -> Result<&mut QpContext, QpError> {
        let ctx = QpContext::new(qpn, config).map_err(QpError::Config)?;
        if config.qp_type == QpKind::Raw && !self.raw {
            return Err(QpError::RawUnsupported);
        }
        if self.get(qpn).is_some() {
            return Err(QpError::Duplicate);
        }
        let slot = self
            .slots
            .iter_mut()
            .find(|s| s.is_none())
            .ok_or(QpError::Full)?;
        Ok(slot.insert(ctx))
    }

    /// Destroys a QP, returning its context.
    pub fn destroy(&mut self, qpn: u32) -> Result<QpContext, QpError> {
        self.slots
            .iter_mut()
            .find(|s| matches!(s, Some(c) if c.qpn() == qpn))
            .and_then(Option::take)
            .ok_or(QpError::NotFound)
    }

    /// The QP with this QPN.
    pub fn get(&self, qpn: u32) -> Option<&QpContext> {
        self.slots.iter().flatten().find(|c| c.qpn() == qpn)
    }

    /// The QP with this QPN, to change.
    pub fn get_mut(&mut self, qpn: u32) -> Option<&mut QpContext> {
        self.slots.iter_mut().flatten().find(|c| c.qpn() == qpn)
    }

    /// A verbs modify of one QP.
    pub fn modify(&mut self, qpn: u32, to: QpState) -> Result<(), QpError> {
        let profile = self.profile;
        let ctx = self.get_mut(qpn).ok_or(QpError::NotFound)?;
        ctx.modify(to, profile).map_err(QpError::Transition)
    }

    /// RESET → INIT → RTR → RTS.
    pub fn bring_up(&mut self, qpn: u32) -> Result<(), QpError> {
        for to in [QpState::Init, QpState::Rtr, QpState::Rts] {
            self.modify(qpn, to)?;
        }
        Ok(())
    }

    /// QPs in the table.
    pub fn len(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every QP, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = &QpContext> {
        self.slots.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::super::av::tests::av4;
    use super::super::{AvError, PathMtu, Psn, QpType, QPN_MAX};
    use super::*;
    use crate::entropy::{Entropy, Request};

    fn rc(dest_qpn: u32, flow_label: u32) -> QpConfig {
        let mut av = av4();
        av.flow_label = flow_label;
        QpConfig {
            qp_type: QpKind::Rc,
            pd: 1,
            mtu: PathMtu::Mtu1024,
            psn: Psn::new(0xFF_FFFE).unwrap(),
            dest_qpn,
            q_key: 0,
            av: Some(av),
        }
    }

    fn ud() -> QpConfig {
        QpConfig {
            qp_type: QpKind::Ud,
            av: None,
            q_key: 0x1111_1111,
            ..rc(0, 0)
        }
    }

    fn direct(profile: Profile, t: QpType, l: u32, r: u32, fl: u32) -> Entropy {
        profile.compute(&Request::Qp {
            lqpn: l,
            rqpn: r,
            flow_label: fl,
            qp_type: t,
        })
    }

    #[test]
    fn create_and_destroy() {
        let mut t = QpTable::<2>::default();
        assert!(t.is_empty());
        assert_eq!(
            t.create(0x11, rc(0x22, 0)).map(|c| c.state()),
            Ok(QpState::Reset)
        );
        assert_eq!(t.create(0x11, ud()).err(), Some(QpError::Duplicate));
        t.create(0x12, ud()).unwrap();
        assert_eq!(t.create(0x13, ud()).err(), Some(QpError::Full));
        assert_eq!(t.len(), 2);
        assert_eq!(t.iter().map(QpContext::qpn).sum::<u32>(), 0x23);
        assert_eq!(t.destroy(0x11).map(|c| c.qpn()), Ok(0x11));
        assert_eq!(t.destroy(0x11), Err(QpError::NotFound));
        assert_eq!(t.modify(0x11, QpState::Init), Err(QpError::NotFound));
        t.create(0x13, ud()).unwrap();
    }

    fn raw() -> QpConfig {
        QpConfig {
            qp_type: QpKind::Raw,
            ..ud()
        }
    }

    #[test]
    fn raw_qps_are_a_capability() {
        let mut t = QpTable::<4>::default();
        assert!(!t.raw());
        assert_eq!(t.create(0x11, raw()).err(), Some(QpError::RawUnsupported));
        assert!(t.is_empty());
        t.set_raw(true);
        let with_av = QpConfig {
            av: rc(0, 0).av,
            ..raw()
        };
        assert_eq!(
            t.create(0x11, with_av).err(),
            Some(QpError::Config(ConfigError::RawAv))
        );
        t.create(0x11, raw()).unwrap();
        // States as verbs, and no entropy at RTR.
        t.bring_up(0x11).unwrap();
        let ctx = t.get(0x11).unwrap();
        assert_eq!((ctx.state(), ctx.entropy()), (QpState::Rts, None));
        assert_eq!(ctx.entropy_for(Profile::Linux, 0x22, &av4()), None);
        t.modify(0x11, QpState::Err).unwrap();
        t.modify(0x11, QpState::Reset).unwrap();
        // Taking the capability away keeps the QP, refuses new ones.
        t.set_raw(false);
        assert_eq!(t.create(0x12, raw()).err(), Some(QpError::RawUnsupported));
        assert!(t.get(0x11).is_some());
    }

    #[test]
    fn config_checks() {
        let mut t = QpTable::<4>::default();
        let bad = |e| Some(QpError::Config(e));
        assert_eq!(t.create(0, ud()).err(), bad(ConfigError::Qpn));
        assert_eq!(t.create(1, ud()).err(), bad(ConfigError::Qpn));
        assert_eq!(t.create(1 << 24, ud()).err(), bad(ConfigError::Qpn));
        assert_eq!(t.create(2, rc(1 << 24, 0)).err(), bad(ConfigError::DestQpn));
        let no_av = QpConfig {
            av: None,
            ..rc(3, 0)
        };
        assert_eq!(t.create(2, no_av).err(), bad(ConfigError::MissingAv));
        assert_eq!(
            t.create(2, rc(3, 1 << 20)).err(),
            bad(ConfigError::Av(AvError::FlowLabel))
        );
        assert!(t.is_empty());
        assert!(t.create(QPN_MAX, rc(QPN_MAX, 0)).is_ok());
    }

    #[test]
    fn rc_entropy_fixed_at_rtr() {
        for profile in Profile::ALL {
            for fl in [0, 0xABCDE] {
                let mut t = QpTable::<4>::new(profile);
                t.create(0x11, rc(0x22, fl)).unwrap();
                t.modify(0x11, QpState::Init).unwrap();
                assert_eq!(t.get(0x11).unwrap().entropy(), None);
                t.modify(0x11, QpState::Rtr).unwrap();
                let want = direct(profile, QpType::Rc, 0x11, 0x22, fl);
                let ctx = t.get(0x11).unwrap();
                assert_eq!(ctx.entropy(), Some(want));
                // Fixed: a request's vector does not change an RC QP's entropy.
                let other = av4();
                assert_eq!(ctx.entropy_for(profile, 0x99, &other), Some(want));
                t.modify(0x11, QpState::Rts).unwrap();
                assert_eq!(t.get(0x11).unwrap().entropy(), Some(want));
                t.modify(0x11, QpState::Reset).unwrap();
                assert_eq!(t.get(0x11).unwrap().entropy(), None);
            }
        }
    }

    #[test]
    fn ud_entropy_per_request() {
        for profile in Profile::ALL {
            let mut t = QpTable::<4>::new(profile);
            t.create(0x11, ud()).unwrap();
            t.bring_up(0x11).unwrap();
            let ctx = t.get(0x11).unwrap();
            assert_eq!(ctx.entropy(), None);
            for (dqpn, fl) in [(0x22, 0), (0x23, 0), (0x22, 0x5), (0xFF_FFFF, 0)] {
                let mut av = av4();
                av.flow_label = fl;
                let want = direct(profile, QpType::Ud, 0x11, dqpn, fl);
                assert_eq!(ctx.entropy_for(profile, dqpn, &av), Some(want));
            }
        }
    }

    #[test]
    fn illegal_transition_leaves_qp_unchanged() {
        let mut t = QpTable::<4>::default();
        t.create(0x11, rc(0x22, 0)).unwrap();
        let err = t.modify(0x11, QpState::Rts);
        assert_eq!(
            err,
            Err(QpError::Transition(IllegalTransition {
                from: QpState::Reset,
                to: QpState::Rts
            }))
        );
        assert_eq!(t.get(0x11).unwrap().state(), QpState::Reset);
        assert!(t.modify(0x11, QpState::Err).is_err());
        t.bring_up(0x11).unwrap();
        assert!(t.bring_up(0x11).is_err());
        assert_eq!(t.get(0x11).unwrap().state(), QpState::Rts);
    }

    #[test]
    fn error_is_per_qp_and_psns_wrap() {
        let mut t = QpTable::<4>::default();
        for q in [0x11, 0x12] {
            t.create(q, rc(0x22, 0)).unwrap();
            t.bring_up(q).unwrap();
        }
        let a = t.get_mut(0x11).unwrap();
        assert_eq!(a.take_psns(3).get(), 0xFF_FFFE);
        assert_eq!(a.next_psn().get(), 1);
        a.set_error();
        assert_eq!(t.get(0x11).unwrap().state(), QpState::Err);
        assert_eq!(t.get(0x12).unwrap().state(), QpState::Rts);
        assert_eq!(t.get(0x12).unwrap().next_psn().get(), 0xFF_FFFE);
        t.modify(0x11, QpState::Reset).unwrap();
        assert_eq!(t.get(0x11).unwrap().next_psn().get(), 0xFF_FFFE);
    }
}
