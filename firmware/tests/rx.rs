//! The receive path's control plane against a recording fake: the exact register sequences
//! (the model's encoders, each command followed by its STATUS poll), every refusal made before
//! any register write, and what the firmware records when the block refuses.

mod fake;

use fake::{writes, Access, FakeBus};
use rocenic_firmware::rx::{AttachedQp, Caps};
use rocenic_firmware::{Error, RxPath};

use rocenic_model::qp::{PathMtu, Psn, QpConfig, QpKind};
use rocenic_model::rx::regs::{self, caps};
use rocenic_model::rx::{Discard, RecvRing, RxError, Target, WqConfig, WqState, WqTransition};
use rocenic_model::wqe::{CompletionRing, DoorbellError, Ring};

const IDLE: u32 = 1 << 4;
const BUSY: u32 = 1;
const CMD_ERROR: u32 = 2;

fn fake(wqs: u32, qps: u32) -> FakeBus {
    let caps = caps::WQS.put(wqs) | caps::QPS.put(qps) | caps::MAX_SGE.put(16);
    let mut f = FakeBus::new(regs::ID_VALUE, caps | caps::DATA_BYTES.put(8));
    f.values.insert(regs::STATUS, IDLE);
    f
}

fn path() -> RxPath<FakeBus, 8, 8> {
    let mut p = RxPath::open(fake(8, 8)).unwrap();
    p.bus_mut().take();
    p
}

fn command(w: (u32, u32)) -> Vec<Access> {
    vec![Access::Write(w.0, w.1), Access::Read(regs::STATUS, IDLE)]
}

fn wq(qpn: u32, log2: u32) -> WqConfig {
    WqConfig {
        qpn,
        pd: 3,
        ring: RecvRing::new(Ring::new(log2).unwrap(), 1, 0x10_0000).unwrap(),
        cq: CompletionRing::new(Ring::new(log2).unwrap(), 0).unwrap(),
        cq_base: 0x20_0000,
        raw: false,
    }
}

fn ud() -> QpConfig {
    QpConfig {
        qp_type: QpKind::Ud,
        pd: 3,
        mtu: PathMtu::Mtu1024,
        psn: Psn::new(0).unwrap(),
        dest_qpn: 0,
        q_key: 0x1111,
        av: None,
    }
}

fn psn(v: u32) -> Psn {
    Psn::new(v).unwrap()
}

#[test]
fn open_checks_the_block() {
    let mut wrong = fake(8, 8);
    wrong.values.insert(regs::ID, 0x5753_5131);
    assert!(matches!(
        RxPath::<_, 8, 8>::open(wrong),
        Err(Error::NotThisBlock {
            found: 0x5753_5131,
            ..
        })
    ));
    for (w, q, what) in [(16, 8, "work queues"), (8, 0, "receive-context slots")] {
        assert!(matches!(
            RxPath::<_, 8, 8>::open(fake(w, q)),
            Err(Error::Capacity { what: x, .. }) if x == what
        ));
    }
    let p = RxPath::<_, 8, 256>::open(fake(4, 0)).unwrap();
    assert_eq!(
        p.caps(),
        Caps {
            wqs: 4,
            qps: 256,
            max_sge: 16,
            data_bytes: 8
        }
    );
    assert!(!p.is_enabled());
}

/// Queues and contexts: the staged words, the command, one STATUS read each.
#[test]
fn sequences_are_the_encoders() {
    let mut p = path();
    let cfg = wq(0x12, 4);
    p.create_wq(2, &cfg).unwrap();
    let mut want = writes(&regs::wq_writes(&cfg));
    want.extend(command(regs::wq_write(2)));
    assert_eq!(p.bus_mut().take(), want);

    p.modify_wq(2, WqState::Ready).unwrap();
    assert_eq!(
        p.bus_mut().take(),
        command(regs::wq_modify(2, WqState::Ready))
    );

    let qp = ud();
    assert_eq!(p.attach(0x12, &qp, Target::Own(2), psn(7)), Ok(2));
    let mut want = writes(&regs::qp_writes(0x12, &qp, Target::Own(2), psn(7)));
    want.extend(command(regs::qp_attach()));
    assert_eq!(p.bus_mut().take(), want);
    assert_eq!(
        p.attached(0x12),
        Some(AttachedQp {
            qpn: 0x12,
            slot: 2,
            target: Target::Own(2)
        })
    );
    assert_eq!(p.wq(2).unwrap().contexts, 1);

    p.post_receives(2, 16).unwrap();
    p.release_completions(2, 0).unwrap();
    assert_eq!(
        p.bus_mut().take(),
        writes(&[regs::doorbell(2, 16), regs::cq_consumer(2, 0)])
    );
    p.bus_mut().values.insert(regs::CQ_PRODUCER + 8, 5);
    assert_eq!(p.cq_producer(2), Ok(5));
    p.bus_mut().take();

    p.detach(0x12).unwrap();
    let mut want = writes(&[(regs::QP_QPN, 0x12)]);
    want.extend(command(regs::qp_detach()));
    assert_eq!(p.bus_mut().take(), want);
    assert_eq!(p.wq(2).unwrap().contexts, 0);
    p.destroy_wq(2).unwrap();
    assert_eq!(p.bus_mut().take(), command(regs::wq_destroy(2)));
    assert_eq!(p.wq(2), None);

    // Counters: ACCEPTED, then each DISCARDS word.
    p.bus_mut().values.insert(regs::ACCEPTED, 9);
    p.bus_mut().values.insert(regs::discards(Discard::QKey), 4);
    let c = p.counts().unwrap();
    assert_eq!((c.accepted, c.discarded(Discard::QKey)), (9, 4));
    assert_eq!(p.bus().log.len(), 1 + Discard::ALL.len());
}

/// Every refusal of the model's rules comes before any write.
#[test]
fn refusals_come_before_any_write() {
    let mut p = path();
    p.create_wq(1, &wq(0x21, 2)).unwrap();
    p.create_wq(3, &wq(0x23, 2)).unwrap();
    p.attach(0x21, &ud(), Target::Shared(1), psn(0)).unwrap();
    p.bus_mut().take();
    let rc = QpConfig {
        qp_type: QpKind::Rc,
        ..ud()
    };
    let cases: Vec<(Result<(), Error>, RxError)> = vec![
        (p.create_wq(8, &wq(2, 2)), RxError::WqRange(8)),
        (p.create_wq(1, &wq(2, 2)), RxError::WqExists(1)),
        (p.create_wq(2, &wq(1 << 24, 2)), RxError::Qpn(1 << 24)),
        (p.modify_wq(2, WqState::Ready), RxError::NoWq(2)),
        (p.modify_wq(9, WqState::Ready), RxError::WqRange(9)),
        (
            p.modify_wq(3, WqState::Err),
            RxError::Transition(WqTransition {
                from: WqState::Reset,
                to: WqState::Err,
            }),
        ),
        (p.destroy_wq(1), RxError::InUse(1)),
        (p.destroy_wq(2), RxError::NoWq(2)),
        (p.post_receives(2, 1), RxError::NoWq(2)),
        (p.release_completions(5, 0), RxError::NoWq(5)),
        (
            p.attach(1, &ud(), Target::Rss, psn(0)).map(drop),
            RxError::Qpn(1),
        ),
        (
            p.attach(1 << 24, &ud(), Target::Rss, psn(0)).map(drop),
            RxError::Qpn(1 << 24),
        ),
        (
            p.attach(0x30, &rc, Target::Rss, psn(0)).map(drop),
            RxError::RssNotUd(0x30),
        ),
        (
            p.attach(0x30, &ud(), Target::Own(2), psn(0)).map(drop),
            RxError::NoWq(2),
        ),
        (
            p.attach(0x21, &ud(), Target::Own(3), psn(0)).map(drop),
            RxError::Attached(0x21),
        ),
        (
            p.attach(0x29, &ud(), Target::Own(3), psn(0)).map(drop),
            RxError::SlotTaken {
                qpn: 0x29,
                holder: 0x21,
            },
        ),
        (p.detach(0x29), RxError::NotAttached(0x29)),
    ];
    for (i, (got, want)) in cases.into_iter().enumerate() {
        assert_eq!(got, Err(Error::Rx(want)), "case {i}");
    }
    assert!(p.bus().log.is_empty());
    // A ring of 4: up to 4 ahead of the last doorbell; repeated and older ones pass.
    p.post_receives(1, 4).unwrap();
    p.post_receives(1, 2).unwrap();
    assert_eq!(
        p.post_receives(1, 9),
        Err(Error::Doorbell(DoorbellError::TooFarAhead {
            written: 9,
            base: 4,
            entries: 4
        }))
    );
    assert_eq!(p.wq(1).unwrap().posted, 4);
    assert_eq!(
        p.bus_mut().take(),
        writes(&[regs::doorbell(1, 4), regs::doorbell(1, 2)])
    );
}

/// A refused command changes nothing the firmware records, except a modify only ERR explains:
/// the block moved the queue there on a failed receive.
#[test]
fn block_refusals() {
    let mut p = path();
    p.bus_mut().queue(regs::STATUS, &[BUSY, CMD_ERROR]);
    let word = regs::wq_write(4).1;
    assert_eq!(
        p.create_wq(4, &wq(4, 2)),
        Err(Error::Refused { command: word })
    );
    assert_eq!(p.wq(4), None);
    p.create_wq(4, &wq(4, 2)).unwrap();
    p.modify_wq(4, WqState::Ready).unwrap();
    p.post_receives(4, 3).unwrap();
    // READY → READY refused: only ERR explains it.
    p.bus_mut().queue(regs::STATUS, &[CMD_ERROR]);
    assert!(matches!(
        p.modify_wq(4, WqState::Ready),
        Err(Error::Refused { .. })
    ));
    assert_eq!(p.wq(4).unwrap().state, WqState::Err);
    // → RESET refused: ERR does not explain it; nothing changes.
    p.bus_mut().queue(regs::STATUS, &[CMD_ERROR]);
    assert!(matches!(
        p.modify_wq(4, WqState::Reset),
        Err(Error::Refused { .. })
    ));
    assert_eq!(p.wq(4).unwrap().posted, 3);
    p.modify_wq(4, WqState::Reset).unwrap();
    assert_eq!(p.wq(4).unwrap().posted, 0);
    // An attach the send side refuses (its slot holds no QP).
    p.bus_mut().queue(regs::STATUS, &[CMD_ERROR]);
    assert!(matches!(
        p.attach(0x14, &ud(), Target::Own(4), psn(0)),
        Err(Error::Refused { .. })
    ));
    assert_eq!((p.attached(0x14), p.wq(4).unwrap().contexts), (None, 0));
    // A command that never finishes.
    p.set_poll_limit(2);
    p.bus_mut().queue(regs::STATUS, &[BUSY, BUSY]);
    assert!(matches!(
        p.destroy_wq(4),
        Err(Error::Timeout { polls: 2, .. })
    ));
}

/// The responder: `CONTROL` as the model's encoder writes it, read back; kept on through an
/// enable; settings the fields cannot hold refused before any write; a block that reads the
/// bit back as 0 (built without it) refused and left off.
#[test]
fn responder_settings() {
    use rocenic_model::rc::Reliable;
    let rel = Reliable {
        ack_every: 5,
        rnr_timer: 12,
        ..Reliable::default()
    };
    let on = regs::control(false, Some(&rel)).unwrap();
    let mut p = path();
    p.bus_mut().values.insert(regs::CONTROL, on.1);
    p.set_responder(Some(rel)).unwrap();
    assert_eq!(
        p.bus_mut().take(),
        vec![Access::Write(on.0, on.1), Access::Read(regs::CONTROL, on.1)]
    );
    assert_eq!(p.responder(), Some(rel));
    p.enable().unwrap();
    assert_eq!(
        p.bus_mut().take(),
        writes(&[regs::control(true, Some(&rel)).unwrap()])
    );

    for bad in [
        Reliable {
            ack_every: 256,
            ..rel
        },
        Reliable {
            rnr_timer: 32,
            ..rel
        },
    ] {
        assert_eq!(
            p.set_responder(Some(bad)),
            Err(Error::ResponderSettings {
                ack_every: bad.ack_every,
                rnr_timer: bad.rnr_timer
            })
        );
        assert_eq!(p.bus_mut().take(), vec![]);
        assert_eq!(p.responder(), Some(rel));
    }

    // Acknowledge frames to the requesters: the bit with the responder's settings, read back,
    // kept through an enable; a block that reads it as 0 refused and left off.
    let both = regs::control_rc(true, Some(&rel), true).unwrap();
    p.bus_mut().values.insert(regs::CONTROL, both.1);
    p.set_requester(true).unwrap();
    assert!(p.requester());
    assert_eq!(
        p.bus_mut().take(),
        vec![
            Access::Write(both.0, both.1),
            Access::Read(regs::CONTROL, both.1)
        ]
    );
    p.disable().unwrap();
    assert_eq!(
        p.bus_mut().take(),
        writes(&[regs::control_rc(false, Some(&rel), true).unwrap()])
    );
    p.bus_mut().values.insert(regs::CONTROL, 0);
    assert_eq!(p.set_requester(true), Err(Error::NoRequester));
    assert!(!p.requester());
    p.bus_mut().take();

    let mut p = path();
    p.bus_mut().values.insert(regs::CONTROL, 0);
    assert_eq!(p.set_responder(Some(rel)), Err(Error::NoResponder));
    assert_eq!(p.responder(), None);
    p.set_responder(None).unwrap();
    assert_eq!(
        p.bus_mut().take()[2..],
        writes(&[regs::control(false, None).unwrap()])
    );
}
