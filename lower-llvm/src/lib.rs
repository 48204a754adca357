//! The llvm backend of atomir.
