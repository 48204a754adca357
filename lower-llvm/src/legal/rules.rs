//! The rule ids of the LLVM table: each refusal names one, and so does each non-obvious
//! emulation (in a comment where the table decides it).

atomir_ir::rules! {
    /// The rules of the LLVM table: refusals, and the reasons behind non-obvious emulations.
    pub enum LlvmRule {
        SpirvBackendNeeds22 = "llvm.spirv-backend-needs-22":
            "the llc versions before 22 measured here have no spirv64 target",
        AmdgcnNoSharedCluster = "llvm.amdgcn-no-shared-cluster":
            "amdgcn has no address space for another block's shared memory",
        SpirvNoSharedCluster = "llvm.spirv-no-shared-cluster":
            "the triple has no address space for another block's shared memory",
        NvptxSharedClusterNeeds22 = "llvm.nvptx-shared-cluster-needs-22":
            "NVPTX before LLVM 22 cannot select atomics on addrspace(7)",
        NvptxOrderedLoadNeedsSm70 = "llvm.nvptx-ordered-load-needs-sm70":
            "below sm_70 llc selects no ordered atomic load or store (no PTX memory model): an \
             ordered load, store, or CAS loop whose order is not on fences is refused",
        NvptxSharedClusterNeedsSm90 = "llvm.nvptx-shared-cluster-needs-sm90":
            "another block's shared memory (addrspace(7), `.shared::cluster`) exists from sm_90",
        NvptxOrderedNeeds22 = "llvm.nvptx-ordered-needs-22":
            "NVPTX before LLVM 22 drops the order of atomicrmw and cmpxchg and selects no fence",
        NvptxSystemScopeNeeds22 = "llvm.nvptx-system-scope-needs-22":
            "NVPTX before LLVM 22 emits every atomic at gpu scope",
        Bf16Needs15 = "llvm.bf16-needs-15": "LLVM 14 can neither pass nor compute `bfloat` values",
        GpuBf16Needs19 = "llvm.gpu-bf16-needs-19":
            "the GPU backends before LLVM 19 cannot select `bfloat` values and arithmetic",
        SpirvNoBfloat16 = "llvm.spirv-no-bfloat16":
            "SPIR-V has bfloat16 only through extensions a consumer may lack",
        No128BitCas = "llvm.no-128-bit-cas":
            "the triple (NVPTX: below sm_90 or LLVM 22) has no 128-bit compare-and-swap",
        X86Bf16QuietsSnan = "llvm.x86-bf16-quiets-snan":
            "x86-64 moves `bfloat` values through `float`, which quiets a signalling NaN",
        X86BfloatVectorArgNeeds16 = "llvm.x86-bfloat-vector-arg-needs-16":
            "x86-64 before LLVM 16 cannot pass a `bfloat` vector argument",
        SpirvNoI128 = "llvm.spirv-no-i128":
            "SPIR-V has no 128-bit integer type without an extension",
        FminmaxSignedZero = "llvm.fminmax-signed-zero":
            "atomicrmw fmin/fmax leave -0.0 and +0.0 unordered: float min/max is a CAS loop",
        NoUincWrapBefore16 = "llvm.no-uinc-wrap-before-16":
            "atomicrmw uinc_wrap/udec_wrap exist from LLVM 16: inc/dec is a CAS loop before",
        AmdgcnUincWrapNeeds19 = "llvm.amdgcn-uinc-wrap-needs-19":
            "amdgcn selects uinc_wrap/udec_wrap from LLVM 19 (16 cannot): inc/dec is a CAS loop before",
        SpirvNoIncDec = "llvm.spirv-no-inc-dec":
            "SPIR-V has no bounded increment or decrement: inc/dec is a CAS loop",
        SpirvNoNand = "llvm.spirv-no-nand":
            "SPIR-V has no nand and its backend no expansion: nand is a CAS loop",
        NvptxOldNoExpansion = "llvm.nvptx-old-no-expansion":
            "NVPTX before LLVM 22 neither selects nor expands nand and fsub: a CAS loop",
        SpirvFloatAddOnly = "llvm.spirv-float-add-only":
            "SPIR-V has float atomic add (not sub, not bf16) only: the rest is a CAS loop",
        SmallFloatNeeds22 = "llvm.x86-small-float-needs-22":
            "x86-64 selects half/bfloat arithmetic in every version from LLVM 22 only",
        FpVectorRmwNeeds19 = "llvm.fp-vector-rmw-needs-19":
            "llvm-as accepts atomicrmw on FP vectors from LLVM 19: packed add before is a CAS loop",
        NvptxPackedHalfAddByCas = "llvm.nvptx-packed-half-add-by-cas":
            "NVPTX's llc (19 to 23, every SM) expands atomicrmw fadd/fsub on <2 x half> and \
             <2 x bfloat> into a CAS loop of its own: packed f16x2/bf16x2 add and sub are \
             atomir's CAS loop, a vector of them a per-element split",
        NvptxF32AddFlushesBefore23 = "llvm.nvptx-f32-add-flushes-before-23":
            "llc before 23 selects atomicrmw fadd float on global and generic memory as \
             atom.add.f32, which flushes subnormals on global memory: the exact f32 add is a \
             CAS loop there",
        NvptxF32AddByCasFrom23 = "llvm.nvptx-f32-add-by-cas-from-23":
            "llc 23 expands atomicrmw fadd float on global and generic memory into a CAS loop of \
             its own (no atom.add.f32 there): the f32 add is atomir's CAS loop there",
        NvptxFsubByCas = "llvm.nvptx-fsub-by-cas":
            "PTX has no float atom.sub: llc 22 and 23 expand atomicrmw fsub into a CAS loop of \
             their own, so f32/f64 sub is atomir's CAS loop",
        GpuNandByCas = "llvm.gpu-nand-by-cas":
            "PTX and AMDGPU have no atomic nand: llc expands atomicrmw nand into a CAS loop of \
             its own (NVPTX before 22 neither selects nor expands it), so nand is atomir's CAS \
             loop",
        NvptxIncDec64ByCas = "llvm.nvptx-inc-dec-64-by-cas":
            "PTX's atom.inc/atom.dec are 32-bit only: llc expands a 64-bit uinc_wrap/udec_wrap \
             into a CAS loop of its own, so 64-bit inc/dec is atomir's CAS loop",
        NvptxIncDecByCasBefore22 = "llvm.nvptx-inc-dec-by-cas-before-22":
            "llc 16 and 19 expand a 32-bit uinc_wrap/udec_wrap into a CAS loop of their own \
             (llc 22 selects atom.inc/atom.dec), so inc/dec is atomir's CAS loop there",
        AmdgcnSystemScopeByCas = "llvm.amdgcn-system-scope-by-cas":
            "at system scope on global or generic memory (possibly fine-grained) llc expands \
             every RMW but exch and integer add into a cmpswap loop of its own: \
             the rest is atomir's CAS loop there (not with +coarse-grained)",
        AmdgcnRemoteMemoryByCas = "llvm.amdgcn-remote-memory-by-cas":
            "from LLVM 20, on gfx90a and gfx1100 (not gfx942, which emulates system-scope \
             atomics), llc expands every RMW on global or generic memory but exch and integer \
             add into a cmpswap loop of its own at every scope, since the memory may be another \
             device's over PCIe: the rest is atomir's CAS loop there (not with +coarse-grained)",
        NvptxSystemScopeByCas = "llvm.nvptx-system-scope-by-cas":
            "NVPTX keeps `.sys` on cmpxchg only: a system-scope RMW is a CAS loop",
        PartWordCas = "llvm.part-word-cas":
            "the triple's smallest CAS is 32 bits: an 8/16-bit element lives in its 32-bit word",
        VulkanNoSeqCst = "llvm.vulkan-no-seq-cst":
            "Vulkan forbids sequentially consistent memory semantics (VUID 10866)",
        VulkanNoSystemScope = "llvm.vulkan-no-system-scope":
            "Vulkan has no scope wider than device (CrossDevice: VUID 04638)",
        VulkanNoGeneric = "llvm.vulkan-no-generic":
            "Vulkan's logical addressing has no generic pointers",
        VulkanOrderedNeeds23 = "llvm.vulkan-ordered-needs-23":
            "llc before 23 omits the storage-class bit of a non-relaxed order (VUID 10870)",
        VulkanNoCmpxchg = "llvm.vulkan-no-cmpxchg":
            "llc cannot compile cmpxchg for Vulkan: no cas and no CAS-loop emulation",
        VulkanNoVector = "llvm.vulkan-no-vector":
            "Vulkan atomics are scalar and logical addressing has no pointer arithmetic to split a vector",
        VulkanNoFence = "llvm.vulkan-no-fence":
            "llc's OpMemoryBarrier for Vulkan lacks the storage-class bit its order needs (VUID 10870)",
        VulkanLoadStoreNeeds23 = "llvm.vulkan-load-store-needs-23":
            "llc before 23 turns an atomic load or store into a plain, non-atomic one",
        VulkanInt64Needs23 = "llvm.vulkan-int64-needs-23":
            "llc before 23 cannot meet the Int64Atomics requirement for Vulkan",
        NvptxFenceNeeds22 = "llvm.nvptx-fence-needs-22":
            "NVPTX before LLVM 22 cannot select a fence",
        No128BitLoadStore = "llvm.no-128-bit-load-store":
            "the triple (NVPTX: below sm_90 or LLVM 22) has no 128-bit atomic load or store",
        NvptxB128SeqCstByFence = "llvm.nvptx-b128-seq-cst-by-fence":
            "NVPTX's llc cannot print a seq_cst 128-bit access: a seq_cst fence, then an acquire \
             load or a relaxed store",
        SpirvNo16BitIntAtomics = "llvm.spirv-no-16-bit-int-atomics":
            "SPIR-V has 16-bit integer atomics only through SPV_INTEL_16bit_atomics",
        AmdgcnSmallLoadStoreNeeds15 = "llvm.amdgcn-small-load-store-needs-15":
            "amdgcn before LLVM 15 cannot select an 8- or 16-bit atomic load or store",
        SpirvLoadStoreByBuiltin = "llvm.spirv-load-store-by-builtin":
            "LLVM 22's SPIR-V backend prints `load/store atomic` as plain OpLoad/OpStore: loads, \
             stores and fences call the __spirv_AtomicLoad/AtomicStore/MemoryBarrier builtins",
        VulkanSharedOneType = "llvm.vulkan-shared-one-type":
            "a Vulkan Workgroup variable has one type, and logical addressing cannot view it as \
             another: one shared parameter is accessed as one type",
        UnsupportedNode = "llvm.unsupported-node":
            "the LLVM backend does not lower this node yet (atomic loads and stores for Vulkan)",
    }
}
