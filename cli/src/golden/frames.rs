//! The frames of the vector sets, built byte by byte: RoCEv2 frames for `icrc`, received frames
//! for `rss`, oversized TCP sends for `tso`. Each is described by a plain struct so that the edge
//! cases read as a list and the random cases as one draw per field.

use rocenic_model::wire::checksum::checksum;
use rocenic_model::wire::icrc_fill;

const MACS: [u8; 12] = [0x02, 0, 0x5E, 0x10, 0, 2, 0x02, 0, 0x5E, 0x10, 0, 1];

/// An Ethernet header with `tags` (TPID, TCI) before the EtherType.
fn ethernet(tags: &[(u16, u16)], ethertype: u16) -> Vec<u8> {
    let mut f = MACS.to_vec();
    for (tpid, tci) in tags {
        f.extend_from_slice(&tpid.to_be_bytes());
        f.extend_from_slice(&tci.to_be_bytes());
    }
    f.extend_from_slice(&ethertype.to_be_bytes());
    f
}

/// The fields of an IPv4 header; lengths and checksum are filled in.
#[derive(Clone, Copy)]
pub struct V4 {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub tos: u8,
    pub ttl: u8,
    pub ident: u16,
    /// Flags and fragment offset (`0x4000` is DF, `0x2000` MF).
    pub frag: u16,
    /// Option words (4 bytes each, NOPs ending in an end-of-list).
    pub opt_words: u8,
}

impl V4 {
    pub const fn new(src: [u8; 4], dst: [u8; 4]) -> V4 {
        V4 {
            src,
            dst,
            tos: 0,
            ttl: 64,
            ident: 1,
            frag: 0x4000,
            opt_words: 0,
        }
    }

    /// The header for `after` bytes behind it; `total` overrides the total length.
    fn header(&self, protocol: u8, after: usize, total: Option<u16>) -> Vec<u8> {
        let ihl = 5 + self.opt_words as usize;
        let total = total.unwrap_or((ihl * 4 + after).min(0xFFFF) as u16);
        let mut h = vec![0x40 | ihl as u8, self.tos];
        h.extend_from_slice(&total.to_be_bytes());
        h.extend_from_slice(&self.ident.to_be_bytes());
        h.extend_from_slice(&self.frag.to_be_bytes());
        h.extend_from_slice(&[self.ttl, protocol, 0, 0]);
        h.extend_from_slice(&self.src);
        h.extend_from_slice(&self.dst);
        if self.opt_words > 0 {
            h.resize(ihl * 4 - 1, 1);
            h.push(0);
        }
        let sum = checksum(&h);
        h[10..12].copy_from_slice(&sum.to_be_bytes());
        h
    }
}

/// The fields of an IPv6 header; the payload length is filled in.
#[derive(Clone, Copy)]
pub struct V6 {
    pub src: [u8; 16],
    pub dst: [u8; 16],
    pub tclass: u8,
    pub flow_label: u32,
    pub hop_limit: u8,
}

impl V6 {
    pub const fn new(src: [u8; 16], dst: [u8; 16]) -> V6 {
        V6 {
            src,
            dst,
            tclass: 0,
            flow_label: 0,
            hop_limit: 64,
        }
    }

    fn header(&self, next: u8, after: usize) -> Vec<u8> {
        let word = 0x6000_0000 | u32::from(self.tclass) << 20 | (self.flow_label & 0xF_FFFF);
        let mut h = word.to_be_bytes().to_vec();
        h.extend_from_slice(&(after.min(0xFFFF) as u16).to_be_bytes());
        h.extend_from_slice(&[next, self.hop_limit]);
        h.extend_from_slice(&self.src);
        h.extend_from_slice(&self.dst);
        h
    }
}

#[derive(Clone, Copy)]
pub enum Ip {
    V4(V4),
    V6(V6),
}

/// A RoCEv2 frame (docs/reference.md §3). Every field the ICRC masks is here, so that the
/// vectors can set them to anything.
#[derive(Clone)]
pub struct Roce {
    pub ip: Ip,
    /// An 802.1Q tag's TCI.
    pub vlan: Option<u16>,
    pub sport: u16,
    pub udp_checksum: u16,
    pub opcode: u8,
    /// BTH byte 1 less the pad count: SE (bit 7), M (bit 6), TVer (bits 3..0).
    pub se_m_tver: u8,
    pub pkey: u16,
    /// BTH byte 4: FECN, BECN and reserved bits.
    pub fecn_becn: u8,
    pub dest_qp: u32,
    /// AckReq (bit 31) and PSN (bits 23..0).
    pub ack_psn: u32,
    /// Q_Key and source QP, for UD opcodes.
    pub deth: Option<(u32, u32)>,
    /// Every byte after the BTH and DETH: ImmDt, RETH, payload.
    pub payload: Vec<u8>,
}

impl Roce {
    pub fn new(ip: Ip, opcode: u8, dest_qp: u32, payload: Vec<u8>) -> Roce {
        Roce {
            ip,
            vlan: None,
            sport: 0xC000,
            udp_checksum: 0,
            opcode,
            se_m_tver: 0,
            pkey: 0xFFFF,
            fecn_becn: 0,
            dest_qp,
            ack_psn: 0,
            deth: (opcode & 0xE0 == 0x60).then_some((0x1111_1111, 0x22)),
            payload,
        }
    }

    /// The frame, padded to 4 bytes, with its ICRC.
    pub fn frame(&self) -> Vec<u8> {
        let pad = (4 - self.payload.len() % 4) % 4;
        let mut bth = vec![self.opcode, self.se_m_tver & 0xCF | (pad as u8) << 4];
        bth.extend_from_slice(&self.pkey.to_be_bytes());
        bth.push(self.fecn_becn);
        bth.extend_from_slice(&self.dest_qp.to_be_bytes()[1..]);
        bth.extend_from_slice(&self.ack_psn.to_be_bytes());
        if let Some((qkey, sqp)) = self.deth {
            bth.extend_from_slice(&qkey.to_be_bytes());
            bth.push(0);
            bth.extend_from_slice(&sqp.to_be_bytes()[1..]);
        }
        bth.extend_from_slice(&self.payload);
        bth.resize(bth.len() + pad + 4, 0);
        let udp_len = 8 + bth.len();
        let tags: Vec<(u16, u16)> = self.vlan.iter().map(|&tci| (0x8100, tci)).collect();
        let mut f = match &self.ip {
            Ip::V4(v4) => {
                let mut f = ethernet(&tags, 0x0800);
                f.extend(v4.header(17, udp_len, None));
                f
            }
            Ip::V6(v6) => {
                let mut f = ethernet(&tags, 0x86DD);
                f.extend(v6.header(17, udp_len));
                f
            }
        };
        f.extend_from_slice(&self.sport.to_be_bytes());
        f.extend_from_slice(&4791u16.to_be_bytes());
        f.extend_from_slice(&(udp_len as u16).to_be_bytes());
        f.extend_from_slice(&self.udp_checksum.to_be_bytes());
        f.extend(bth);
        icrc_fill(&mut f).expect("a RoCEv2 frame");
        f
    }
}

/// What follows the IP header of a received frame.
#[derive(Clone, Copy)]
pub enum L4 {
    Tcp(u16, u16),
    Udp(u16, u16),
    /// RoCEv2: UDP from this port to 4791, a BTH to this QP.
    Roce(u16, u32),
    /// Another protocol number, with no header of its own.
    Other(u8),
}

/// A received frame for RSS (docs/reference.md §2).
#[derive(Clone)]
pub struct Rx {
    /// TPIDs of the VLAN tags, outermost first.
    pub tags: Vec<u16>,
    /// `None`: an ARP frame.
    pub ip: Option<Ip>,
    /// IPv6 extension headers, in order: hop-by-hop (0), routing (43), destination options (60),
    /// fragment (44, offset 1: a fragment), or one that ends the walk (ESP 50, ...).
    pub ext: Vec<u8>,
    pub l4: L4,
    pub payload: usize,
    /// Cut the frame to this many bytes (a truncated header is `malformed`).
    pub cut: Option<usize>,
}

impl Rx {
    pub fn new(ip: Ip, l4: L4) -> Rx {
        Rx {
            tags: Vec::new(),
            ip: Some(ip),
            ext: Vec::new(),
            l4,
            payload: 16,
            cut: None,
        }
    }

    pub fn frame(&self) -> Vec<u8> {
        let (protocol, mut l4) = match self.l4 {
            L4::Tcp(s, d) => {
                let mut h = [s.to_be_bytes(), d.to_be_bytes()].concat();
                h.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x10, 0xFF, 0xFF, 0, 0, 0, 0]);
                (6, h)
            }
            L4::Udp(s, d) => (
                17,
                [s.to_be_bytes(), d.to_be_bytes(), [0; 2], [0; 2]].concat(),
            ),
            L4::Roce(s, qpn) => {
                let mut h = [s.to_be_bytes(), 4791u16.to_be_bytes(), [0; 2], [0; 2]].concat();
                h.extend_from_slice(&[0x04, 0, 0xFF, 0xFF, 0]);
                h.extend_from_slice(&qpn.to_be_bytes()[1..]);
                h.extend_from_slice(&[0, 0, 0, 1]);
                (17, h)
            }
            L4::Other(p) => (p, Vec::new()),
        };
        l4.extend((0..self.payload).map(|i| i as u8));
        if protocol == 17 && l4.len() >= 8 {
            let len = (l4.len() as u16).to_be_bytes();
            l4[4..6].copy_from_slice(&len);
        }
        let tags: Vec<(u16, u16)> = self
            .tags
            .iter()
            .enumerate()
            .map(|(i, &t)| (t, 0x100 + i as u16))
            .collect();
        let mut f = match &self.ip {
            None => {
                let mut f = ethernet(&tags, 0x0806);
                f.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
                f.extend_from_slice(&[0; 20]);
                f
            }
            Some(Ip::V4(v4)) => {
                let mut f = ethernet(&tags, 0x0800);
                f.extend(v4.header(protocol, l4.len(), None));
                f
            }
            Some(Ip::V6(v6)) => {
                let mut chain = Vec::new();
                for (i, &kind) in self.ext.iter().enumerate() {
                    let next = self.ext.get(i + 1).copied().unwrap_or(protocol);
                    match kind {
                        44 => chain.extend_from_slice(&[next, 0, 0, 8, 0, 0, 0, 7]),
                        _ => chain.extend_from_slice(&[next, 0, 1, 4, 0, 0, 0, 0]),
                    }
                }
                let first = self.ext.first().copied().unwrap_or(protocol);
                let mut f = ethernet(&tags, 0x86DD);
                f.extend(v6.header(first, chain.len() + l4.len()));
                f.extend(chain);
                f
            }
        };
        if self.ip.is_some() {
            f.extend(l4);
        }
        if let Some(n) = self.cut {
            f.truncate(n);
        }
        f
    }
}

/// An oversized TCP send as a host hands it to TSO (docs/reference.md §5), behind Ethernet.
#[derive(Clone)]
pub struct Send {
    /// An 802.1Q (`0x8100`) or 802.1ad (`0x88A8`) tag.
    pub tag: Option<u16>,
    /// IPv4 (with these option words) or IPv6.
    pub ipv4: Option<u8>,
    /// TCP option words.
    pub tcp_words: u8,
    pub ident: u16,
    pub seq: u32,
    /// TCP flags: FIN and PSH stay on the last segment only, CWR on the first.
    pub flags: u8,
    pub flow: u8,
    pub payload: Vec<u8>,
}

impl Send {
    pub fn frame(&self) -> Vec<u8> {
        let tcp_len = 20 + 4 * self.tcp_words as usize;
        let tags: Vec<(u16, u16)> = self.tag.iter().map(|&t| (t, 0x200)).collect();
        let after = tcp_len + self.payload.len();
        let mut f = match self.ipv4 {
            Some(words) => {
                let v4 = V4 {
                    ident: self.ident,
                    opt_words: words,
                    ..V4::new([192, 0, 2, 1], [198, 51, 100, self.flow])
                };
                let mut f = ethernet(&tags, 0x0800);
                // Host-style: the total as if it were one packet (it may not fit 16 bits).
                f.extend(v4.header(6, after, None));
                f
            }
            None => {
                let mut dst = [0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
                dst[15] = self.flow;
                let v6 = V6 {
                    flow_label: 0xABCDE,
                    ..V6::new(
                        [0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
                        dst,
                    )
                };
                let mut f = ethernet(&tags, 0x86DD);
                f.extend(v6.header(6, after));
                f
            }
        };
        f.extend_from_slice(&(40_000 + u16::from(self.flow)).to_be_bytes());
        f.extend_from_slice(&(50_000 + u16::from(self.flow)).to_be_bytes());
        f.extend_from_slice(&self.seq.to_be_bytes());
        f.extend_from_slice(&0x0100_0000u32.to_be_bytes());
        f.extend_from_slice(&[(tcp_len as u8 / 4) << 4, self.flags, 0x01, 0x00, 0, 0, 0, 0]);
        // Options: a timestamp when there is room, then NOPs.
        let mut opts = Vec::new();
        if self.tcp_words >= 3 {
            opts.extend_from_slice(&[1, 1, 8, 10]);
            opts.extend_from_slice(&self.seq.to_be_bytes());
            opts.extend_from_slice(&(!self.seq).to_be_bytes());
        }
        opts.resize(4 * self.tcp_words as usize, 1);
        f.extend(opts);
        f.extend_from_slice(&self.payload);
        f
    }
}
