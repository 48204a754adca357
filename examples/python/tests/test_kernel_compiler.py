"""The example compiler's kernels, rendered for sm_70 and sm_90, assembled by ptxas (12.9 for
sm_70, 13.5 for sm_90); its fragments for other backends and what they refuse."""

from __future__ import annotations

import glob
import os
import pathlib
import subprocess
import sys
from typing import Optional

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import atomir  # noqa: E402
import kernel_compiler  # noqa: E402

ROOT = HERE.parents[2]
PTXAS = {
    "sm_70": ("ptxas-12.9", "cu12/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas"),
    "sm_90": ("ptxas-13.5", "cu13/lib/python3*/site-packages/nvidia/cu13/bin/ptxas"),
}


def find_tool(name: str, pattern: str) -> Optional[str]:
    """The tool as `scripts/install-oracles` installs it (a pattern under the oracles folder,
    or an absolute path), or as ATOMIR_TOOL_<NAME> names it."""
    override = os.environ.get("ATOMIR_TOOL_" + name.upper().replace("-", "_").replace(".", "_"))
    if override:
        return override if os.path.isfile(override) else None
    oracles = os.environ.get("ATOMIR_ORACLES", str(ROOT / "target/oracles"))
    found = sorted(glob.glob(os.path.join(oracles, pattern)))
    return found[0] if found else None


def tool_or_skip(name: str, pattern: str) -> str:
    path = find_tool(name, pattern)
    if path is None:
        message = f"{name} not found; run scripts/install-oracles (or scripts/test) to install it"
        if os.environ.get("ATOMIR_REQUIRE_TOOLS") == "1":
            pytest.fail(f"{name} is required (ATOMIR_REQUIRE_TOOLS=1) but not installed: {message}")
        print(f"SKIPPED: {message}")
        pytest.skip(message)
    return path


@pytest.mark.parametrize("name", ["ptx:sm_70", "ptx:sm_90"])
def test_every_kernel_assembles_with_ptxas(name: str, tmp_path: pathlib.Path) -> None:
    target = atomir.Target(name)
    assert target.sm is not None
    tool, pattern = PTXAS[target.sm]
    ptxas = tool_or_skip(tool, pattern)
    kernels = kernel_compiler.compile_ptx(target)
    assert list(kernels) == ["histogram256", "max_reduce", "grad_accumulate", "ticket_lock"]
    for kernel_name, kernel in kernels.items():
        ptx = kernel.render()
        assert f".target {target.sm}" in ptx and kernel.atomics
        path = tmp_path / f"{kernel_name}.ptx"
        path.write_text(ptx)
        assembled = subprocess.run(
            [ptxas, "-arch", target.sm, str(path), "-o", str(tmp_path / f"{kernel_name}.cubin")],
            capture_output=True, text=True,
        )
        assert assembled.returncode == 0, f"{tool} refuses {kernel_name}:\n{assembled.stderr}\n{ptx}"
    print(f"{name}: {len(kernels)} kernels assembled by {tool}")


def test_each_atomic_is_the_nodes_code_on_the_compilers_registers() -> None:
    kernels = kernel_compiler.compile_ptx(atomir.Target("ptx:sm_90"))
    lock = kernels["ticket_lock"].render()
    assert "ld.acquire.gpu.global.b32 %r7, [%rd1];" in lock
    assert "st.release.gpu.global.b32 [%rd1], %r9;" in lock
    assert "atom.relaxed.gpu.global.add.u32 %r6, [%rd0]" in lock
    histogram = kernels["histogram256"].render()
    assert "red.relaxed.cta.shared::cta.add.u32 [%rd8], %r9;" in histogram
    assert "red.relaxed.gpu.global.add.u32 [%rd12], %r10;" in histogram
    grad = kernels["grad_accumulate"].render()
    # The f16 add on global memory: the warp's serial fold, one CAS of the 32-bit word per
    # attempt for the lanes whose halves lie in it.
    assert "match.any.sync.b64" in grad and "atom.relaxed.gpu.global.cas.b32" in grad
    assert "add.noftz.f16" not in grad


def test_the_amdgcn_fragments_are_taken_by_llvm_22(tmp_path: pathlib.Path) -> None:
    """Each fragment for `llvm:amdgcn` (LLVM 22), in a function of its bound values, through
    llvm-as and llc (gfx942)."""
    llvm_as = tool_or_skip("llvm-as-22", "/usr/lib/llvm-22/bin/llvm-as")
    llc = tool_or_skip("llc-22", "/usr/lib/llvm-22/bin/llc")
    target = atomir.Target("llvm:amdgcn")
    judged = 0
    for number, (line, fragment) in enumerate(kernel_compiler.other_backend_fragments(target)):
        assert fragment is not None, line
        path = tmp_path / f"f{number}.ll"
        path.write_text(kernel_compiler.llvm_module(target, fragment))
        for tool, args in [(llvm_as, ["-o", str(path) + ".bc"]),
                           (llc, ["-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-o", str(path) + ".s"])]:
            ran = subprocess.run([tool, str(path), *args], capture_output=True, text=True)
            assert ran.returncode == 0, f"{tool} refuses {line}:\n{ran.stderr}\n{path.read_text()}"
        judged += 1
    assert judged == 8
    print(f"{target}: {judged} fragments taken by llvm-as and llc 22")


def test_the_pvc_fragments_are_taken_by_genx_ir(tmp_path: pathlib.Path) -> None:
    """Each fragment for `visa:PVC`, in a kernel declaring its bound variables as atomir says,
    through GenX_IR."""
    genx = tool_or_skip("GenX_IR", "/usr/bin/GenX_IR")
    judged = 0
    for number, (line, fragment) in enumerate(kernel_compiler.other_backend_fragments(atomir.Target("visa:PVC"))):
        assert fragment is not None, line
        folder = tmp_path / f"f{number}"
        folder.mkdir()
        (folder / "atomic.visaasm").write_text(kernel_compiler.visa_kernel(fragment))
        ran = subprocess.run(
            [genx, "atomic.visaasm", "-platform", "PVC", "-output"], cwd=folder, capture_output=True, text=True,
        )
        errors = folder / "atomic.errors.txt"
        log = ran.stdout + ran.stderr + (errors.read_text() if errors.exists() else "")
        assert ran.returncode == 0, f"GenX_IR refuses {line}:\n{log}\n{kernel_compiler.visa_kernel(fragment)}"
        judged += 1
    assert judged == 8
    print(f"visa:PVC: {judged} fragments taken by GenX_IR")


def test_other_backends_fragments_and_refusals() -> None:
    for name in ["visa:PVC", "llvm:amdgcn"]:
        report = kernel_compiler.fragments_for(atomir.Target(name))
        assert len(report) == 8 and all(line.startswith(str(atomir.Target(name))) for line in report)
        print("\n".join(report))
    tgllp = kernel_compiler.fragments_for(atomir.Target("visa:TGLLP"))
    refused = [line for line in tgllp if "refused" in line]
    assert len(refused) == 2 and all("[rule visa.svm-no-slm]" in line and "visa:DG2" in line for line in refused)


def run_gpu_script(out: pathlib.Path, wrong: str = "") -> "subprocess.CompletedProcess[str]":
    environment = dict(os.environ, PYTHONPATH=str(HERE / "fake_cupy"), FAKE_CUPY_WRONG=wrong)
    return subprocess.run(
        [sys.executable, str(HERE.parent / "run_gpu.py"), str(out)],
        capture_output=True, text=True, env=environment, timeout=600,
    )


def test_the_gpu_script_runs_checks_and_records_with_a_stand_in_for_cupy(tmp_path: pathlib.Path) -> None:
    """The GPU script end to end, CuPy replaced by `fake_cupy` (each kernel computed as it is
    meant, on the host): its launches, checks and JSON record work, and a wrong result fails."""
    import json

    out = tmp_path / "gpu.json"
    ran = run_gpu_script(out)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    record = json.loads(out.read_text())
    assert {"device", "driver", "date", "atomir", "results"} <= set(record) and record["all_ok"]
    assert len(record["results"]) == 8
    assert {r["target"] for r in record["results"]} == {"ptx:sm_70@8.8", "ptx:sm_90@8.8"}
    assert "8 passed, 0 failed" in ran.stdout
    for kernel in ["histogram256", "max_reduce", "grad_accumulate", "ticket_lock"]:
        wrong = run_gpu_script(tmp_path / f"{kernel}.json", wrong=kernel)
        assert wrong.returncode == 1, (kernel, wrong.stdout + wrong.stderr)
        failed = [r for r in json.loads((tmp_path / f"{kernel}.json").read_text())["results"] if not r["ok"]]
        assert {r["kernel"] for r in failed} == {kernel} and len(failed) == 2


def test_the_wheel_kept_for_the_gpu_machine_is_this_packages(tmp_path: pathlib.Path) -> None:
    """`examples/python/gpu` installs the wheel kept in `examples/python/wheel` (the GPU machine
    has no network and no Rust): it installs here too, has this package's stubs and API, and
    runs the GPU script (against the stand-in for CuPy)."""
    import json
    import zipfile

    (wheel,) = (HERE.parent / "wheel").glob("atomir-*-cp39-abi3-*manylinux*_x86_64.whl")
    with zipfile.ZipFile(wheel) as archive:
        kept_stubs = archive.read("atomir/__init__.pyi").decode()
    assert kept_stubs == (ROOT / "python/atomir/__init__.pyi").read_text(), "rebuild the kept wheel"
    environment = dict(os.environ, PYTHON=sys.executable, PYTHONPATH=str(HERE / "fake_cupy"))
    out = tmp_path / "gpu.json"
    ran = subprocess.run(
        ["bash", str(HERE.parent / "gpu"), str(out)], capture_output=True, text=True, env=environment,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert json.loads(out.read_text())["all_ok"]
    probe = "import atomir, sys; print(sorted(atomir.__all__), atomir.__file__)"
    site = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--target",
         str(tmp_path / "site"), str(wheel)], capture_output=True, text=True,
    )
    assert site.returncode == 0, site.stderr
    kept = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True,
        env=dict(os.environ, PYTHONPATH=str(tmp_path / "site")), cwd=tmp_path,
    )
    assert kept.returncode == 0, kept.stderr
    assert str(tmp_path / "site") in kept.stdout
    assert kept.stdout.split(" /")[0].strip() == str(sorted(atomir.__all__))
