//! Target names, through the registry of the `atomir` crate; `file_name` for golden folders.

pub use atomir::{targets_help, Target};

/// A backend for one target, as the registry hands it out.
pub type TargetBackend = Target;

/// Parses a full target name such as `ptx:sm_90@8.7`, `visa:TGLLP` or `llvm:nvptx64@22`.
pub fn parse_target(name: &str) -> Result<TargetBackend, String> {
    name.parse()
        .map_err(|error: atomir::ParseTargetError| error.to_string())
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
