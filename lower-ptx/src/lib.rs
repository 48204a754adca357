//! The ptx backend of atomir.
