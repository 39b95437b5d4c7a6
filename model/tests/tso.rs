//! TSO model properties: segments reassemble to the payload, every checksum verifies through the
//! independent checker, and the per-segment header rules hold (docs/reference.md §5).

use proptest::prelude::*;
use rocenic_model::tso::{verify_segment, Error, Limits, Segmenter};
use rocenic_model::wire::LinkType;

/// A header template: link header, IPv4 (with options) or IPv6, TCP with options.
#[derive(Clone, Debug)]
struct Template {
    link: LinkType,
    vlan: bool,
    ipv4: bool,
    ip_options: Vec<u8>,
    tcp_options: Vec<u8>,
    ident: u16,
    seq: u32,
    flags: u8,
    addrs: [u8; 32],
}

impl Template {
    fn bytes(&self) -> Vec<u8> {
        let mut h = Vec::new();
        let ethertype: u16 = if self.ipv4 { 0x0800 } else { 0x86DD };
        match self.link {
            LinkType::Ethernet => {
                h.extend_from_slice(&[0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2]);
                if self.vlan {
                    h.extend_from_slice(&[0x81, 0x00, 0x20, 0x05]);
                }
                h.extend_from_slice(&ethertype.to_be_bytes());
            }
            LinkType::Ipoib => {
                h.extend_from_slice(&ethertype.to_be_bytes());
                h.extend_from_slice(&[0, 0]);
            }
            LinkType::Infiniband => unreachable!("TSO sends are Ethernet or IPoIB"),
        }
        if self.ipv4 {
            let ihl = 5 + self.ip_options.len() / 4;
            h.push(0x40 | ihl as u8);
            h.push(0x10);
            h.extend_from_slice(&[0xDE, 0xAD]); // total length: ignored, rewritten
            h.extend_from_slice(&self.ident.to_be_bytes());
            h.extend_from_slice(&[0x40, 0x00, 64, 6, 0xBE, 0xEF]); // DF, TTL, TCP, stale checksum
            h.extend_from_slice(&self.addrs[..8]);
            h.extend_from_slice(&self.ip_options);
        } else {
            h.extend_from_slice(&[0x60, 0x01, 0x23, 0x45, 0xDE, 0xAD, 6, 64]);
            h.extend_from_slice(&self.addrs);
        }
        let doff = 5 + self.tcp_options.len() / 4;
        h.extend_from_slice(&[0x30, 0x39, 0x01, 0xBB]);
        h.extend_from_slice(&self.seq.to_be_bytes());
        h.extend_from_slice(&[0, 0, 0, 7]);
        h.push((doff as u8) << 4);
        h.push(self.flags);
        h.extend_from_slice(&[0xFF, 0xFF, 0x12, 0x34, 0, 0]); // window, stale checksum, urgent
        h.extend_from_slice(&self.tcp_options);
        h
    }
}

fn words(max: usize) -> impl Strategy<Value = Vec<u8>> {
    (0..=max / 4).prop_flat_map(|n| prop::collection::vec(any::<u8>(), n * 4))
}

fn any_template() -> impl Strategy<Value = Template> {
    (
        prop_oneof![Just(LinkType::Ethernet), Just(LinkType::Ipoib)],
        any::<bool>(),
        any::<bool>(),
        words(40),
        words(40),
        any::<u16>(),
        any::<u32>(),
        any::<u8>(),
        any::<[u8; 32]>(),
    )
        .prop_map(
            |(link, vlan, ipv4, ip_options, tcp_options, ident, seq, flags, addrs)| Template {
                link,
                vlan,
                ipv4,
                ip_options,
                tcp_options,
                ident,
                seq,
                flags,
                addrs,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn segments_reassemble_with_valid_checksums(
        t in any_template(),
        mss in 1usize..3000,
        payload in prop::collection::vec(any::<u8>(), 0..12_000),
    ) {
        let header = t.bytes();
        // Ethernet + VLAN + IPv4 and TCP with full options is 138 bytes: past the RTL default.
        let limits = Limits { max_header: 256, ..Limits::default() };
        let s = Segmenter::new(t.link, &header, &payload, mss, limits).unwrap();
        let n = s.segment_count();
        prop_assert_eq!(n, payload.len().div_ceil(mss).max(1));
        let mut joined = Vec::new();
        let mut buf = vec![0u8; header.len() + mss];
        for i in 0..n {
            let len = s.write_segment(i, &mut buf).unwrap();
            let info = verify_segment(t.link, &buf[..len]).map_err(|e| TestCaseError::fail(format!("segment {i}: {e}")))?;
            prop_assert!(info.payload.len() <= mss);
            prop_assert_eq!(info.seq, t.seq.wrapping_add((i * mss) as u32));
            if t.ipv4 {
                prop_assert_eq!(info.ipv4_ident, Some(t.ident.wrapping_add(i as u16)));
            }
            let last = i + 1 == n;
            // FIN and PSH only on the last, CWR only on the first; the rest as given.
            let mut want = t.flags;
            if !last { want &= !0x09; }
            if i != 0 { want &= !0x80; }
            prop_assert_eq!(info.flags, want);
            // The link header is the template's.
            let ip = s.layout().ip_offset;
            prop_assert_eq!(&buf[..ip], &header[..ip]);
            joined.extend_from_slice(info.payload);
        }
        prop_assert_eq!(joined, payload);
    }

    /// Whole frames split the same way as template + payload.
    #[test]
    fn from_frame_matches_template(t in any_template(), payload in prop::collection::vec(any::<u8>(), 0..3000)) {
        let header = t.bytes();
        let frame: Vec<u8> = header.iter().chain(&payload).copied().collect();
        let limits = Limits { max_header: 256, ..Limits::default() };
        let s = Segmenter::from_frame(t.link, &frame, 536, limits).unwrap();
        prop_assert_eq!(s.layout().header_len, header.len());
        prop_assert_eq!(s.segment_count(), payload.len().div_ceil(536).max(1));
    }

    /// Arbitrary bytes never panic the template parser or the checker.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200), mss in 0usize..100) {
        for link in [LinkType::Ethernet, LinkType::Ipoib] {
            if let Ok(s) = Segmenter::from_frame(link, &bytes, mss, Limits::default()) {
                let mut buf = vec![0u8; 400];
                for i in 0..s.segment_count() {
                    s.write_segment(i, &mut buf).unwrap();
                }
            }
            let _ = verify_segment(link, &bytes);
        }
    }
}

#[test]
fn payload_up_to_mss_is_one_segment() {
    let t = Template {
        link: LinkType::Ipoib,
        vlan: false,
        ipv4: true,
        ip_options: vec![],
        tcp_options: vec![],
        ident: 1,
        seq: 2,
        flags: 0x99,
        addrs: [9; 32],
    };
    let header = t.bytes();
    assert_eq!(header.len(), 44, "the seed's IPoIB example");
    for len in [0, 1, 1448] {
        let payload = vec![0x5A; len];
        let s =
            Segmenter::new(LinkType::Ipoib, &header, &payload, 1448, Limits::default()).unwrap();
        assert_eq!(s.segment_count(), 1);
        let mut buf = vec![0; 2000];
        let n = s.write_segment(0, &mut buf).unwrap();
        let info = verify_segment(LinkType::Ipoib, &buf[..n]).unwrap();
        // One segment is both first and last: CWR, FIN and PSH all stay.
        assert_eq!(info.flags, 0x99);
        assert_eq!(info.payload, &payload[..]);
    }
}

#[test]
fn the_checker_catches_corruption() {
    let t = Template {
        link: LinkType::Ethernet,
        vlan: true,
        ipv4: false,
        ip_options: vec![],
        tcp_options: vec![1, 1, 1, 0],
        ident: 0,
        seq: 0,
        flags: 0x10,
        addrs: [3; 32],
    };
    let header = t.bytes();
    let payload = vec![7u8; 100];
    let s = Segmenter::new(LinkType::Ethernet, &header, &payload, 64, Limits::default()).unwrap();
    let mut buf = vec![0; 300];
    let n = s.write_segment(1, &mut buf).unwrap();
    assert!(verify_segment(LinkType::Ethernet, &buf[..n]).is_ok());
    buf[n - 1] ^= 1;
    assert_eq!(
        verify_segment(LinkType::Ethernet, &buf[..n]),
        Err("bad TCP checksum")
    );
}

#[test]
fn error_cases() {
    let t = Template {
        link: LinkType::Ethernet,
        vlan: true,
        ipv4: false,
        ip_options: vec![],
        tcp_options: vec![0; 40],
        ident: 0,
        seq: 0,
        flags: 0,
        addrs: [0; 32],
    };
    let header = t.bytes();
    assert_eq!(
        header.len(),
        18 + 40 + 60,
        "Ethernet + VLAN + IPv6 + TCP with full options"
    );
    let p = [0u8; 10];
    let l = Limits::default();
    assert!(Segmenter::new(LinkType::Ethernet, &header, &p, 1, l).is_ok());
    assert_eq!(
        Segmenter::new(LinkType::Ethernet, &header, &p, 0, l).unwrap_err(),
        Error::MssZero
    );
    let small = Limits {
        max_header: 100,
        ..l
    };
    assert_eq!(
        Segmenter::new(LinkType::Ethernet, &header, &p, 1, small).unwrap_err(),
        Error::HeaderTooLong { len: 118, max: 100 }
    );
    // The wrong link type reads an EtherType that is not IP.
    assert!(matches!(
        Segmenter::new(LinkType::Ipoib, &header, &p, 1, l).unwrap_err(),
        Error::NotTcp(_)
    ));
    // A template with payload bytes left on it is not a header.
    let mut long = header.clone();
    long.push(0);
    assert!(matches!(
        Segmenter::new(LinkType::Ethernet, &long, &p, 1, l).unwrap_err(),
        Error::Malformed(_)
    ));
}
