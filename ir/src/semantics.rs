//! Reference semantics: one bit-exact definition of every op on every element type.
