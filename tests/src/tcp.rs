//! TCP over Ethernet frames for the raw-packet tests, built field by field with `model::wire`
//! (not by the segmenter the tests check): whole frames, the header template a host hands a
//! TSO work request, and the padding the wire adds.

use crate::nic;
use rocenic_model::wire::checksum::IpPseudo;
use rocenic_model::wire::{
    EthernetFrame, EthernetRepr, Ipv4Packet, Ipv4Repr, Ipv6Packet, Ipv6Repr, TcpFlags, TcpPacket,
    TcpRepr, VlanTag,
};

/// A TCP flow from NIC 1 to NIC 2: its link and IP form and where its numbers start.
#[derive(Clone, Copy, Debug)]
pub struct TcpFlow {
    /// An 802.1Q tag with this VLAN ID (PCP 3), or untagged.
    pub vlan: Option<u16>,
    /// IPv6 (fd00::1 to fd00::2), else IPv4 (10.0.0.1 to 10.0.0.2).
    pub v6: bool,
    /// TCP destination port (the source is 40000).
    pub dst_port: u16,
    /// The first segment's sequence number.
    pub seq: u32,
    /// The first segment's IPv4 identification.
    pub ident: u16,
}

/// A timestamp option: the template carries options, so the TCP header is 32 bytes.
const TS_OPTION: [u8; 12] = [1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2];

impl TcpFlow {
    /// One whole frame: Ethernet, IPv4 (identification `ident`) or IPv6, TCP with sequence
    /// `seq` and `flags`, then `payload`; every length and checksum filled.
    pub fn frame(&self, seq: u32, ident: u16, flags: TcpFlags, payload: &[u8]) -> Vec<u8> {
        let (a, b) = (nic(1), nic(2));
        let eth = EthernetRepr {
            dst: b.mac,
            src: a.mac,
            vlan: self.vlan.map(|vid| VlanTag {
                tpid: 0x8100,
                pcp: 3,
                dei: false,
                vid,
            }),
            ethertype: if self.v6 { 0x86DD } else { 0x0800 },
        };
        let mut tcp = TcpRepr {
            src_port: 40000,
            dst_port: self.dst_port,
            seq,
            ack: 0x0102_0304,
            flags,
            window: 0xFFFF,
            urgent: 0,
            options: [0; 40],
            options_len: 0,
        };
        tcp.set_options(&TS_OPTION).expect("12 option bytes fit");
        let tcp_len = tcp.header_len() + payload.len();
        let l3 = eth.header_len();
        let ip_len = if self.v6 { 40 } else { 20 };
        let mut f = vec![0u8; l3 + ip_len + tcp_len];
        eth.emit(&mut EthernetFrame::new_unchecked(&mut f[..]))
            .expect("room for the header");
        let pseudo = if self.v6 {
            Ipv6Repr {
                src: a.ipv6,
                dst: b.ipv6,
                next_header: 6,
                payload_len: tcp_len,
                hop_limit: 64,
                traffic_class: 0x20,
                flow_label: 0x12345,
            }
            .emit(&mut Ipv6Packet::new_unchecked(&mut f[l3..]))
            .expect("room for IPv6");
            IpPseudo::V6 {
                src: a.ipv6,
                dst: b.ipv6,
                next_header: 6,
            }
        } else {
            Ipv4Repr {
                ident,
                ..Ipv4Repr::new(a.ipv4, b.ipv4, 6, tcp_len)
            }
            .emit(&mut Ipv4Packet::new_unchecked(&mut f[l3..]))
            .expect("room for IPv4");
            IpPseudo::V4 {
                src: a.ipv4,
                dst: b.ipv4,
                protocol: 6,
            }
        };
        let at = l3 + ip_len;
        tcp.emit(&mut TcpPacket::new_unchecked(&mut f[at..]))
            .expect("room for TCP");
        let hl = tcp.header_len();
        f[at + hl..].copy_from_slice(payload);
        TcpPacket::new_unchecked(&mut f[at..]).fill_checksum(&pseudo);
        f
    }

    /// The template a host hands a TSO work request: the headers of a frame with no payload,
    /// CWR, PSH and FIN set (the segmenter keeps each on the segments it belongs to).
    pub fn template(&self) -> Vec<u8> {
        self.frame(self.seq, self.ident, template_flags(), &[])
    }

    /// Segment `i` of `n` carrying `piece`, as docs/tso.md says the segmenter makes it:
    /// sequence + i·MSS (the caller's `seq`), identification + i, ACK on every segment, CWR on
    /// the first only, PSH and FIN on the last only.
    pub fn segment(&self, i: usize, n: usize, seq: u32, piece: &[u8]) -> Vec<u8> {
        let mut flags = TcpFlags::ACK.bits();
        if i == 0 {
            flags |= TcpFlags::CWR.bits();
        }
        if i + 1 == n {
            flags |= TcpFlags::PSH.bits() | TcpFlags::FIN.bits();
        }
        let ident = self.ident.wrapping_add(i as u16);
        self.frame(seq, ident, TcpFlags::from_bits(flags), piece)
    }
}

/// CWR, PSH, ACK and FIN: what a TSO template carries.
pub fn template_flags() -> TcpFlags {
    TcpFlags::from_bits(
        TcpFlags::CWR.bits() | TcpFlags::PSH.bits() | TcpFlags::ACK.bits() | TcpFlags::FIN.bits(),
    )
}

/// `f` as the wire carries it: zeros to Ethernet's 60 bytes.
pub fn padded(f: &[u8]) -> Vec<u8> {
    let mut v = f.to_vec();
    if v.len() < 60 {
        v.resize(60, 0);
    }
    v
}
