//! Names that stress every backend's naming: wild value and kernel names, and kernel names
//! that collide after sanitising.

use std::collections::HashSet;

use super::Rng;

/// Value names that collide with something in some backend: PTX special registers, reserved
/// words and register prefixes; vISA predefined variables, keywords and the printer's own
/// suffixes (`__e0`, `__f`, `__in`, …) and temporaries; LLVM keywords, numbered values and the
/// printer's labels and result parameters; our PTX temporaries (`_r0`, `_d0`, `$v0_x`).
pub const WILD_VALUE_NAMES: &[&str] = &[
    "$",
    "_",
    "$$",
    "__",
    "$_",
    "_$",
    "0",
    "1",
    "00",
    "9",
    "$0",
    "_0",
    "tid",
    "ntid",
    "laneid",
    "warpid",
    "ctaid",
    "clock",
    "clock64",
    "WARP_SZ",
    "warpsz",
    "pm0",
    "pm7",
    "envreg0",
    "envreg31",
    "lanemask_eq",
    "lanemask_lt",
    "reserved_smem_offset_0",
    "globaltimer",
    "dynamic_smem_size",
    "reg",
    "param",
    "entry",
    "func",
    "global",
    "shared",
    "local",
    "const",
    "pred",
    "u32",
    "b64",
    "f32",
    "ret",
    "exit",
    "bra",
    "atom",
    "red",
    "mov",
    "ld",
    "st",
    "cvta",
    "fence",
    "membar",
    "version",
    "target",
    "align",
    "_r0",
    "_r1",
    "_d0",
    "_d1",
    "_p0",
    "_h0",
    "_q0",
    "_b0",
    "$v0_x",
    "$v1_",
    "$v2__",
    "x$0",
    "a$1",
    "null",
    "thread_x",
    "group_id_x",
    "r0",
    "arg",
    "retval",
    "sp",
    "fp",
    "hw_id",
    "sr0",
    "cr0",
    "ce0",
    "tsc",
    "V0",
    "V32",
    "T1",
    "t1",
    "t2",
    "P1",
    "M1",
    "ud",
    "uq",
    "hf",
    "df",
    "v_type",
    "num_elts",
    "alias",
    "goto",
    "kernel",
    "input",
    "decl",
    "x__e0",
    "x__e1",
    "x__f",
    "x__d",
    "x__hf",
    "x__w",
    "x__b",
    "x__u",
    "x__q",
    "x__df",
    "x__in",
    "v_x",
    "x",
    "__e0",
    "__in",
    "in",
    "out",
    "out0",
    "define",
    "void",
    "ptr",
    "i1",
    "i32",
    "i128",
    "half",
    "bfloat",
    "float",
    "double",
    "label",
    "undef",
    "poison",
    "zeroinitializer",
    "true",
    "false",
    "addrspace",
    "b0",
    "end",
    "atomicrmw",
    "cmpxchg",
    "monotonic",
    "syncscope",
    "phi",
    "br",
    "store",
    "load",
    "tmp",
    "main",
];

/// Pairs of value names that differ only in `$` versus `_`.
pub(super) const DOLLAR_UNDERSCORE_PAIRS: &[(&str, &str)] = &[
    ("a$b", "a_b"),
    ("$x", "_x"),
    ("q$", "q_"),
    ("$", "_"),
    ("$$", "__"),
    ("m$0", "m_0"),
];

/// Kernel names (words: a letter, `_` or `$`, then letters, digits, `_`, `$`) that stress
/// symbol names: reserved words, special names, and shapes of the backends' own symbols.
pub(super) const WILD_KERNEL_NAMES: &[&str] = &[
    "$",
    "_",
    "$$",
    "__",
    "WARP_SZ",
    "tid",
    "entry",
    "func",
    "kernel",
    "atomic",
    "main",
    "define",
    "void",
    "ptr",
    "global",
    "shared",
    "param",
    "reg",
    "ret",
    "_Z3foov",
    "$main",
    "t1",
    "V0",
    "null",
    "k_BB_0",
    "BB_0",
    "v_k",
    "_r0",
    "$v0_x",
    "label",
    "ptx_kernel",
];

/// Kernel-name collisions a module may hold: pairs that are equal after `$` → `_`, and a kernel
/// next to kernels named like its PTX parameters (`<name>_param_<i>`, `<name>_out_<i>`) and its
/// vISA label (`<name>_BB_0`).
pub(super) fn colliding_kernel_names(rng: &mut Rng, count: usize) -> Vec<String> {
    let base = ["k", "$k", "k$", "_k", "a$b", "x"][rng.below(6)].to_string();
    let sanitized = base.replace('$', "_");
    let mut candidates = vec![
        base.clone(),
        sanitized.clone(),
        format!("{sanitized}_param_0"),
        format!("{sanitized}_param_1"),
        format!("{sanitized}_out_0"),
        format!("{base}_BB_0"),
        format!("{sanitized}$"),
        format!("{sanitized}_"),
    ];
    // Keep the first (the base) and a random selection of the others, no duplicates.
    let mut names = vec![candidates.remove(0)];
    while names.len() < count && !candidates.is_empty() {
        let next = candidates.remove(rng.below(candidates.len()));
        if !names.contains(&next) {
            names.push(next);
        }
    }
    names
}

/// Hands out value names unique within one kernel.
pub(super) struct Namer {
    used: HashSet<String>,
    counter: usize,
    wild: bool,
    /// The partner of a `$`/`_` pair waiting to be handed out.
    pending: Option<String>,
}

impl Namer {
    pub(super) fn new(wild: bool) -> Self {
        Namer {
            used: HashSet::new(),
            counter: 0,
            wild,
            pending: None,
        }
    }

    fn plain(&mut self, prefix: &str) -> String {
        loop {
            let name = format!("{prefix}{}", self.counter);
            self.counter += 1;
            if self.used.insert(name.clone()) {
                return name;
            }
        }
    }

    pub(super) fn name(&mut self, rng: &mut Rng, prefix: &str) -> String {
        if self.wild {
            if let Some(name) = self.pending.take() {
                if self.used.insert(name.clone()) {
                    return name;
                }
            }
            if rng.percent(40) {
                let name = rng.pick(WILD_VALUE_NAMES).to_string();
                if self.used.insert(name.clone()) {
                    return name;
                }
            }
            if rng.percent(8) {
                let (a, b) = *rng.pick(DOLLAR_UNDERSCORE_PAIRS);
                if !self.used.contains(a) && !self.used.contains(b) {
                    self.used.insert(a.to_string());
                    self.pending = Some(b.to_string());
                    return a.to_string();
                }
            }
        }
        self.plain(prefix)
    }
}

/// `count` distinct kernel names: unique plain names, with (when wild) a wild name or a group
/// of names that collide after sanitising.
pub(super) fn kernel_names(rng: &mut Rng, seed: u64, count: usize, wild: bool) -> Vec<String> {
    let plain = |i: usize| format!("k{seed:08x}n{i}");
    if !wild || rng.percent(40) {
        return (0..count).map(plain).collect();
    }
    let mut names = if count >= 2 && rng.percent(50) {
        colliding_kernel_names(rng, count)
    } else {
        vec![rng.pick(WILD_KERNEL_NAMES).to_string()]
    };
    let mut i = 0;
    while names.len() < count {
        names.push(plain(i));
        i += 1;
    }
    names
}
