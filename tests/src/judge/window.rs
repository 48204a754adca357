//! The PTX address-space check: no generic access goes through a shared-window address.

use std::collections::HashSet;

use atomir_ir::{Module, ValueType};

// ---- the PTX address-space check ---------------------------------------------------------------

/// ptxas accepts a generic access through a shared-window address (it cannot know where a
/// register points); the hardware faults. Tracks, per `.entry`, the registers that hold a
/// `ptr.shared`/`ptr.shared_cluster` parameter (or values computed from one) until a
/// `cvta.shared` turns them generic, and reports a generic-space `atom`/`red`/`ld`/`st` whose
/// address is such a register. A straight-line approximation: enough for code that converts
/// where it loads the parameter.
pub fn shared_window_check(module: &Module, code: &str) -> Result<(), String> {
    let mut entries = code.split(".entry ").skip(1);
    for kernel in &module.kernels {
        let Some(entry) = entries.next() else {
            return Ok(());
        };
        let shared_params: HashSet<usize> = kernel
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                matches!(
                    p.ty,
                    ValueType::Ptr(atomir_ir::AddressSpace::Shared)
                        | ValueType::Ptr(atomir_ir::AddressSpace::SharedCluster)
                )
            })
            .map(|(i, _)| i)
            .collect();
        if shared_params.is_empty() {
            continue;
        }
        let mut window: HashSet<String> = HashSet::new();
        for line in entry.lines() {
            let line = line.trim();
            let line = match line.strip_prefix('@') {
                Some(rest) => rest.split_once(' ').map_or("", |(_, r)| r).trim(),
                None => line,
            };
            let Some((opcode, operands)) = line.split_once(char::is_whitespace) else {
                continue;
            };
            let operands: Vec<&str> = operands
                .trim_end_matches(';')
                .split(',')
                .map(str::trim)
                .collect();
            let address = operands.iter().find_map(|o| {
                o.strip_prefix('[')
                    .map(|a| a.trim_end_matches(']').split('+').next().unwrap_or(""))
            });
            let memory = ["atom.", "red.", "ld.", "st.", "cp.", "prefetch"]
                .iter()
                .any(|m| opcode.starts_with(m));
            if opcode.starts_with("ld.param") {
                let param = address.and_then(|a| a.rsplit("_param_").next()?.parse::<usize>().ok());
                if let Some(index) = param {
                    if shared_params.contains(&index) {
                        window.insert(operands[0].to_string());
                        continue;
                    }
                }
                window.remove(operands[0]);
                continue;
            }
            if memory {
                let generic = !opcode.contains(".shared")
                    && !opcode.contains(".global")
                    && !opcode.contains(".param")
                    && !opcode.contains(".local");
                if let Some(address) = address {
                    if generic && window.contains(address) {
                        return Err(format!(
                            "kernel `{}`: generic `{opcode}` through `{address}`, a shared-window \
                             address (from a ptr.shared parameter, never converted with \
                             cvta.shared): `{line}`",
                            kernel.name
                        ));
                    }
                }
            }
            let Some(dest) = operands.first() else {
                continue;
            };
            if opcode.starts_with("cvta.shared") || opcode.starts_with("cvta.to.") {
                window.remove(*dest);
            } else if operands[1..].iter().any(|o| window.contains(*o)) {
                window.insert(dest.to_string());
            } else {
                window.remove(*dest);
            }
        }
    }
    Ok(())
}
