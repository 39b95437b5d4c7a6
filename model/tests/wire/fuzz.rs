//! No-panic fuzz of every `new_checked`, getter, `parse`, the pcap reader and the RoCEv2
//! frame locator, over arbitrary bytes and over mutated valid frames.

use crate::common::*;
use proptest::prelude::*;
use rocenic_model::wire::*;

/// Every getter of every view over `b` after a successful `new_checked`, every `parse`, and
/// the layout-preserving setters on a copy. Must not panic.
fn exercise_all(b: &[u8], nh: u8) {
    if let Ok(p) = EthernetFrame::new_checked(b) {
        let _ = (
            p.dst_addr(),
            p.src_addr(),
            p.vlan(),
            p.ethertype(),
            p.header_len(),
        );
        let _ = (p.payload().len(), p.is_tagged());
        let _ = EthernetRepr::parse(&p).unwrap();
        let mut c = b.to_vec();
        let mut m = EthernetFrame::new_checked(&mut c[..]).unwrap();
        m.set_ethertype(0x0800);
        m.set_vlan_tci(7, true, 4095);
        let _ = m.payload_mut().len();
        // Writing a TPID into an untagged header must not make the getters overrun.
        m.set_ethertype(EtherType::VLAN);
        let _ = (m.vlan(), m.ethertype(), m.header_len(), m.payload().len());
    }
    if let Ok(p) = Ipv4Packet::new_checked(b) {
        let _ = (
            p.version(),
            p.ihl(),
            p.dscp(),
            p.ecn(),
            p.total_len(),
            p.ident(),
        );
        let _ = (
            p.dont_frag(),
            p.more_frags(),
            p.frag_offset(),
            p.is_fragment(),
            p.ttl(),
        );
        let _ = (
            p.protocol(),
            p.checksum(),
            p.src_addr(),
            p.dst_addr(),
            p.reserved_flag(),
        );
        let _ = (p.options().len(), p.payload().len(), p.verify_checksum());
        let r = Ipv4Repr::parse(&p).unwrap();
        let _ = (r.header_len(), r.options().len());
        let mut c = b.to_vec();
        let mut m = Ipv4Packet::new_checked(&mut c[..]).unwrap();
        m.set_total_len((u16::from(nh) << 8) | u16::from(nh));
        m.set_flags(true, true);
        m.set_frag_offset(0xFFFF);
        m.fill_checksum();
        let _ = (m.payload().len(), m.payload_mut().len(), m.options().len());
    }
    if let Ok(p) = Ipv6Packet::new_checked(b) {
        let _ = (
            p.version(),
            p.traffic_class(),
            p.flow_label(),
            p.payload_len(),
        );
        let _ = (p.next_header(), p.hop_limit(), p.src_addr(), p.dst_addr());
        let _ = (p.payload().len(), p.upper_layer());
        let _ = Ipv6Repr::parse(&p).unwrap();
        let mut c = b.to_vec();
        let mut m = Ipv6Packet::new_checked(&mut c[..]).unwrap();
        m.set_payload_len(0xFFFF);
        m.set_flow_label(u32::MAX);
        m.set_traffic_class(nh);
        let _ = (m.payload().len(), m.payload_mut().len(), m.flow_label());
    }
    let _ = skip_extension_headers(nh, b);
    let p4 = IpPseudo::V4 {
        src: v4(1),
        dst: v4(2),
        protocol: nh,
    };
    let p6 = IpPseudo::V6 {
        src: v6(1),
        dst: v6(2),
        next_header: nh,
    };
    if let Ok(p) = UdpPacket::new_checked(b) {
        let _ = (
            p.src_port(),
            p.dst_port(),
            p.len(),
            p.checksum(),
            p.payload().len(),
        );
        let _ = (
            p.verify_checksum(&p4),
            p.verify_checksum(&p6),
            p.compute_checksum(&p6),
        );
        let _ = UdpRepr::parse(&p).unwrap();
        let mut c = b.to_vec();
        let mut m = UdpPacket::new_checked(&mut c[..]).unwrap();
        m.set_len(u16::MAX);
        m.fill_checksum(&p4);
        let _ = (m.payload().len(), m.payload_mut().len());
        m.set_len(0);
        m.fill_checksum(&p6);
        let _ = m.payload().len();
    }
    if let Ok(p) = TcpPacket::new_checked(b) {
        let _ = (p.src_port(), p.dst_port(), p.seq_number(), p.ack_number());
        let _ = (
            p.data_offset(),
            p.header_len(),
            p.reserved(),
            p.flags(),
            p.window(),
        );
        let _ = (
            p.checksum(),
            p.urgent(),
            p.options().len(),
            p.payload().len(),
        );
        let _ = (p.verify_checksum(&p4), p.compute_checksum(&p6));
        let _ = TcpRepr::parse(&p).unwrap();
        let mut c = b.to_vec();
        let mut m = TcpPacket::new_checked(&mut c[..]).unwrap();
        m.set_flags(TcpFlags::ALL);
        m.fill_checksum(&p6);
        let _ = m.payload_mut().len();
    }
    if let Ok(p) = Bth::new_checked(b) {
        let _ = (
            p.opcode(),
            p.solicited(),
            p.migreq(),
            p.pad_count(),
            p.tver(),
            p.pkey(),
        );
        let _ = (
            p.fecn(),
            p.becn(),
            p.resv6(),
            p.dest_qpn(),
            p.ack_req(),
            p.resv7(),
            p.psn(),
        );
        let _ = (BthRepr::parse(&p).unwrap(), p.payload().len());
    }
    if let Ok(p) = Deth::new_checked(b) {
        let _ = (
            p.qkey(),
            p.reserved(),
            p.src_qpn(),
            DethRepr::parse(&p).unwrap(),
        );
    }
    if let Ok(p) = ImmDt::new_checked(b) {
        let _ = (p.imm(), ImmDtRepr::parse(&p).unwrap());
    }
    if let Ok(p) = Lrh::new_checked(b) {
        let _ = (
            p.vl(),
            p.lver(),
            p.sl(),
            p.lnh(),
            p.dlid(),
            p.packet_len(),
            p.slid(),
        );
        let _ = (
            LrhRepr::parse(&p).unwrap(),
            p.packet_len_bytes(),
            p.payload().len(),
        );
    }
    if let Ok(p) = Grh::new_checked(b) {
        let _ = (
            p.ip_version(),
            p.traffic_class(),
            p.flow_label(),
            p.payload_len(),
        );
        let _ = (p.next_header(), p.hop_limit(), p.sgid(), p.dgid());
        let _ = GrhRepr::parse(&p).unwrap();
    }
    if let Ok(p) = IpoibHeader::new_checked(b) {
        let _ = (p.ethertype(), p.reserved(), p.payload().len());
        let _ = IpoibRepr::parse(&p).unwrap();
    }
    let _ = IpoibHwAddr::parse(b);
    let _ = icrc_compute(b);
    if let Ok(r) = RoceFrame::parse(b) {
        let _ = (r.stored(), r.computed(), r.is_valid(), r.l3_packet().len());
        let _ = (
            r.ip_version(),
            r.l3_offset(),
            r.udp_offset(),
            r.bth_offset(),
        );
        let bth = r.bth();
        assert!(Bth::new_checked(bth.into_inner()).is_ok());
        assert_eq!(r.bth_payload().len() + 12, r.icrc_offset() - r.bth_offset());
    }
    let mut c = b.to_vec();
    let _ = icrc_fill(&mut c);
    if let Ok(r) = PcapReader::new(b) {
        let _ = (r.link_type(), r.snaplen(), r.version(), r.is_nanosecond());
        let mut n = 0;
        for rec in r.records() {
            n += 1;
            assert!(n <= b.len(), "pcap iteration must end");
            if let Ok(rec) = rec {
                let _ = (rec.ts_sec, rec.ts_frac, rec.orig_len, rec.data.len());
            }
        }
    }
}

proptest! {
    // The fuzz cases are cheap: run more of them.
    #![proptest_config(ProptestConfig::with_cases(2048))]

    // ----- no-panic fuzz

    #[test]
    fn fuzz_arbitrary_bytes(b in proptest::collection::vec(any::<u8>(), 0..200), nh in any::<u8>()) {
        exercise_all(&b, nh);
    }

    /// Starts from valid frames and headers, so the deeper paths get random bytes too.
    #[test]
    fn fuzz_mutated_frames(
        spec in arb_spec(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in proptest::option::of(any::<prop::sample::Index>()),
        start in 0usize..64,
        nh in any::<u8>(),
    ) {
        let mut f = build(&spec);
        icrc_fill(&mut f).unwrap();
        for (i, v) in &edits {
            let at = i.index(f.len());
            f[at] = *v;
        }
        let end = cut.map_or(f.len(), |c| c.index(f.len() + 1));
        let f = &f[..end];
        exercise_all(f, nh);
        let s = start.min(f.len());
        exercise_all(&f[s..], nh);
        // Valid pcap headers in front of the mutated bytes.
        let mut file = write_global_header(LinkType::Ethernet.pcap(), 65535).to_vec();
        file.extend_from_slice(&record_header(1, 2, (f.len() / 2) as u32, f.len() as u32));
        file.extend_from_slice(f);
        exercise_all(&file, nh);
    }
}
