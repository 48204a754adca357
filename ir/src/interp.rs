//! An interpreter of expansions, used to prove them against the reference semantics.
