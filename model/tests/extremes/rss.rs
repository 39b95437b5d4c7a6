//! `rss`: indirection tables of every size, rule lists longer than the hardware's, context
//! indexes past the end, hash inputs of every shape, and the register encoders at the limits of
//! their fields.

use crate::{config, edge_u16, edge_u32, edge_u8, edge_usize_near};
use proptest::prelude::*;
use rocenic_model::rss::regs::{self, ctx_control, ContextRegs};
use rocenic_model::rss::*;
use rocenic_model::toeplitz::{self, MICROSOFT_KEY};
use rocenic_model::wire::LinkType;

fn is_table_size(len: usize) -> bool {
    (0..=MAX_TABLE_LOG_SIZE).any(|k| len == 1 << k)
}

fn any_tuple() -> impl Strategy<Value = FlowTuple> {
    let ip = prop_oneof![
        Just(IpPair::None),
        (any::<[u8; 4]>(), any::<[u8; 4]>()).prop_map(|(src, dst)| IpPair::V4 { src, dst }),
        (any::<[u8; 16]>(), any::<[u8; 16]>()).prop_map(|(src, dst)| IpPair::V6 { src, dst }),
    ];
    let l4 = prop_oneof![Just(L4::None), Just(L4::Tcp), Just(L4::Udp)];
    (
        ip,
        l4,
        edge_u16(),
        edge_u16(),
        any::<bool>(),
        proptest::option::of(edge_u32()),
    )
        .prop_map(
            |(ip, l4, src_port, dst_port, fragment, bth_dest_qpn)| FlowTuple {
                ip,
                l4,
                src_port,
                dst_port,
                fragment,
                bth_dest_qpn,
            },
        )
}

proptest! {
    #![proptest_config(config("rss::table", 256))]

    /// Sizes: a power of two up to 2^16, and nothing else, at any `usize`.
    #[test]
    fn table_sizes(len in edge_usize_near(vec![
        0, 1, 2, 3, 0xFFFF, 0x1_0000, 0x1_0001, 0x2_0000, 1 << 31, usize::MAX / 2 + 1,
    ])) {
        prop_assert_eq!(check_table_size(len).is_ok(), is_table_size(len));
        if !is_table_size(len) {
            prop_assert_eq!(check_table_size(len), Err(TableError::BadSize(len)));
        }
    }

    /// Round-robin fill, `set` at any index and the lookup of any hash on tables up to the
    /// largest.
    #[test]
    fn table_operations(
        len in prop::sample::select(vec![0usize, 1, 2, 3, 4, 1000, 1024, 1 << 16]),
        queues in edge_u16(),
        index in edge_usize_near(vec![0, 1, 1023, 1024, 1025, 0xFFFF, 0x1_0000]),
        queue in edge_u16(),
        hash in edge_u32(),
    ) {
        let made = IndirectionTable::new(vec![0u16; len]);
        prop_assert_eq!(made.is_ok(), is_table_size(len));
        let Ok(mut t) = made else { return Ok(()) };
        if queues == 0 {
            prop_assert_eq!(t.fill_round_robin(queues), Err(TableError::NoQueues));
        } else {
            t.fill_round_robin(queues).unwrap();
            for (i, &e) in t.entries().iter().enumerate() {
                prop_assert_eq!(usize::from(e), i % usize::from(queues));
            }
        }
        if index < len {
            prop_assert_eq!(t.set(index, queue), Ok(()));
            prop_assert_eq!(t.entries()[index], queue);
        } else {
            prop_assert_eq!(t.set(index, queue), Err(TableError::IndexOutOfRange(index)));
        }
        let at = (u64::from(hash) % len as u64) as usize;
        prop_assert_eq!(t.index_for(hash), at);
        prop_assert_eq!(t.queue_for(hash), t.entries()[at]);
    }
}

proptest! {
    #![proptest_config(config("rss::steering", 128))]

    /// The one enabled rule of a list of any length is reported by its own index, past 255
    /// too, and its queue is taken.
    #[test]
    fn rule_index_is_reported_exactly(
        n in prop::sample::select(vec![1usize, 2, 255, 256, 257, 300, 600]),
        pick in prop::sample::select(vec![0usize, 1, 254, 255, 256, 257, 299, usize::MAX]),
        queue in edge_u16(),
    ) {
        let k = pick.min(n - 1);
        let mut rules = vec![Rule { enabled: false, action: Action::Queue(1), ..Rule::default() }; n];
        rules[k] = Rule { enabled: true, action: Action::Queue(queue), ..Rule::default() };
        let parsed = classify(LinkType::Ethernet, &[]);
        prop_assert_eq!(steer(&rules, &SteeringKey::of(&parsed)), Some((k, Action::Queue(queue))));
        let meta = distribute(&parsed, &rules, &[]);
        prop_assert_eq!(meta.rule, Some(k));
        prop_assert_eq!(meta.queue, queue);
    }

    /// A context index wraps over the contexts given; an empty list or a table whose length is
    /// not a power of two gives queue 0.
    #[test]
    fn context_index_wraps(c in edge_u8(), n in 0usize..=5, table_len in prop::sample::select(vec![0usize, 1, 3, 4])) {
        let context = Context::new(Function::Xor, HashFields::DEFAULT, &MICROSOFT_KEY).unwrap();
        let tables: Vec<Vec<u16>> = (0..n).map(|j| vec![100 + j as u16; table_len]).collect();
        let views: Vec<ContextView<'_>> =
            tables.iter().map(|t| ContextView { context: &context, table: t }).collect();
        let rule = Rule { enabled: true, action: Action::Context(c), ..Rule::default() };
        let meta = distribute(&classify(LinkType::Ethernet, &[]), &[rule], &views);
        let want = if n == 0 || !table_len.is_power_of_two() {
            0
        } else {
            100 + (usize::from(c) % n) as u16
        };
        prop_assert_eq!(meta.queue, want);
        prop_assert_eq!(meta.rule, Some(0));
    }

    /// Any tuple with any fields: the input fits [`MAX_HASH_INPUT`], carries the QPN's low 24
    /// bits last, and a key covers it exactly when it is long enough.
    #[test]
    fn hash_input_fits_and_keys_cover_it(t in any_tuple(), fields in edge_u32(), long in any::<bool>()) {
        let fields = HashFields(fields);
        let input = HashInput::new(&t, fields);
        let bytes = input.as_bytes();
        prop_assert!(bytes.len() <= MAX_HASH_INPUT);
        if input.hash_type.contains(HashType::BTH) {
            let qpn = t.bth_dest_qpn.unwrap();
            prop_assert_eq!(&bytes[bytes.len() - 3..], &qpn.to_be_bytes()[1..]);
        }
        let key: Vec<u8> = if long { vec![0x6D; regs::KEY_BYTES] } else { MICROSOFT_KEY.to_vec() };
        let ctx = Context::new(Function::Toeplitz, fields, &key).unwrap();
        let covered = key.len() - 4;
        match ctx.hash(&t) {
            Ok((h, ty)) => {
                prop_assert!(bytes.len() <= covered);
                prop_assert_eq!(Ok(h), toeplitz::hash_bitserial(&key, bytes));
                prop_assert_eq!(ty, input.hash_type);
            }
            Err(e) => {
                prop_assert!(bytes.len() > covered);
                prop_assert_eq!(e, toeplitz::Error::InputTooLong { input_len: bytes.len(), max: covered });
            }
        }
    }
}

fn written(w: &[regs::Write32], addr: u32) -> u32 {
    w.iter().find(|(a, _)| *a == addr).map(|&(_, v)| v).unwrap()
}

proptest! {
    #![proptest_config(config("rss::regs", 512))]

    /// The hardware uses `min(TABLE_LOG2, CAPS.TABLE_LOG2)` entries: whatever the block's
    /// capacity, the encoded context uses as many as the model's `min(table_log2, cap)`.
    /// The bank is its low bit, the fields their 13 bits, the key byte for byte.
    #[test]
    fn context_writes_keep_their_meaning(
        table_log2 in prop_oneof![edge_u8(), 0u8..=40],
        bank in edge_u8(),
        fields in edge_u32(),
        key in any::<[u8; regs::KEY_BYTES]>(),
        xor in any::<bool>(),
    ) {
        let ctx = ContextRegs {
            function: if xor { Function::Xor } else { Function::Toeplitz },
            fields: HashFields(fields),
            key,
            table_log2,
            bank,
        };
        let w = regs::context_writes(&ctx);
        let control = written(&w, regs::CTX_CONTROL);
        let encoded = ctx_control::TABLE_LOG2.get(control);
        for cap in 0..(1u32 << ctx_control::TABLE_LOG2.width) {
            prop_assert_eq!(encoded.min(cap), u32::from(table_log2).min(cap), "cap {}", cap);
        }
        prop_assert_eq!(ctx_control::BANK.get(control), u32::from(bank & 1));
        prop_assert_eq!(ctx_control::XOR.get(control), u32::from(xor));
        prop_assert_eq!(written(&w, regs::CTX_FIELDS), fields & 0x1FFF);
        for (i, word) in key.chunks(4).enumerate() {
            prop_assert_eq!(written(&w, regs::CTX_KEY + 4 * i as u32).to_be_bytes(), [word[0], word[1], word[2], word[3]]);
        }
    }

    /// Rules, table selects and commits: every field decodes back to what was given.
    #[test]
    fn rule_and_table_writes_decode_back(
        ethertype in edge_u16(), ports in (edge_u16(), edge_u16()), l4 in edge_u8(),
        qpn in edge_u32(), mask_qpn in edge_u32(), queue in edge_u16(), ctx in edge_u8(),
        to_queue in any::<bool>(), src in any::<[u8; 16]>(), index in edge_u16(), bank in edge_u8(),
    ) {
        use regs::{match16, match8, rule_control, table_select as ts};
        let mut rule = Rule {
            enabled: true,
            action: if to_queue { Action::Queue(queue) } else { Action::Context(ctx) },
            ..Rule::default()
        };
        rule.value = SteeringKey { ethertype, l4_protocol: l4, src, dst: src, src_port: ports.0, dst_port: ports.1, qpn };
        rule.mask = SteeringKey { qpn: mask_qpn, ethertype: !ethertype, ..rule.value };
        let w = regs::rule_writes(&rule);
        let control = written(&w, regs::RULE_CONTROL);
        prop_assert_eq!(rule_control::ENABLE.get(control), 1);
        prop_assert_eq!(rule_control::QUEUE.get(control), u32::from(to_queue));
        let target = if to_queue { u32::from(queue) } else { u32::from(ctx) };
        prop_assert_eq!(rule_control::TARGET.get(control), target);
        let et = written(&w, regs::RULE_ETHERTYPE);
        prop_assert_eq!((match16::VALUE.get(et), match16::MASK.get(et)), (u32::from(ethertype), u32::from(!ethertype)));
        let l = written(&w, regs::RULE_L4);
        prop_assert_eq!((match8::VALUE.get(l), match8::MASK.get(l)), (u32::from(l4), u32::from(l4)));
        prop_assert_eq!(match16::VALUE.get(written(&w, regs::RULE_SRC_PORT)), u32::from(ports.0));
        prop_assert_eq!(match16::VALUE.get(written(&w, regs::RULE_DST_PORT)), u32::from(ports.1));
        prop_assert_eq!(written(&w, regs::RULE_QPN), qpn & 0xFF_FFFF);
        prop_assert_eq!(written(&w, regs::RULE_QPN_MASK), mask_qpn & 0xFF_FFFF);
        prop_assert_eq!(written(&w, regs::RULE_DST + 12).to_be_bytes(), [src[12], src[13], src[14], src[15]]);

        let (a, sel) = regs::table_select(ctx, bank, index);
        prop_assert_eq!(a, regs::TABLE_SELECT);
        prop_assert_eq!(
            (ts::INDEX.get(sel), ts::CONTEXT.get(sel), ts::BANK.get(sel)),
            (u32::from(index), u32::from(ctx), u32::from(bank & 1))
        );
        prop_assert_eq!(regs::commit_rule(ctx), (regs::COMMIT, u32::from(ctx)));
        prop_assert_eq!(regs::commit_context(ctx), (regs::COMMIT, u32::from(ctx) | 1 << 31));
    }
}
