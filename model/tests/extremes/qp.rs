//! `qp`: PSNs at the 2^24 wrap, message lengths up to `u32::MAX`, memory regions and gather
//! entries at the ends of the 64-bit address space, QPNs past 24 bits, and every pair of states,
//! each against the plain definition in u128 arithmetic.

use crate::{config, edge_u32, edge_u64, edge_u8};
use proptest::prelude::*;
use rocenic_model::entropy::{Profile, QpType, Request};
use rocenic_model::qp::*;
use rocenic_model::wire::{EthernetAddress, Ipv4Address};

const M24: u128 = 1 << 24;

/// An address near an end of the space, near a region's bounds or anywhere.
fn addr() -> impl Strategy<Value = u64> {
    prop_oneof![edge_u64(), 0u64..0x3000, (u64::MAX - 0x3000)..=u64::MAX]
}

fn len() -> impl Strategy<Value = u64> {
    prop_oneof![
        edge_u64(),
        0u64..0x3000,
        Just(u64::from(MAX_MSG_SIZE)),
        Just(u64::from(MAX_MSG_SIZE) + 1),
    ]
}

fn region() -> impl Strategy<Value = (u32, u64, u64, u32, u32)> {
    (
        0u32..4,
        addr(),
        prop_oneof![len(), 1u64..0x100],
        0u32..3,
        0u32..16,
    )
}

/// What `MrTable::check` must answer, in u128.
fn check_reference(
    regions: &[MemoryRegion],
    lkey: u32,
    pd: u32,
    addr: u64,
    len: u64,
    access: u32,
) -> Result<(), Status> {
    let (a, l) = (u128::from(addr), u128::from(len));
    if l == 0 || l > 1 << 31 {
        return Err(Status::LocLenErr);
    }
    let ok = regions.iter().any(|m| {
        m.lkey == lkey
            && m.pd == pd
            && m.access.bits() & access == access
            && a >= u128::from(m.base)
            && a + l <= u128::from(m.base) + u128::from(m.length)
    });
    if ok {
        Ok(())
    } else {
        Err(Status::LocProtErr)
    }
}

/// Registers what the table accepts; returns the accepted regions, checked against the
/// registration rules in u128.
fn build(raw: &[(u32, u64, u64, u32, u32)]) -> (MrTable<4>, Vec<MemoryRegion>) {
    let mut t = MrTable::<4>::new();
    let mut kept: Vec<MemoryRegion> = Vec::new();
    for &(lkey, base, length, pd, acc) in raw {
        let mr = MemoryRegion {
            lkey,
            base,
            length,
            pd,
            access: Access::from_bits_truncate(acc),
        };
        let want = if length == 0 || u128::from(base) + u128::from(length) > 1 << 64 {
            Err(MrError::BadRange)
        } else if kept.iter().any(|m| m.lkey == lkey) {
            Err(MrError::DuplicateLkey)
        } else if kept.len() == 4 {
            Err(MrError::Full)
        } else {
            Ok(())
        };
        assert_eq!(t.register(mr), want, "{mr:?}");
        if want.is_ok() {
            kept.push(mr);
        }
    }
    (t, kept)
}

proptest! {
    #![proptest_config(config("qp::mr_check", 2048))]

    /// Every entry against regions at the ends of the address space.
    #[test]
    fn mr_check_matches_u128(
        raw in prop::collection::vec(region(), 0..6),
        entries in prop::collection::vec((0u32..5, 0u32..3, addr(), len(), 0u32..16), 1..8),
    ) {
        let (t, kept) = build(&raw);
        prop_assert_eq!(t.len(), kept.len());
        for (lkey, pd, a, l, acc) in entries {
            let access = Access::from_bits_truncate(acc);
            prop_assert_eq!(
                t.check(lkey, pd, a, l, access),
                check_reference(&kept, lkey, pd, a, l, access.bits()),
                "lkey {} pd {} addr {:#x} len {:#x}", lkey, pd, a, l
            );
        }
        // Entries aimed at each region's bounds, where an off-by-one would show.
        for m in &kept {
            let end = m.base.wrapping_add(m.length); // 0 when the region ends at 2^64
            for a in [m.base.wrapping_sub(1), m.base, m.base.wrapping_add(1), end.wrapping_sub(1), end] {
                let room = m.length.wrapping_sub(a.wrapping_sub(m.base));
                for l in [1, room.wrapping_sub(1), room, room.wrapping_add(1), u64::from(MAX_MSG_SIZE)] {
                    for (lkey, pd) in [(m.lkey, m.pd), (m.lkey, m.pd + 1), (m.lkey + 1, m.pd)] {
                        prop_assert_eq!(
                            t.check(lkey, pd, a, l, m.access),
                            check_reference(&kept, lkey, pd, a, l, m.access.bits()),
                            "lkey {} pd {} addr {:#x} len {:#x}", lkey, pd, a, l
                        );
                    }
                }
            }
        }
    }

    /// A gather list: count, entries in order, then the total, in u128.
    #[test]
    fn gather_matches_u128(
        raw in prop::collection::vec(region(), 0..6),
        sges in prop::collection::vec(
            (addr(), prop_oneof![edge_u32(), 0u32..0x3000, Just(MAX_MSG_SIZE)], 0u32..5),
            0..6,
        ),
        max_sge in 0usize..8,
    ) {
        let (t, kept) = build(&raw);
        let sges: Vec<Sge> = sges
            .into_iter()
            .map(|(addr, length, lkey)| Sge { addr, length, lkey })
            .collect();
        let want = if sges.len() > max_sge {
            Err(Status::LocQpOpErr)
        } else {
            let first_bad = sges.iter().find_map(|s| {
                check_reference(&kept, s.lkey, 1, s.addr, u64::from(s.length), 0).err()
            });
            let total: u128 = sges.iter().map(|s| u128::from(s.length)).sum();
            match first_bad {
                Some(e) => Err(e),
                None if total > 1 << 31 => Err(Status::LocLenErr),
                None => Ok(total as u32),
            }
        };
        prop_assert_eq!(check_gather(&t, 1, &sges, max_sge), want);
    }
}

proptest! {
    #![proptest_config(config("qp::psn", 2048))]

    /// Addition, distance and order modulo 2^24.
    #[test]
    fn psn_matches_u128(a in edge_u32(), b in edge_u32(), n in edge_u32()) {
        prop_assert_eq!(Psn::new(a).is_some(), u128::from(a) < M24);
        let (pa, pb) = (Psn::from_bits_truncate(a), Psn::from_bits_truncate(b));
        let (ra, rb) = (u128::from(a) % M24, u128::from(b) % M24);
        prop_assert_eq!(u128::from(pa.add(n).get()), (ra + u128::from(n)) % M24);
        let d = (ra + M24 - rb) % M24;
        prop_assert_eq!(u128::from(pa.distance_from(pb)), d);
        prop_assert_eq!(pa.is_after(pb), (1..1 << 23).contains(&d));
        prop_assert_eq!(pa.is_before(pb), pb.is_after(pa));
    }

    /// Packets per message for every length.
    #[test]
    fn packets_match_u128(l in edge_u32(), code in 1u8..=5) {
        let mtu = PathMtu::from_code(code).unwrap();
        let (l, m) = (u128::from(l), u128::from(mtu.bytes()));
        let want = if l == 0 { 1 } else { l.div_ceil(m) };
        prop_assert_eq!(u128::from(mtu.packets(l as u32)), want);
    }

    /// Codes out of range are refused, never wrapped.
    #[test]
    fn codes_refused(code in edge_u8(), bytes in edge_u32()) {
        prop_assert_eq!(PathMtu::from_code(code).is_some(), (1..=5).contains(&code));
        prop_assert_eq!(
            PathMtu::from_bytes(bytes).is_some(),
            [256, 512, 1024, 2048, 4096].contains(&bytes)
        );
        prop_assert_eq!(QpState::from_code(code).map(QpState::code), [0, 1, 2, 3, 6].contains(&code).then_some(code));
        prop_assert_eq!(Status::from_code(code).map(Status::code), [0, 1, 2, 4, 5, 7, 9, 10, 11, 12, 13, 21].contains(&code).then_some(code));
    }
}

proptest! {
    #![proptest_config(config("qp::table", 1024))]

    /// QPNs and flow labels at their limits: an error exactly when out of range; an RC QP that
    /// reaches RTR has the entropy `Profile::compute` gives, whatever it is passed later, and
    /// its PSNs advance modulo 2^24.
    #[test]
    fn qp_lifecycle(
        qpn in edge_u32(),
        dest in edge_u32(),
        fl in prop_oneof![edge_u32(), 0u32..0x10_0000],
        psn in edge_u32(),
        take in edge_u32(),
        hop in edge_u8(),
        ud in any::<bool>(),
        p in 0u8..4,
    ) {
        let profile = Profile::from_code(p).unwrap();
        let mut av = AddressVector::new(
            IpPair::V4 { src: Ipv4Address::new(10, 0, 0, 1), dst: Ipv4Address::new(10, 0, 0, 2) },
            EthernetAddress([2, 0, 0, 0, 0, 1]),
            EthernetAddress([2, 0, 0, 0, 0, 2]),
        );
        av.flow_label = fl;
        av.hop_limit = hop;
        let qp_type = if ud { QpType::Ud } else { QpType::Rc };
        let cfg = QpConfig {
            qp_type: qp_type.into(),
            pd: 1,
            mtu: PathMtu::default(),
            psn: Psn::from_bits_truncate(psn),
            dest_qpn: dest,
            q_key: 0,
            av: (!ud).then_some(av),
        };
        let want_err = if !(2..M24).contains(&u128::from(qpn)) {
            Some(ConfigError::Qpn)
        } else if u128::from(dest) >= M24 {
            Some(ConfigError::DestQpn)
        } else if !ud && fl >= 1 << 20 {
            Some(ConfigError::Av(AvError::FlowLabel))
        } else if !ud && hop == 0 {
            Some(ConfigError::Av(AvError::HopLimit))
        } else {
            None
        };
        let mut t = QpTable::<2>::new(profile);
        let created = t.create(qpn, cfg).map(|_| ());
        prop_assert_eq!(created.err(), want_err.map(QpError::Config));
        if want_err.is_some() {
            prop_assert!(t.is_empty());
            return Ok(());
        }
        t.bring_up(qpn).unwrap();
        let compute = |t| profile.compute(&Request::Qp { lqpn: qpn, rqpn: dest, flow_label: fl, qp_type: t });
        let ctx = t.get_mut(qpn).unwrap();
        if ud {
            prop_assert_eq!(ctx.entropy(), None);
            prop_assert_eq!(ctx.entropy_for(profile, dest, &av), Some(compute(QpType::Ud)));
        } else {
            prop_assert_eq!(ctx.entropy(), Some(compute(QpType::Rc)));
            prop_assert_eq!(ctx.entropy_for(profile, 0, &av), Some(compute(QpType::Rc)));
        }
        let first = ctx.take_psns(take);
        prop_assert_eq!(u128::from(first.get()), u128::from(psn) % M24);
        prop_assert_eq!(
            u128::from(ctx.next_psn().get()),
            (u128::from(psn) + u128::from(take)) % M24
        );
    }
}
