//! Register behaviour against the docs: ID and CAPS, staging registers reading back (only their
//! fields' bits), write-only and unmapped addresses reading 0, commands setting BUSY for
//! COMMAND_CYCLES turns and holding writes, CMD_ERROR for a refusal and cleared by the next
//! command, doorbells out of range setting the sticky DB_ERROR (write 1 to clear), counters.

use rocenic_host_driver::device::{Block, Device};
use rocenic_host_driver::model_device::{Link, ModelDevice, COMMAND_CYCLES};
use rocenic_model::qp::{PathMtu, Psn, QpConfig, QpKind};
use rocenic_model::regmap::{Access, Register};
use rocenic_model::rss::regs as rss;
use rocenic_model::rx::regs as rx;
use rocenic_model::rx::{Discard, Target};
use rocenic_model::wqe::regs as wqe;
use rocenic_model::wqe::{Ring, SendRing};

fn read(d: &mut ModelDevice, b: Block, a: u32) -> u32 {
    d.read(b, a).expect("the model answers every access")
}

fn write(d: &mut ModelDevice, b: Block, a: u32, v: u32) {
    d.write(b, a, v).expect("the model answers every access");
}

/// A UD QP's configuration: PD 1, path MTU 1024, Q_Key 0x11, first PSN `psn`.
fn ud(psn: u32) -> QpConfig {
    QpConfig {
        qp_type: QpKind::Ud,
        pd: 1,
        mtu: PathMtu::Mtu1024,
        psn: Psn::new(psn).unwrap(),
        dest_qpn: 0,
        q_key: 0x11,
        av: None,
    }
}

/// The send ring the QPs staged here name: four entries at 0x10_0000.
fn ring() -> SendRing {
    SendRing::new(Ring::new(2).unwrap(), 0, 0x10_0000).unwrap()
}

/// Stages QP `qpn` of `cfg` on [`ring`] in the WQE engine's registers, for a `QP_WRITE`.
fn stage_qp(d: &mut ModelDevice, qpn: u32, cfg: &QpConfig) {
    let ring = ring();
    for (a, v) in wqe::qp_writes(qpn, cfg, &ring, ring.addr(0)) {
        write(d, Block::Wqe, a, v);
    }
}

/// Writes `cmd` and checks `STATUS`: BUSY for the reads within COMMAND_CYCLES, then clear,
/// with CMD_ERROR as `refused`.
fn command(d: &mut ModelDevice, b: Block, (addr, cmd): (u32, u32), refused: bool) {
    let status = match b {
        Block::Wqe => wqe::STATUS,
        Block::Rx => rx::STATUS,
        Block::Rss => rss::STATUS,
    };
    write(d, b, addr, cmd);
    let s = read(d, b, status);
    assert_eq!(s & 1, 1, "{b:?} {cmd:#x}: BUSY right after the write");
    let s = read(d, b, status);
    assert_eq!(
        s & 1,
        0,
        "{b:?} {cmd:#x}: done after {COMMAND_CYCLES} turns"
    );
    if b != Block::Rss {
        assert_eq!(s >> 1 & 1, u32::from(refused), "{b:?} {cmd:#x}: CMD_ERROR");
        assert_eq!(s >> 4 & 1, 1, "{b:?}: IDLE once the command is done");
    }
}

/// Every word of `map`: staging registers read back what their fields keep, write-only ones
/// read 0, and so do the holes between registers.
fn map_reads_back(b: Block, map: &[Register], skip: &[&str]) {
    let mut d = ModelDevice::new();
    let end = map.iter().map(|r| r.offset + 4 * r.words).max().unwrap();
    for addr in (0..end.min(0x1000)).step_by(4) {
        let reg = map
            .iter()
            .find(|r| (r.offset..r.offset + 4 * r.words).contains(&addr));
        let Some(r) = reg else {
            write(&mut d, b, addr, 0xFFFF_FFFF);
            assert_eq!(read(&mut d, b, addr), 0, "{b:?} {addr:#x}: a hole reads 0");
            continue;
        };
        if skip.contains(&r.name) || r.access != Access::Rw {
            if r.access == Access::Wo && !skip.contains(&r.name) {
                write(&mut d, b, addr, 0);
                assert_eq!(read(&mut d, b, addr), 0, "{b:?} {}: write-only", r.name);
            }
            continue;
        }
        let mask = if r.fields.is_empty() {
            u32::MAX
        } else {
            r.fields.iter().fold(0, |m, f| m | f.put(f.max_value()))
        };
        // The core builds its receive path without the requester's input: that bit reads 0.
        let mask = if b == Block::Rx && addr == rx::CONTROL {
            mask & !rx::control::REQUESTER.put(1)
        } else {
            mask
        };
        for v in [0xFFFF_FFFF, 0xA5A5_5A5A, 0] {
            write(&mut d, b, addr, v);
            assert_eq!(
                read(&mut d, b, addr),
                v & mask,
                "{b:?} {} reads back",
                r.name
            );
        }
    }
}

#[test]
fn ids_and_caps() {
    let mut d = ModelDevice::new();
    assert_eq!(read(&mut d, Block::Wqe, wqe::ID), 0x5751_4531);
    assert_eq!(read(&mut d, Block::Rx, rx::ID), 0x5258_5131);
    assert_eq!(read(&mut d, Block::Rss, rss::ID), 0x5253_5331);
    // 64 QP slots, 64 regions, 16 gather entries, 8-byte beats (the RTL's defaults), TSO
    // (bit 30) and raw QPs (bit 31).
    assert_eq!(
        read(&mut d, Block::Wqe, wqe::CAPS),
        64 | 64 << 8 | 16 << 16 | 8 << 24 | 1 << 30 | 1 << 31
    );
    assert_eq!(
        read(&mut d, Block::Rx, rx::CAPS),
        64 | 64 << 8 | 63 << 16 | 8 << 24
    );
    // 16 rules, 4 contexts, 128-entry tables, 16-bit queues.
    assert_eq!(
        read(&mut d, Block::Rss, rss::CAPS),
        16 | 4 << 8 | 7 << 16 | 16 << 24
    );
    // Past every map, and in the receive path's doorbell pages' neighbours, reads are 0.
    for (b, a) in [
        (Block::Wqe, 0x2000),
        (Block::Rx, 0x1C00),
        (Block::Rss, 0x200),
    ] {
        write(&mut d, b, a, 0x1234);
        assert_eq!(read(&mut d, b, a), 0, "{b:?} {a:#x}");
    }
}

#[test]
fn staging_registers_read_back() {
    // STATUS is write-1-to-clear, CQ_LOG2 restarts the ring, CONTROL enables: tested below.
    map_reads_back(Block::Wqe, wqe::MAP, &["STATUS", "CQ_CONSUMER"]);
    map_reads_back(Block::Rx, rx::MAP, &["STATUS"]);
    // TABLE_SELECT's index advances with TABLE_DATA: below.
    map_reads_back(Block::Rss, rss::MAP, &[]);
}

#[test]
fn commands_busy_refused_and_held() {
    let mut d = ModelDevice::new();
    // A modify of an empty slot is refused; a good command clears CMD_ERROR.
    command(
        &mut d,
        Block::Wqe,
        wqe::qp_modify(3, rocenic_model::qp::QpState::Init),
        true,
    );
    let qp = ud(5);
    stage_qp(&mut d, 0x103, &qp);
    command(&mut d, Block::Wqe, wqe::qp_write(3), false);
    // Slot 64 is past the table; an OP that is none is refused.
    command(&mut d, Block::Wqe, wqe::qp_write(64), true);
    command(&mut d, Block::Wqe, (wqe::COMMAND, 7), true);
    for s in [
        rocenic_model::qp::QpState::Init,
        rocenic_model::qp::QpState::Rtr,
    ] {
        command(&mut d, Block::Wqe, wqe::qp_modify(3, s), false);
    }
    // INIT again from RTR is illegal.
    command(
        &mut d,
        Block::Wqe,
        wqe::qp_modify(3, rocenic_model::qp::QpState::Init),
        true,
    );
    // A write while a command waits is held until it is done.
    write(
        &mut d,
        Block::Wqe,
        wqe::COMMAND,
        wqe::qp_modify(3, rocenic_model::qp::QpState::Rts).1,
    );
    let before = d.cycle();
    write(&mut d, Block::Wqe, wqe::QP_PD, 9);
    assert!(d.cycle() - before >= COMMAND_CYCLES, "the write waited");
    assert_eq!(read(&mut d, Block::Wqe, wqe::STATUS) & 3, 0);
    assert_eq!(
        d.nic().send.qps.get(0x103).map(|q| q.state()),
        Some(rocenic_model::qp::QpState::Rts)
    );

    // Receive path: a work queue, its modifies, an attach.
    let wq = rocenic_model::rx::WqConfig {
        qpn: 0x103,
        pd: 1,
        ring: SendRing::new(Ring::new(1).unwrap(), 0, 0x20_0000).unwrap(),
        cq: rocenic_model::wqe::CompletionRing::new(Ring::new(1).unwrap(), 0).unwrap(),
        cq_base: 0x30_0000,
        raw: false,
    };
    command(
        &mut d,
        Block::Rx,
        rx::wq_modify(0, rocenic_model::rx::WqState::Ready),
        true,
    );
    for (a, v) in rx::wq_writes(&wq) {
        write(&mut d, Block::Rx, a, v);
    }
    command(&mut d, Block::Rx, rx::wq_write(0), false);
    command(&mut d, Block::Rx, rx::wq_write(0), true);
    command(&mut d, Block::Rx, rx::wq_write(64), true);
    command(
        &mut d,
        Block::Rx,
        rx::wq_modify(0, rocenic_model::rx::WqState::Err),
        true,
    );
    command(
        &mut d,
        Block::Rx,
        rx::wq_modify(0, rocenic_model::rx::WqState::Ready),
        false,
    );
    // Attach: QPN 0x104's slot holds no QP; 0x103's does; again is refused.
    for (qpn, refused) in [(0x104, true), (0x103, false), (0x103, true)] {
        for (a, v) in rx::qp_writes(qpn, &qp, Target::Own(0), Psn::new(0).unwrap()) {
            write(&mut d, Block::Rx, a, v);
        }
        command(&mut d, Block::Rx, rx::qp_attach(), refused);
    }
    // A queue a QP names is not destroyed.
    command(&mut d, Block::Rx, rx::wq_destroy(0), true);
    write(&mut d, Block::Rx, rx::QP_QPN, 0x103);
    command(&mut d, Block::Rx, rx::qp_detach(), false);
    command(&mut d, Block::Rx, rx::wq_destroy(0), false);

    // RSS: a commit is BUSY, then applied.
    command(&mut d, Block::Rss, rss::commit_rule(3), false);
}

#[test]
fn doorbells_and_counters() {
    let mut d = ModelDevice::new();
    stage_qp(&mut d, 0x105, &ud(5));
    command(&mut d, Block::Wqe, wqe::qp_write(5), false);
    // Four entries: 4 ahead is taken, 5 is too far (DB_ERROR, sticky), a slot with no QP is
    // ignored; writing 1 clears it.
    let (a, _) = wqe::doorbell(5, 0);
    write(&mut d, Block::Wqe, a, 5);
    assert_eq!(read(&mut d, Block::Wqe, wqe::STATUS) >> 2 & 1, 1);
    write(&mut d, Block::Wqe, wqe::STATUS, 1 << 2);
    assert_eq!(read(&mut d, Block::Wqe, wqe::STATUS) >> 2 & 1, 0);
    write(&mut d, Block::Wqe, a, 4);
    write(&mut d, Block::Wqe, wqe::doorbell(6, 0).0, 99);
    assert_eq!(read(&mut d, Block::Wqe, wqe::STATUS) >> 2 & 1, 0);
    // A completion consumer past the producer is an error too.
    write(&mut d, Block::Wqe, wqe::CQ_CONSUMER, 1);
    assert_eq!(read(&mut d, Block::Wqe, wqe::STATUS) >> 2 & 1, 1);
    assert_eq!(read(&mut d, Block::Wqe, wqe::CQ_PRODUCER), 0);
    // CQ_LOG2 restarts the ring.
    write(&mut d, Block::Wqe, wqe::CQ_LOG2, 3);
    assert_eq!(d.nic().queues.cq().ring().entries(), 8);

    // Receive doorbells: a queue that does not exist ignores them; one too far sets DB_ERROR.
    write(&mut d, Block::Rx, rx::doorbell(7, 1).0, 1);
    assert_eq!(read(&mut d, Block::Rx, rx::STATUS) >> 2 & 1, 0);
    let wq = rocenic_model::rx::WqConfig {
        qpn: 0,
        pd: 1,
        ring: SendRing::new(Ring::new(1).unwrap(), 0, 0x20_0000).unwrap(),
        cq: rocenic_model::wqe::CompletionRing::new(Ring::new(1).unwrap(), 0).unwrap(),
        cq_base: 0x30_0000,
        raw: false,
    };
    for (a, v) in rx::wq_writes(&wq) {
        write(&mut d, Block::Rx, a, v);
    }
    command(&mut d, Block::Rx, rx::wq_write(7), false);
    write(&mut d, Block::Rx, rx::doorbell(7, 3).0, 3);
    assert_eq!(read(&mut d, Block::Rx, rx::STATUS) >> 2 & 1, 1);
    write(&mut d, Block::Rx, rx::STATUS, 1 << 2);
    write(&mut d, Block::Rx, rx::doorbell(7, 2).0, 2);
    assert_eq!(read(&mut d, Block::Rx, rx::STATUS) >> 2 & 1, 0);
    assert_eq!(d.nic().rx.wq(7).unwrap().doorbell.pending(), 2);
    assert_eq!(read(&mut d, Block::Rx, rx::CQ_PRODUCER + 4 * 7), 0);

    // Counters: a frame for no QP, while the path is disabled, waits; enabled, it is
    // discarded and counted, and the RSS pipeline counts it parsed.
    let (_a, mut b, link) = Link::pair();
    let frame = ud_frame();
    b.inject(&frame);
    b.run(4).unwrap();
    assert_eq!(b.waiting(), 1, "disabled: the frame waits at the input");
    write(&mut b, Block::Rx, rx::CONTROL, 1);
    b.run(1).unwrap();
    assert_eq!(read(&mut b, Block::Rx, rx::ACCEPTED), 0);
    assert_eq!(read(&mut b, Block::Rx, rx::discards(Discard::NoQp)), 1);
    assert_eq!(read(&mut b, Block::Rss, rss::PACKETS), 1);
    assert!(link.frames().is_empty());
    // TABLE_SELECT's index advances with each TABLE_DATA write.
    let (sa, sv) = rss::table_select(2, 1, 5);
    write(&mut b, Block::Rss, sa, sv);
    for q in [7, 8, 9] {
        write(&mut b, Block::Rss, rss::TABLE_DATA, q);
    }
    assert_eq!(
        read(&mut b, Block::Rss, rss::TABLE_SELECT),
        rss::table_select(2, 1, 8).1
    );
}

/// A UD SEND frame for QP 0x200 that nobody holds, from the model's send engine.
fn ud_frame() -> Vec<u8> {
    use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
    use rocenic_model::wqe::{
        AddressVector, CompletionRing, Fill, Flags, HostMemory, Nic, Opcode, Payload, Queues,
        SendEngine, WorkRequest, Wqe,
    };
    let nic = Nic {
        mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
        ipv4: Ipv4Address::new(10, 0, 0, 1),
        ipv6: Ipv6Address([0; 16]),
    };
    let mut e: SendEngine = SendEngine::new(nic, Default::default());
    e.qps.create(0x10, ud(0)).unwrap();
    e.qps.bring_up(0x10).unwrap();
    let ring = SendRing::new(Ring::new(0).unwrap(), 1, 0x1000).unwrap();
    let mut q: Queues = Queues::new(
        CompletionRing::new(Ring::new(0).unwrap(), 0).unwrap(),
        0x8000,
    );
    q.attach(0x10, ring, 0).unwrap();
    let mut mem = HostMemory::new();
    mem.add(0x1000, 128, Fill::Zero).unwrap();
    mem.add(0x8000, 32, Fill::Zero).unwrap();
    let wr = WorkRequest {
        opcode: Opcode::Send,
        flags: Flags::default(),
        index: 0,
        imm: 0,
        wr_id: 1,
        av: Some(AddressVector {
            dqpn: 0x200,
            qkey: 0x11,
            dgid: AddressVector::mapped([10, 0, 0, 2]),
            dmac: [2, 0, 0, 0, 0, 2],
            vlan: None,
            flow_label: 0,
            tclass: 0,
            hop_limit: 64,
        }),
        raddr: None,
        payload: Payload::Inline(b"lost"),
        tso: None,
    };
    let mut b = [0u8; 128];
    Wqe::encode(&wr, &mut b).unwrap();
    use rocenic_model::wqe::Memory;
    mem.write(0x1000, &b).unwrap();
    q.doorbell(0x10, 1).unwrap();
    let mut out = Vec::new();
    q.step(&mut e, &mut mem, &mut |f: &[u8]| out.push(f.to_vec()))
        .unwrap();
    out.pop().unwrap()
}

/// A raw packet QP's `QP_WRITE` (`RAW`, MTU code 0): taken by the model backend, a raw QP in
/// the slot; refused with `CMD_ERROR` by `without_raw()` (as an engine without raw QPs refuses
/// MTU code 0), and by any device for `RAW` with `UD` or with an MTU code, which no QP is
/// written with.
#[test]
fn raw_qps_at_the_registers() {
    let ring = ring();
    let raw = QpConfig {
        qp_type: QpKind::Raw,
        pd: 1,
        mtu: PathMtu::Mtu1024,
        psn: Psn::new(0).unwrap(),
        dest_qpn: 0,
        q_key: 0,
        av: None,
    };
    let stage = |d: &mut ModelDevice, flags: Option<u32>| {
        for (a, v) in wqe::qp_writes(0x105, &raw, &ring, ring.addr(0)) {
            let v = match (a, flags) {
                (wqe::QP_FLAGS, Some(f)) => f,
                _ => v,
            };
            write(d, Block::Wqe, a, v);
        }
    };
    let mut d = ModelDevice::new();
    assert!(d.info().raw);
    stage(&mut d, None);
    command(&mut d, Block::Wqe, wqe::qp_write(5), false);
    let q = d.nic().send.qps.get(0x105).expect("the raw QP");
    assert_eq!(q.config().qp_type, QpKind::Raw);
    let flags = wqe::qp_writes(0x105, &raw, &ring, ring.addr(0))
        .into_iter()
        .find(|(a, _)| *a == wqe::QP_FLAGS)
        .unwrap()
        .1;
    for bad in [
        flags | wqe::qp_flags::UD.put(1),
        flags | wqe::qp_flags::MTU.put(3),
    ] {
        stage(&mut d, Some(bad));
        command(&mut d, Block::Wqe, wqe::qp_write(6), true);
    }
    let mut d = ModelDevice::new().without_raw();
    assert!(!d.info().raw);
    stage(&mut d, None);
    command(&mut d, Block::Wqe, wqe::qp_write(5), true);
    assert!(d.nic().send.qps.get(0x105).is_none());
}
