//! Toeplitz against the public Microsoft/Intel RSS verification suite, and the table and
//! carry-less forms against the bit-serial definition.

use proptest::prelude::*;
use rocenic_model::rss::{Context, FlowTuple, Function, HashFields, HashType, IpPair, L4};
use rocenic_model::toeplitz::{
    hash_bitserial, hash_xor, symmetric_key, Form, Toeplitz, ToeplitzTable,
    VerificationVector as Vector, MAX_KEY_LEN, MICROSOFT_KEY, VERIFICATION_IPV4 as IPV4,
    VERIFICATION_IPV6 as IPV6,
};

fn tuple_bytes<const N: usize>(v: &Vector<N>, ports: bool) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&v.src);
    b.extend_from_slice(&v.dst);
    if ports {
        b.extend_from_slice(&v.src_port.to_be_bytes());
        b.extend_from_slice(&v.dst_port.to_be_bytes());
    }
    b
}

fn check_table<const N: usize>(rows: &[Vector<N>]) {
    let table = ToeplitzTable::new(&MICROSOFT_KEY).unwrap();
    let fastest = Toeplitz::new(&MICROSOFT_KEY).unwrap();
    for (i, v) in rows.iter().enumerate() {
        for (ports, want) in [(false, v.hash_l3), (true, v.hash_l3l4)] {
            let input = tuple_bytes(v, ports);
            assert_eq!(
                hash_bitserial(&MICROSOFT_KEY, &input),
                Ok(want),
                "row {i} ports={ports} (bit-serial)"
            );
            assert_eq!(
                table.hash(&input),
                Ok(want),
                "row {i} ports={ports} (table)"
            );
            assert_eq!(
                fastest.hash(&input),
                Ok(want),
                "row {i} ports={ports} ({})",
                fastest.form().name()
            );
        }
    }
}

#[test]
fn verification_suite_ipv4() {
    check_table(&IPV4);
}

#[test]
fn verification_suite_ipv6() {
    check_table(&IPV6);
}

/// The same rows through the RSS field selection, as TCP flows.
#[test]
fn verification_suite_through_rss_context() {
    let ctx = Context::new(Function::Toeplitz, HashFields::DEFAULT, &MICROSOFT_KEY).unwrap();
    let l3 = Context::new(
        Function::Toeplitz,
        HashFields::SRC_IPV4 | HashFields::DST_IPV4 | HashFields::SRC_IPV6 | HashFields::DST_IPV6,
        &MICROSOFT_KEY,
    )
    .unwrap();
    for v in &IPV4 {
        let t = FlowTuple {
            ip: IpPair::V4 {
                src: v.src,
                dst: v.dst,
            },
            l4: L4::Tcp,
            src_port: v.src_port,
            dst_port: v.dst_port,
            fragment: false,
            bth_dest_qpn: None,
        };
        assert_eq!(
            ctx.hash(&t).unwrap(),
            (v.hash_l3l4, HashType(HashType::IPV4.0 | HashType::TCP.0))
        );
        assert_eq!(l3.hash(&t).unwrap(), (v.hash_l3, HashType::IPV4));
        // A fragment of the same flow hashes on its addresses only.
        let frag = FlowTuple {
            fragment: true,
            ..t
        };
        assert_eq!(ctx.hash(&frag).unwrap(), (v.hash_l3, HashType::IPV4));
    }
    for v in &IPV6 {
        let t = FlowTuple {
            ip: IpPair::V6 {
                src: v.src,
                dst: v.dst,
            },
            l4: L4::Udp,
            src_port: v.src_port,
            dst_port: v.dst_port,
            fragment: false,
            bth_dest_qpn: None,
        };
        assert_eq!(
            ctx.hash(&t).unwrap(),
            (v.hash_l3l4, HashType(HashType::IPV6.0 | HashType::UDP.0))
        );
    }
}

#[test]
fn ipv6_ports_and_qpn_need_a_52_byte_key() {
    let t = FlowTuple {
        ip: IpPair::V6 {
            src: [1; 16],
            dst: [2; 16],
        },
        l4: L4::Udp,
        src_port: 1,
        dst_port: 4791,
        fragment: false,
        bth_dest_qpn: Some(0x11),
    };
    let fields = HashFields::DEFAULT | HashFields::BTH_DEST_QPN;
    assert!(Context::new(Function::Toeplitz, fields, &MICROSOFT_KEY)
        .unwrap()
        .hash(&t)
        .is_err());
    let key: [u8; 52] = symmetric_key();
    assert!(Context::new(Function::Toeplitz, fields, &key)
        .unwrap()
        .hash(&t)
        .is_ok());
}

prop_compose! {
    fn key_and_input()(key_len in 4usize..=MAX_KEY_LEN)
        (key in prop::collection::vec(any::<u8>(), key_len),
         input in prop::collection::vec(any::<u8>(), 0..=key_len - 4)) -> (Vec<u8>, Vec<u8>) {
        (key, input)
    }
}

fn any_tuple() -> impl Strategy<Value = FlowTuple> {
    let ip = prop_oneof![
        (any::<[u8; 4]>(), any::<[u8; 4]>()).prop_map(|(src, dst)| IpPair::V4 { src, dst }),
        (any::<[u8; 16]>(), any::<[u8; 16]>()).prop_map(|(src, dst)| IpPair::V6 { src, dst }),
    ];
    let l4 = prop_oneof![Just(L4::Tcp), Just(L4::Udp), Just(L4::None)];
    (ip, l4, any::<u16>(), any::<u16>(), any::<bool>()).prop_map(
        |(ip, l4, src_port, dst_port, fragment)| FlowTuple {
            ip,
            l4,
            src_port,
            dst_port,
            fragment,
            bth_dest_qpn: None,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The table form equals the bit-serial definition for every key length and input length.
    #[test]
    fn table_equals_bitserial((key, input) in key_and_input()) {
        let table = ToeplitzTable::new(&key).unwrap();
        prop_assert_eq!(table.hash(&input), hash_bitserial(&key, &input));
    }

    /// The fastest form this CPU runs, and the portable one, equal the bit-serial definition
    /// for every key length and input length.
    #[test]
    fn every_form_equals_bitserial((key, input) in key_and_input()) {
        let want = hash_bitserial(&key, &input);
        prop_assert_eq!(Toeplitz::new(&key).unwrap().hash(&input), want);
        prop_assert_eq!(Toeplitz::portable(&key).unwrap().hash(&input), want);
    }

    /// Bulk hashing equals one tuple at a time, for the IPv4 and the IPv6 4-tuple.
    #[test]
    fn bulk_equals_single(
        key in proptest::collection::vec(any::<u8>(), 40..=MAX_KEY_LEN),
        v4 in proptest::collection::vec(any::<[u8; 12]>(), 0..20),
        v6 in proptest::collection::vec(any::<[u8; 36]>(), 0..20),
    ) {
        for t in [Toeplitz::new(&key).unwrap(), Toeplitz::portable(&key).unwrap()] {
            let mut out = vec![0; v4.len()];
            t.hash_bulk(&v4, &mut out).unwrap();
            for (tuple, &h) in v4.iter().zip(&out) {
                prop_assert_eq!(Ok(h), hash_bitserial(&key, tuple), "{}", t.form().name());
            }
            let mut out = vec![0; v6.len()];
            t.hash_bulk(&v6, &mut out).unwrap();
            for (tuple, &h) in v6.iter().zip(&out) {
                prop_assert_eq!(Ok(h), hash_bitserial(&key, tuple), "{}", t.form().name());
            }
        }
    }

    /// Bulk hashing at short, long and odd tuple lengths, odd counts included (the 256-bit path
    /// hashes tuples in twos, and takes the short ones too).
    #[test]
    fn bulk_equals_single_at_many_lengths(
        key in any::<[u8; MAX_KEY_LEN]>(),
        bytes in proptest::collection::vec(any::<u8>(), 0..9 * MAX_KEY_LEN),
    ) {
        bulk_check::<1>(&key, &bytes)?;
        bulk_check::<4>(&key, &bytes)?;
        bulk_check::<7>(&key, &bytes)?;
        bulk_check::<8>(&key, &bytes)?;
        bulk_check::<12>(&key, &bytes)?;
        bulk_check::<13>(&key, &bytes)?;
        bulk_check::<21>(&key, &bytes)?;
        bulk_check::<24>(&key, &bytes)?;
        bulk_check::<31>(&key, &bytes)?;
        bulk_check::<32>(&key, &bytes)?;
        bulk_check::<36>(&key, &bytes)?;
        bulk_check::<40>(&key, &bytes)?;
        bulk_check::<45>(&key, &bytes)?;
        bulk_check::<48>(&key, &bytes)?;
    }

    /// Toeplitz is linear over GF(2): h(a ^ b) = h(a) ^ h(b).
    #[test]
    fn toeplitz_is_linear(a in any::<[u8; 36]>(), b in any::<[u8; 36]>()) {
        let t = ToeplitzTable::new(&MICROSOFT_KEY).unwrap();
        let x: Vec<u8> = a.iter().zip(&b).map(|(p, q)| p ^ q).collect();
        prop_assert_eq!(t.hash(&x).unwrap(), t.hash(&a).unwrap() ^ t.hash(&b).unwrap());
    }

    /// With the symmetric key, a flow and its reverse hash the same, for every field set.
    #[test]
    fn symmetric_key_gives_equal_hashes(t in any_tuple(), fields in 0u32..256, long in any::<bool>()) {
        let key40: [u8; 40] = symmetric_key();
        let key52: [u8; 52] = symmetric_key();
        let key: &[u8] = if long { &key52 } else { &key40 };
        // Symmetry needs each source field paired with its destination field.
        let mut f = fields & 0x55;
        f |= f << 1;
        let ctx = Context::new(Function::Toeplitz, HashFields(f), key).unwrap();
        prop_assert_eq!(ctx.hash(&t).unwrap(), ctx.hash(&t.reversed()).unwrap());
    }

    /// The XOR hash is symmetric in the addresses.
    #[test]
    fn xor_symmetric_for_addresses(a in any::<[u8; 16]>(), b in any::<[u8; 16]>()) {
        let ab: Vec<u8> = a.iter().chain(&b).copied().collect();
        let ba: Vec<u8> = b.iter().chain(&a).copied().collect();
        prop_assert_eq!(hash_xor(&ab), hash_xor(&ba));
    }
}

/// `bytes` cut into tuples of `N`, hashed in bulk by every form, against the definition.
fn bulk_check<const N: usize>(key: &[u8], bytes: &[u8]) -> Result<(), TestCaseError> {
    let tuples: Vec<[u8; N]> = bytes
        .chunks_exact(N)
        .map(|c| c.try_into().unwrap())
        .collect();
    for t in [
        Toeplitz::new(key).unwrap(),
        Toeplitz::portable(key).unwrap(),
    ] {
        let mut out = vec![0; tuples.len()];
        t.hash_bulk(&tuples, &mut out).unwrap();
        for (i, (tuple, &h)) in tuples.iter().zip(&out).enumerate() {
            prop_assert_eq!(
                Ok(h),
                hash_bitserial(key, tuple),
                "{} B, tuple {} of {}, {}",
                N,
                i,
                tuples.len(),
                t.form().name()
            );
        }
    }
    Ok(())
}

/// Where the carry-less form is built and the CPU has it, it is the one chosen: the tests above
/// then prove it, not the table twice.
#[test]
fn fastest_form_is_chosen() {
    let want = if cfg!(all(feature = "simd", target_arch = "x86_64")) && clmul_cpu() {
        Form::Clmul
    } else {
        Form::Table
    };
    assert_eq!(Toeplitz::new(&MICROSOFT_KEY).unwrap().form(), want);
    assert_eq!(
        Toeplitz::portable(&MICROSOFT_KEY).unwrap().form(),
        Form::Table
    );
}

fn clmul_cpu() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("pclmulqdq");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// Every form refuses what the key does not cover, and bad key lengths, with the same errors.
#[test]
fn every_form_checks_lengths() {
    let key = [7u8; 40];
    for t in [
        Toeplitz::new(&key).unwrap(),
        Toeplitz::portable(&key).unwrap(),
    ] {
        assert_eq!(t.max_input_len(), 36);
        let long = Err(rocenic_model::toeplitz::Error::InputTooLong {
            input_len: 37,
            max: 36,
        });
        assert_eq!(t.hash(&[0; 37]), long);
        assert_eq!(t.hash_bulk(&[[0u8; 37]], &mut [0]), long.map(|_: u32| ()));
    }
    for len in [3, MAX_KEY_LEN + 1] {
        let bad = rocenic_model::toeplitz::Error::BadKeyLength(len);
        assert_eq!(Toeplitz::new(&vec![1; len]).unwrap_err(), bad);
        assert_eq!(Toeplitz::portable(&vec![1; len]).unwrap_err(), bad);
    }
}

/// A key that is not symmetric distinguishes directions (the symmetric test can fail).
#[test]
fn microsoft_key_is_not_symmetric() {
    let v = &IPV4[0];
    let fwd = tuple_bytes(v, true);
    let rev = tuple_bytes(
        &Vector {
            dst: v.src,
            dst_port: v.src_port,
            src: v.dst,
            src_port: v.dst_port,
            hash_l3: 0,
            hash_l3l4: 0,
        },
        true,
    );
    assert_ne!(
        hash_bitserial(&MICROSOFT_KEY, &fwd),
        hash_bitserial(&MICROSOFT_KEY, &rev)
    );
}
