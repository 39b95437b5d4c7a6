//! `wqe`: decoders fed arbitrary bytes of any length, encoders fed values at and past their
//! field widths, rings and doorbells at the edges of the u32 index space.

use crate::{config, edge_u32, edge_u64, edge_u8, edge_usize_near};
use proptest::prelude::*;
use rocenic_model::wqe::*;

/// Bytes biased to 0x00 and 0xFF, where reserved-bit and width checks bite.
fn bytes(len: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop_oneof![Just(0u8), Just(0xFF), any::<u8>()], len)
}

proptest! {
    #![proptest_config(config("wqe::decoders", 1024))]

    /// Any 64 bytes: the control decoder either rejects them or accepts exactly what its
    /// encoder writes back byte for byte.
    #[test]
    fn control_any_block(b in bytes(BLOCK_BYTES), opcode in edge_u8(), blocks in 0u8..=20, av in 0u8..3) {
        let mut block: [u8; BLOCK_BYTES] = b.try_into().unwrap();
        block[0] = opcode % 12;
        block[2] = blocks;
        block[14] = av;
        if let Ok(c) = Control::decode(&block) {
            let mut again = [0u8; BLOCK_BYTES];
            c.encode(&mut again).unwrap();
            prop_assert_eq!(&again[..CONTROL_BYTES], &block[..CONTROL_BYTES]);
        }
    }

    /// Any bytes of any length: `Wqe::decode` never panics, and an accepted WQE's accessors
    /// stay inside its blocks.
    #[test]
    fn wqe_any_bytes(
        len in edge_usize_near(vec![0, 63, 64, 65, 127, 128, MAX_WQE_BYTES]).prop_map(|n| n.min(MAX_WQE_BYTES + 8)),
        fill in any::<u8>(),
        head in bytes(CONTROL_BYTES),
        nsge in edge_u8(),
        inline_len in prop_oneof![Just(0u16), Just(u16::MAX), 0u16..1100],
    ) {
        let mut b = vec![fill; len];
        let n = len.min(CONTROL_BYTES);
        b[..n].copy_from_slice(&head[..n]);
        if len >= CONTROL_BYTES {
            b[0] %= 4;
            b[1] &= 0x1F;
            b[3] = nsge;
            b[12..14].copy_from_slice(&inline_len.to_le_bytes());
            b[15] = 0;
            b[24..32].fill(0);
        }
        match Wqe::decode(&b) {
            Ok(w) => {
                let end = usize::from(w.control().blocks) * BLOCK_BYTES;
                prop_assert!(end <= len);
                prop_assert!(w.layout().end <= end);
                prop_assert_eq!(w.inline().len(), usize::from(w.control().inline_len));
                for i in 0..=usize::from(w.control().nsge) {
                    prop_assert_eq!(w.sge(i).is_some(), i < usize::from(w.control().nsge));
                }
                prop_assert!(w.payload_len() <= 255 * u64::from(u32::MAX));
            }
            Err(Error::Short { need, have }) => prop_assert!(need > have && have == len),
            Err(_) => {}
        }
    }

    /// Any 48 / 32 bytes: accepted address vectors and completions re-encode to the same bytes.
    #[test]
    fn av_and_cqe_any_bytes(a in bytes(AV_BYTES), c in bytes(CQE_BYTES), status in edge_u8(), op in edge_u8()) {
        let a: [u8; AV_BYTES] = a.try_into().unwrap();
        if let Ok(av) = AddressVector::decode(&a) {
            let mut again = [0u8; AV_BYTES];
            av.encode(&mut again).unwrap();
            prop_assert_eq!(again, a);
        }
        let mut c: [u8; CQE_BYTES] = c.try_into().unwrap();
        c[20] = op;
        c[21] = status;
        if let Ok(cqe) = Cqe::decode(&c) {
            let mut again = [0u8; CQE_BYTES];
            cqe.encode(&mut again).unwrap();
            prop_assert_eq!(again, c);
        }
    }

    /// Doorbell writes of any value against the rule computed in i64: stale (behind within
    /// 2^31, or not past the producer) changes nothing, up to 2^k ahead of the consumer moves
    /// the producer, further is an error that changes nothing.
    #[test]
    fn doorbell_any_value(log2 in 0u32..=16, start in edge_u32(), posted in edge_u32(), value in edge_u32(), took in edge_u32()) {
        let ring = Ring::new(log2).unwrap();
        let n = i64::from(ring.entries());
        let mut db = Doorbell::new(ring, start);
        db.write(start.wrapping_add(posted % (ring.entries() + 1))).unwrap();
        for _ in 0..(took % 4) {
            db.take();
        }
        let before = db;
        let dist = |to: u32| (i64::from(to) - i64::from(before.consumer())).rem_euclid(1 << 32);
        let ahead = dist(value);
        let have = dist(before.producer());
        let got = db.write(value);
        if ahead >= 1 << 31 || ahead <= have {
            prop_assert_eq!(got, Ok(0));
            prop_assert_eq!(db, before);
        } else if ahead > n {
            prop_assert!(got.is_err());
            prop_assert_eq!(db, before);
        } else {
            prop_assert_eq!(got.map(i64::from), Ok(ahead - have));
            prop_assert_eq!(db.producer(), value);
            prop_assert_eq!(db.consumer(), before.consumer());
        }
        prop_assert!(i64::from(db.pending()) <= n);
    }

    /// Ring sizes past 2^16 are refused; within, slots and phases match their definitions.
    #[test]
    fn ring_any_size(log2 in edge_u32(), i in edge_u32()) {
        match Ring::new(log2) {
            None => prop_assert!(log2 > Ring::MAX_LOG2),
            Some(r) => {
                prop_assert_eq!(u64::from(r.slot(i)), u64::from(i) % (1u64 << log2));
                prop_assert_eq!(r.phase(i), (u64::from(i) >> log2) % 2 == 0);
            }
        }
    }

    /// Completion rings: only even-lap starts; consumer writes of any value against the rule
    /// in i64 (consumer..=producer moves, behind changes nothing, past the producer is an error).
    #[test]
    fn completion_ring_any_value(log2 in 0u32..=16, start in edge_u32(), pushes in edge_u32(), value in edge_u32()) {
        let ring = Ring::new(log2).unwrap();
        let n = u64::from(ring.entries());
        let even = u64::from(start) % (2 * n) == 0;
        prop_assert_eq!(CompletionRing::new(ring, start).is_some(), even);
        let start = start & !((ring.entries() << 1) - 1);
        let mut cq = CompletionRing::new(ring, start).unwrap();
        for _ in 0..(u64::from(pushes) % (n + 2)).min(70) {
            cq.push();
        }
        let before = cq;
        let dist = |from: u32, to: u32| (i64::from(to) - i64::from(from)).rem_euclid(1 << 32);
        let got = cq.write_consumer(value);
        let past = dist(before.producer(), value);
        let ahead = dist(before.consumer(), value);
        if (1..1 << 31).contains(&past) {
            prop_assert!(got.is_err());
            prop_assert_eq!(cq, before);
        } else if ahead == 0 || ahead > i64::from(before.used()) {
            prop_assert_eq!(got, Ok(0));
            prop_assert_eq!(cq, before);
        } else {
            prop_assert_eq!(got.map(i64::from), Ok(ahead));
            prop_assert_eq!(cq.consumer(), value);
        }
    }

    /// Send rings at any base: refused exactly when unaligned, the stride is past 16 blocks or
    /// the ring's last byte is past 2^64 − 1 (checked in u128); every slot address in the ring.
    #[test]
    fn send_ring_any_base(log2 in 0u32..=16, s in 0u32..7, base in prop_oneof![edge_u64(), edge_u64().prop_map(|b| b & !63)], i in edge_u32()) {
        let ring = Ring::new(log2).unwrap();
        let got = SendRing::new(ring, s, base);
        let ok = s <= 4
            && base % 64 == 0
            && u128::from(base) + (u128::from(ring.entries()) << (s + 6)) <= 1u128 << 64;
        prop_assert_eq!(got.is_some(), ok);
        if let Some(r) = got {
            let want = u128::from(base) + (u128::from(i % ring.entries()) << (s + 6));
            prop_assert_eq!(u128::from(r.addr(i)), want);
        }
    }
}
