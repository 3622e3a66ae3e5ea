#!/bin/bash
# Second landing call (machine still warm): fp16 suites A/B with the binaries call5-next.sh built.
set -u
[ -x /tmp/b/hgemm-ref ] && [ -x /tmp/b/hgemm-new ] || { echo "COLD: no /tmp/b binaries"; exit 3; }
o=/tmp/o2; rm -rf $o; mkdir -p $o; t0=$(date +%s); unset HGEMM_JIT
for s in llm-heldout llm-fresh; do
  for side in ref new; do
    timeout 150 /tmp/b/hgemm-$side bench --suite $s --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f16 \
      --out $o/$s-f16-$side.csv > $o/$s-f16-$side.log 2>&1 || echo "suite rc=$? $s $side"
    echo "$s $side $(( $(date +%s) - t0 )) s"
  done
done
gzip $o/*; tar czf $OUT/all2.tgz -C $o .
