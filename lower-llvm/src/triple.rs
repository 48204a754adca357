//! The LLVM triples this backend prints for, and what each fixes of the output.

/// The LLVM triples this backend prints for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Triple {
    /// `nvptx64-nvidia-cuda`: NVIDIA GPUs through llc's NVPTX backend (`ptx_kernel`).
    Nvptx64,
    /// `amdgcn-amd-amdhsa`: AMD GPUs (`amdgpu_kernel`).
    Amdgcn,
    /// `spirv64-unknown-unknown`: OpenCL-flavoured SPIR-V (`spir_kernel`), physical addressing.
    Spirv64,
    /// `x86_64-unknown-linux-gnu`: a CPU, where the output also runs (threaded) as a check.
    X86_64,
    /// SPIR-V for a Vulkan compute shader (logical addressing, the GLSL450 memory model that
    /// llc declares, resources through descriptor bindings).
    SpirvVulkan,
}

impl Triple {
    /// Every triple, in the order targets are listed and a refusal's smallest target is searched.
    pub const ALL: [Triple; 5] = [
        Triple::Nvptx64,
        Triple::Amdgcn,
        Triple::Spirv64,
        Triple::X86_64,
        Triple::SpirvVulkan,
    ];

    /// The short name used in target specs.
    pub const fn name(self) -> &'static str {
        match self {
            Triple::Nvptx64 => "nvptx64",
            Triple::Amdgcn => "amdgcn",
            Triple::Spirv64 => "spirv64",
            Triple::X86_64 => "x86_64",
            Triple::SpirvVulkan => "spirv-vulkan",
        }
    }

    /// Whether the triple's output is SPIR-V (and its code generation needs llc's SPIR-V backend).
    pub const fn is_spirv(self) -> bool {
        matches!(self, Triple::Spirv64 | Triple::SpirvVulkan)
    }

    /// What the triple's output is for, and what its versions change, as the target help says.
    pub const fn note(self) -> &'static str {
        match self {
            Triple::Nvptx64 => {
                "NVIDIA GPUs through llc's NVPTX backend; from @23 the order stays on atomicrmw; \
                 what llc would expand into a CAS loop of its own (f32 add on global memory, \
                 float sub, nand, 64-bit inc/dec) is atomir's CAS loop, whose verdict says so"
            }
            Triple::Amdgcn => "AMD GPUs (HSA); @23 prints the @22 form, judged by llc 23",
            Triple::Spirv64 => "OpenCL-flavoured SPIR-V (Kernel capability, physical addressing)",
            Triple::X86_64 => "x86-64 CPUs, one coherence domain; @23 prints the @22 form",
            Triple::SpirvVulkan => {
                "a Vulkan compute shader per kernel; its parameters become storage-buffer \
                 bindings and Workgroup variables; @22 takes relaxed atomics only, @23 \
                 acquire, release and acq_rel (a relaxed RMW is printed acquire)"
            }
        }
    }

    /// Whether the llc of LLVM `major` has a backend for the triple (SPIR-V from
    /// [`SPIRV_MIN_MAJOR`]).
    pub const fn has_backend_at(self, major: u32) -> bool {
        !self.is_spirv() || major >= SPIRV_MIN_MAJOR
    }

    /// The prefix of the rule ids that apply to this triple alone, if it has its own rules.
    pub const fn rule_prefix(self) -> Option<&'static str> {
        match self {
            Triple::SpirvVulkan => Some("llvm.vulkan-"),
            _ => None,
        }
    }

    /// The triple of a target-name spelling (`nvptx64`, `spirv-vulkan`), as [`Triple::name`]
    /// writes it.
    pub fn from_name(name: &str) -> Option<Triple> {
        Triple::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The full `target triple` string of a module.
    pub const fn triple_string(self) -> &'static str {
        match self {
            Triple::Nvptx64 => "nvptx64-nvidia-cuda",
            Triple::Amdgcn => "amdgcn-amd-amdhsa",
            Triple::Spirv64 => "spirv64-unknown-unknown",
            Triple::X86_64 => "x86_64-unknown-linux-gnu",
            Triple::SpirvVulkan => "spirv1.6-unknown-vulkan1.3-compute",
        }
    }

    /// The triple of a module's `target triple` string: [`Triple::triple_string`] itself, or
    /// another triple of the same architecture (`nvptx64-nvidia-nvcl`, `amdgcn-amd-amdpal`,
    /// `spirv64-intel`); a `spirv` triple whose environment is Vulkan is [`Triple::SpirvVulkan`].
    pub fn from_triple_string(text: &str) -> Option<Triple> {
        if let Some(triple) = Triple::ALL.into_iter().find(|t| t.triple_string() == text) {
            return Some(triple);
        }
        let arch = text.split('-').next().unwrap_or_default();
        if arch.starts_with("spirv") && text.contains("vulkan") {
            return Some(Triple::SpirvVulkan);
        }
        Triple::ALL.into_iter().find(|t| {
            *t != Triple::SpirvVulkan && t.triple_string().split('-').next() == Some(arch)
        })
    }

    /// The calling convention that makes a function a kernel entry point (none on a CPU; a
    /// Vulkan entry point is marked by function attributes instead).
    pub const fn kernel_cc(self) -> Option<&'static str> {
        match self {
            Triple::Nvptx64 => Some("ptx_kernel"),
            Triple::Amdgcn => Some("amdgpu_kernel"),
            Triple::Spirv64 => Some("spir_kernel"),
            Triple::X86_64 | Triple::SpirvVulkan => None,
        }
    }

    /// The address space that holds results written back by a complete module (global memory).
    pub const fn result_space(self) -> u32 {
        match self {
            Triple::X86_64 => 0,
            Triple::SpirvVulkan => STORAGE_BUFFER,
            _ => 1,
        }
    }
}

/// The SPIR-V backend's address space of Vulkan's StorageBuffer storage class.
pub const STORAGE_BUFFER: u32 = 11;

/// The oldest LLVM version whose llc has a SPIR-V backend (of those judged).
pub const SPIRV_MIN_MAJOR: u32 = 22;
