//! The visa backend of atomir.
