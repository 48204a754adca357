# Replaces each `@p match.any.sync.b64 D, K, A;` of atomir's PTX (stdin to stdout) by a grouping from
# five ballots where the active lanes' keys lie within 32 of each other (redux.sync min/max of
# the key's two halves), `match.any.sync` otherwise. An experiment on the GPU, not applied:
# bench/RESULTS.md, "A leaner word fold, and lanes retrying on their own".
import re, sys
pat = re.compile(r'^(\s*)@(%_p\d+) match\.any\.sync\.b64 (%_r\d+), (%_d\d+), (%_r\d+);$')
n = [0]
def repl(m):
    ind, P, D, K, A = m.groups()
    i = n[0]; n[0] += 1
    x = lambda s: f'%xb{i}_{s}'
    L = [f'{ind}{{',
         f'{ind}.reg .b32 {x("lo")}, {x("hi")}, {x("mn")}, {x("mx")}, {x("hmn")}, {x("hmx")}, {x("d")}, {x("b")}, {x("acc")}, {x("t")};',
         f'{ind}.reg .pred {x("ok")}, {x("q")}, {x("bit")}, {x("use")}, {x("match")};',
         f'{ind}mov.b64 {{{x("lo")}, {x("hi")}}}, {K};',
         f'{ind}@{P} redux.sync.min.u32 {x("mn")}, {x("lo")}, {A};',
         f'{ind}@{P} redux.sync.max.u32 {x("mx")}, {x("lo")}, {A};',
         f'{ind}@{P} redux.sync.min.u32 {x("hmn")}, {x("hi")}, {A};',
         f'{ind}@{P} redux.sync.max.u32 {x("hmx")}, {x("hi")}, {A};',
         f'{ind}sub.u32 {x("d")}, {x("mx")}, {x("mn")};',
         f'{ind}setp.lt.u32 {x("ok")}, {x("d")}, 32;',
         f'{ind}setp.eq.u32 {x("q")}, {x("hmn")}, {x("hmx")};',
         f'{ind}and.pred {x("ok")}, {x("ok")}, {x("q")};',
         f'{ind}and.pred {x("use")}, {x("ok")}, {P};',
         f'{ind}not.pred {x("q")}, {x("ok")};',
         f'{ind}and.pred {x("match")}, {x("q")}, {P};',
         f'{ind}sub.u32 {x("d")}, {x("lo")}, {x("mn")};',
         f'{ind}mov.b32 {x("acc")}, {A};']
    for k in range(5):
        L += [f'{ind}and.b32 {x("t")}, {x("d")}, {1<<k};',
              f'{ind}setp.ne.u32 {x("bit")}, {x("t")}, 0;',
              f'{ind}@{x("use")} vote.sync.ballot.b32 {x("b")}, {x("bit")}, {A};',
              f'{ind}not.b32 {x("t")}, {x("b")};',
              f'{ind}selp.b32 {x("t")}, {x("b")}, {x("t")}, {x("bit")};',
              f'{ind}and.b32 {x("acc")}, {x("acc")}, {x("t")};']
    L += [f'{ind}@{x("use")} mov.b32 {D}, {x("acc")};',
          f'{ind}@{x("match")} match.any.sync.b64 {D}, {K}, {A};',
          f'{ind}}}']
    return '\n'.join(L)
out = []
for line in sys.stdin.read().split('\n'):
    m = pat.match(line)
    out.append(repl(m) if m else line)
sys.stdout.write('\n'.join(out))
