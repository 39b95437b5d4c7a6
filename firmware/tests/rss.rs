//! The RSS pipeline's control against a recording fake: contexts written through the bank the
//! context does not use, then committed; keys, tables and rules checked before any write.

mod fake;

use fake::{writes, Access, FakeBus};
use rocenic_firmware::rss::{key_min_len, Caps, ContextConfig, HASH_FIELDS, SYMMETRIC_KEY};
use rocenic_firmware::{Error, RssPipeline};
use rocenic_model::rss::regs::{self, caps, ContextRegs, KEY_BYTES};
use rocenic_model::rss::SteeringKey;
use rocenic_model::rss::{Action, Context, FlowTuple, Function, HashFields, IpPair, Rule, L4};
use rocenic_model::toeplitz::{symmetric_key, MICROSOFT_KEY};

fn fake(queue_w: u32) -> FakeBus {
    let caps = caps::RULES.put(16)
        | caps::CONTEXTS.put(4)
        | caps::TABLE_LOG2.put(12)
        | caps::QUEUE_W.put(queue_w);
    FakeBus::new(regs::ID_VALUE, caps)
}

fn pipeline(queue_w: u32) -> RssPipeline<FakeBus> {
    let mut p = RssPipeline::open(fake(queue_w)).unwrap();
    p.bus_mut().take();
    p
}

fn toeplitz(key: &[u8]) -> ContextConfig<'_> {
    ContextConfig {
        function: Function::Toeplitz,
        fields: HashFields::DEFAULT,
        key,
    }
}

fn key52(key: &[u8]) -> [u8; KEY_BYTES] {
    let mut k = [0; KEY_BYTES];
    k[..key.len()].copy_from_slice(key);
    k
}

/// A table write: TABLE_SELECT, then one TABLE_DATA per entry.
fn table(context: u8, bank: u8, entries: &[u16]) -> Vec<Access> {
    let mut w = writes(&[regs::table_select(context, bank, 0)]);
    w.extend(
        entries
            .iter()
            .map(|&q| Access::Write(regs::TABLE_DATA, q.into())),
    );
    w
}

/// A staged context and its commit, with the STATUS read that found it applied.
fn commit(index: u8, ctx: &ContextRegs) -> Vec<Access> {
    let mut w = writes(&regs::context_writes(ctx));
    let (a, v) = regs::commit_context(index);
    w.push(Access::Write(a, v));
    w.push(Access::Read(regs::STATUS, 0));
    w
}

#[test]
fn open_checks_the_block() {
    let mut wrong = fake(16);
    wrong.values.insert(regs::ID, 0x5751_4531);
    assert!(matches!(
        RssPipeline::<_, 4>::open(&mut wrong),
        Err(Error::NotThisBlock {
            found: 0x5751_4531,
            ..
        })
    ));
    let p = RssPipeline::<_, 2>::open(fake(16)).unwrap();
    assert_eq!(
        p.caps(),
        Caps {
            rules: 16,
            contexts: 4,
            table_log2: 12,
            queue_w: 16
        }
    );
    assert_eq!(p.contexts(), 2);
    assert_eq!(Caps::from_word(0).contexts, 256, "256 contexts read as 0");
    assert_eq!(p.bus().log.len(), 2);
    // Out of reset every context is bank 0: the first table goes to bank 1.
    assert_eq!(p.context(1).unwrap().bank, 0);
    assert_eq!(p.context(2), None);
}

/// The bank switch: each table goes to the bank not in use and the commit moves the context
/// there; a hash change keeps the table and its bank.
#[test]
fn contexts_switch_banks() {
    let mut p = pipeline(16);
    let t1: Vec<u16> = (0..8).map(|i| i % 3).collect();
    p.set_context(2, &toeplitz(&MICROSOFT_KEY), &t1).unwrap();
    let c1 = ContextRegs {
        function: Function::Toeplitz,
        fields: HashFields::DEFAULT,
        key: key52(&MICROSOFT_KEY),
        table_log2: 3,
        bank: 1,
    };
    let mut want = table(2, 1, &t1);
    want.extend(commit(2, &c1));
    assert_eq!(p.bus_mut().take(), want);
    assert_eq!(p.context(2), Some(&c1));

    let t2 = [7u16, 6];
    p.set_table(2, &t2).unwrap();
    let c2 = ContextRegs {
        table_log2: 1,
        bank: 0,
        ..c1
    };
    let mut want = table(2, 0, &t2);
    want.extend(commit(2, &c2));
    assert_eq!(p.bus_mut().take(), want);

    let sym = ContextConfig {
        function: Function::Toeplitz,
        fields: HashFields::DEFAULT | HashFields::BTH_DEST_QPN,
        key: &SYMMETRIC_KEY,
    };
    p.set_hash(2, &sym).unwrap();
    let c3 = ContextRegs {
        fields: sym.fields,
        key: SYMMETRIC_KEY,
        ..c2
    };
    assert_eq!(p.bus_mut().take(), commit(2, &c3));
    p.set_table(2, &t1).unwrap();
    assert_eq!(p.context(2).unwrap().bank, 1);
    // A one-entry table and a 2^12 one are the ends.
    p.set_table(0, &[5]).unwrap();
    p.set_table(0, &vec![1; 4096]).unwrap();
    assert_eq!(p.context(0).unwrap().table_log2, 12);
}

/// A commit is polled until BUSY clears, and a bounded number of times.
#[test]
fn commits_wait_for_busy() {
    let mut p = pipeline(16);
    p.bus_mut().queue(regs::STATUS, &[1, 1, 0]);
    p.disable_rule(3).unwrap();
    let mut want = writes(&regs::rule_writes(&Rule::default()));
    want.push(Access::Write(regs::COMMIT, 3));
    want.extend([1, 1, 0].map(|v| Access::Read(regs::STATUS, v)));
    assert_eq!(p.bus_mut().take(), want);
    p.set_poll_limit(4);
    p.bus_mut().values.insert(regs::STATUS, 1);
    assert_eq!(
        p.set_table(0, &[1]),
        Err(Error::Timeout {
            addr: regs::STATUS,
            polls: 4,
            last: 1
        })
    );
    // The shadow keeps what the block has: the commit did not finish.
    assert_eq!(p.context(0).unwrap().bank, 0);
}

#[test]
fn rules() {
    let mut p = pipeline(4);
    let rule = Rule {
        enabled: true,
        value: SteeringKey {
            dst_port: 4791,
            qpn: 0xAB_CDEF,
            ..SteeringKey::default()
        },
        mask: SteeringKey {
            dst_port: 0xFFFF,
            qpn: 0xFF_FFFF,
            ..SteeringKey::default()
        },
        action: Action::Queue(15),
    };
    p.set_rule(15, &rule).unwrap();
    let mut want = writes(&regs::rule_writes(&rule));
    want.push(Access::Write(regs::COMMIT, 15));
    want.push(Access::Read(regs::STATUS, 0));
    assert_eq!(p.bus_mut().take(), want);

    let wide = |f: fn(&mut Rule)| {
        let mut r = rule;
        f(&mut r);
        r
    };
    let cases = [
        (
            16,
            rule,
            Error::RuleIndex {
                index: 16,
                rules: 16,
            },
        ),
        (
            0,
            wide(|r| r.value.qpn = 1 << 24),
            Error::QpnTooWide(1 << 24),
        ),
        (
            0,
            wide(|r| r.mask.qpn = u32::MAX),
            Error::QpnTooWide(u32::MAX),
        ),
        (
            0,
            wide(|r| r.action = Action::Queue(16)),
            Error::QueueTooWide {
                queue: 16,
                width: 4,
            },
        ),
        (
            0,
            wide(|r| r.action = Action::Context(4)),
            Error::ContextIndex {
                index: 4,
                contexts: 4,
            },
        ),
    ];
    for (index, r, err) in cases {
        assert_eq!(p.set_rule(index, &r), Err(err));
    }
    assert!(p.bus().log.is_empty());
    p.set_rule(0, &wide(|r| r.action = Action::Context(3)))
        .unwrap();
}

#[test]
fn bad_contexts_are_refused_before_any_write() {
    let mut p = pipeline(4);
    let t = [0u16; 4];
    let key40 = toeplitz(&MICROSOFT_KEY);
    let with = |fields: u32, key: &'static [u8]| ContextConfig {
        function: Function::Toeplitz,
        fields: HashFields(fields),
        key,
    };
    static KEY53: [u8; 53] = [1; 53];
    let cases: Vec<(usize, ContextConfig<'_>, Vec<u16>, Error)> = vec![
        (
            4,
            key40,
            t.to_vec(),
            Error::ContextIndex {
                index: 4,
                contexts: 4,
            },
        ),
        (
            0,
            with(0xFF | 1 << 8, &MICROSOFT_KEY),
            t.to_vec(),
            Error::HashFields(1 << 8),
        ),
        // IPv6, ports and the BTH QPN take 39 bytes: a 40-byte key does not cover them.
        (
            0,
            with(HASH_FIELDS, &MICROSOFT_KEY),
            t.to_vec(),
            Error::KeyLength {
                len: 40,
                min: 43,
                max: 52,
            },
        ),
        (
            0,
            with(0, &KEY53),
            t.to_vec(),
            Error::KeyLength {
                len: 53,
                min: 4,
                max: 52,
            },
        ),
        (
            0,
            with(0, &[]),
            t.to_vec(),
            Error::KeyLength {
                len: 0,
                min: 4,
                max: 52,
            },
        ),
        (0, key40, vec![], Error::TableSize(0)),
        (0, key40, vec![0; 3], Error::TableSize(3)),
        (
            0,
            key40,
            vec![0; 8192],
            Error::TableTooLarge {
                len: 8192,
                max: 4096,
            },
        ),
        (
            0,
            key40,
            vec![0, 1, 16, 2],
            Error::QueueTooWide {
                queue: 16,
                width: 4,
            },
        ),
    ];
    for (i, cfg, table, err) in cases {
        assert_eq!(p.set_context(i, &cfg, &table), Err(err), "{cfg:?}");
    }
    assert_eq!(p.set_table(0, &[0; 6]), Err(Error::TableSize(6)));
    assert_eq!(
        p.set_hash(5, &key40),
        Err(Error::ContextIndex {
            index: 5,
            contexts: 4
        })
    );
    assert!(p.bus().log.is_empty());
    // XOR needs no key.
    let xor = ContextConfig {
        function: Function::Xor,
        fields: HashFields(HASH_FIELDS),
        key: &[],
    };
    p.set_context(0, &xor, &t).unwrap();
    assert_eq!(p.context(0).unwrap().key, [0; KEY_BYTES]);
}

#[test]
fn key_lengths_follow_the_fields() {
    assert_eq!(key_min_len(HashFields::NONE), 4);
    assert_eq!(key_min_len(HashFields::DEFAULT), 40);
    assert_eq!(key_min_len(HashFields(HASH_FIELDS)), 43);
    let v4_tcp = HashFields::SRC_IPV4
        | HashFields::DST_IPV4
        | HashFields::SRC_PORT_TCP
        | HashFields::DST_PORT_TCP;
    assert_eq!(key_min_len(v4_tcp), 16);
    assert_eq!(
        key_min_len(HashFields::DST_PORT_UDP | HashFields::BTH_DEST_QPN),
        9
    );
    // The model hashes every input of every field set with a key of exactly that length, and
    // some input needs every byte of it. Each shape carries a BTH (RoCEv2, or IPoIB's inner
    // packet for TCP).
    let v6 = IpPair::V6 {
        src: [1; 16],
        dst: [2; 16],
    };
    let v4 = IpPair::V4 {
        src: [1; 4],
        dst: [2; 4],
    };
    let shapes: Vec<FlowTuple> = [v4, v6]
        .into_iter()
        .flat_map(|ip| {
            [L4::Tcp, L4::Udp].map(|l4| FlowTuple {
                ip,
                l4,
                src_port: 3,
                dst_port: 4,
                fragment: false,
                bth_dest_qpn: Some(5),
            })
        })
        .collect();
    for bits in 0..=HASH_FIELDS {
        if bits & !HASH_FIELDS != 0 {
            continue;
        }
        let fields = HashFields(bits);
        let n = key_min_len(fields);
        let fits = |len: usize| {
            let ctx = Context::new(Function::Toeplitz, fields, &[0x5a; 52][..len]).unwrap();
            shapes.iter().all(|t| ctx.hash(t).is_ok())
        };
        assert!(fits(n), "{bits:#x}");
        assert!(n == 4 || !fits(n - 1), "{bits:#x}");
    }
}

#[test]
fn symmetric_key_hashes_both_directions_alike() {
    assert_eq!(SYMMETRIC_KEY, symmetric_key::<KEY_BYTES>());
    let ctx = Context::new(Function::Toeplitz, HashFields(HASH_FIELDS), &SYMMETRIC_KEY).unwrap();
    let t = FlowTuple {
        ip: IpPair::V6 {
            src: [0x11; 16],
            dst: [0x22; 16],
        },
        l4: L4::Tcp,
        src_port: 1234,
        dst_port: 80,
        fragment: false,
        bth_dest_qpn: None,
    };
    assert_eq!(ctx.hash(&t), ctx.hash(&t.reversed()));
}
