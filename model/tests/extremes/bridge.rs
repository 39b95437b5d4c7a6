//! `bridge`: frames with every count, address and buffer size, replies of every shape, and the
//! entropy request encoder with QPNs past 24 bits.

use crate::{config, edge_u16, edge_u32, edge_u8, edge_usize_near};
use proptest::prelude::*;
use rocenic_model::bridge::regs::{e_ctrl, e_ports};
use rocenic_model::bridge::*;
use rocenic_model::entropy::{Profile, QpType, Request};

/// CRC-16/CCITT-FALSE one bit at a time, written from the polynomial rather than from
/// `crc16_update`.
fn crc_reference(bytes: &[u8]) -> u16 {
    let mut reg: u32 = 0xFFFF;
    for bit in bytes
        .iter()
        .flat_map(|b| (0..8).rev().map(move |i| u32::from(b >> i & 1)))
    {
        let top = (reg >> 15) & 1;
        reg = (reg << 1) & 0xFFFF;
        if top ^ bit == 1 {
            reg ^= 0x1021;
        }
    }
    reg as u16
}

fn reply(status: u8, count: u8, data: &[u32]) -> Vec<u8> {
    let mut r = vec![REPLY_START, status, count];
    for w in data {
        r.extend_from_slice(&w.to_be_bytes());
    }
    let crc = crc16(&r[1..]);
    r.extend_from_slice(&crc.to_be_bytes());
    r
}

proptest! {
    #![proptest_config(config("bridge::frames", 512))]

    /// The CRC against its bitwise definition; appending it leaves a zero remainder.
    #[test]
    fn crc_by_definition(bytes in prop::collection::vec(prop_oneof![Just(0u8), Just(0xFF), any::<u8>()], 0..80)) {
        let crc = crc16(&bytes);
        prop_assert_eq!(crc, crc_reference(&bytes));
        let mut with = bytes.clone();
        with.extend_from_slice(&crc.to_be_bytes());
        prop_assert_eq!(crc_reference(&with), 0);
    }

    /// Requests: `Count` exactly outside 1..=MAX_WORDS, `Buffer` exactly when the frame does
    /// not fit, otherwise the documented layout with a valid CRC.
    #[test]
    fn requests_at_every_size(
        addr in edge_u16(),
        count in edge_usize_near(vec![0, 1, MAX_WORDS - 1, MAX_WORDS, MAX_WORDS + 1, 255, 256]),
        out_len in edge_usize_near(vec![0, 6, 7, 8, MAX_FRAME - 1, MAX_FRAME]).prop_map(|n| n.min(MAX_FRAME + 8)),
        word in edge_u32(),
    ) {
        let mut out = vec![0u8; out_len];
        let [hi, lo] = addr.to_be_bytes();
        let in_range = (1..=MAX_WORDS).contains(&count);
        match encode_read(addr, count, &mut out) {
            Err(FrameError::Count(n)) => prop_assert!(!in_range && n == count),
            Err(FrameError::Buffer) => prop_assert!(in_range && out_len < 7),
            Err(e) => prop_assert!(false, "{e}"),
            Ok(n) => {
                prop_assert!(in_range && out_len >= 7 && n == 7);
                prop_assert_eq!(&out[..5], &[REQUEST_START, Op::Read.code(), hi, lo, count as u8]);
                prop_assert_eq!(crc_reference(&out[1..7]), 0);
            }
        }
        let words = vec![word; count.min(MAX_WORDS + 2)];
        let len = 7 + 4 * words.len();
        match encode_write(addr, &words, &mut out) {
            Err(FrameError::Count(n)) => prop_assert!(!(1..=MAX_WORDS).contains(&words.len()) && n == words.len()),
            Err(FrameError::Buffer) => prop_assert!((1..=MAX_WORDS).contains(&words.len()) && out_len < len),
            Err(e) => prop_assert!(false, "{e}"),
            Ok(n) => {
                prop_assert!(n == len && out_len >= len);
                prop_assert_eq!(&out[..5], &[REQUEST_START, Op::Write.code(), hi, lo, words.len() as u8]);
                prop_assert_eq!(&out[5..9], &word.to_be_bytes());
                prop_assert_eq!(crc_reference(&out[1..n]), 0);
            }
        }
    }

    /// Replies of any status and count, whole or cut: the length says where the CRC is, and a
    /// reply decodes exactly when it is whole, has the right CRC, status OK and the count asked.
    #[test]
    fn replies_of_every_shape(
        status in prop_oneof![edge_u8(), 0u8..=5],
        count in prop_oneof![edge_u8(), 0u8..=(MAX_WORDS as u8 + 1)],
        asked in 0usize..=MAX_WORDS + 1,
        read in any::<bool>(),
        cut in edge_usize_near(vec![0, 1, 4, 5]),
        flip in proptest::option::of(any::<prop::sample::Index>()),
        word in edge_u32(),
    ) {
        let op = if read { Op::Read } else { Op::Write };
        let has_data = status == 0 && read;
        let data = vec![word; if has_data { usize::from(count) } else { 0 }];
        let mut r = reply(status, count, &data);
        prop_assert_eq!(reply_len(op, [r[0], r[1], r[2]]), r.len());
        prop_assert_eq!(r.len(), 5 + 4 * data.len());
        // One bit of the data or the CRC (not the header, which would change the length): the
        // CRC catches every single-bit error.
        if let Some(i) = flip {
            let at = 3 + i.index(r.len() - 3);
            r[at] ^= 0x01;
        }
        let whole = r.len();
        let r = &r[..whole.saturating_sub(cut.min(whole))];
        let mut words = vec![0u32; asked];
        let got = decode_reply(op, r, &mut words);
        if r.len() < whole && flip.is_none() {
            prop_assert_eq!(got, Err(FrameError::Truncated));
        }
        let clean = r.len() == whole && flip.is_none();
        let want_ok = clean && status == 0 && usize::from(count) == asked;
        prop_assert_eq!(got.is_ok(), want_ok, "{:?}", got);
        if want_ok && read {
            prop_assert!(words.iter().all(|&w| w == word));
        }
        if clean && status != 0 {
            prop_assert_eq!(got, Err(FrameError::Status(Status::from_byte(status))));
        }
    }

    /// Entropy requests: `Err` carries the first QPN wider than 24 bits; otherwise the six
    /// words hold every field.
    #[test]
    fn entropy_request_words_check_qpns(
        lqpn in prop_oneof![edge_u32(), Just(MAX_QPN), Just(MAX_QPN + 1)],
        rqpn in prop_oneof![edge_u32(), Just(MAX_QPN), Just(MAX_QPN + 1)],
        fl in edge_u32(),
        ports in (edge_u16(), edge_u16()),
        cm in any::<bool>(),
        profile in prop::sample::select(Profile::ALL.to_vec()),
    ) {
        let req = if cm {
            Request::Cm { src_port: ports.0, dst_port: ports.1, flowinfo: fl, lqpn, rqpn }
        } else {
            Request::Qp { lqpn, rqpn, flow_label: fl, qp_type: QpType::Ud }
        };
        let got = entropy_request_words(profile, &req);
        if lqpn > MAX_QPN {
            prop_assert_eq!(got, Err(lqpn));
        } else if rqpn > MAX_QPN {
            prop_assert_eq!(got, Err(rqpn));
        } else {
            let w = got.unwrap();
            prop_assert_eq!(e_ctrl::MODE.get(w[0]), u32::from(cm));
            prop_assert_eq!(e_ctrl::PROFILE.get(w[0]), u32::from(profile.code()));
            prop_assert_eq!(e_ctrl::QP_TYPE.get(w[0]), u32::from(!cm));
            prop_assert_eq!(&w[1..4], &[lqpn, rqpn, fl]);
            let p = if cm { (u32::from(ports.0), u32::from(ports.1)) } else { (0, 0) };
            prop_assert_eq!((e_ports::SRC_PORT.get(w[4]), e_ports::DST_PORT.get(w[4])), p);
        }
    }
}

#[test]
fn status_codes_over_every_byte() {
    for b in 0..=u8::MAX {
        let s = Status::from_byte(b);
        assert_eq!(s.code(), b);
        assert_eq!(matches!(s, Status::Unknown(_)), !Status::KNOWN.contains(&s));
    }
}
