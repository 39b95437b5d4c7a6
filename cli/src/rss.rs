//! `rocenic rss`: hash and queue of every packet of a pcap, as the NIC's RSS would pick them.

use crate::engine::{parse_engine, Engine};
use crate::toeplitz::decode_hex;
use crate::{Failure, Outcome};
use clap::ValueEnum;
use rocenic_host_driver::serial::{SerialLink, DEFAULT_BAUD};
use rocenic_host_driver::{Board, Error as BoardError, Link as ByteLink};
use rocenic_model::rss::regs::{ContextRegs, KEY_BYTES};
use rocenic_model::rss::{
    classify, distribute, distribute_with, Context, ContextView, Function, HashFields, HashInput,
    IndirectionTable, Meta,
};
use rocenic_model::toeplitz::{symmetric_key, MICROSOFT_KEY};
use rocenic_model::wire::{LinkType, PcapReader};
use rocenic_sim::duts::{RssPipeline512, RssPipeline64};
use rocenic_sim::rss::pipeline::{run_context, RTL_TABLE_LOG2};
use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The RTL's data path width in bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Width {
    /// 8 bytes per beat.
    #[value(name = "64")]
    W64,
    /// 64 bytes per beat.
    #[value(name = "512")]
    W512,
}

/// The hash function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HashFunction {
    /// Toeplitz with the key.
    Toeplitz,
    /// XOR of the input's 32-bit words.
    Xor,
}

#[derive(clap::Args)]
pub struct Args {
    /// A classic pcap of Ethernet (link type 1) or InfiniBand (link type 247) frames.
    #[arg(long)]
    pcap: PathBuf,
    /// Implementation to run: model, rtl (co-simulated), or serial:PORT (a board's RSS hash unit
    /// behind its UART, e.g. serial:/dev/ttyUSB1, at 115200 baud).
    #[arg(long, default_value = "model", value_parser = parse_engine)]
    engine: Engine,
    /// Hash function.
    #[arg(long, value_enum, default_value_t = HashFunction::Toeplitz)]
    function: HashFunction,
    /// Toeplitz key as plain hex bytes (default: the Microsoft verification key).
    #[arg(long, conflicts_with = "symmetric_key")]
    key: Option<String>,
    /// Use the symmetric key (0x6d5a repeated): both directions of a flow land on one queue.
    #[arg(long)]
    symmetric_key: bool,
    /// Hashed fields, comma-separated: src-ipv4, dst-ipv4, src-ipv6, dst-ipv6, src-port-tcp,
    /// dst-port-tcp, src-port-udp, dst-port-udp, bth-qpn (default: addresses and TCP/UDP ports).
    #[arg(long, value_parser = parse_fields)]
    fields: Option<HashFields>,
    /// Indirection table entries: a power of two from 1 to 65536.
    #[arg(long, default_value_t = 128)]
    table_size: usize,
    /// Data path width of the RTL engine.
    #[arg(long, value_enum, default_value_t = Width::W64)]
    width: Width,
    /// Receive queues, filled into the table round-robin.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    queues: u16,
}

fn parse_fields(text: &str) -> Result<HashFields, String> {
    text.split(',')
        .map(str::trim)
        .try_fold(HashFields::NONE, |acc, name| {
            HashFields::from_name(name).map(|f| acc | f).ok_or_else(|| {
                let known: Vec<&str> = HashFields::NAMES.iter().map(|(n, _)| *n).collect();
                format!("unknown field `{name}` (known: {})", known.join(", "))
            })
        })
}

/// The longest hash input the fields can select, in bytes.
fn longest_input(fields: HashFields) -> usize {
    let count = |pairs: &[(HashFields, usize)]| -> usize {
        pairs
            .iter()
            .filter(|(f, _)| fields.contains(*f))
            .map(|(_, n)| n)
            .sum()
    };
    let v4 = count(&[(HashFields::SRC_IPV4, 4), (HashFields::DST_IPV4, 4)]);
    let v6 = count(&[(HashFields::SRC_IPV6, 16), (HashFields::DST_IPV6, 16)]);
    let tcp = count(&[(HashFields::SRC_PORT_TCP, 2), (HashFields::DST_PORT_TCP, 2)]);
    let udp = count(&[(HashFields::SRC_PORT_UDP, 2), (HashFields::DST_PORT_UDP, 2)]);
    v4.max(v6) + tcp.max(udp) + count(&[(HashFields::BTH_DEST_QPN, 3)])
}

pub fn run(args: Args) -> Outcome {
    let fields = args.fields.unwrap_or(HashFields::DEFAULT);
    let longest = longest_input(fields);
    let key: Vec<u8> = match (&args.key, args.symmetric_key) {
        (Some(hex), _) => decode_hex(hex).map_err(|e| Failure(format!("--key: {e}")))?,
        (None, true) if longest > 36 => symmetric_key::<52>().to_vec(),
        (None, true) => symmetric_key::<40>().to_vec(),
        (None, false) => MICROSOFT_KEY.to_vec(),
    };
    if args.function == HashFunction::Toeplitz && longest + 4 > key.len() {
        return Err(Failure(format!(
            "the selected fields take up to {longest} bytes of hash input, but a {}-byte key covers {}: use a 52-byte key",
            key.len(),
            key.len().saturating_sub(4)
        )));
    }
    let function = match args.function {
        HashFunction::Toeplitz => Function::Toeplitz,
        HashFunction::Xor => Function::Xor,
    };
    let context =
        Context::new(function, fields, &key).map_err(|e| Failure(format!("--key: {e}")))?;
    let mut table = IndirectionTable::new(vec![0u16; args.table_size])
        .map_err(|e| Failure(format!("--table-size: {e}")))?;
    table.fill_round_robin(args.queues)?;

    let (link, frames) = read_pcap(&args.pcap)?;
    let metas: Vec<Meta> = match &args.engine {
        Engine::Model => model_metas(link, &frames, &context, table.entries()),
        Engine::Rtl => {
            if key.len() > KEY_BYTES {
                return Err(Failure(format!(
                    "--key: the RTL holds keys of up to {KEY_BYTES} bytes"
                )));
            }
            if args.table_size > 1 << RTL_TABLE_LOG2 {
                return Err(Failure(format!(
                    "--table-size: the RTL's tables hold up to {} entries",
                    1 << RTL_TABLE_LOG2
                )));
            }
            // Shorter keys are stored with a zero tail, which no covered input reaches.
            let mut key52 = [0u8; KEY_BYTES];
            key52[..key.len()].copy_from_slice(&key);
            let regs = ContextRegs {
                function,
                fields,
                key: key52,
                table_log2: args.table_size.trailing_zeros() as u8,
                bank: 1,
            };
            let run = match args.width {
                Width::W64 => run_context::<RssPipeline64>,
                Width::W512 => run_context::<RssPipeline512>,
            };
            let frames: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
            run("rocenic_rss", link, &frames, &regs, table.entries())
                .map_err(|e| Failure(format!("RTL engine: {e}")))?
        }
        Engine::Serial(path) => {
            let mut board = SerialLink::open(path, DEFAULT_BAUD)
                .map_err(BoardError::Io)
                .and_then(Board::open)
                .map_err(|e| Failure(format!("serial engine: {e}")))?;
            board_metas(&mut board, link, &frames, &context, &key, table.entries())?
        }
    };

    let mut out = BufWriter::new(io::stdout().lock());
    write_csv(&metas, &mut out)?;
    out.flush()?;
    eprint!("{}", histogram(&metas, args.queues));
    Ok(true)
}

/// The link layer and the frames of a pcap.
fn read_pcap(path: &Path) -> Result<(LinkType, Vec<Vec<u8>>), Failure> {
    let name = path.display();
    let bytes = std::fs::read(path).map_err(|e| Failure(format!("cannot read {name}: {e}")))?;
    let reader = PcapReader::new(&bytes).map_err(|e| Failure(format!("{name}: {e}")))?;
    let link = match LinkType::from_pcap(reader.link_type()) {
        // The RTL parser reads Ethernet and native InfiniBand, not bare IPoIB.
        Some(link @ (LinkType::Ethernet | LinkType::Infiniband)) => link,
        _ => {
            return Err(Failure(format!(
                "{name}: link type {} is neither Ethernet (1) nor InfiniBand (247)",
                reader.link_type()
            )))
        }
    };
    let mut frames = Vec::new();
    for (index, record) in reader.records().enumerate() {
        let record = record.map_err(|e| Failure(format!("{name}: frame {index}: {e}")))?;
        frames.push(record.data.to_vec());
    }
    Ok((link, frames))
}

/// `--engine model`: every packet through the model's parser, steering, hash and table.
fn model_metas(link: LinkType, frames: &[Vec<u8>], context: &Context, table: &[u16]) -> Vec<Meta> {
    let view = ContextView { context, table };
    frames
        .iter()
        .map(|f| distribute(&classify(link, f), &[], &[view]))
        .collect()
}

/// `--engine serial:PORT` over any link to a board (a tty, or the co-simulated core in the
/// tests): the model parses, steers and looks the queue up in `table`, as `--engine model`
/// does, but every hash is computed by the board's RSS hash unit from the model's hash input.
///
/// The board holds a key of exactly `rss_max_input + 4` bytes. An input of n bytes reaches
/// only the key's first n + 4 bytes, so for every input the board takes, the first
/// `rss_max_input + 4` bytes of a longer key, or a shorter key with a zero tail, give the
/// model's hash (a shorter key covers every input of the selected fields, which `run` checks
/// first). A packet whose input is longer than the board takes stops the run with its index:
/// its hash is never taken from the model instead.
fn board_metas<L: ByteLink>(
    board: &mut Board<L>,
    link: LinkType,
    frames: &[Vec<u8>],
    context: &Context,
    key: &[u8],
    table: &[u16],
) -> Result<Vec<Meta>, Failure> {
    let max = board.caps().rss_max_input;
    if max == 0 {
        return Err(Failure(
            "serial engine: the board has no RSS hash unit".into(),
        ));
    }
    let xor = context.function == Function::Xor;
    if !xor {
        let mut board_key = vec![0u8; max + 4];
        let n = key.len().min(max + 4);
        board_key[..n].copy_from_slice(&key[..n]);
        board
            .rss_key(&board_key)
            .map_err(|e| Failure(format!("serial engine: loading the key: {e}")))?;
    }
    let view = ContextView { context, table };
    frames
        .iter()
        .enumerate()
        .map(|(index, frame)| {
            distribute_with(&classify(link, frame), &[], &[view], |view, tuple| {
                let input = HashInput::new(tuple, view.context.fields);
                let bytes = input.as_bytes();
                if bytes.len() > max {
                    return Err(Failure(format!(
                        "packet {index}: its hash input is {} bytes, but the board's RSS hash takes at most {max} (hash fewer --fields, or use a board with longer inputs)",
                        bytes.len()
                    )));
                }
                let hash = board
                    .rss_hash(bytes, xor)
                    .map_err(|e| Failure(format!("packet {index}: serial engine: {e}")))?;
                Ok((hash, input.hash_type))
            })
        })
        .collect()
}

/// The CSV written to standard output: `index,hash,queue,flags` per packet.
fn write_csv(metas: &[Meta], out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "index,hash,queue,flags")?;
    for (index, meta) in metas.iter().enumerate() {
        let (hash, queue) = (meta.hash, meta.queue);
        writeln!(out, "{index},{hash:#010x},{queue},{}", meta.flags)?;
    }
    Ok(())
}

/// The per-queue histogram written to standard error.
fn histogram(metas: &[Meta], queues: u16) -> String {
    let mut per_queue = vec![0u64; usize::from(queues)];
    for meta in metas {
        per_queue[usize::from(meta.queue)] += 1;
    }
    let total: u64 = per_queue.iter().sum();
    let mut text = String::from("queue,packets,share\n");
    for (q, n) in per_queue.iter().enumerate() {
        let share = if total == 0 {
            0.0
        } else {
            100.0 * *n as f64 / total as f64
        };
        let _ = writeln!(text, "{q},{n},{share:.1}%");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocenic_model::bridge::{self, regs};
    use rocenic_model::wire::PcapWriter;
    use rocenic_sim::board::{CorePins, SimLink};
    use rocenic_sim::rss::frames;
    use rocenic_sim::stream;
    use std::collections::{HashMap, VecDeque};

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

        /// Standard output and standard error of `--engine model`.
        fn model(&self, link: LinkType, frames: &[Vec<u8>]) -> (Vec<u8>, String) {
            let metas = model_metas(link, frames, &self.context(), self.table().entries());
            self.print(&metas)
        }

        /// Standard output and standard error of `--engine serial:` on `board`.
        fn serial<L: ByteLink>(
            &self,
            board: &mut Board<L>,
            link: LinkType,
            frames: &[Vec<u8>],
        ) -> Result<(Vec<u8>, String), Failure> {
            let (context, table) = (self.context(), self.table());
            let metas = board_metas(board, link, frames, &context, &self.key, table.entries())?;
            Ok(self.print(&metas))
        }

        fn print(&self, metas: &[Meta]) -> (Vec<u8>, String) {
            let mut csv = Vec::new();
            write_csv(metas, &mut csv).unwrap();
            (csv, histogram(metas, self.queues))
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
        let read = read_pcap(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(read.1.len(), n);
        read
    }

    fn input_len(link: LinkType, frame: &[u8], fields: HashFields) -> usize {
        HashInput::new(&classify(link, frame).tuple, fields)
            .as_bytes()
            .len()
    }

    /// Runs every case through the model and through `board`; the outputs must be identical.
    fn serial_matches_model<D: CorePins>(
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
        // Version 1, the entropy unit, no RSS hash (bit 9 clear), 8 registers per request.
        let caps = 1 | 1 << 8 | 8 << 24;
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
            &mut fake_board(caps | 1 << 9 | 12 << 16),
            LinkType::Ethernet,
            &frames,
        );
        let err = err.unwrap_err().0;
        assert!(
            err.starts_with("packet 0: serial engine: no result"),
            "{err}"
        );
    }

    #[test]
    fn field_lists() {
        assert_eq!(parse_fields("src-ipv4,dst-ipv4"), Ok(HashFields(0b11)));
        assert!(parse_fields("src-ipv4,bogus")
            .unwrap_err()
            .contains("bogus"));
        assert_eq!(longest_input(HashFields::DEFAULT), 36);
        assert_eq!(
            longest_input(HashFields::DEFAULT | HashFields::BTH_DEST_QPN),
            39
        );
        assert_eq!(
            longest_input(HashFields::SRC_IPV4 | HashFields::BTH_DEST_QPN),
            7
        );
    }
}
