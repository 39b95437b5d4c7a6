//! The register map is well formed, and the encoders place every value where the map says. (The
//! files rendered from the map are checked by `cargo xtask gen --check` and `xtask/tests/`.)

use rocenic_model::rss::regs::{self, Access, MAP};
use rocenic_model::rss::{Action, Function, HashFields, Rule, SteeringKey};

#[test]
fn map_is_ordered_and_fields_fit() {
    for pair in MAP.windows(2) {
        let end = pair[0].offset + 4 * pair[0].words;
        assert!(
            end <= pair[1].offset,
            "{} overlaps {}",
            pair[0].name,
            pair[1].name
        );
    }
    for r in MAP {
        assert_eq!(r.offset % 4, 0, "{} is not word aligned", r.name);
        let mut used = 0u64;
        for f in r.fields {
            assert!(f.lsb + f.width <= 32, "{}.{} past bit 31", r.name, f.name);
            let bits = ((1u64 << f.width) - 1) << f.lsb;
            assert_eq!(used & bits, 0, "{}.{} overlaps", r.name, f.name);
            used |= bits;
        }
    }
    assert!(MAP
        .iter()
        .any(|r| r.name == "COMMIT" && r.access == Access::Wo));
}

#[test]
fn rule_writes_place_every_field() {
    let rule = Rule {
        enabled: true,
        value: SteeringKey {
            ethertype: 0x86DD,
            l4_protocol: 17,
            src: core::array::from_fn(|i| i as u8),
            dst: core::array::from_fn(|i| 0xF0 | i as u8),
            src_port: 0x1234,
            dst_port: 4791,
            qpn: 0xAB_CDEF,
        },
        mask: SteeringKey {
            ethertype: 0xFFFF,
            l4_protocol: 0x0F,
            src: [0xFF; 16],
            dst: [0; 16],
            src_port: 0xFF00,
            dst_port: 0xFFFF,
            qpn: 0xFF_FFFF,
        },
        action: Action::Queue(0x2A),
    };
    let w = regs::rule_writes(&rule);
    let get = |addr: u32| w.iter().find(|(a, _)| *a == addr).map(|(_, v)| *v).unwrap();
    assert_eq!(get(regs::RULE_CONTROL), 1 | 2 | (0x2A << 16));
    assert_eq!(get(regs::RULE_ETHERTYPE), 0xFFFF_86DD);
    assert_eq!(get(regs::RULE_L4), 0x0F11);
    assert_eq!(get(regs::RULE_SRC_PORT), 0xFF00_1234);
    assert_eq!(get(regs::RULE_DST_PORT), 0xFFFF_12B7);
    assert_eq!(get(regs::RULE_QPN), 0xAB_CDEF);
    assert_eq!(get(regs::RULE_SRC), 0x0001_0203);
    assert_eq!(get(regs::RULE_SRC + 12), 0x0C0D_0E0F);
    assert_eq!(get(regs::RULE_DST + 4), 0xF4F5_F6F7);
    assert_eq!(get(regs::RULE_DST_MASK), 0);
    // Every write lands in a writable register of the map.
    for (a, _) in w {
        assert!(MAP
            .iter()
            .any(|r| a >= r.offset && a < r.offset + 4 * r.words && r.access == Access::Rw));
    }
}

#[test]
fn context_writes_place_every_field() {
    let ctx = regs::ContextRegs {
        function: Function::Xor,
        fields: HashFields::DEFAULT | HashFields::BTH_DEST_QPN,
        key: core::array::from_fn(|i| i as u8),
        table_log2: 12,
        bank: 1,
    };
    let w = regs::context_writes(&ctx);
    assert_eq!(w[0], (regs::CTX_CONTROL, 1 | (12 << 8) | (1 << 16)));
    assert_eq!(w[1], (regs::CTX_FIELDS, 0x10FF));
    assert_eq!(w[2], (regs::CTX_KEY, 0x0001_0203));
    assert_eq!(w[14], (regs::CTX_KEY + 48, 0x3031_3233));
    assert_eq!(regs::commit_context(3), (regs::COMMIT, 0x8000_0003));
    assert_eq!(regs::commit_rule(5), (regs::COMMIT, 5));
    assert_eq!(
        regs::table_select(2, 1, 7),
        (regs::TABLE_SELECT, 0x0102_0007)
    );
}
