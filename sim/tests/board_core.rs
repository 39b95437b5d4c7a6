//! The board tops' path end to end: host driver -> frames -> UART pins -> bridge -> registers ->
//! pipelines and back, all co-simulated (`rtl/top/rocenic_core.sv` via `sim::board::SimLink`),
//! checked against the model, for both builds of the core: the ECP5 boards' (36-byte RSS
//! inputs) and the iCEBreaker's (`icebreaker_*`: 12-byte RSS inputs, the entropy unit's products
//! split at 16 bits, 8 registers per request). Also the bridge's error paths: every bad frame
//! gets its error reply, changes nothing, and the next good frame works.

use rand::Rng;
use rocenic_host_driver::{Board, Error, Link, RegisterBus};
use rocenic_model::bridge::{self, regs, FrameError, Op, Status, MAX_FRAME, MAX_WORDS};
use rocenic_model::entropy::{Profile, QpType, Request};
use rocenic_model::toeplitz::{hash_bitserial, hash_xor, MICROSOFT_KEY};
use rocenic_sim::board::{SimLink, IDLE_TIMEOUT};
use rocenic_sim::duts::RocenicCoreIcebreaker;
use rocenic_sim::duts::RocenicCorePorts;
use rocenic_sim::stream;

fn board(run: &str) -> Board<SimLink> {
    Board::open(SimLink::new(run)).expect("identify the core")
}

fn icebreaker(run: &str) -> Board<SimLink<RocenicCoreIcebreaker>> {
    Board::open(SimLink::icebreaker(run)).expect("identify the core")
}

#[test]
fn identifies_itself() {
    let b = board("board_ident");
    let caps = b.caps();
    assert_eq!(caps.version, 1);
    assert!(caps.entropy);
    assert_eq!(caps.rss_max_input, 36);
    assert_eq!(caps.max_words, MAX_WORDS);
}

#[test]
fn icebreaker_identifies_itself() {
    let caps = icebreaker("board_ice_ident").caps();
    assert_eq!(caps.version, 1);
    assert!(caps.entropy);
    assert_eq!(caps.rss_max_input, 12);
    assert_eq!(caps.max_words, 8);
}

/// The iCEBreaker's bridge takes 8 registers per request, and its RSS registers hold 4 key and
/// 3 data words: bursts split at 8, and the rest of each 16-word window reads 0 and ignores
/// writes.
#[test]
fn icebreaker_register_windows_and_bursts_split() {
    let seed = stream::seed("icebreaker_register_windows_and_bursts_split");
    let mut rng = stream::rng(seed);
    let mut b = icebreaker("board_ice_windows");
    for window in [regs::R_KEY, regs::R_DATA] {
        let held = if window == regs::R_KEY { 4 } else { 3 };
        let words: Vec<u32> = (0..16).map(|_| rng.gen::<u32>() | 1).collect();
        b.bus.write(window, &words).unwrap(); // 16 words: two frames
        let mut back = vec![0u32; 16];
        b.bus.read(window, &mut back).unwrap();
        assert_eq!(&back[..held], &words[..held], "seed {seed}");
        assert!(back[held..].iter().all(|&w| w == 0), "{back:08x?}");
    }
}

#[test]
fn scratch_register_reads_back_and_bursts_split() {
    let seed = stream::seed("scratch_register_reads_back_and_bursts_split");
    let mut rng = stream::rng(seed);
    let mut b = board("board_scratch");
    for _ in 0..8 {
        let v: u32 = rng.gen();
        b.bus.write(regs::SCRATCH, &[v]).unwrap();
        assert_eq!(b.bus.read1(regs::SCRATCH).unwrap(), v);
    }
    // More words than one frame carries: the driver splits the burst. The RSS data words are
    // plain read/write registers, so they read back.
    let words: Vec<u32> = (0..9).map(|_| rng.gen()).collect();
    b.bus.write(regs::R_DATA, &words).unwrap();
    let mut back = vec![0u32; 9];
    b.bus.read(regs::R_DATA, &mut back).unwrap();
    assert_eq!(back, words);
    let mut key = vec![0u32; 0x20 + 9];
    b.bus.read(regs::R_KEY, &mut key).unwrap(); // 41 words: three frames, across unmapped space
    assert_eq!(&key[0x20..], &words[..]);
    assert!(key[10..0x20].iter().all(|&w| w == 0), "unmapped reads 0");
}

fn random_request(rng: &mut impl Rng) -> Request {
    let qpn = |rng: &mut dyn rand::RngCore| match rng.gen_range(0..4) {
        0 => 0,
        1 => bridge::MAX_QPN,
        _ => rng.gen_range(0..=bridge::MAX_QPN),
    };
    let fl = match rng.gen_range(0..3) {
        0 => 0,
        _ => rng.gen(),
    };
    if rng.gen() {
        Request::Qp {
            lqpn: qpn(rng),
            rqpn: qpn(rng),
            flow_label: fl,
            qp_type: if rng.gen() { QpType::Ud } else { QpType::Rc },
        }
    } else {
        Request::Cm {
            src_port: rng.gen(),
            dst_port: rng.gen(),
            flowinfo: fl,
            lqpn: qpn(rng),
            rqpn: qpn(rng),
        }
    }
}

#[test]
fn entropy_over_the_uart_matches_the_model() {
    let seed = stream::seed("entropy_over_the_uart_matches_the_model");
    entropy_matches_the_model(&mut board("board_entropy"), seed);
}

#[test]
fn icebreaker_entropy_over_the_uart_matches_the_model() {
    let seed = stream::seed("icebreaker_entropy_over_the_uart_matches_the_model");
    entropy_matches_the_model(&mut icebreaker("board_ice_entropy"), seed);
}

fn entropy_matches_the_model<D: RocenicCorePorts>(b: &mut Board<SimLink<D>>, seed: u64) {
    let mut rng = stream::rng(seed);
    for i in 0..160 {
        let profile = Profile::ALL[i % 4];
        let req = random_request(&mut rng);
        let got = b.entropy(profile, &req).unwrap();
        assert_eq!(
            got,
            profile.compute(&req),
            "request {i}: {profile} {req:?} (seed {seed})"
        );
    }
    // Wider QPNs are refused before anything is sent.
    let wide = Request::Qp {
        lqpn: 0x0100_0000,
        rqpn: 1,
        flow_label: 0,
        qp_type: QpType::Rc,
    };
    assert!(matches!(
        b.entropy(Profile::Linux, &wide),
        Err(Error::QpnTooWide(0x0100_0000))
    ));
}

#[test]
fn rss_over_the_uart_matches_the_model() {
    let seed = stream::seed("rss_over_the_uart_matches_the_model");
    rss_matches_the_model(&mut board("board_rss"), 36, seed);
}

#[test]
fn icebreaker_rss_over_the_uart_matches_the_model() {
    let seed = stream::seed("icebreaker_rss_over_the_uart_matches_the_model");
    rss_matches_the_model(&mut icebreaker("board_ice_rss"), 12, seed);
}

/// The published IPv4 hashes (with ports when the board takes 12 bytes), random inputs of every
/// length the board takes under two keys, Toeplitz and XOR, and the length limits.
fn rss_matches_the_model<D: RocenicCorePorts>(b: &mut Board<SimLink<D>>, max: usize, seed: u64) {
    let mut rng = stream::rng(seed);
    // The board's key is the Microsoft key's first max + 4 bytes: the bytes any input of up to
    // max bytes reaches.
    let mut key = MICROSOFT_KEY[..max + 4].to_vec();
    b.rss_key(&key).unwrap();
    for v in &rocenic_model::toeplitz::VERIFICATION_IPV4 {
        let mut input = v.src.to_vec();
        input.extend_from_slice(&v.dst);
        assert_eq!(b.rss_hash(&input, false).unwrap(), v.hash_l3);
        input.extend_from_slice(&v.src_port.to_be_bytes());
        input.extend_from_slice(&v.dst_port.to_be_bytes());
        assert_eq!(b.rss_hash(&input, false).unwrap(), v.hash_l3l4);
    }
    for i in 0..40 {
        if i == 20 {
            key = (0..max + 4).map(|_| rng.gen()).collect();
            b.rss_key(&key).unwrap();
        }
        let len = match i % 4 {
            0 => max,
            1 => 0,
            _ => rng.gen_range(0..=max),
        };
        let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let xor = rng.gen_range(0..4) == 0;
        let want = if xor {
            hash_xor(&data)
        } else {
            hash_bitserial(&key, &data).unwrap()
        };
        assert_eq!(
            b.rss_hash(&data, xor).unwrap(),
            want,
            "hash {i}: {data:02x?} (seed {seed})"
        );
    }
    // One byte too many, and keys that are not exactly max + 4 bytes, are refused before
    // anything is sent.
    assert!(matches!(
        b.rss_hash(&vec![0; max + 1], false),
        Err(Error::Length { max: m, .. }) if m == max
    ));
    for len in [max + 3, max + 5, 52] {
        assert!(matches!(
            b.rss_key(&vec![0x6d; len]),
            Err(Error::Length { len: l, max: m, .. }) if l == len && m == max + 4
        ));
    }
    // The key in the board is still the last good one.
    let data: Vec<u8> = (0..max).map(|_| rng.gen()).collect();
    assert_eq!(
        b.rss_hash(&data, false).unwrap(),
        hash_bitserial(&key, &data).unwrap()
    );
}

/// A raw request frame with a correct CRC (any op, any count, any payload).
fn raw_frame(op: u8, addr: u16, count: u8, payload: &[u8]) -> Vec<u8> {
    let [hi, lo] = addr.to_be_bytes();
    let mut f = vec![bridge::REQUEST_START, op, hi, lo, count];
    f.extend_from_slice(payload);
    let crc = bridge::crc16(&f[1..]);
    f.extend_from_slice(&crc.to_be_bytes());
    f
}

fn status_of(reply: &[u8]) -> Status {
    assert_eq!(reply[0], bridge::REPLY_START);
    assert_eq!(reply.len(), 5, "error replies carry no data: {reply:02x?}");
    assert_eq!(reply[2], 0, "error replies have count 0");
    assert_eq!(
        u16::from_be_bytes([reply[3], reply[4]]),
        bridge::crc16(&reply[1..3])
    );
    Status::from_byte(reply[1])
}

#[test]
fn bad_frames_get_error_replies_and_change_nothing() {
    let mut bus = RegisterBus::new(SimLink::new("board_errors"));
    bus.write(regs::SCRATCH, &[0x1234_5678]).unwrap();

    // A write whose CRC is damaged: bad CRC, and the register keeps its value.
    let mut f = [0u8; MAX_FRAME];
    let n = bridge::encode_write(regs::SCRATCH, &[0xDEAD_BEEF], &mut f).unwrap();
    f[n - 1] ^= 0x01;
    assert_eq!(
        status_of(&bus.raw(Op::Write, &f[..n]).unwrap()),
        Status::BadCrc
    );
    // A damaged data byte is caught the same way.
    f[n - 1] ^= 0x01;
    f[6] ^= 0x80;
    assert_eq!(
        status_of(&bus.raw(Op::Write, &f[..n]).unwrap()),
        Status::BadCrc
    );
    assert_eq!(bus.read1(regs::SCRATCH).unwrap(), 0x1234_5678);

    // Unknown operation, count 0, count above the maximum (its data is still consumed).
    assert_eq!(
        status_of(&bus.raw(Op::Read, &raw_frame(0x07, 0, 1, &[])).unwrap()),
        Status::BadOp
    );
    assert_eq!(
        status_of(&bus.raw(Op::Read, &raw_frame(0x01, 0, 0, &[])).unwrap()),
        Status::BadCount
    );
    let big = [0x55u8; 4 * (MAX_WORDS + 1)];
    let frame = raw_frame(0x02, regs::SCRATCH, (MAX_WORDS + 1) as u8, &big);
    assert_eq!(
        status_of(&bus.raw(Op::Write, &frame).unwrap()),
        Status::BadCount
    );
    assert_eq!(bus.read1(regs::SCRATCH).unwrap(), 0x1234_5678);

    // A frame cut short: the bridge times out and says so instead of waiting forever.
    let n = bridge::encode_write(regs::SCRATCH, &[0xDEAD_BEEF], &mut f).unwrap();
    bus.link_mut().send(&f[..n - 3]).unwrap();
    let reply: Vec<u8> = (0..5).map(|_| bus.link_mut().recv().unwrap()).collect();
    assert_eq!(status_of(&reply), Status::Timeout);
    assert_eq!(bus.read1(regs::SCRATCH).unwrap(), 0x1234_5678);

    // Noise before a frame is skipped; a byte with a framing error is dropped like noise.
    bus.link_mut().send(&[0x00, 0xFF, 0x5A, 0x13]).unwrap();
    bus.link_mut().send_byte(0x42, false).unwrap();
    bus.link_mut().drive(true, 2).unwrap();
    bus.write(regs::SCRATCH, &[0xCAFE_F00D]).unwrap();
    assert_eq!(bus.read1(regs::SCRATCH).unwrap(), 0xCAFE_F00D);

    // The decoder's own checks: a damaged reply is reported, not accepted.
    let mut reply = [bridge::REPLY_START, 0, 1, 1, 2, 3, 4, 0, 0];
    let crc = bridge::crc16(&reply[1..7]);
    reply[7..].copy_from_slice(&crc.to_be_bytes());
    reply[3] ^= 1;
    assert!(matches!(
        bridge::decode_reply(Op::Read, &reply, &mut [0]),
        Err(FrameError::Crc { .. })
    ));
}

#[test]
fn a_silent_line_mid_frame_times_out_within_the_limit() {
    let mut link = SimLink::new("board_timeout");
    link.send(&[bridge::REQUEST_START, 0x01]).unwrap();
    let start = link.sim.cycle();
    let reply: Vec<u8> = (0..5).map(|_| link.recv().unwrap()).collect();
    assert_eq!(status_of(&reply), Status::Timeout);
    let took = link.sim.cycle() - start;
    // The timeout itself plus the five reply bytes (10 bits of 8 clocks each, and a clock or
    // two between bytes).
    assert!(
        (IDLE_TIMEOUT..IDLE_TIMEOUT + 5 * 82 + 20).contains(&took),
        "reply after {took} clocks"
    );
    assert_eq!(link.pending(), 0);
}
