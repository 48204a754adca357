# Rewrites the word fold of atomir's PTX at a09aa95 (stdin to stdout) so that its group
# primitives sync on every lane of the fold rather than on each word's lanes: the word's
# `redux.sync.or` becomes a two-round or-scan over the addresses' highest lanes, and the
# `bar.warp.sync` and the broadcast take the fold's active mask. The experiment that showed
# what per-group masks cost on the GPU: bench/RESULTS.md, "Warp primitives synced on the
# lanes that execute them together".
import re, sys
text = sys.stdin.read()
lines = text.split('\n')
out = []
actives = [m.group(1) for l in lines for m in [re.match(r'\s*activemask\.b32 (%_r\d+);', l)] if m]
if len(actives) < 2:
    sys.stdout.write(text); sys.exit(0)
A2 = actives[1]
i = 0
W = None
contrib_pred = None
while i < len(lines):
    l = lines[i]
    m = re.match(r'\s*setp\.eq\.u32 (%_p\d+), (%_r\d+), 0x0;', l)
    if m and i > 0 and 'lanemask_gt' in lines[i-2] + lines[i-1]:
        contrib_pred = contrib_pred or m.group(1)
    m = re.match(r'\s*setp\.eq\.u32 (%_p\d+), (%_r\d+), (%_r\d+);', l)
    if m and i + 3 < len(lines) and re.match(r'\s*@' + re.escape(m.group(1)) + r' bra ', lines[i+2]) \
            and 'redux.sync.or.b32' in lines[i+4]:
        W = m.group(3)
        acc = re.match(r'\s*mov\.b32 (%_r\d+), (%_r\d+);', lines[i+1])
        dst, src = acc.group(1), acc.group(2)
        out.append(l); out.append(lines[i+1])
        # lines[i+2] branch dropped; lines[i+3] label kept; lines[i+4] redux; lines[i+5] mov; lines[i+6] label
        out.append(lines[i+3])
        C = contrib_pred
        out += [f'\t{{', '\t.reg .b32 %u_cb, %u_lt, %u_prev, %u_lane, %u_src, %u_v, %u_p2;', '\t.reg .pred %u_has;',
                f'\tvote.sync.ballot.b32 %u_cb, {C}, {A2};', '\tmov.u32 %u_lt, %lanemask_lt;',
                f'\tand.b32 %u_lt, %u_lt, {W};', '\tand.b32 %u_lt, %u_lt, %u_cb;', '\tbfind.u32 %u_prev, %u_lt;',
                '\tmov.u32 %u_lane, %laneid;', f'\tmov.b32 {dst}, {src};',
                '\tsetp.ne.u32 %u_has, %u_prev, 0xffffffff;', '\tselp.b32 %u_src, %u_prev, %u_lane, %u_has;',
                f'\tshfl.sync.idx.b32 %u_v, {dst}, %u_src, 0x1f, {A2};',
                f'\tshfl.sync.idx.b32 %u_p2, %u_prev, %u_src, 0x1f, {A2};',
                f'\t@%u_has or.b32 {dst}, {dst}, %u_v;',
                '\tsetp.ne.u32 %u_has, %u_p2, 0xffffffff;', '\tselp.b32 %u_src, %u_p2, %u_lane, %u_has;',
                f'\tshfl.sync.idx.b32 %u_v, {dst}, %u_src, 0x1f, {A2};',
                f'\t@%u_has or.b32 {dst}, {dst}, %u_v;', '\t}']
        out.append(lines[i+6])
        i += 7
        continue
    out.append(l)
    i += 1
text = '\n'.join(out)
assert W and contrib_pred, "shape not found"
text = text.replace(f'bar.warp.sync {W};', f'bar.warp.sync {A2};')
text = re.sub(r'(shfl\.sync\.idx\.b32 %_r\d+, %_r\d+, %_r\d+, 0x1f, )' + re.escape(W) + ';', r'\g<1>' + A2 + ';', text)
sys.stdout.write(text)
