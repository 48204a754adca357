//! Benchmark helpers for atomir.
