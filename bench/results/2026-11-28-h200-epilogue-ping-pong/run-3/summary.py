# Dispatch with the rule (branch epilogue-ping-pong, ba47949): bias + GELU over plain, and
# cuBLASLt over hgemm, per shape (python3 summary.py, from this folder).
import csv, gzip, math
def load(f):
    d = {}
    for x in csv.DictReader(l for l in gzip.open(f, 'rt') if not l.startswith('#')):
        d[(x['m'], x['n'], x['k'], x['impl'])] = (float(x['ms']), x['disposition'], x['detail'][:60])
    return d
a, b = load('epi-rule-none.csv.gz'), load('epi-rule-bias_gelu.csv.gz')
r = {'bg/plain': [], 'lt/h bg': [], 'lt/h plain': []}
for k in a:
    if k[3] != 'hgemm':
        continue
    c = k[:3] + ('cublaslt-best',)
    v = {'bg/plain': b[k][0] / a[k][0], 'lt/h bg': b[c][0] / b[k][0], 'lt/h plain': a[c][0] / a[k][0]}
    for n, x in v.items():
        r[n].append(x)
    print('x'.join(k[:3]), b[k][1], ' '.join(f'{n} {x:.3f}' for n, x in v.items()), b[k][2])
print('geomean', {n: round(math.exp(sum(map(math.log, x)) / len(x)), 3) for n, x in r.items()})
