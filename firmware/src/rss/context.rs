//! RSS contexts: hash function, fields and key, and the indirection table in two banks.

use super::RssPipeline;
use crate::{Bus, Error};
use rocenic_model::rss::regs::{self, ContextRegs, KEY_BYTES};
use rocenic_model::rss::{Function, HashFields};
use rocenic_model::toeplitz::symmetric_key;

/// Every hash-field bit that names a field: the verbs bits 0..=7 and rocenic's BTH QPN (12).
pub const HASH_FIELDS: u32 = 0xFF | HashFields::BTH_DEST_QPN.0;

/// The symmetric key at the hardware's length: a flow and its reverse hash alike under every
/// field set (`model::toeplitz::symmetric_key`).
pub const SYMMETRIC_KEY: [u8; KEY_BYTES] = symmetric_key();

/// How a context hashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextConfig<'a> {
    /// Toeplitz or XOR.
    pub function: Function,
    /// The hashed fields.
    pub fields: HashFields,
    /// The Toeplitz key (4 to 52 bytes; the hardware holds 52 and a shorter key is stored with
    /// a zero tail). XOR uses none, and an empty key will do.
    pub key: &'a [u8],
}

/// The shortest Toeplitz key that covers every input `fields` selects: 4 bytes more than the
/// longest (`HashFields::longest_input`; docs/reference.md §2).
pub const fn key_min_len(fields: HashFields) -> usize {
    4 + fields.longest_input()
}

impl<B: Bus, const CONTEXTS: usize> RssPipeline<B, CONTEXTS> {
    /// Configures context `index`: writes `table` into the bank the context does not use, then
    /// commits the context with `config`'s hash and that bank. `table` is the whole indirection
    /// table: a power of two of entries up to the block's, each a queue number of
    /// `CAPS.QUEUE_W` bits.
    pub fn set_context(
        &mut self,
        index: usize,
        config: &ContextConfig<'_>,
        table: &[u16],
    ) -> Result<(), Error> {
        self.check_context(index)?;
        let key = self.check_hash(config)?;
        let log2 = self.check_table(table)?;
        let bank = self.contexts[index].bank ^ 1;
        self.write_table(index, bank, table)?;
        let ctx = ContextRegs {
            function: config.function,
            fields: config.fields,
            key,
            table_log2: log2,
            bank,
        };
        self.commit_context(index, ctx)
    }

    /// Changes context `index`'s hash (function, fields, key), keeping its table.
    pub fn set_hash(&mut self, index: usize, config: &ContextConfig<'_>) -> Result<(), Error> {
        self.check_context(index)?;
        let key = self.check_hash(config)?;
        let ctx = ContextRegs {
            function: config.function,
            fields: config.fields,
            key,
            ..self.contexts[index]
        };
        self.commit_context(index, ctx)
    }

    /// Replaces context `index`'s indirection table at run time: the other bank, then a commit
    /// that switches to it (the hash stays).
    pub fn set_table(&mut self, index: usize, table: &[u16]) -> Result<(), Error> {
        self.check_context(index)?;
        let log2 = self.check_table(table)?;
        let bank = self.contexts[index].bank ^ 1;
        self.write_table(index, bank, table)?;
        let ctx = ContextRegs {
            table_log2: log2,
            bank,
            ..self.contexts[index]
        };
        self.commit_context(index, ctx)
    }

    /// The key as the hardware stores it, once the fields and length check out.
    fn check_hash(&self, config: &ContextConfig<'_>) -> Result<[u8; KEY_BYTES], Error> {
        let unknown = config.fields.0 & !HASH_FIELDS;
        if unknown != 0 {
            return Err(Error::HashFields(unknown));
        }
        let min = match config.function {
            Function::Toeplitz => key_min_len(config.fields),
            Function::Xor => 0,
        };
        let len = config.key.len();
        if len < min || len > KEY_BYTES {
            return Err(Error::KeyLength {
                len,
                min,
                max: KEY_BYTES,
            });
        }
        let mut key = [0; KEY_BYTES];
        key[..len].copy_from_slice(config.key);
        Ok(key)
    }

    /// log2 of the table's length, once it and every entry check out.
    fn check_table(&self, table: &[u16]) -> Result<u8, Error> {
        if !table.len().is_power_of_two() {
            return Err(Error::TableSize(table.len()));
        }
        let max = 1usize << self.caps.table_log2.min(16);
        if table.len() > max {
            return Err(Error::TableTooLarge {
                len: table.len(),
                max,
            });
        }
        table.iter().try_for_each(|&q| self.check_queue(q))?;
        Ok(table.len().trailing_zeros() as u8)
    }

    fn write_table(&mut self, index: usize, bank: u8, table: &[u16]) -> Result<(), Error> {
        let (addr, value) = regs::table_select(index as u8, bank, 0);
        self.bus.write(addr, value)?;
        for &q in table {
            self.bus.write(regs::TABLE_DATA, q.into())?;
        }
        Ok(())
    }

    fn commit_context(&mut self, index: usize, ctx: ContextRegs) -> Result<(), Error> {
        self.bus.write_all(&regs::context_writes(&ctx))?;
        self.commit(regs::commit_context(index as u8))?;
        self.contexts[index] = ctx;
        Ok(())
    }
}
