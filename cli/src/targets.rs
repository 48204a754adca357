//! Target names: `<backend>:<spec>`, dispatched on the prefix to the backend crate that owns it.

use atomir_ir::Backend;

/// A backend for one target, as every backend crate hands it out.
pub type TargetBackend = Box<dyn Backend + Send + Sync>;

/// One backend crate: its prefix, its target parser and its help text.
struct BackendCrate {
    prefix: &'static str,
    parse: fn(&str) -> Result<TargetBackend, String>,
    help: fn() -> String,
}

const BACKENDS: [BackendCrate; 3] = [
    BackendCrate {
        prefix: "ptx",
        parse: atomir_ptx::parse_target,
        help: atomir_ptx::targets_help,
    },
    BackendCrate {
        prefix: "visa",
        parse: atomir_visa::parse_target,
        help: || atomir_visa::TARGETS_HELP.to_string(),
    },
    BackendCrate {
        prefix: "llvm",
        parse: atomir_llvm::parse_target,
        help: || atomir_llvm::TARGETS_HELP.to_string(),
    },
];

/// Parses a full target name such as `ptx:sm_90@8.7`, `visa:TGLLP` or `llvm:nvptx64@22`.
pub fn parse_target(name: &str) -> Result<TargetBackend, String> {
    let Some((prefix, spec)) = name.split_once(':') else {
        return Err(format!(
            "`{name}` is not a target name: expected `<backend>:<target>`"
        ));
    };
    match BACKENDS.iter().find(|backend| backend.prefix == prefix) {
        Some(backend) => (backend.parse)(spec),
        None => Err(format!(
            "unknown backend `{prefix}` in target `{name}`: expected one of {}",
            BACKENDS.map(|b| b.prefix).join(", ")
        )),
    }
}

/// The help text of every backend, one block each.
pub fn targets_help() -> String {
    let mut text = String::from("Targets (`<backend>:<target>`):\n");
    for backend in &BACKENDS {
        for line in (backend.help)().lines() {
            text.push_str("  ");
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// A target name as a file or folder name: `ptx:sm_90@8.7` → `ptx-sm_90-8.7`.
pub fn file_name(target: &str) -> String {
    target
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_prefix_names_the_backends() {
        let error = parse_target("spirv:1.5").err().unwrap_or_default();
        assert!(error.contains("unknown backend `spirv`"), "{error}");
        assert!(error.contains("ptx, visa, llvm"), "{error}");
        let error = parse_target("sm_90").err().unwrap_or_default();
        assert!(error.contains("expected `<backend>:<target>`"), "{error}");
    }

    #[test]
    fn file_names_are_plain() {
        assert_eq!(file_name("ptx:sm_90@8.7"), "ptx-sm_90-8.7");
        assert_eq!(file_name("llvm:nvptx64"), "llvm-nvptx64");
    }
}
