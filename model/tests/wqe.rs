//! WQE and CQE formats: the tables tile their segments (docs/wqe.md renders them), every segment
//! round-trips, every reserved bit and bad value is rejected (rings: `wqe_ring.rs`).
//!
//! Each property prints its seed; `ROCENIC_SEED=N` replays it.

use proptest::prelude::*;
use rocenic_model::wqe::layout::{SegField, SEGMENTS};
use rocenic_model::wqe::*;

#[path = "common/seeded.rs"]
mod seeded;
use seeded::config;

/// Per byte of a segment, the bits its table calls reserved.
fn reserved_mask(size: usize, table: &[SegField]) -> Vec<u8> {
    let mut m = vec![0u8; size];
    for f in table {
        for bit in 0..f.bytes * 8 {
            let significant = if f.is_reserved() {
                false
            } else if !f.subfields.is_empty() {
                f.subfields
                    .iter()
                    .any(|s| (s.lsb as usize..(s.lsb + s.width) as usize).contains(&bit))
            } else {
                bit < f.bits as usize
            };
            if !significant {
                m[f.offset + bit / 8] |= 1 << (bit % 8);
            }
        }
    }
    m
}

#[test]
fn tables_tile_their_segments() {
    for (name, size, table) in SEGMENTS {
        let mut at = 0;
        for f in *table {
            assert_eq!(f.offset, at, "{name}.{} leaves a gap or overlaps", f.name);
            assert!(f.bits as usize <= f.bytes * 8, "{name}.{}", f.name);
            if !f.is_reserved() && f.bytes.is_power_of_two() {
                assert_eq!(f.offset % f.bytes.min(8), 0, "{name}.{} unaligned", f.name);
            }
            for s in f.subfields {
                assert!(s.lsb + s.width <= f.bits, "{name}.{}.{}", f.name, s.name);
            }
            at += f.bytes;
        }
        assert_eq!(at, *size, "{name} table does not cover the segment");
        assert_eq!(size % 16, 0, "{name} is not a multiple of 16 bytes");
    }
}

fn sample_av(vlan: bool) -> AddressVector {
    AddressVector {
        dqpn: 0xAB_CDEF,
        qkey: 0x1111_2222,
        dgid: AddressVector::mapped([192, 168, 1, 2]),
        dmac: [2, 0, 0, 0, 0, 2],
        vlan: vlan.then_some(Vlan { vid: 0xFFF, pcp: 7 }),
        flow_label: 0xF_FFFF,
        tclass: 0xFF,
        hop_limit: 64,
    }
}

fn sample_cqe() -> Cqe {
    Cqe {
        wr_id: u64::MAX,
        qpn: 0xFF_FFFF,
        byte_len: u32::MAX,
        wqe_index: u32::MAX,
        opcode: Some(Opcode::SendImm),
        status: Status::GeneralErr,
        phase: true,
    }
}

/// Flipping any reserved bit of a valid segment is a `Reserved` error; flipping any other bit
/// of a data or remote-address segment decodes to a different value.
#[test]
fn every_reserved_bit_is_checked() {
    let mask = |name: &str| {
        let (_, size, table) = SEGMENTS.iter().find(|s| s.0 == name).unwrap();
        reserved_mask(*size, table)
    };
    let mut block = [0u8; BLOCK_BYTES];
    let ctrl = Control {
        opcode: Opcode::SendImm,
        flags: Flags::SIGNALED,
        blocks: 1,
        nsge: 1,
        index: 5,
        imm: 9,
        inline_len: 0,
        av: false,
        wr_id: 3,
        mss: 0,
        hdr_len: 0,
    };
    ctrl.encode(&mut block).unwrap();
    assert_eq!(Control::decode(&block), Ok(ctrl));
    let m = mask("CTRL");
    for (byte, bits) in m.iter().enumerate() {
        for bit in (0..8).filter(|b| bits >> b & 1 == 1) {
            let mut b = block;
            b[byte] ^= 1 << bit;
            assert!(
                matches!(Control::decode(&b), Err(Error::Reserved { .. })),
                "CTRL byte {byte} bit {bit}"
            );
        }
    }

    let mut seg = [0u8; AV_BYTES];
    sample_av(true).encode(&mut seg).unwrap();
    assert_eq!(AddressVector::decode(&seg), Ok(sample_av(true)));
    for (byte, bits) in mask("AV").iter().enumerate() {
        for bit in (0..8).filter(|b| bits >> b & 1 == 1) {
            let mut b = seg;
            b[byte] ^= 1 << bit;
            assert!(
                matches!(AddressVector::decode(&b), Err(Error::Reserved { .. })),
                "AV byte {byte} bit {bit}"
            );
        }
    }
    // Without AV_FLAGS.VLAN the whole tag is reserved.
    sample_av(false).encode(&mut seg).unwrap();
    for bit in 0..16 {
        let mut b = seg;
        b[30 + bit / 8] ^= 1 << (bit % 8);
        assert!(matches!(
            AddressVector::decode(&b),
            Err(Error::Reserved { field: "VLAN" })
        ));
    }

    let r = RemoteAddress {
        addr: 0x0123_4567_89AB_CDEF,
        rkey: 0xDEAD_BEEF,
    };
    let mut seg = [0u8; RADDR_BYTES];
    r.encode(&mut seg);
    let m = mask("RADDR");
    for byte in 0..RADDR_BYTES {
        for bit in 0..8 {
            let mut b = seg;
            b[byte] ^= 1 << bit;
            let got = RemoteAddress::decode(&b);
            if m[byte] >> bit & 1 == 1 {
                assert!(matches!(got, Err(Error::Reserved { .. })));
            } else {
                assert!(
                    matches!(got, Ok(x) if x != r),
                    "RADDR byte {byte} bit {bit}"
                );
            }
        }
    }
    let d = DataSegment {
        addr: 1,
        length: 2,
        lkey: 3,
    };
    let mut seg = [0u8; DATA_BYTES];
    d.encode(&mut seg);
    assert!(mask("DATA").iter().all(|&m| m == 0));
    for byte in 0..DATA_BYTES {
        for bit in 0..8 {
            let mut b = seg;
            b[byte] ^= 1 << bit;
            assert_ne!(DataSegment::decode(&b), d);
        }
    }

    let mut seg = [0u8; CQE_BYTES];
    sample_cqe().encode(&mut seg).unwrap();
    assert_eq!(Cqe::decode(&seg), Ok(sample_cqe()));
    for (byte, bits) in mask("CQE").iter().enumerate() {
        for bit in (0..8).filter(|b| bits >> b & 1 == 1) {
            let mut b = seg;
            b[byte] ^= 1 << bit;
            assert!(
                matches!(Cqe::decode(&b), Err(Error::Reserved { .. })),
                "CQE byte {byte} bit {bit}"
            );
        }
    }
}

/// The header template length the control segments of TSO WQEs carry here (IPoIB, IPv4 and
/// TCP headers).
const TSO_HDR: u16 = 44;

fn control(opcode: Opcode) -> Control {
    let tso = opcode == Opcode::Tso;
    Control {
        opcode,
        flags: Flags::default(),
        blocks: 1,
        nsge: 0,
        index: 0,
        imm: 0,
        inline_len: 0,
        av: false,
        wr_id: 0,
        mss: if tso { 1000 } else { 0 },
        hdr_len: if tso { TSO_HDR } else { 0 },
    }
}

#[test]
fn bad_control_values() {
    let mut block = [0u8; BLOCK_BYTES];
    control(Opcode::Send).encode(&mut block).unwrap();
    for op in 0..=255u8 {
        let mut b = block;
        b[0] = op;
        match Opcode::from_u8(op) {
            Some(o) if o.has_raddr() => {
                // A WRITE needs 16 more bytes, which still fit in one block.
                assert!(Control::decode(&b).is_ok());
            }
            // TSO without its header length.
            Some(Opcode::Tso) => assert_eq!(Control::decode(&b), Err(Error::TsoMismatch)),
            Some(_) => assert!(Control::decode(&b).is_ok()),
            None => assert_eq!(Control::decode(&b), Err(Error::UnknownOpcode(op))),
        }
    }
    assert_eq!(Opcode::from_u8(10), Some(Opcode::Tso));
    // MSS and HDR_LEN belong to TSO alone.
    for at in 24..28 {
        let mut b = block;
        b[at] = 1;
        assert!(
            matches!(Control::decode(&b), Err(Error::Reserved { .. })),
            "byte {at}"
        );
    }
    for blocks in 0..=255u8 {
        let mut b = block;
        b[2] = blocks;
        let ok = (1..=MAX_BLOCKS as u8).contains(&blocks);
        assert_eq!(Control::decode(&b).is_ok(), ok, "blocks {blocks}");
        if !ok {
            assert_eq!(Control::decode(&b), Err(Error::BadBlocks(blocks)));
        }
    }
    // Data segments and inline bytes up to the last block's end fit, one more does not.
    for blocks in 1..=MAX_BLOCKS as u8 {
        for av in [false, true] {
            for opcode in Opcode::ALL {
                let fixed = CONTROL_BYTES
                    + usize::from(av) * AV_BYTES
                    + usize::from(opcode.has_raddr()) * RADDR_BYTES
                    + usize::from(control(opcode).hdr_len).div_ceil(DATA_BYTES) * DATA_BYTES;
                let have = usize::from(blocks) * BLOCK_BYTES;
                if fixed > have {
                    // A UD WRITE does not fit one block even without data.
                    let c = Control {
                        blocks,
                        av,
                        ..control(opcode)
                    };
                    assert_eq!(c.layout(), Err(Error::Overflow { need: fixed, have }));
                    continue;
                }
                let room = have - fixed;
                let max_sge = room / DATA_BYTES;
                for nsge in [max_sge, max_sge + 1] {
                    let c = Control {
                        blocks,
                        av,
                        nsge: nsge as u8,
                        ..control(opcode)
                    };
                    let got = c.layout();
                    if nsge <= max_sge {
                        assert_eq!(got.unwrap().end, fixed + nsge * DATA_BYTES);
                    } else {
                        assert_eq!(
                            got,
                            Err(Error::Overflow {
                                need: fixed + nsge * DATA_BYTES,
                                have: usize::from(blocks) * BLOCK_BYTES
                            })
                        );
                    }
                }
                for len in [room, room + 1, usize::from(u16::MAX)] {
                    let c = Control {
                        blocks,
                        av,
                        flags: Flags::INLINE,
                        inline_len: len as u16,
                        ..control(opcode)
                    };
                    assert_eq!(c.layout().is_ok(), len <= room, "inline {len}");
                }
            }
        }
    }
    let c = Control {
        imm: 1,
        ..control(Opcode::Send)
    };
    assert_eq!(c.layout(), Err(Error::Reserved { field: "IMM" }));
    assert!(Control {
        imm: 1,
        ..control(Opcode::SendImm)
    }
    .layout()
    .is_ok());
    let c = Control {
        flags: Flags::INLINE,
        nsge: 1,
        ..control(Opcode::Send)
    };
    assert_eq!(c.layout(), Err(Error::InlineMismatch));
    let c = Control {
        inline_len: 1,
        ..control(Opcode::Send)
    };
    assert_eq!(c.layout(), Err(Error::InlineMismatch));
    // The encoder refuses what the decoder would.
    assert_eq!(
        Control {
            blocks: 0,
            ..control(Opcode::Send)
        }
        .encode(&mut block),
        Err(Error::BadBlocks(0))
    );
}

#[test]
fn bad_values_of_the_other_segments() {
    let mut seg = [0u8; AV_BYTES];
    for (av, field) in [
        (
            AddressVector {
                dqpn: 1 << 24,
                ..sample_av(false)
            },
            "DQPN",
        ),
        (
            AddressVector {
                flow_label: 1 << 20,
                ..sample_av(false)
            },
            "FLOW_LABEL",
        ),
        (
            AddressVector {
                vlan: Some(Vlan {
                    vid: 0x1000,
                    pcp: 0,
                }),
                ..sample_av(false)
            },
            "VLAN",
        ),
        (
            AddressVector {
                vlan: Some(Vlan { vid: 0, pcp: 8 }),
                ..sample_av(false)
            },
            "VLAN",
        ),
    ] {
        assert_eq!(av.encode(&mut seg), Err(Error::TooWide { field }));
    }
    let mut seg = [0u8; CQE_BYTES];
    let c = Cqe {
        qpn: 1 << 24,
        ..sample_cqe()
    };
    assert_eq!(c.encode(&mut seg), Err(Error::TooWide { field: "QPN" }));
    sample_cqe().encode(&mut seg).unwrap();
    for v in 0..=255u8 {
        let mut b = seg;
        b[21] = v;
        match Status::from_code(v) {
            Some(s) => assert_eq!(Cqe::decode(&b).map(|c| c.status), Ok(s)),
            None => assert_eq!(Cqe::decode(&b), Err(Error::UnknownStatus(v))),
        }
        let mut b = seg;
        b[20] = v;
        match (v, Opcode::from_u8(v)) {
            (0xFF, _) => assert_eq!(Cqe::decode(&b).map(|c| c.opcode), Ok(None)),
            (_, Some(o)) => assert_eq!(Cqe::decode(&b).map(|c| c.opcode), Ok(Some(o))),
            (_, None) => assert_eq!(Cqe::decode(&b), Err(Error::UnknownOpcode(v))),
        }
    }
    assert_eq!(
        Status::ALL.map(|s| (s.code(), s.name())),
        [
            (0, "success"),
            (1, "loc_len_err"),
            (2, "loc_qp_op_err"),
            (4, "loc_prot_err"),
            (5, "wr_flush_err"),
            (7, "bad_resp_err"),
            (9, "rem_inv_req_err"),
            (10, "rem_access_err"),
            (11, "rem_op_err"),
            (12, "retry_exc_err"),
            (13, "rnr_retry_exc_err"),
            (21, "general_err")
        ]
    );
}

#[test]
fn wqe_encoder_errors() {
    let mut out = [0u8; MAX_WQE_BYTES];
    let wr = WorkRequest {
        opcode: Opcode::RdmaWrite,
        flags: Flags::SIGNALED,
        index: 0,
        imm: 0,
        wr_id: 0,
        av: None,
        raddr: None,
        tso: None,
        payload: Payload::Gather(&[]),
    };
    assert_eq!(Wqe::encode(&wr, &mut out), Err(Error::RaddrMismatch));
    let r = Some(RemoteAddress { addr: 0, rkey: 0 });
    let send = WorkRequest {
        opcode: Opcode::Send,
        raddr: r,
        ..wr
    };
    assert_eq!(Wqe::encode(&send, &mut out), Err(Error::RaddrMismatch));
    let big = [0u8; 70_000];
    let inline = WorkRequest {
        opcode: Opcode::Send,
        raddr: None,
        payload: Payload::Inline(&big),
        ..wr
    };
    assert!(matches!(
        Wqe::encode(&inline, &mut out),
        Err(Error::Overflow { .. })
    ));
    let sges = [DataSegment::default(); 300];
    let gather = WorkRequest {
        payload: Payload::Gather(&sges),
        ..inline
    };
    assert!(matches!(
        Wqe::encode(&gather, &mut out),
        Err(Error::Overflow { .. })
    ));
    let two = WorkRequest {
        payload: Payload::Gather(&sges[..3]),
        ..inline
    };
    // Three data segments need a second block.
    assert_eq!(
        Wqe::encode(&two, &mut out[..64]),
        Err(Error::Short {
            need: 128,
            have: 64
        })
    );
    let c = Wqe::encode(&two, &mut out).unwrap();
    assert_eq!(c.blocks, 2);
    assert_eq!(
        Wqe::decode(&out[..100]).map(|w| w.control()),
        Err(Error::Short {
            need: 128,
            have: 100
        })
    );
    assert_eq!(
        Wqe::decode(&out[..10]).map(|w| w.control()),
        Err(Error::Short { need: 64, have: 10 })
    );
}

#[derive(Clone, Debug)]
struct Wr {
    opcode: Opcode,
    flags: u8,
    index: u32,
    imm: u32,
    wr_id: u64,
    av: Option<AddressVector>,
    raddr: RemoteAddress,
    sges: Vec<DataSegment>,
    inline: Option<Vec<u8>>,
    /// TSO's MSS and header template (used with the TSO opcode only).
    tso: (u16, Vec<u8>),
}

fn av_strategy() -> impl Strategy<Value = AddressVector> {
    (
        (
            0u32..1 << 24,
            any::<u32>(),
            any::<[u8; 16]>(),
            any::<[u8; 6]>(),
        ),
        prop::option::of((0u16..1 << 12, 0u8..8)),
        (0u32..1 << 20, any::<u8>(), any::<u8>()),
    )
        .prop_map(
            |((dqpn, qkey, dgid, dmac), vlan, (flow_label, tclass, hop_limit))| AddressVector {
                dqpn,
                qkey,
                dgid,
                dmac,
                vlan: vlan.map(|(vid, pcp)| Vlan { vid, pcp }),
                flow_label,
                tclass,
                hop_limit,
            },
        )
}

fn sge_strategy() -> impl Strategy<Value = DataSegment> {
    (any::<u64>(), any::<u32>(), any::<u32>()).prop_map(|(addr, length, lkey)| DataSegment {
        addr,
        length,
        lkey,
    })
}

fn wr_strategy() -> impl Strategy<Value = Wr> {
    (
        (
            prop::sample::select(Opcode::ALL.to_vec()),
            0u8..32,
            any::<u32>(),
            any::<u32>(),
            any::<u64>(),
        ),
        prop::option::of(av_strategy()),
        (any::<u64>(), any::<u32>()),
        prop::collection::vec(sge_strategy(), 0..64),
        prop::option::of(prop::collection::vec(any::<u8>(), 0..1000)),
        (any::<u16>(), prop::collection::vec(any::<u8>(), 1..200)),
    )
        .prop_map(
            |((opcode, flags, index, imm, wr_id), av, (addr, rkey), sges, inline, tso)| Wr {
                opcode,
                flags,
                index,
                imm: if opcode.has_imm() { imm } else { 0 },
                wr_id,
                av,
                raddr: RemoteAddress { addr, rkey },
                sges,
                inline,
                tso,
            },
        )
}

proptest! {
    #![proptest_config(config("wqe::round_trips", 512))]

    /// A work request lays out in the fewest blocks that hold it (or is refused exactly when
    /// it needs more than 16) and decodes to itself; every byte past the segments is zero.
    #[test]
    fn wqe_round_trip(wr in wr_strategy()) {
        let payload = match &wr.inline {
            Some(d) => Payload::Inline(d),
            None => Payload::Gather(&wr.sges),
        };
        let req = WorkRequest {
            opcode: wr.opcode,
            flags: Flags::from_bits(wr.flags).unwrap(),
            index: wr.index,
            imm: wr.imm,
            wr_id: wr.wr_id,
            av: wr.av,
            raddr: wr.opcode.has_raddr().then_some(wr.raddr),
            tso: (wr.opcode == Opcode::Tso).then_some(Tso { mss: wr.tso.0, header: &wr.tso.1 }),
            payload,
        };
        let header = if wr.opcode == Opcode::Tso { wr.tso.1.len() } else { 0 };
        let body = match &wr.inline { Some(d) => d.len(), None => wr.sges.len() * DATA_BYTES };
        let need = CONTROL_BYTES + usize::from(wr.av.is_some()) * AV_BYTES
            + usize::from(wr.opcode.has_raddr()) * RADDR_BYTES
            + header.div_ceil(DATA_BYTES) * DATA_BYTES + body;
        let mut out = vec![0xA5u8; MAX_WQE_BYTES + 64];
        let got = Wqe::encode(&req, &mut out);
        if need > MAX_WQE_BYTES {
            prop_assert!(matches!(got, Err(Error::Overflow { .. })), "expected Overflow");
            return Ok(());
        }
        let c = got.unwrap();
        let blocks = need.div_ceil(BLOCK_BYTES);
        prop_assert_eq!(usize::from(c.blocks), blocks);
        prop_assert!(out[need..blocks * BLOCK_BYTES].iter().all(|&b| b == 0));
        prop_assert!(out[blocks * BLOCK_BYTES..].iter().all(|&b| b == 0xA5));
        let w = Wqe::decode(&out).unwrap();
        prop_assert_eq!(w.control(), c);
        prop_assert_eq!(w.control().opcode, wr.opcode);
        prop_assert_eq!(w.control().index, wr.index);
        prop_assert_eq!(w.control().imm, wr.imm);
        prop_assert_eq!(w.control().wr_id, wr.wr_id);
        prop_assert_eq!(w.control().flags.contains(Flags::INLINE), wr.inline.is_some());
        prop_assert_eq!(w.control().flags.bits() & !Flags::INLINE.bits(), wr.flags & !Flags::INLINE.bits());
        prop_assert_eq!(w.av(), wr.av);
        prop_assert_eq!(w.raddr(), wr.opcode.has_raddr().then_some(wr.raddr));
        prop_assert_eq!(w.header(), &wr.tso.1[..header]);
        prop_assert_eq!(w.control().mss, if header > 0 { wr.tso.0 } else { 0 });
        match &wr.inline {
            Some(d) => {
                prop_assert_eq!(w.inline(), &d[..]);
                prop_assert_eq!(w.sge(0), None);
                prop_assert_eq!(w.payload_len(), d.len() as u64);
            }
            None => {
                prop_assert!(w.inline().is_empty());
                for (i, s) in wr.sges.iter().enumerate() {
                    prop_assert_eq!(w.sge(i), Some(*s));
                }
                prop_assert_eq!(w.sge(wr.sges.len()), None);
                prop_assert_eq!(w.payload_len(), wr.sges.iter().map(|s| u64::from(s.length)).sum::<u64>());
            }
        }
    }

    /// Address vectors, data segments and completions round-trip; an IPv4 GID maps back.
    #[test]
    fn segment_round_trips(av in av_strategy(), sge in sge_strategy(), ip in any::<[u8; 4]>(),
                           cqe in (any::<u64>(), 0u32..1 << 24, any::<u32>(), any::<u32>(),
                                   prop::option::of(prop::sample::select(Opcode::ALL.to_vec())),
                                   prop::sample::select(Status::ALL.to_vec()), any::<bool>())) {
        let mut seg = [0xFFu8; AV_BYTES];
        av.encode(&mut seg).unwrap();
        prop_assert_eq!(AddressVector::decode(&seg), Ok(av));
        let v4 = AddressVector { dgid: AddressVector::mapped(ip), ..av };
        prop_assert_eq!(v4.ipv4(), Some(ip));
        let mut seg = [0u8; DATA_BYTES];
        sge.encode(&mut seg);
        prop_assert_eq!(DataSegment::decode(&seg), sge);
        let (wr_id, qpn, byte_len, wqe_index, opcode, status, phase) = cqe;
        let c = Cqe { wr_id, qpn, byte_len, wqe_index, opcode, status, phase };
        let mut seg = [0xFFu8; CQE_BYTES];
        c.encode(&mut seg).unwrap();
        prop_assert_eq!(Cqe::decode(&seg), Ok(c));
    }
}
