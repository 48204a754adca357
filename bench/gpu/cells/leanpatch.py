"""The lean loop's "acquire on the final CAS" form, made from atomir's lean loop for the cell
timing harness (contender `ours:acquire-cas`).

atomir's lean loop keeps an ordered read-modify-write's order with fences that run once: a
leading `fence.release`/`fence.sc` before the loop, a relaxed `ld` and relaxed `atom.cas` inside
it, and a trailing `fence.acquire` after it. The other form the lean loop may take moves the
acquire onto the CAS: the loop's `atom.relaxed...cas` becomes `atom.acquire...cas` and the
trailing `fence.acquire` goes. The CAS that succeeds is then the acquire read the fence made of
it; a failed attempt is an acquire read too, which orders more, never less.

Where a path leaves the loop without a CAS (a loop that skips the CAS when the value would not
change, its old value being the first relaxed `ld` or a failed CAS's read), the first `ld`
becomes `ld.acquire` as well, so every value the loop can return comes from an acquire read.
The leading fence and everything else stay byte for byte.

A trailing `fence.acquire` is patched only where the code since the previous fence holds
exactly one `atom` (the loop's relaxed CAS) and at most one relaxed `ld` (before the loop's
label); any other shape is refused (`PatchError`), never guessed at.
"""
import re

from cellpatch import PatchError

LABEL = re.compile(r"^\s*([$\w]+):")
BRANCH = re.compile(r"^\s*(@!?%[\w$]+\s+)?bra(?:\.uni)?\s+([$\w]+);")
FENCE_ACQUIRE = re.compile(r"^\s*fence\.acquire\.(\w+);\s*$")


def _code(line):
    return line.split("//", 1)[0].strip()


def acquire_on_final_cas(ptx, name):
    """`ptx` with every lean loop of kernel `name` in the acquire-on-the-CAS form; PatchError
    where the kernel has none or one of another shape."""
    start = ptx.find(f".entry {name}(")
    if start < 0:
        raise PatchError(f"{name}: no such entry")
    end = ptx.find("\n}", start)
    lines = ptx[start:end].split("\n")
    labels = {m.group(1): i for i, line in enumerate(lines) if (m := LABEL.match(line))}
    fences = [i for i, line in enumerate(lines) if FENCE_ACQUIRE.match(line)]
    if not fences:
        raise PatchError(f"{name}: no trailing fence.acquire")
    for fence in reversed(fences):
        _patch_one(lines, labels, fence, name)
    return ptx[:start] + "\n".join(line for line in lines if line is not None) + ptx[end:]


def _patch_one(lines, labels, fence, name):
    region_start = max([i for i in range(fence) if lines[i] is not None
                        and _code(lines[i]).startswith(("fence.", "membar."))], default=0)
    back = fence - 1
    while back > region_start and (LABEL.match(lines[back]) or not _code(lines[back])):
        back -= 1
    branch = BRANCH.match(lines[back])
    if not branch or labels.get(branch.group(2), len(lines)) >= back:
        raise PatchError(f"{name}: the fence.acquire at line {fence} follows no backward branch")
    loop = labels[branch.group(2)]
    region = range(region_start + 1, fence)
    atoms = [i for i in region if _code(lines[i]).startswith("atom.")]
    loads = [i for i in region if _code(lines[i]).startswith("ld.") and not _code(lines[i]).startswith("ld.param")]
    if len(atoms) != 1 or not (loop < atoms[0] < back) or ".cas." not in lines[atoms[0]]:
        raise PatchError(f"{name}: the loop before line {fence} is not one CAS")
    if ".relaxed." not in lines[atoms[0]]:
        raise PatchError(f"{name}: the loop's CAS is not relaxed")
    if len(loads) > 1 or any(i > loop or ".relaxed." not in lines[i] for i in loads):
        raise PatchError(f"{name}: reads other than one relaxed ld before the loop")
    exits = set(range(back + 1, fence + 1))
    leaves_early = any(
        (m := BRANCH.match(lines[i])) and labels.get(m.group(2)) in exits
        for i in range(len(lines)) if i != back and lines[i] is not None)
    if leaves_early:
        if not loads:
            raise PatchError(f"{name}: a path leaves the loop early and no ld precedes it")
        lines[loads[0]] = lines[loads[0]].replace(".relaxed.", ".acquire.", 1)
    lines[atoms[0]] = lines[atoms[0]].replace(".relaxed.", ".acquire.", 1)
    lines[fence] = None
