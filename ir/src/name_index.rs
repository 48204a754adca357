//! The values of a kernel by name, for the parser (resolving `%name`) and the verifier (each
//! name defined once).
//!
//! A kernel of 100k atomics has 100k names, and a general map from `&str` holds a 16-byte key
//! per entry and rehashes every string as it grows: its table outgrows the caches, and every
//! insertion is a cache miss or two. This index keeps one 8-byte slot per entry, the name's
//! hash and the value, and reads a name's text (in the kernel's values) only when the hashes
//! agree. It grows from the stored hashes, never rehashing a string.

use std::cell::Cell;

use cranelift_entity::{EntityRef, PrimaryMap};

use crate::kernel::{Value, ValueData};

/// An open-addressing table (linear probing) of `hash << 32 | value + 1`; 0 is an empty slot.
#[derive(Default)]
pub(crate) struct NameIndex {
    slots: Vec<u64>,
    len: usize,
    /// Names of up to eight bytes found lately, as `(short_word, len << 32 | value + 1)`, two
    /// to a set chosen by [`recent_set`], the more recent first: instructions name the same few
    /// values (the parameters) line after line, and a hit here is a compare or two where the
    /// table costs a hash, a probe and a read of the name. Only found names are kept, and a
    /// name is dropped from here only when it is redefined ([`NameIndex::insert`] then empties
    /// this), so a hit is what the table says.
    recent: [[Cell<(u64, u64)>; 2]; RECENT_SETS],
}

const RECENT_SETS: usize = 16;

/// The set of `recent` for a name of `len` bytes whose [`short_word`] is `word`.
fn recent_set(word: u64, len: usize) -> usize {
    ((word ^ len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60) as usize
}

/// `len << 32 | value + 1`: what `recent` holds beside a name's word.
fn recent_tag(len: usize, value: Value) -> u64 {
    (len as u64) << 32 | (value.index() as u64 + 1)
}

/// Slots for `entries` names: at most three quarters full. Any count (not only a power of
/// two): a hash is mapped onto the slots by multiplication.
fn slots_for(entries: usize) -> usize {
    (entries.saturating_mul(4) / 3 + 1).max(16)
}

/// The bytes of a name of at most eight bytes as one word, without copying them: two
/// overlapping four-byte reads, or three single bytes. Names of one length read the same
/// bytes, so equal words mean equal names.
fn short_word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let four = |at: usize| {
        bytes
            .get(at..at + 4)
            .and_then(|four| four.try_into().ok())
            .map_or(0, u32::from_le_bytes)
    };
    if n >= 4 {
        u64::from(four(0)) | u64::from(four(n - 4)) << 32
    } else if n > 0 {
        u64::from(bytes[0]) | u64::from(bytes[n / 2]) << 8 | u64::from(bytes[n - 1]) << 16
    } else {
        0
    }
}

/// A name's hash, which also places it in the table ([`home`]): of a name that ends in a
/// decimal digit, a hash of the rest with the digit in the low four bits. Generated code
/// names values in sequence (`%r1000`, `%r1001`, …), and then ten of them share a few cache
/// lines of the table, where scattering every name costs a cache miss per definition.
fn hash(bytes: &[u8]) -> u32 {
    match bytes.split_last() {
        Some((&last, rest)) if last.is_ascii_digit() => {
            hash_bytes(rest) & !0xf | u32::from(last - b'0')
        }
        _ => hash_bytes(bytes),
    }
}

/// A hash of a string, eight bytes at a time; names are short, most fit one word.
fn hash_bytes(bytes: &[u8]) -> u32 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        h = (h ^ word).wrapping_mul(K).rotate_left(29);
    }
    h ^= short_word(chunks.remainder());
    // The high half of a product depends on every bit of the input.
    (h.wrapping_mul(K) >> 32) as u32
}

/// Whether two names are equal; names of up to eight bytes as words.
fn same_name(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && if a.len() <= 8 {
            short_word(a) == short_word(b)
        } else {
            a == b
        }
}

fn slot(hash: u32, value: Value) -> u64 {
    (u64::from(hash) << 32) | (value.index() as u64 + 1)
}

/// The value of a full slot.
fn slot_value(entry: u64) -> Value {
    Value::new((entry as u32 - 1) as usize)
}

/// The first slot to probe for `hash` among `slots` slots (at least 16): the high bits pick a
/// place and the low four are added to it, so names that differ only in their last digit are
/// neighbours (see [`hash`]).
fn home(hash: u32, slots: usize) -> usize {
    let at = ((u64::from(hash >> 4) * slots as u64) >> 28) as usize + (hash & 0xf) as usize;
    if at >= slots {
        at - slots
    } else {
        at
    }
}

/// `count` empty slots, written. `vec![0; count]` would take fresh memory the system zeroes
/// lazily, and as the table's first access to a page is a probe (a read), each page would
/// then fault twice: once to map the shared zero page, and again at the first insertion to
/// replace it, 520 faults instead of 260 for a 100k-name table.
// What clippy would suggest, `vec![0; count]`, is the lazily zeroed memory this avoids.
#[allow(clippy::slow_vector_initialization)]
fn zeroed_slots(count: usize) -> Vec<u64> {
    let mut slots = Vec::with_capacity(count);
    slots.resize(count, 0);
    slots
}

impl NameIndex {
    /// An index with room for `entries` names before it grows.
    pub(crate) fn with_capacity(entries: usize) -> Self {
        NameIndex {
            slots: zeroed_slots(slots_for(entries)),
            ..NameIndex::default()
        }
    }

    /// Where `name` is (`Ok`), or the empty slot where it would go (`Err`). The table always
    /// has an empty slot, so the probe ends.
    #[inline]
    fn find(
        &self,
        hash: u32,
        name: &[u8],
        values: &PrimaryMap<Value, ValueData>,
    ) -> Result<usize, usize> {
        let mut at = home(hash, self.slots.len());
        loop {
            let entry = self.slots[at];
            if entry == 0 {
                return Err(at);
            }
            if (entry >> 32) as u32 == hash
                && values
                    .get(slot_value(entry))
                    .is_some_and(|data| same_name(data.name.as_bytes(), name))
            {
                return Ok(at);
            }
            at += 1;
            if at == self.slots.len() {
                at = 0;
            }
        }
    }

    /// The value named `name` (its name as `values` records it).
    #[inline]
    pub(crate) fn get(&self, name: &[u8], values: &PrimaryMap<Value, ValueData>) -> Option<Value> {
        if (1..=8).contains(&name.len()) {
            let word = short_word(name);
            let set = &self.recent[recent_set(word, name.len())];
            for way in set {
                let (recent_word, tag) = way.get();
                if recent_word == word && tag >> 32 == name.len() as u64 {
                    return Some(slot_value(tag));
                }
            }
        }
        self.get_from_table(name, values)
    }

    /// [`NameIndex::get`] by the table, keeping a short name found among the recent ones.
    #[inline(never)]
    fn get_from_table(&self, name: &[u8], values: &PrimaryMap<Value, ValueData>) -> Option<Value> {
        if self.slots.is_empty() {
            return None;
        }
        let found = self.find(hash(name), name, values).ok()?;
        let value = slot_value(self.slots[found]);
        if (1..=8).contains(&name.len()) {
            let word = short_word(name);
            let [first, second] = &self.recent[recent_set(word, name.len())];
            second.set(first.get());
            first.set((word, recent_tag(name.len(), value)));
        }
        Some(value)
    }

    /// Makes `name` refer to `value` (whose name in `values` is `name`), returning the value
    /// it referred to before.
    pub(crate) fn insert(
        &mut self,
        name: &[u8],
        value: Value,
        values: &PrimaryMap<Value, ValueData>,
    ) -> Option<Value> {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let hash = hash(name);
        match self.find(hash, name, values) {
            Ok(at) => {
                let before = slot_value(self.slots[at]);
                self.slots[at] = slot(hash, value);
                for way in self.recent.iter().flatten() {
                    way.set((0, 0));
                }
                Some(before)
            }
            Err(at) => {
                self.slots[at] = slot(hash, value);
                self.len += 1;
                None
            }
        }
    }

    fn grow(&mut self) {
        let old = std::mem::replace(&mut self.slots, zeroed_slots(slots_for((self.len + 1) * 2)));
        let count = self.slots.len();
        for entry in old.into_iter().filter(|&entry| entry != 0) {
            let mut at = home((entry >> 32) as u32, count);
            while self.slots[at] != 0 {
                at = if at + 1 == count { 0 } else { at + 1 };
            }
            self.slots[at] = entry;
        }
    }
}

/// Whether the names of `values` are surely pairwise distinct, decided in bulk: the hashes are
/// sorted (a radix sort, which streams through memory where a table is hit at random) and only
/// equal hashes compare names. `false` when two names are equal, and also when many names
/// share a hash (the caller then checks name by name).
pub(crate) fn distinct_names(values: &PrimaryMap<Value, ValueData>) -> bool {
    // The hash in the high half, the value in the low half: sorting by the high half brings
    // equal hashes together.
    let mut keys: Vec<u64> = values
        .iter()
        .map(|(value, data)| slot(hash(data.name.as_bytes()), value))
        .collect();
    radix_sort_high_half(&mut keys);
    let name = |key: u64| {
        values
            .get(Value::new((key as u32 - 1) as usize))
            .map(|data| data.name.as_bytes())
    };
    keys.chunk_by(|a, b| a >> 32 == b >> 32).all(|run| {
        run.len() == 1
            || (run.len() <= 8
                && run
                    .iter()
                    .enumerate()
                    .all(|(i, &a)| run[i + 1..].iter().all(|&b| name(a) != name(b))))
    })
}

/// Sorts `keys` by their high 32 bits, a byte at a time (stable, so the low halves of equal
/// high halves keep their order).
fn radix_sort_high_half(keys: &mut Vec<u64>) {
    let mut counts = [[0usize; 256]; 4];
    for &key in keys.iter() {
        for (byte, count) in counts.iter_mut().enumerate() {
            count[(key >> (32 + 8 * byte)) as usize & 0xff] += 1;
        }
    }
    let mut scratch = vec![0u64; keys.len()];
    for (byte, count) in counts.iter().enumerate() {
        let mut starts = [0usize; 256];
        let mut next = 0;
        for (start, &n) in starts.iter_mut().zip(count) {
            *start = next;
            next += n;
        }
        for &key in keys.iter() {
            let digit = (key >> (32 + 8 * byte)) as usize & 0xff;
            scratch[starts[digit]] = key;
            starts[digit] += 1;
        }
        std::mem::swap(keys, &mut scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Kernel;
    use crate::types::{ElemType, ValueType};

    #[test]
    fn finds_every_name_and_replaces_a_redefinition() {
        let mut kernel = Kernel::new("k");
        let mut index = NameIndex::default();
        let names: Vec<String> = (0..5000)
            .map(|i| format!("v{i}_{}", i * 7919 % 13))
            .collect();
        let ty = ValueType::scalar(ElemType::U32);
        let values: Vec<Value> = names.iter().map(|n| kernel.add_param(n, ty)).collect();
        for (name, &value) in names.iter().zip(&values) {
            assert_eq!(index.insert(name.as_bytes(), value, &kernel.values), None);
        }
        for (name, &value) in names.iter().zip(&values) {
            assert_eq!(
                index.get(name.as_bytes(), &kernel.values),
                Some(value),
                "{name}"
            );
        }
        assert_eq!(index.get(b"v5000_0", &kernel.values), None);
        assert_eq!(index.get(b"", &kernel.values), None);
        let again = kernel.add_param(&names[17], ty);
        assert_eq!(
            index.insert(names[17].as_bytes(), again, &kernel.values),
            Some(values[17])
        );
        assert_eq!(index.get(names[17].as_bytes(), &kernel.values), Some(again));
        assert_eq!(index.len, names.len());
    }

    #[test]
    fn distinct_names_are_told_from_repeated_ones() {
        let mut kernel = Kernel::new("k");
        let ty = ValueType::scalar(ElemType::U32);
        assert!(distinct_names(&kernel.values));
        for i in 0..70_000 {
            kernel.add_param(&format!("r{i}"), ty);
        }
        assert!(distinct_names(&kernel.values));
        kernel.add_param("r69999", ty);
        assert!(!distinct_names(&kernel.values));
        let mut two = Kernel::new("k");
        two.add_param("", ty);
        two.add_param("", ty);
        assert!(!distinct_names(&two.values));
    }

    #[test]
    fn the_radix_sort_orders_by_the_high_half_stably() {
        let mut keys: Vec<u64> = (0..10_000u64)
            .map(|i| ((i.wrapping_mul(0x9e37_79b9) % 977) << 32) | i)
            .collect();
        let mut expected = keys.clone();
        expected.sort_by_key(|key| key >> 32);
        radix_sort_high_half(&mut keys);
        assert_eq!(keys, expected);
    }

    /// A name found once is found again from the recent names, until it is redefined: then
    /// its new value, never the one found before.
    #[test]
    fn a_redefined_name_is_not_answered_from_the_recent_names() {
        let mut kernel = Kernel::new("k");
        let mut index = NameIndex::default();
        let ty = ValueType::scalar(ElemType::U32);
        let names = [
            "p",
            "ab",
            "xyz",
            "x_u32",
            "r123456",
            "abcdefgh",
            "abcdefghi",
        ];
        let first: Vec<Value> = names.iter().map(|n| kernel.add_param(n, ty)).collect();
        for (name, &value) in names.iter().zip(&first) {
            index.insert(name.as_bytes(), value, &kernel.values);
        }
        for _ in 0..2 {
            for (name, &value) in names.iter().zip(&first) {
                assert_eq!(
                    index.get(name.as_bytes(), &kernel.values),
                    Some(value),
                    "{name}"
                );
            }
        }
        // Same length and the same bytes at the ends: told apart.
        assert_eq!(index.get(b"x_v32", &kernel.values), None);
        assert_eq!(index.get(b"abcdxfgh", &kernel.values), None);
        for (at, name) in names.iter().enumerate() {
            let again = kernel.add_param(name, ty);
            assert_eq!(
                index.insert(name.as_bytes(), again, &kernel.values),
                Some(first[at])
            );
            assert_eq!(
                index.get(name.as_bytes(), &kernel.values),
                Some(again),
                "{name}"
            );
        }
    }

    /// Names numbered in sequence sit near their home slots, and are all found: the placement
    /// that keeps ten of them on a few cache lines does not pile them into long probes. (Runs
    /// of ten full slots make probes longer than scattered names would, about nine slots on
    /// average with the table three quarters full, against one and a half: slots read in a
    /// row, where a scattered name costs a cache miss.)
    #[test]
    fn numbered_names_stay_near_home() {
        let mut kernel = Kernel::new("k");
        let count = 100_000;
        let mut index = NameIndex::with_capacity(count);
        let ty = ValueType::scalar(ElemType::U32);
        for i in 0..count {
            let name = format!("r{i}");
            let value = kernel.add_param(&name, ty);
            assert_eq!(index.insert(name.as_bytes(), value, &kernel.values), None);
        }
        let slots = index.slots.len();
        let displacements: Vec<usize> = index
            .slots
            .iter()
            .enumerate()
            .filter(|&(_, &entry)| entry != 0)
            .map(|(at, &entry)| (at + slots - home((entry >> 32) as u32, slots)) % slots)
            .collect();
        let mean = displacements.iter().sum::<usize>() as f64 / count as f64;
        assert!(mean < 16.0, "mean displacement {mean}");
        for i in (0..count).step_by(7) {
            let name = format!("r{i}");
            assert_eq!(
                index.get(name.as_bytes(), &kernel.values),
                Some(Value::new(i)),
                "{name}"
            );
        }
    }

    #[test]
    fn an_empty_index_finds_nothing() {
        let kernel = Kernel::new("k");
        assert_eq!(NameIndex::default().get(b"x", &kernel.values), None);
    }
}
