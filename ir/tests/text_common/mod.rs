//! Inputs shared by the text-form tests.

/// The example of the text form in DESIGN.md, verbatim.
pub const DESIGN_EXAMPLE: &str = "\
# comments start with '#'
kernel histogram(%bins: ptr.global, %x: u32, %f: f32, %lim: u32, %p: pred, %s: ptr.shared) {
  %old = atomic.add.relaxed.device.global.u32 [%bins], %x
  atomic.add.relaxed.device.global.u32 [%bins], 1                  # no result: a reduction
  %v = atomic.add.acq_rel.device.global.v4.f32 [%bins], {%f, %f, %f, %f}
  %c = atomic.cas.seq_cst.system.global.b32 [%bins], %x, 7         # expected, then new
  @%p %i = atomic.inc.relaxed.block.shared.u32 [%s], %lim
  @!%p atomic.max.release.device.global.f32 [%bins], %f
  %h = atomic.add.relaxed.device.global.u32.evict_last [%bins], %x # L2 cache hint
}
";
