//! `rocenic icrc`: stored against computed ICRC of every RoCEv2 frame of a pcap.

use crate::common::{fails_with, pcap_file, rocenic, stderr, stdout};
use rocenic_model::wire::{icrc_fill, LinkType};

/// An Ethernet RoCEv2 frame with a correct ICRC: RC SEND_ONLY over IPv4, or UD over IPv6.
fn roce_frame(ipv6: bool, payload: usize) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2];
    let transport = if ipv6 { 12 + 8 } else { 12 };
    let udp_len = 8 + transport + payload + 4;
    if ipv6 {
        f.extend_from_slice(&[0x86, 0xDD, 0x60, 0x01, 0x23, 0x45]);
        f.extend_from_slice(&(udp_len as u16).to_be_bytes());
        f.extend_from_slice(&[17, 64]);
        f.extend_from_slice(&[0xFE; 32]);
    } else {
        let total = 20 + udp_len;
        f.extend_from_slice(&[0x08, 0x00, 0x45, 0x00]);
        f.extend_from_slice(&(total as u16).to_be_bytes());
        f.extend_from_slice(&[0, 1, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
    }
    f.extend_from_slice(&[0xC0, 0x01, 0x12, 0xB7]);
    f.extend_from_slice(&(udp_len as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    let opcode = if ipv6 { 0x64 } else { 0x04 };
    f.extend_from_slice(&[opcode, 0, 0xFF, 0xFF, 0, 0, 0, 0x11, 0, 0, 0, 1]);
    if ipv6 {
        f.extend_from_slice(&[0x11, 0x11, 0x11, 0x11, 0, 0, 0, 0x22]);
    }
    f.extend((0..payload).map(|i| i as u8));
    f.extend_from_slice(&[0; 4]);
    icrc_fill(&mut f).expect("a RoCEv2 frame");
    f
}

#[test]
fn icrc_good_and_bad_frames() {
    let good = pcap_file("good", 1, &[roce_frame(false, 64), roce_frame(true, 13)]);
    let o = rocenic(&["icrc", good.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "index,stored,computed,status");
    assert_eq!(lines.len(), 3);
    for (i, line) in lines[1..].iter().enumerate() {
        let cols: Vec<&str> = line.split(',').collect();
        assert_eq!(cols[0], i.to_string());
        assert_eq!(cols[1], cols[2]);
        assert_eq!(cols[3], "ok");
    }

    let mut corrupt = roce_frame(true, 100);
    corrupt[100] ^= 0x40;
    let bad = pcap_file("bad", 1, &[roce_frame(false, 8), corrupt]);
    let o = rocenic(&["icrc", bad.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(text.lines().nth(1).unwrap().ends_with(",ok"));
    assert!(text.lines().nth(2).unwrap().ends_with(",bad"));
    for p in [good, bad] {
        std::fs::remove_file(p).unwrap();
    }
}

#[test]
fn icrc_bad_input_is_named() {
    let not_pcap = std::env::temp_dir().join(format!("rocenic-{}-text.pcap", std::process::id()));
    std::fs::write(&not_pcap, "hello, world\n").unwrap();
    fails_with(&rocenic(&["icrc", not_pcap.to_str().unwrap()], ""), "magic");
    let mut arp = vec![0xFF; 12];
    arp.extend_from_slice(&[0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    let p = pcap_file("arp", 1, &[roce_frame(false, 4), arp]);
    let o = rocenic(&["icrc", p.to_str().unwrap()], "");
    fails_with(&o, "not RoCEv2");
    assert!(stderr(&o).contains("frame 1"), "{}", stderr(&o));
    let ib = pcap_file("ib", LinkType::Infiniband.pcap(), &[]);
    fails_with(
        &rocenic(&["icrc", ib.to_str().unwrap()], ""),
        "link type 247",
    );
    // A pcap cut short inside a record.
    let mut bytes = std::fs::read(&p).unwrap();
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&p, bytes).unwrap();
    fails_with(&rocenic(&["icrc", p.to_str().unwrap()], ""), "frame 1");
    fails_with(&rocenic(&["icrc", "/nonexistent.pcap"], ""), "cannot read");
    for f in [not_pcap, p, ib] {
        std::fs::remove_file(f).unwrap();
    }
}
