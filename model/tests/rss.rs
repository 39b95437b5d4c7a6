//! The RSS parser and hash over real frames (docs/reference.md §2, §4).

use proptest::prelude::*;
use rocenic_model::rss::{
    classify, Context, Function, HashFields, HashType, IpPair, ParseFlags, L4,
};
use rocenic_model::toeplitz::{MICROSOFT_KEY, VERIFICATION_IPV4 as V4, VERIFICATION_IPV6};
use rocenic_model::wire::LinkType;

/// Frame builder for the tests: link header, IP header, transport header.
struct Frame {
    tags: usize,
    ipv6: bool,
    src: Vec<u8>,
    dst: Vec<u8>,
    ip_options: usize,
    v6_ext: Vec<u8>,
    fragment: bool,
    protocol: u8,
    l4: Vec<u8>,
}

impl Frame {
    fn tcp(src: &[u8], dst: &[u8], sport: u16, dport: u16) -> Frame {
        let mut l4 = vec![0u8; 20];
        l4[0..2].copy_from_slice(&sport.to_be_bytes());
        l4[2..4].copy_from_slice(&dport.to_be_bytes());
        l4[12] = 0x50;
        Frame {
            tags: 0,
            ipv6: src.len() == 16,
            src: src.into(),
            dst: dst.into(),
            ip_options: 0,
            v6_ext: vec![],
            fragment: false,
            protocol: 6,
            l4,
        }
    }

    fn udp(src: &[u8], dst: &[u8], sport: u16, dport: u16, payload: &[u8]) -> Frame {
        let mut l4 = vec![0u8; 8];
        l4[0..2].copy_from_slice(&sport.to_be_bytes());
        l4[2..4].copy_from_slice(&dport.to_be_bytes());
        l4[4..6].copy_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
        l4.extend_from_slice(payload);
        Frame {
            protocol: 17,
            l4,
            ..Frame::tcp(src, dst, 0, 0)
        }
    }

    /// The IP packet (no link header).
    fn ip(&self) -> Vec<u8> {
        let mut p = Vec::new();
        if self.ipv6 {
            let next = if self.v6_ext.is_empty() {
                self.protocol
            } else {
                self.v6_ext[0]
            };
            p.extend_from_slice(&[0x60, 0, 0, 0]);
            let len = self.v6_ext.len() - usize::from(!self.v6_ext.is_empty()) + self.l4.len();
            p.extend_from_slice(&(len as u16).to_be_bytes());
            p.extend_from_slice(&[next, 64]);
            p.extend_from_slice(&self.src);
            p.extend_from_slice(&self.dst);
            if !self.v6_ext.is_empty() {
                p.extend_from_slice(&self.v6_ext[1..]);
            }
        } else {
            let ihl = 5 + self.ip_options / 4;
            let total = ihl * 4 + self.l4.len();
            p.push(0x40 | ihl as u8);
            p.push(0);
            p.extend_from_slice(&(total as u16).to_be_bytes());
            p.extend_from_slice(&[0, 1]);
            p.extend_from_slice(if self.fragment {
                &[0x20, 0]
            } else {
                &[0x40, 0]
            });
            p.extend_from_slice(&[64, self.protocol, 0, 0]);
            p.extend_from_slice(&self.src);
            p.extend_from_slice(&self.dst);
            p.extend(std::iter::repeat_n(1u8, self.ip_options)); // NOP options
        }
        p.extend_from_slice(&self.l4);
        p
    }

    fn ethernet(&self) -> Vec<u8> {
        let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2];
        for t in 0..self.tags {
            f.extend_from_slice(if t == 0 {
                &[0x88, 0xA8, 0, 5]
            } else {
                &[0x81, 0x00, 0, 7]
            });
        }
        f.extend_from_slice(if self.ipv6 {
            &[0x86, 0xDD]
        } else {
            &[0x08, 0x00]
        });
        f.extend(self.ip());
        f
    }

    /// Native InfiniBand: LRH (+GRH) + BTH (UD SEND Only) + DETH + IPoIB + IP + ICRC + VCRC.
    fn infiniband(&self, grh: bool, dest_qpn: u32) -> Vec<u8> {
        let mut f = vec![
            0x00,
            if grh { 0x03 } else { 0x02 },
            0x00,
            0x05,
            0,
            0,
            0x00,
            0x09,
        ];
        if grh {
            f.extend_from_slice(&[0x60, 0, 0, 0, 0, 0, 0x1B, 64]);
            f.extend_from_slice(&[0xFE; 32]);
        }
        let q = dest_qpn.to_be_bytes();
        f.extend_from_slice(&[0x64, 0, 0xFF, 0xFF, 0, q[1], q[2], q[3], 0, 0, 0, 1]);
        f.extend_from_slice(&[0, 0, 0, 0x0B, 0, 0, 0, 0x48]);
        f.extend_from_slice(if self.ipv6 {
            &[0x86, 0xDD, 0, 0]
        } else {
            &[0x08, 0x00, 0, 0]
        });
        f.extend(self.ip());
        f.extend_from_slice(&[0xAA; 6]);
        f
    }
}

fn ctx(fields: HashFields) -> Context {
    Context::new(Function::Toeplitz, fields, &MICROSOFT_KEY).unwrap()
}

#[test]
fn verification_suite_as_real_packets() {
    let l3 = ctx(HashFields(0x0F));
    let l4 = ctx(HashFields::DEFAULT);
    for v in V4 {
        let (s, sp, d, dp, h3, h4) = (v.src, v.src_port, v.dst, v.dst_port, v.hash_l3, v.hash_l3l4);
        for tags in 0..=2 {
            let mut f = Frame::tcp(&s, &d, sp, dp);
            f.tags = tags;
            f.ip_options = 4 * tags; // options must not move the fields
            let parsed = classify(LinkType::Ethernet, &f.ethernet());
            assert!(parsed.flags.contains(ParseFlags::TCP));
            assert_eq!(
                l4.hash(&parsed.tuple).unwrap(),
                (h4, HashType(HashType::IPV4.0 | HashType::TCP.0))
            );
            assert_eq!(l3.hash(&parsed.tuple).unwrap().0, h3);
            // The same flow over IPoIB on native InfiniBand hashes the same.
            let ib = classify(LinkType::Infiniband, &f.infiniband(tags == 1, 0x48));
            assert_eq!(
                ib.flags,
                ParseFlags(
                    ParseFlags::IPOIB.0
                        | ParseFlags::IPV4.0
                        | ParseFlags::TCP.0
                        | ParseFlags::BTH.0
                )
            );
            assert_eq!(l4.hash(&ib.tuple).unwrap().0, h4);
            // And so does bare IPoIB: the same frame from its 4-byte header on (after LRH,
            // BTH and DETH).
            let ipoib = classify(LinkType::Ipoib, &f.infiniband(false, 0x48)[8 + 12 + 8..]);
            assert_eq!(
                ipoib.flags,
                ParseFlags(ParseFlags::IPOIB.0 | ParseFlags::IPV4.0 | ParseFlags::TCP.0)
            );
            assert_eq!(l4.hash(&ipoib.tuple).unwrap().0, h4);
        }
    }
    for v in VERIFICATION_IPV6 {
        let (s, sp, d, dp, h3, h4) = (v.src, v.src_port, v.dst, v.dst_port, v.hash_l3, v.hash_l3l4);
        let f = Frame::tcp(&s, &d, sp, dp);
        let parsed = classify(LinkType::Ethernet, &f.ethernet());
        assert_eq!(l4.hash(&parsed.tuple).unwrap().0, h4);
        assert_eq!(l3.hash(&parsed.tuple).unwrap().0, h3);
        // Hop-by-hop and destination options are skipped to reach the ports.
        let mut g = Frame::tcp(&s, &d, sp, dp);
        g.v6_ext = vec![0, 60, 0, 1, 4, 0, 0, 0, 0, 6, 0, 1, 4, 0, 0, 0, 0];
        let parsed = classify(LinkType::Ethernet, &g.ethernet());
        assert_eq!(
            parsed.flags,
            ParseFlags(ParseFlags::IPV6.0 | ParseFlags::TCP.0),
            "{}",
            parsed.flags
        );
        assert_eq!(l4.hash(&parsed.tuple).unwrap().0, h4);
    }
}

#[test]
fn fragments_and_unskipped_extensions_hash_l3_only() {
    let v = V4[0];
    let (s, sp, d, dp, h3) = (v.src, v.src_port, v.dst, v.dst_port, v.hash_l3);
    let mut f = Frame::tcp(&s, &d, sp, dp);
    f.fragment = true;
    let parsed = classify(LinkType::Ethernet, &f.ethernet());
    assert!(parsed.flags.contains(ParseFlags::FRAGMENT));
    assert_eq!(
        ctx(HashFields::DEFAULT).hash(&parsed.tuple).unwrap(),
        (h3, HashType::IPV4)
    );

    let v = VERIFICATION_IPV6[0];
    let (s, sp, d, dp, h3) = (v.src, v.src_port, v.dst, v.dst_port, v.hash_l3);
    let mut g = Frame::tcp(&s, &d, sp, dp);
    // A fragment header with M set.
    g.v6_ext = vec![44, 6, 0, 0, 1, 0, 0, 0, 9];
    let parsed = classify(LinkType::Ethernet, &g.ethernet());
    assert_eq!(
        parsed.flags,
        ParseFlags(ParseFlags::IPV6.0 | ParseFlags::FRAGMENT.0)
    );
    assert_eq!(ctx(HashFields::DEFAULT).hash(&parsed.tuple).unwrap().0, h3);
    // An AH header: not skipped, L3 only, and said so.
    g.v6_ext = vec![51, 6, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let parsed = classify(LinkType::Ethernet, &g.ethernet());
    assert_eq!(
        parsed.flags,
        ParseFlags(ParseFlags::IPV6.0 | ParseFlags::L3_ONLY.0)
    );
    assert_eq!(ctx(HashFields::DEFAULT).hash(&parsed.tuple).unwrap().0, h3);
}

#[test]
fn rocev2_bth_destination_qp() {
    let mut bth = vec![0x04, 0, 0xFF, 0xFF, 0, 0x12, 0x34, 0x56, 0, 0, 0, 1];
    bth.extend_from_slice(&[0; 8]);
    let f = Frame::udp(&[10, 0, 0, 1], &[10, 0, 0, 2], 0xC123, 4791, &bth);
    let parsed = classify(LinkType::Ethernet, &f.ethernet());
    assert_eq!(
        parsed.flags,
        ParseFlags(ParseFlags::IPV4.0 | ParseFlags::UDP.0 | ParseFlags::BTH.0)
    );
    assert_eq!(parsed.tuple.bth_dest_qpn, Some(0x12_3456));
    assert_eq!(parsed.tuple.l4, L4::Udp);
    // UDP on another port carries no BTH.
    let g = Frame::udp(&[10, 0, 0, 1], &[10, 0, 0, 2], 0xC123, 4792, &bth);
    assert_eq!(
        classify(LinkType::Ethernet, &g.ethernet())
            .tuple
            .bth_dest_qpn,
        None
    );
    // A RoCEv2 packet cut inside the BTH is malformed but keeps its UDP ports.
    let h = Frame::udp(&[10, 0, 0, 1], &[10, 0, 0, 2], 0xC123, 4791, &bth[..6]);
    let parsed = classify(LinkType::Ethernet, &h.ethernet());
    assert!(parsed.flags.contains(ParseFlags::MALFORMED));
    assert_eq!(parsed.tuple.dst_port, 4791);
}

#[test]
fn malformed_frames_hash_what_was_valid() {
    let v = V4[1];
    let (s, sp, d, dp, h3) = (v.src, v.src_port, v.dst, v.dst_port, v.hash_l3);
    let good = Frame::tcp(&s, &d, sp, dp).ethernet();
    // Cut inside the TCP header: the IP total length now runs past the frame.
    let parsed = classify(LinkType::Ethernet, &good[..14 + 20 + 10]);
    assert_eq!(
        parsed.flags,
        ParseFlags(ParseFlags::IPV4.0 | ParseFlags::MALFORMED.0)
    );
    assert_eq!(ctx(HashFields::DEFAULT).hash(&parsed.tuple).unwrap().0, h3);
    // IHL below 5.
    let mut bad = good.clone();
    bad[14] = 0x44;
    let parsed = classify(LinkType::Ethernet, &bad);
    assert!(parsed.flags.contains(ParseFlags::MALFORMED));
    assert_eq!(parsed.tuple.l4, L4::None);
    // A runt.
    assert_eq!(
        classify(LinkType::Ethernet, &good[..10]).flags,
        ParseFlags::MALFORMED
    );
    // Ethernet padding after the IP packet is fine.
    let mut padded = good.clone();
    padded.extend_from_slice(&[0; 10]);
    assert!(!classify(LinkType::Ethernet, &padded)
        .flags
        .contains(ParseFlags::MALFORMED));
    // Non-IP frames are not malformed, just not hashable.
    let mut arp = good[..12].to_vec();
    arp.extend_from_slice(&[0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    let parsed = classify(LinkType::Ethernet, &arp);
    assert_eq!(
        (parsed.flags, parsed.ethertype, parsed.tuple.ip),
        (ParseFlags::default(), 0x0806, IpPair::None)
    );
}

#[test]
fn flag_names() {
    assert_eq!(
        ParseFlags(ParseFlags::IPV4.0 | ParseFlags::TCP.0 | ParseFlags::VLAN.0).to_string(),
        "vlan|ipv4|tcp"
    );
    assert_eq!(ParseFlags::default().to_string(), "none");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// No bytes make the parser panic, on either link.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        static CTX: std::sync::OnceLock<Context> = std::sync::OnceLock::new();
        let ctx = CTX.get_or_init(|| ctx(HashFields(0x10FF)));
        for link in [LinkType::Ethernet, LinkType::Infiniband] {
            let parsed = classify(link, &bytes);
            let _ = ctx.hash(&parsed.tuple);
        }
    }

    /// Every cut of a valid frame parses without panic, and a cut inside the headers is flagged.
    #[test]
    fn truncation_is_flagged(cut in 0usize..80, ipv6 in any::<bool>(), tags in 0usize..=2) {
        let f = if ipv6 { Frame::tcp(&[1; 16], &[2; 16], 1, 2) } else { Frame::tcp(&[1; 4], &[2; 4], 1, 2) };
        let mut f = f;
        f.tags = tags;
        let frame = f.ethernet();
        let cut = cut.min(frame.len());
        let parsed = classify(LinkType::Ethernet, &frame[..cut]);
        if cut < frame.len() {
            prop_assert!(parsed.flags.contains(ParseFlags::MALFORMED), "cut {} of {}: {}", cut, frame.len(), parsed.flags);
        } else {
            prop_assert!(parsed.flags.contains(ParseFlags::TCP));
        }
    }
}

/// `n` hop-by-hop/destination-options headers of `len8` 8-byte units each, then TCP.
fn v6_chain(n: usize, len8: u8) -> Vec<u8> {
    let mut ext = vec![if n == 0 { 6 } else { 0 }];
    for i in 0..n {
        let next = if i + 1 == n { 6 } else { 60 };
        let mut h = vec![0u8; usize::from(len8) * 8];
        h[0] = next;
        h[1] = len8 - 1;
        ext.extend(h);
    }
    ext
}

#[test]
fn parse_limits_fall_back_to_l3_and_say_deep() {
    use rocenic_model::rss::parse::{MAX_EXTENSION_HEADERS, PARSE_WINDOW};
    let v = VERIFICATION_IPV6[0];
    let (s, sp, d, dp) = (v.src, v.src_port, v.dst, v.dst_port);
    let mut f = Frame::tcp(&s, &d, sp, dp);
    // As many extension headers as the walk takes: the ports are still found.
    f.v6_ext = v6_chain(MAX_EXTENSION_HEADERS, 1);
    let parsed = classify(LinkType::Ethernet, &f.ethernet());
    assert_eq!(
        parsed.flags,
        ParseFlags(ParseFlags::IPV6.0 | ParseFlags::TCP.0)
    );
    // One more: L3 only, flagged deep, and the unread header's type is reported.
    f.v6_ext = v6_chain(MAX_EXTENSION_HEADERS + 1, 1);
    let parsed = classify(LinkType::Ethernet, &f.ethernet());
    assert_eq!(
        parsed.flags,
        ParseFlags(ParseFlags::IPV6.0 | ParseFlags::L3_ONLY.0 | ParseFlags::DEEP.0)
    );
    assert_eq!(parsed.l4_protocol, 60);
    assert_eq!(parsed.tuple.l4, L4::None);
    assert_eq!(
        ctx(HashFields::DEFAULT).hash(&parsed.tuple).unwrap().0,
        v.hash_l3
    );
    // A TCP header that ends exactly at the window is read; one byte further, it is not.
    for tags in 0..=2 {
        for len8 in 1..=8u8 {
            f.tags = tags;
            f.v6_ext = v6_chain(1, len8);
            let tcp_at = 14 + 4 * tags + 40 + usize::from(len8) * 8;
            let parsed = classify(LinkType::Ethernet, &f.ethernet());
            let inside = tcp_at + 20 <= PARSE_WINDOW;
            assert_eq!(parsed.flags.contains(ParseFlags::TCP), inside, "{tcp_at}");
            assert_eq!(parsed.flags.contains(ParseFlags::DEEP), !inside, "{tcp_at}");
        }
    }
    // A truncated extension header past the window is still malformed, not deep.
    f.tags = 0;
    f.v6_ext = v6_chain(1, 12);
    let mut frame = f.ethernet();
    frame.truncate(14 + 40 + 50);
    assert!(classify(LinkType::Ethernet, &frame)
        .flags
        .contains(ParseFlags::MALFORMED));
}

mod steering {
    use super::*;
    use rocenic_model::rss::steer::v4_mapped;
    use rocenic_model::rss::{
        distribute, distribute_with, Action, ContextView, FlowTuple, Rule, SteeringKey,
    };

    fn rocev2(qpn: u32) -> Vec<u8> {
        let q = qpn.to_be_bytes();
        let mut bth = vec![0x04, 0, 0xFF, 0xFF, 0, q[1], q[2], q[3], 0, 0, 0, 1];
        bth.extend_from_slice(&[0; 8]);
        Frame::udp(&[10, 0, 0, 1], &[10, 0, 0, 2], 0xC123, 4791, &bth).ethernet()
    }

    #[test]
    fn key_carries_what_the_parser_found() {
        let parsed = classify(LinkType::Ethernet, &rocev2(0x12_3456));
        let key = SteeringKey::of(&parsed);
        assert_eq!(key.ethertype, 0x0800);
        assert_eq!(key.l4_protocol, 17);
        assert_eq!(key.src, v4_mapped([10, 0, 0, 1]));
        assert_eq!(
            (key.src_port, key.dst_port, key.qpn),
            (0xC123, 4791, 0x12_3456)
        );
    }

    #[test]
    fn first_enabled_match_wins_and_queue_actions_skip_the_hash() {
        let parsed = classify(LinkType::Ethernet, &rocev2(0x12_3456));
        let context = ctx(HashFields::DEFAULT);
        let table: Vec<u16> = (0..8).collect();
        let contexts = [ContextView {
            context: &context,
            table: &table,
        }];
        let mut by_qpn = Rule {
            enabled: true,
            action: Action::Queue(77),
            ..Rule::default()
        };
        by_qpn.value.qpn = 0x12_3456;
        by_qpn.mask.qpn = 0xFF_FFFF;
        let mut other_port = Rule {
            enabled: true,
            action: Action::Queue(5),
            ..Rule::default()
        };
        other_port.value.dst_port = 4792;
        other_port.mask.dst_port = 0xFFFF;
        let disabled_catch_all = Rule {
            enabled: false,
            action: Action::Queue(9),
            ..Rule::default()
        };

        // No rule: RSS context 0.
        let meta = distribute(&parsed, &[], &contexts);
        let (hash, ty) = context.hash(&parsed.tuple).unwrap();
        assert_eq!((meta.rule, meta.hash, meta.hash_type), (None, hash, ty));
        assert_eq!(meta.queue, table[hash as usize & 7]);

        let rules = [disabled_catch_all, other_port, by_qpn];
        let meta = distribute(&parsed, &rules, &contexts);
        assert_eq!((meta.rule, meta.queue, meta.hash), (Some(2), 77, 0));

        // A QPN that differs in one masked bit no longer matches.
        let parsed = classify(LinkType::Ethernet, &rocev2(0x12_3457));
        assert_eq!(distribute(&parsed, &rules, &contexts).rule, None);
    }

    /// With the hash from elsewhere, the queue still comes from the context's table; a rule's
    /// fixed queue asks for no hash; the hash's error is passed through.
    #[test]
    fn distribute_with_takes_its_hash_from_outside() {
        let parsed = classify(LinkType::Ethernet, &rocev2(0x12_3456));
        let context = ctx(HashFields::DEFAULT);
        let table: Vec<u16> = (100..116).collect();
        let contexts = [ContextView {
            context: &context,
            table: &table,
        }];
        let ours = |_: &ContextView<'_>, _: &FlowTuple| Ok::<_, ()>((0xABCD_0007, HashType(5)));
        let meta = distribute_with(&parsed, &[], &contexts, ours).unwrap();
        assert_eq!(
            (meta.hash, meta.hash_type, meta.queue),
            (0xABCD_0007, HashType(5), 107)
        );
        // Given the model's own hash it is `distribute`.
        let model = distribute_with(&parsed, &[], &contexts, |v, t| v.context.hash(t)).unwrap();
        assert_eq!(model, distribute(&parsed, &[], &contexts));
        let to_queue = Rule {
            enabled: true,
            action: Action::Queue(3),
            ..Rule::default()
        };
        let fails = |_: &ContextView<'_>, _: &FlowTuple| Err::<(u32, HashType), _>("no hash");
        assert_eq!(
            distribute_with(&parsed, &[to_queue], &contexts, fails).map(|m| m.queue),
            Ok(3)
        );
        assert_eq!(
            distribute_with(&parsed, &[], &contexts, fails),
            Err("no hash")
        );
    }
}
