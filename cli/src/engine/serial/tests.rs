//! The serial engine's RSS against a board: the co-simulated board cores (the ECP5 boards' and
//! the iCEBreaker's) must print what `--engine model` prints, byte for byte; a fake board stands
//! in for boards that the co-simulation has no build of.

use crate::engine::model::Model;
use crate::engine::Width;
use crate::pcapio::Capture;
use crate::rss::{histogram, write_row, Job, JobContext, Unit, CSV_HEADER};
use crate::Failure;
use rocenic_host_driver::{Board, Link as ByteLink};
use rocenic_model::bridge::{self, regs};
use rocenic_model::rss::Meta;
use rocenic_model::rss::{classify, Context, Function, HashFields, HashInput, IndirectionTable};
use rocenic_model::toeplitz::{symmetric_key, MICROSOFT_KEY};
use rocenic_model::wire::{LinkType, PcapWriter};
use rocenic_sim::board::SimLink;
use rocenic_sim::duts::RocenicCorePorts;
use rocenic_sim::rss::frames;
use rocenic_sim::stream;
use std::collections::{HashMap, VecDeque};
use std::io;

/// What `rocenic rss` is asked for, minus the pcap and the engine.
struct Case {
    function: Function,
    fields: HashFields,
    key: Vec<u8>,
    table_size: usize,
    queues: u16,
}

impl Case {
    fn new(function: Function, fields: HashFields, key: &[u8], size: usize, q: u16) -> Self {
        Case {
            function,
            fields,
            key: key.to_vec(),
            table_size: size,
            queues: q,
        }
    }

    fn context(&self) -> Context {
        Context::new(self.function, self.fields, &self.key).unwrap()
    }

    fn table(&self) -> IndirectionTable<Vec<u16>> {
        let mut t = IndirectionTable::new(vec![0u16; self.table_size]).unwrap();
        t.fill_round_robin(self.queues).unwrap();
        t
    }

    /// The metadata of `frames` on `unit`.
    fn metas(
        &self,
        unit: &mut impl Unit,
        link: LinkType,
        frames: &[Vec<u8>],
    ) -> Result<Vec<Meta>, Failure> {
        let contexts = [JobContext {
            context: self.context(),
            key: self.key.clone(),
            table: self.table().entries().to_vec(),
        }];
        let job = Job {
            link,
            contexts: &contexts,
            rules: &[],
            width: Width::W64,
        };
        unit.start(&job)?;
        let frames: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
        unit.metas(&job, 0, &frames)
    }

    /// Standard output and standard error of `--engine model`.
    fn model(&self, link: LinkType, frames: &[Vec<u8>]) -> (Vec<u8>, String) {
        let metas = self.metas(&mut Model::default(), link, frames).unwrap();
        self.print(&metas)
    }

    /// Standard output and standard error of `--engine serial:` on `board`.
    fn serial<L: ByteLink>(
        &self,
        board: &mut Board<L>,
        link: LinkType,
        frames: &[Vec<u8>],
    ) -> Result<(Vec<u8>, String), Failure> {
        let metas = self.metas(board, link, frames)?;
        Ok(self.print(&metas))
    }

    fn print(&self, metas: &[Meta]) -> (Vec<u8>, String) {
        let mut csv = format!("{CSV_HEADER}\n").into_bytes();
        let mut per_queue = vec![0u64; usize::from(self.queues)];
        for (index, meta) in (0..).zip(metas) {
            write_row(&mut csv, index, meta).unwrap();
            per_queue[usize::from(meta.queue)] += 1;
        }
        (csv, histogram::csv(&per_queue))
    }
}

/// A pcap of `n` random frames of `link` (Ethernet: IPv4 and IPv6 with options, extension
/// headers and fragments, TCP, UDP, RoCEv2, other protocols, damage), read back the way
/// `run` reads its input.
fn random_pcap(name: &str, seed: u64, link: LinkType, n: usize) -> (LinkType, Vec<Vec<u8>>) {
    let mut rng = stream::rng(seed);
    let mut pcap = PcapWriter::new(Vec::new(), link).unwrap();
    for _ in 0..n {
        let mut f = match link {
            LinkType::Ethernet => frames::ethernet(&mut rng),
            LinkType::Infiniband => frames::infiniband(&mut rng),
            LinkType::Ipoib => unreachable!("RSS reads Ethernet and native InfiniBand"),
        };
        frames::damage(&mut rng, &mut f);
        pcap.write_record((0, 0), &f).unwrap();
    }
    let path =
        std::env::temp_dir().join(format!("rocenic-{}-{name}-{seed}.pcap", std::process::id()));
    std::fs::write(&path, pcap.finish().unwrap()).unwrap();
    let mut capture = Capture::open(&path, "frame").unwrap();
    let (read_link, _) = capture.link();
    let mut read = Vec::new();
    while let Some((_, record)) = capture.next().unwrap() {
        read.push(record.data.to_vec());
    }
    std::fs::remove_file(&path).unwrap();
    assert_eq!(read.len(), n);
    (read_link.expect("a link rocenic knows"), read)
}

fn input_len(link: LinkType, frame: &[u8], fields: HashFields) -> usize {
    HashInput::new(&classify(link, frame).tuple, fields)
        .as_bytes()
        .len()
}

/// Runs every case through the model and through `board`; the outputs must be identical.
fn serial_matches_model<D: RocenicCorePorts>(
    board: &mut Board<SimLink<D>>,
    link: LinkType,
    frames: &[Vec<u8>],
    cases: &[Case],
    seed: u64,
) {
    let max = board.caps().rss_max_input;
    for (i, case) in cases.iter().enumerate() {
        let longest = frames.iter().map(|f| input_len(link, f, case.fields)).max();
        assert!(longest <= Some(max), "case {i}: the board cannot hash it");
        let want = case.model(link, frames);
        let got = case
            .serial(board, link, frames)
            .unwrap_or_else(|e| panic!("case {i}: {} (seed {seed})", e.0));
        assert_eq!(
            String::from_utf8(got.0).unwrap(),
            String::from_utf8(want.0).unwrap(),
            "case {i}, {link:?} (seed {seed})"
        );
        assert_eq!(got.1, want.1, "case {i}: the histograms (seed {seed})");
    }
}

/// The ECP5 boards' core (36-byte inputs): every default-field input fits, so every packet of
/// a mixed pcap is hashed by the board, and the output is `--engine model`'s byte for byte,
/// for Toeplitz with the default, the symmetric and a short key, and for XOR.
#[test]
fn serial_engine_on_the_default_core_matches_the_model() {
    let seed = stream::seed("cli::serial_engine_on_the_default_core_matches_the_model");
    let mut board = Board::open(SimLink::new("cli_rss_serial")).unwrap();
    let v6_udp = HashFields::SRC_IPV6
        | HashFields::DST_IPV6
        | HashFields::SRC_PORT_UDP
        | HashFields::DST_PORT_UDP;
    let cases = [
        Case::new(
            Function::Toeplitz,
            HashFields::DEFAULT,
            &MICROSOFT_KEY,
            128,
            4,
        ),
        Case::new(Function::Toeplitz, v6_udp, &symmetric_key::<40>(), 256, 16),
        Case::new(Function::Xor, HashFields::DEFAULT, &MICROSOFT_KEY, 64, 7),
        // A 12-byte key covers the addresses of IPv4; the board's 40-byte key gets a zero
        // tail that no such input reaches.
        Case::new(
            Function::Toeplitz,
            HashFields::SRC_IPV4 | HashFields::DST_IPV4,
            &MICROSOFT_KEY[8..20],
            1,
            1,
        ),
    ];
    let (link, frames) = random_pcap("eth36", seed, LinkType::Ethernet, 160);
    serial_matches_model(&mut board, link, &frames, &cases, seed);
    let (link, frames) = random_pcap("ib36", seed, LinkType::Infiniband, 40);
    serial_matches_model(&mut board, link, &frames, &cases[..1], seed);
}

/// The iCEBreaker's core (12-byte inputs, 16-byte key): with IPv4 addresses and ports only
/// (IPv6 packets then hash on their ports), every packet fits; the 40-byte Microsoft key is
/// cut to its first 16 bytes, which is all that such inputs reach.
#[test]
fn serial_engine_on_the_icebreaker_core_matches_the_model() {
    let seed = stream::seed("cli::serial_engine_on_the_icebreaker_core_matches_the_model");
    let mut board = Board::open(SimLink::icebreaker("cli_rss_serial_ice")).unwrap();
    let v4_ports = HashFields::SRC_IPV4
        | HashFields::DST_IPV4
        | HashFields::SRC_PORT_TCP
        | HashFields::DST_PORT_TCP
        | HashFields::SRC_PORT_UDP
        | HashFields::DST_PORT_UDP;
    let cases = [
        Case::new(Function::Toeplitz, v4_ports, &MICROSOFT_KEY, 128, 4),
        Case::new(Function::Toeplitz, v4_ports, &symmetric_key::<40>(), 32, 3),
        Case::new(Function::Xor, v4_ports, &MICROSOFT_KEY, 128, 4),
    ];
    let (link, frames) = random_pcap("eth12", seed, LinkType::Ethernet, 160);
    serial_matches_model(&mut board, link, &frames, &cases, seed);
}

/// With the default fields an IPv6 packet's input (up to 36 bytes) is longer than the
/// iCEBreaker takes: the run stops at the first such packet, named with both lengths.
#[test]
fn serial_engine_refuses_inputs_longer_than_the_board_takes() {
    let seed = stream::seed("cli::serial_engine_refuses_inputs_longer_than_the_board_takes");
    let (link, frames) = random_pcap("eth-long", seed, LinkType::Ethernet, 60);
    let lens: Vec<usize> = frames
        .iter()
        .map(|f| input_len(link, f, HashFields::DEFAULT))
        .collect();
    let first = lens.iter().position(|&n| n > 12).expect("an IPv6 packet");
    let mut board = Board::open(SimLink::icebreaker("cli_rss_serial_long")).unwrap();
    let case = Case::new(
        Function::Toeplitz,
        HashFields::DEFAULT,
        &MICROSOFT_KEY,
        128,
        4,
    );
    let err = case.serial(&mut board, link, &frames).unwrap_err().0;
    let want = format!(
        "packet {first}: its hash input is {} bytes, but the board's RSS hash takes at most 12",
        lens[first]
    );
    assert!(err.starts_with(&want), "{err} (seed {seed})");
}

/// A register file behind the bridge's framing, for boards that the co-simulation has no
/// build of.
struct FakeBoard {
    regs: HashMap<u16, u32>,
    reply: VecDeque<u8>,
}

impl ByteLink for FakeBoard {
    fn send(&mut self, f: &[u8]) -> io::Result<()> {
        let (op, addr, n) = (f[1], u16::from_be_bytes([f[2], f[3]]), f[4]);
        let mut r = vec![bridge::REPLY_START, 0, n];
        for i in 0..u16::from(n) {
            let a = addr + i;
            if op == bridge::Op::Read as u8 {
                let w = self.regs.get(&a).copied().unwrap_or(0);
                r.extend_from_slice(&w.to_be_bytes());
            } else {
                let at = 5 + 4 * usize::from(i);
                let w = u32::from_be_bytes(f[at..at + 4].try_into().unwrap());
                self.regs.insert(a, w);
            }
        }
        let crc = bridge::crc16(&r[1..]);
        r.extend_from_slice(&crc.to_be_bytes());
        self.reply.extend(r);
        Ok(())
    }

    fn recv(&mut self) -> io::Result<u8> {
        self.reply
            .pop_front()
            .ok_or_else(|| io::Error::new(io::ErrorKind::TimedOut, "silence"))
    }
}

/// A fake board that answers ID and CAPS (`caps`) and keeps whatever is written.
fn fake_board(caps: u32) -> Board<FakeBoard> {
    Board::open(FakeBoard {
        regs: HashMap::from([(regs::ID, regs::ID_VALUE), (regs::CAPS, caps)]),
        reply: VecDeque::new(),
    })
    .unwrap()
}

#[test]
fn serial_engine_needs_an_rss_hash_unit() {
    // Version 1, the entropy unit, no RSS hash, 8 registers per request.
    let caps =
        regs::caps::VERSION.put(1) | regs::caps::ENTROPY.put(1) | regs::caps::MAX_WORDS.put(8);
    let case = Case::new(
        Function::Toeplitz,
        HashFields::DEFAULT,
        &MICROSOFT_KEY,
        128,
        4,
    );
    let frames = [frames::tcp_frame(&[10, 0, 0, 1], &[10, 0, 0, 2], 1, 2)];
    let err = case.serial(&mut fake_board(caps), LinkType::Ethernet, &frames);
    assert_eq!(
        err.unwrap_err().0,
        "serial engine: the board has no RSS hash unit"
    );
    // With the RSS bit set the same fake gets past the check, to the first hash (which it
    // never finishes): the message above is about the capability, not the fake.
    let err = case.serial(
        &mut fake_board(caps | regs::caps::RSS.put(1) | regs::caps::RSS_INPUT.put(12)),
        LinkType::Ethernet,
        &frames,
    );
    let err = err.unwrap_err().0;
    assert!(
        err.starts_with("packet 0: serial engine: no result"),
        "{err}"
    );
}
