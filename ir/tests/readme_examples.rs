//! Every kernel the README shows parses, verifies and prints back to itself up to spacing and
//! comments, so the documentation cannot drift from the text form.

use atomir_ir::text::{parse, print};

/// The fenced code blocks of the README whose first line that is not a comment starts a kernel.
fn kernel_blocks(readme: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in readme.lines() {
        if line.starts_with("```") {
            match current.take() {
                Some(block) => blocks.push(block),
                None => current = Some(String::new()),
            }
        } else if let Some(block) = &mut current {
            block.push_str(line);
            block.push('\n');
        }
    }
    blocks
        .into_iter()
        .filter(|block| {
            block
                .lines()
                .find(|line| !line.trim_start().starts_with('#'))
                .is_some_and(|line| line.starts_with("kernel "))
        })
        .collect()
}

#[test]
fn readme_kernels_parse_and_verify() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    let readme = std::fs::read_to_string(path).expect("README.md");
    let blocks = kernel_blocks(&readme);
    assert!(blocks.len() >= 5, "found {} kernel blocks", blocks.len());
    let mut fences = 0;
    let mut loads = 0;
    for block in &blocks {
        let module = parse(block).unwrap_or_else(|errors| panic!("{errors:?}\n{block}"));
        assert_eq!(verify(&module), Ok(()), "{block}");
        let printed = print(&module);
        assert_eq!(
            print(&parse(&printed).expect("printed text parses")),
            printed
        );
        fences += printed.matches("fence.").count();
        loads += printed.matches("atomic.load.").count();
    }
    assert!(fences > 0 && loads > 0, "the README shows loads and fences");
}

/// The verifier's answer without the proof, to compare with `Ok(())`.
fn verify(module: &atomir_ir::Module) -> Result<(), Vec<atomir_ir::Diagnostic>> {
    atomir_ir::verify::verify(module).map(|_| ())
}
