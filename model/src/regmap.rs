//! Register maps as data: registers, their fields and access, in a form that the encoders use
//! directly and that `cargo xtask gen` renders into SystemVerilog packages and Markdown tables
//! (`xtask/`). Each map is a `const` slice of [`Register`], in address order.

/// Register access from software.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read only.
    Ro,
    /// Read and write.
    Rw,
    /// Write only; reads return 0.
    Wo,
}

/// A bit field of a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Upper-case name.
    pub name: &'static str,
    /// Least significant bit.
    pub lsb: u32,
    /// Width in bits.
    pub width: u32,
    /// What it means.
    pub doc: &'static str,
}

impl Field {
    /// `value` placed in this field: bits past the width are dropped, and so are bits of a
    /// field that reaches past bit 31 (a field at `lsb` ≥ 32 puts nothing).
    pub const fn put(&self, value: u32) -> u32 {
        match (value & self.mask()).checked_shl(self.lsb) {
            Some(v) => v,
            None => 0,
        }
    }

    /// This field of `word`; bits of the field past bit 31 read 0.
    pub const fn get(&self, word: u32) -> u32 {
        match word.checked_shr(self.lsb) {
            Some(v) => v & self.mask(),
            None => 0,
        }
    }

    /// The largest value the field holds (`u32::MAX` for a width of 32 or more).
    pub const fn max_value(&self) -> u32 {
        self.mask()
    }

    const fn mask(&self) -> u32 {
        if self.width >= 32 {
            u32::MAX
        } else {
            (1 << self.width) - 1
        }
    }
}

/// A register, or an array of `words` consecutive 32-bit registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Register {
    /// Upper-case name.
    pub name: &'static str,
    /// Address in the map's unit: a byte offset on AXI4-Lite (RSS), a word address on the UART
    /// bridge's bus (the board core).
    pub offset: u32,
    /// Consecutive 32-bit words (1 for a plain register).
    pub words: u32,
    /// Software access.
    pub access: Access,
    /// What it is for.
    pub doc: &'static str,
    /// Its fields (empty when the whole word is one value).
    pub fields: &'static [Field],
}

/// A [`Field`].
pub const fn field(name: &'static str, lsb: u32, width: u32, doc: &'static str) -> Field {
    Field {
        name,
        lsb,
        width,
        doc,
    }
}

/// A [`Register`].
pub const fn reg(
    offset: u32,
    name: &'static str,
    words: u32,
    access: Access,
    doc: &'static str,
    fields: &'static [Field],
) -> Register {
    Register {
        name,
        offset,
        words,
        access,
        doc,
        fields,
    }
}

/// The offset of register `name` in `map`, `None` for a name not in it.
pub const fn offset(map: &[Register], name: &str) -> Option<u32> {
    let mut i = 0;
    while i < map.len() {
        if str_eq(map[i].name, name) {
            return Some(map[i].offset);
        }
        i += 1;
    }
    None
}

/// [`offset`] for the maps' named constants: evaluated in a `const`, a name not in the map
/// fails the build.
pub(crate) const fn const_offset(map: &[Register], name: &str) -> u32 {
    match offset(map, name) {
        Some(o) => o,
        None => panic!("no such register"),
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Panics unless `map` (byte offsets, 32-bit words) is in address order with no two registers
/// overlapping, every offset word-aligned, and every register's fields inside bits 31:0 and
/// apart: the checks every map's tests run.
pub fn check_map(map: &[Register]) {
    for w in map.windows(2) {
        assert!(
            w[0].offset + 4 * w[0].words <= w[1].offset,
            "{} overlaps {}",
            w[0].name,
            w[1].name
        );
    }
    for r in map {
        assert_eq!(r.offset % 4, 0, "{} is not word-aligned", r.name);
        let mut used = 0u64;
        for f in r.fields {
            let m = ((1u64 << f.width) - 1) << f.lsb;
            assert!(
                f.lsb + f.width <= 32 && used & m == 0,
                "{}.{} past bit 31 or overlapping",
                r.name,
                f.name
            );
            used |= m;
        }
    }
}
