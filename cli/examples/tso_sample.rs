//! Writes sample oversized TCP sends for `rocenic tso` and `make interop`: `DIR/eth.pcap`
//! (Ethernet, link type 1) and `DIR/ipoib.pcap` (IPoIB, link type 242).
//!
//! Every header form the segmenter takes: IPv4 with and without options, IPv6, 802.1Q and
//! 802.1ad tags, TCP with MSS, window-scale, SACK-permitted and timestamp options. The options
//! are well-formed so that a dissector has nothing to complain about but what TSO wrote; ports
//! are in the ephemeral range so that no application dissector reads the random payload. Each
//! flow's sequence numbers continue from send to send.
//!
//! Usage: `cargo run -p rocenic --example tso_sample -- DIR [SEED]`

use rocenic_model::wire::{LinkType, PcapWriter};

#[path = "common/rng.rs"]
mod rng;

use rng::Rng;

#[derive(Clone, Copy)]
enum Link {
    Ethernet(Option<u16>),
    Ipoib,
}

/// TCP options of `words` 4-byte words, all well-formed.
fn tcp_options(words: usize, ts: u32) -> Vec<u8> {
    let mut o = Vec::new();
    if words >= 3 {
        o.extend_from_slice(&[1, 1, 8, 10]);
        o.extend_from_slice(&ts.to_be_bytes());
        o.extend_from_slice(&(ts ^ 0x5A5A).to_be_bytes());
    }
    if words >= 4 {
        o.extend_from_slice(&[1, 3, 3, 7]); // NOP, window scale 7
    }
    if words >= 5 {
        o.extend_from_slice(&[1, 1, 4, 2]); // NOP, NOP, SACK permitted
    }
    while o.len() < words * 4 {
        o.push(1);
    }
    o
}

/// One oversized frame: link header, IP, TCP, payload.
fn frame(
    link: Link,
    ipv4: bool,
    ip_opts: bool,
    tcp_words: usize,
    flow: u16,
    seq: u32,
    payload: &[u8],
) -> Vec<u8> {
    let mut f = Vec::new();
    let ethertype: u16 = if ipv4 { 0x0800 } else { 0x86DD };
    match link {
        Link::Ethernet(tag) => {
            f.extend_from_slice(&[0x02, 0x00, 0x5E, 0x10, 0x00, 0x02]);
            f.extend_from_slice(&[0x02, 0x00, 0x5E, 0x10, 0x00, 0x01]);
            if let Some(tpid) = tag {
                f.extend_from_slice(&tpid.to_be_bytes());
                f.extend_from_slice(&(0x2000u16 | flow).to_be_bytes());
            }
            f.extend_from_slice(&ethertype.to_be_bytes());
        }
        Link::Ipoib => {
            f.extend_from_slice(&ethertype.to_be_bytes());
            f.extend_from_slice(&[0, 0]);
        }
    }
    let tcp_len = 20 + tcp_words * 4;
    if ipv4 {
        let opts: &[u8] = if ip_opts {
            &[0x94, 0x04, 0x00, 0x00]
        } else {
            &[]
        };
        let ihl = 5 + opts.len() / 4;
        // Host-style template: total length as if it were one packet (it may not fit 16 bits),
        // checksum left 0 for the NIC.
        let total = (ihl * 4 + tcp_len + payload.len()).min(0xFFFF) as u16;
        f.extend_from_slice(&[0x40 | ihl as u8, 0x00]);
        f.extend_from_slice(&total.to_be_bytes());
        f.extend_from_slice(&(0x1000u16 + flow).to_be_bytes());
        f.extend_from_slice(&[0x40, 0x00, 64, 6, 0, 0]);
        f.extend_from_slice(&[192, 0, 2, 1, 198, 51, 100, flow as u8]);
        f.extend_from_slice(opts);
    } else {
        f.extend_from_slice(&[0x60, 0x0A, 0xBC, 0xDE]);
        f.extend_from_slice(&((tcp_len + payload.len()).min(0xFFFF) as u16).to_be_bytes());
        f.extend_from_slice(&[6, 64]);
        f.extend_from_slice(&[0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        f.extend_from_slice(&[
            0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, flow as u8,
        ]);
    }
    f.extend_from_slice(&(40_000 + flow).to_be_bytes());
    f.extend_from_slice(&(50_000 + flow).to_be_bytes());
    f.extend_from_slice(&seq.to_be_bytes());
    f.extend_from_slice(&0x0100_0000u32.to_be_bytes());
    f.push(((tcp_len / 4) as u8) << 4);
    f.push(0x18); // ACK, PSH
    f.extend_from_slice(&[0x01, 0x00, 0, 0, 0, 0]);
    f.extend_from_slice(&tcp_options(tcp_words, seq));
    f.extend_from_slice(payload);
    f
}

fn write_pcap(path: &std::path::Path, link: LinkType, frames: &[Vec<u8>]) -> std::io::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    // The sends reach 100 KB of payload: a snap length above them.
    let mut out = PcapWriter::with_header(file, link.pcap(), 262_144)?;
    for (i, f) in frames.iter().enumerate() {
        out.write_record((1_700_000_000, i as u32), f)?;
    }
    out.finish().map(drop)
}

fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: tso_sample DIR [SEED]");
        return std::process::ExitCode::from(2);
    };
    let seed = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x7530_u64)
        | 1;
    let mut rng = Rng(seed);
    let dir = std::path::PathBuf::from(dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("tso_sample: {}: {e}", dir.display());
        return std::process::ExitCode::from(2);
    }
    // (link, IPv4, IP options, TCP option words) per flow.
    let eth: &[(Link, bool, bool, usize)] = &[
        (Link::Ethernet(None), true, false, 0),
        (Link::Ethernet(None), true, false, 3),
        (Link::Ethernet(Some(0x8100)), true, true, 5),
        (Link::Ethernet(None), false, false, 3),
        (Link::Ethernet(Some(0x88A8)), false, false, 4),
    ];
    let ipoib: &[(Link, bool, bool, usize)] = &[
        (Link::Ipoib, true, false, 0),
        (Link::Ipoib, true, true, 3),
        (Link::Ipoib, false, false, 5),
    ];
    let lens = [65_536usize, 1, 3000, 0, 20_000, 9000, 100_000];
    for (name, link_type, flows) in [
        ("eth.pcap", LinkType::Ethernet, eth),
        ("ipoib.pcap", LinkType::Ipoib, ipoib),
    ] {
        let mut frames = Vec::new();
        for (k, &(link, ipv4, ip_opts, words)) in flows.iter().enumerate() {
            let mut seq = rng.next() as u32;
            for &len in &lens {
                let payload = rng.bytes(len);
                frames.push(frame(
                    link,
                    ipv4,
                    ip_opts,
                    words,
                    k as u16 + 1,
                    seq,
                    &payload,
                ));
                seq = seq.wrapping_add(len as u32);
            }
        }
        let path = dir.join(name);
        if let Err(e) = write_pcap(&path, link_type, &frames) {
            eprintln!("tso_sample: {}: {e}", path.display());
            return std::process::ExitCode::from(2);
        }
        eprintln!("tso_sample: {} ({} sends)", path.display(), frames.len());
    }
    std::process::ExitCode::SUCCESS
}
