//! The memory benchmark's inputs, generated from a seed and written straight to disk: the largest
//! runs to gigabytes, so no input is ever held in memory (here or in the measured command).
//!
//! Each record is drawn first as a small spec (a fixed number of generator draws), and its bytes
//! and length follow from the spec alone. A file's size can so be predicted by replaying the specs
//! without building a byte, which is how an existing file is recognised as complete and reused.

use rocenic_model::wire::checksum::checksum;
use rocenic_model::wire::{icrc_fill, LinkType, PcapWriter};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Bumped whenever the bytes a seed gives change, so that stale files are not reused.
pub const FORMAT: u32 = 1;

/// SplitMix64: any seed, zero included, gives a full-period stream.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi` (the modulo bias is irrelevant here).
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut b = [0; N];
        for chunk in b.chunks_mut(8) {
            chunk.copy_from_slice(&self.next().to_le_bytes()[..chunk.len()]);
        }
        b
    }
}

/// `n` payload bytes that vary with `fill`, made without drawing from the spec stream.
fn payload(f: &mut Vec<u8>, fill: u64, n: usize) {
    let mut r = Rng::new(fill);
    let mut word = [0; 8];
    for i in 0..n {
        if i % 8 == 0 {
            word = r.next().to_le_bytes();
        }
        f.push(word[i % 8]);
    }
}

/// Source and destination addresses: the first 4 bytes of each for IPv4.
struct Addrs {
    src: [u8; 16],
    dst: [u8; 16],
}

impl Addrs {
    fn draw(rng: &mut Rng) -> Addrs {
        Addrs {
            src: rng.bytes(),
            dst: rng.bytes(),
        }
    }

    /// An IPv4 header (no options) for `upper` bytes of `protocol`; `host` leaves the checksum 0,
    /// as a host hands a TSO send to the NIC.
    fn ipv4(&self, f: &mut Vec<u8>, protocol: u8, upper: usize, id: u16, host: bool) {
        let start = f.len();
        f.extend_from_slice(&[0x45, 0]);
        f.extend_from_slice(&((20 + upper).min(0xFFFF) as u16).to_be_bytes());
        f.extend_from_slice(&id.to_be_bytes());
        f.extend_from_slice(&[0x40, 0, 64, protocol, 0, 0]);
        f.extend_from_slice(&self.src[..4]);
        f.extend_from_slice(&self.dst[..4]);
        if !host {
            let sum = checksum(&f[start..]);
            f[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
        }
    }

    fn ipv6(&self, f: &mut Vec<u8>, next: u8, upper: usize, flow: u32) {
        f.extend_from_slice(&(0x6000_0000 | (flow & 0xF_FFFF)).to_be_bytes());
        f.extend_from_slice(&(upper.min(0xFFFF) as u16).to_be_bytes());
        f.extend_from_slice(&[next, 64]);
        f.extend_from_slice(&self.src);
        f.extend_from_slice(&self.dst);
    }
}

const ETH_HEADER: [u8; 12] = [0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2];

/// A RoCEv2 frame: RC SEND_ONLY or UD SEND_ONLY (with its DETH), over IPv4 or IPv6.
pub struct Roce {
    ipv6: bool,
    ud: bool,
    payload: usize,
    addrs: Addrs,
    /// UDP source port (the flow entropy), destination QP and PSN.
    sport: u16,
    dqp: u32,
    psn: u32,
    fill: u64,
}

impl Roce {
    pub fn draw(rng: &mut Rng) -> Roce {
        let bits = rng.next();
        Roce {
            ipv6: bits & 1 != 0,
            ud: bits & 2 != 0,
            payload: rng.range(0, 1024),
            addrs: Addrs::draw(rng),
            sport: 0xC000 | ((bits >> 8) as u16 & 0x3FFF),
            dqp: (bits >> 24) as u32 & 0xFF_FFFF,
            psn: (bits >> 48) as u32,
            fill: rng.next(),
        }
    }

    fn udp_len(&self) -> usize {
        8 + 12 + if self.ud { 8 } else { 0 } + self.payload + 4
    }

    pub fn len(&self) -> usize {
        14 + if self.ipv6 { 40 } else { 20 } + self.udp_len()
    }

    pub fn frame(&self) -> Vec<u8> {
        let mut f = Vec::with_capacity(self.len());
        f.extend_from_slice(&ETH_HEADER);
        let udp = self.udp_len();
        if self.ipv6 {
            f.extend_from_slice(&[0x86, 0xDD]);
            self.addrs.ipv6(&mut f, 17, udp, self.psn);
        } else {
            f.extend_from_slice(&[0x08, 0x00]);
            self.addrs.ipv4(&mut f, 17, udp, self.psn as u16, false);
        }
        f.extend_from_slice(&self.sport.to_be_bytes());
        f.extend_from_slice(&4791u16.to_be_bytes());
        f.extend_from_slice(&(udp as u16).to_be_bytes());
        f.extend_from_slice(&[0, 0]);
        // BTH: opcode, solicited/migreq/pad/version, P_Key, reserved + dest QP, ack + PSN.
        f.extend_from_slice(&[if self.ud { 0x64 } else { 0x04 }, 0, 0xFF, 0xFF]);
        f.extend_from_slice(&self.dqp.to_be_bytes());
        f.extend_from_slice(&(self.psn & 0xFF_FFFF).to_be_bytes());
        if self.ud {
            // DETH: Q_Key, reserved + source QP.
            f.extend_from_slice(&[0x11, 0x11, 0x11, 0x11]);
            f.extend_from_slice(&(self.dqp ^ 0x5A5A5A).to_be_bytes());
        }
        payload(&mut f, self.fill, self.payload);
        f.extend_from_slice(&[0; 4]);
        icrc_fill(&mut f).expect("a RoCEv2 frame");
        f
    }
}

/// An oversized TCP send as a host hands it to TSO, over IPv4 or IPv6, sometimes VLAN-tagged.
pub struct Send {
    ipv6: bool,
    vlan: bool,
    payload: usize,
    addrs: Addrs,
    ports: u32,
    seq: u32,
    fill: u64,
}

impl Send {
    pub fn draw(rng: &mut Rng) -> Send {
        let bits = rng.next();
        Send {
            ipv6: bits & 1 != 0,
            vlan: bits & 0xE == 0,
            payload: rng.range(1000, 3000),
            addrs: Addrs::draw(rng),
            ports: (bits >> 16) as u32,
            seq: (bits >> 48) as u32 * 0x1_0001,
            fill: rng.next(),
        }
    }

    /// TCP with a timestamp option (32 bytes), then the payload.
    fn tcp_len(&self) -> usize {
        32 + self.payload
    }

    pub fn len(&self) -> usize {
        14 + if self.vlan { 4 } else { 0 } + if self.ipv6 { 40 } else { 20 } + self.tcp_len()
    }

    pub fn frame(&self) -> Vec<u8> {
        let mut f = Vec::with_capacity(self.len());
        f.extend_from_slice(&ETH_HEADER);
        if self.vlan {
            f.extend_from_slice(&[0x81, 0x00, 0x00, 0x07]);
        }
        let tcp = self.tcp_len();
        if self.ipv6 {
            f.extend_from_slice(&[0x86, 0xDD]);
            self.addrs.ipv6(&mut f, 6, tcp, self.ports);
        } else {
            f.extend_from_slice(&[0x08, 0x00]);
            self.addrs.ipv4(&mut f, 6, tcp, self.seq as u16, true);
        }
        f.extend_from_slice(&self.ports.to_be_bytes());
        f.extend_from_slice(&self.seq.to_be_bytes());
        f.extend_from_slice(&[0, 0, 0, 1, 0x80, 0x18, 1, 0, 0, 0, 0, 0]);
        f.extend_from_slice(&[1, 1, 8, 10]);
        f.extend_from_slice(&self.seq.rotate_left(7).to_be_bytes());
        f.extend_from_slice(&self.seq.rotate_left(13).to_be_bytes());
        payload(&mut f, self.fill, self.payload);
        f
    }
}

/// One generated input file.
pub struct Input {
    pub path: PathBuf,
    pub bytes: u64,
}

/// Writes (or reuses) a pcap of `n` Ethernet frames drawn by `draw`; `len` and `frame` are the
/// spec's length and bytes.
fn pcap<S>(
    path: PathBuf,
    n: u64,
    seed: u64,
    draw: fn(&mut Rng) -> S,
    len: fn(&S) -> usize,
    frame: fn(&S) -> Vec<u8>,
) -> std::io::Result<Input> {
    let mut rng = Rng::new(seed);
    let bytes = 24
        + (0..n)
            .map(|_| 16 + len(&draw(&mut rng)) as u64)
            .sum::<u64>();
    write_unless_present(path, bytes, |out| {
        let mut pcap = PcapWriter::new(out, LinkType::Ethernet)?;
        let mut rng = Rng::new(seed);
        for i in 0..n {
            let ts = (
                1_700_000_000 + (i / 1_000_000) as u32,
                (i % 1_000_000) as u32,
            );
            pcap.write_record(ts, &frame(&draw(&mut rng)))?;
        }
        pcap.finish().map(drop)
    })
}

/// Writes (or reuses) a CSV of a header and `n` rows of `row_len` bytes each.
fn csv(
    path: PathBuf,
    n: u64,
    header: &str,
    row_len: u64,
    mut row: impl FnMut(&mut BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<Input> {
    let bytes = header.len() as u64 + 1 + n * row_len;
    write_unless_present(path, bytes, |mut out| {
        writeln!(out, "{header}")?;
        for _ in 0..n {
            row(&mut out)?;
        }
        out.flush()
    })
}

/// Keeps a file of the predicted size, else writes it; a file of any other size (an interrupted
/// run) is rewritten, and a written file of the wrong size is a bug in the prediction.
fn write_unless_present(
    path: PathBuf,
    bytes: u64,
    write: impl FnOnce(BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<Input> {
    let present = std::fs::metadata(&path).map(|m| m.len()).ok();
    if present != Some(bytes) {
        eprintln!("generating {} ({bytes} bytes)", path.display());
        write(BufWriter::with_capacity(1 << 20, File::create(&path)?))?;
        let written = std::fs::metadata(&path)?.len();
        assert_eq!(written, bytes, "{}: size predicted wrongly", path.display());
    }
    Ok(Input { path, bytes })
}

fn name(dir: &Path, kind: &str, seed: u64, n: u64, ext: &str) -> PathBuf {
    dir.join(format!("membench-{kind}-v{FORMAT}-{seed:016x}-{n}.{ext}"))
}

/// The RoCEv2 capture for `icrc` and `rss`.
pub fn roce(dir: &Path, seed: u64, n: u64) -> std::io::Result<Input> {
    let path = name(dir, "roce", seed, n, "pcap");
    pcap(path, n, seed, Roce::draw, Roce::len, Roce::frame)
}

/// The capture of oversized sends for `tso`.
pub fn sends(dir: &Path, seed: u64, n: u64) -> std::io::Result<Input> {
    let path = name(dir, "tso", seed, n, "pcap");
    pcap(path, n, seed ^ 1, Send::draw, Send::len, Send::frame)
}

/// `lqpn,rqpn` rows of random 24-bit QPNs for `entropy`.
pub fn qp_pairs(dir: &Path, seed: u64, n: u64) -> std::io::Result<Input> {
    let mut rng = Rng::new(seed ^ 2);
    let path = name(dir, "entropy", seed, n, "csv");
    csv(path, n, "lqpn,rqpn", 18, |out| {
        let bits = rng.next();
        writeln!(
            out,
            "{:#08x},{:#08x}",
            bits & 0xFF_FFFF,
            (bits >> 24) & 0xFF_FFFF
        )
    })
}

/// `key_hex,input_hex` rows for `toeplitz`: 40-byte keys, each kept for a run of 1 to 256 rows
/// (the model caches the last key's table, as real inputs mostly share one), and 12-byte inputs.
pub fn hash_inputs(dir: &Path, seed: u64, n: u64) -> std::io::Result<Input> {
    let mut rng = Rng::new(seed ^ 3);
    let mut key = [0u8; 40];
    let mut left = 0;
    let path = name(dir, "toeplitz", seed, n, "csv");
    csv(path, n, "key_hex,input_hex", 80 + 1 + 24 + 1, |out| {
        if left == 0 {
            key = rng.bytes();
            left = rng.range(1, 256);
        }
        left -= 1;
        let input: [u8; 12] = rng.bytes();
        key.iter().try_for_each(|b| write!(out, "{b:02x}"))?;
        out.write_all(b",")?;
        input.iter().try_for_each(|b| write!(out, "{b:02x}"))?;
        out.write_all(b"\n")
    })
}
