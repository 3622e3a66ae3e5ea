#!/bin/bash
# Ran from the repository root with scratch/ (ignored) carried: ref.tar.gz (git archive of
# a9020ff without bench/results, data, docs, examples), fp16-no-defer.patch, three-wg.txt and
# ../2026-11-28-h200-api-bars/epilogue-shapes.txt copied there.
# One device call: (1) fp16 accumulation on the three-warpgroup tiles, main (ref, deferring their
# epilogue with a spill) against storing at the tile's end (new, fp16-no-defer.patch), both CLIs
# built side by side, three-wg.txt, hgemm and cublaslt-best interleaved, alternated, two rounds;
# (2) main's suites at its head with the ref build: llm-heldout and llm-fresh against
# cublaslt-best (graph, TN and NN, fp32 and fp16), llm-heldout's column-major A (hgemm-acol,
# the row-major call the control), issue 20's twelve epilogue shapes with bias + GELU against
# hgemm-plain; (3) what torch's GELU gives for -inf, +inf and NaN.
set -u
o=/tmp/o1; rm -rf $o; mkdir -p $o/ab $o/head; t0=$(date +%s); unset HGEMM_JIT
el() { echo $(( $(date +%s) - t0 )); }
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 15; tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
python3 - > $o/torch-gelu.txt 2>&1 <<'PY'
import torch, torch.nn.functional as F
print("torch", torch.__version__)
x = torch.tensor([-float("inf"), float("inf"), float("nan"), -70000.0, -3.0])
for dev in ("cpu", "cuda"):
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        for ap in ("none", "tanh"):
            print(dev, dt, ap, F.gelu(x.to(dev, dt), approximate=ap).tolist())
PY
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf scratch/ref.tar.gz -C /tmp/ref && ln -s $PWD/data /tmp/ref/data
( cmake -S /tmp/ref -B build-ref -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=a9020ff > $o/build-ref.log 2>&1 &&
  cmake --build build-ref -j 8 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
refpid=$!
git apply scratch/fp16-no-defer.patch || echo "PATCH FAILED" >> $o/progress
cmake -S . -B build-ab -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_PTXAS_VERBOSE=ON -DHGEMM_GIT_HASH=a9020ff+nodefer > $o/build.log 2>&1 &&
  cmake --build build-ab -j 8 --target hgemm_cli >> $o/build.log 2>&1 || echo "BUILD FAILED" >> $o/progress
wait $refpid
echo "built $(el) s" >> $o/progress
for r in 1 2; do
  for side in ref new; do
    bin=build-ab/hgemm; [ $side = ref ] && bin=build-ref/hgemm
    [ $(el) -lt 420 ] && [ -x $bin ] && timeout 60 $bin bench --suite scratch/three-wg.txt --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f16 \
      --out $o/ab/f16-$side-$r.csv > $o/ab/f16-$side-$r.log 2>&1
    echo "f16 $side $r rc=$? $(el) s" >> $o/progress
  done
done
grep -B1 -E "[1-9][0-9]* bytes spill stores" $o/build.log | c++filt > $o/ab/spills-new.txt
b=build-ref/hgemm
for acc in f32 f16; do
  for s in llm-heldout llm-fresh; do
    [ $(el) -lt 500 ] || break
    timeout $(( 560 - $(el) )) $b bench --suite $s --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc $acc \
      --out $o/head/$s-$acc.csv > $o/head/$s-$acc.log 2>&1
    echo "$s $acc rc=$? $(el) s" >> $o/progress
  done
done
[ $(el) -lt 520 ] && timeout $(( 570 - $(el) )) $b bench --suite llm-heldout --impl hgemm,hgemm-acol --modes graph --layout tn,nn --acc f32 \
  --out $o/head/acol-llm-heldout-f32.csv > $o/head/acol.log 2>&1; echo "acol rc=$? $(el) s" >> $o/progress
[ $(el) -lt 540 ] && timeout $(( 580 - $(el) )) $b bench --suite scratch/epilogue-shapes.txt --impl hgemm,hgemm-plain,cublaslt-best --epilogue bias_gelu --modes graph --layout tn --acc f32 \
  --out $o/head/bias_gelu-f32.csv > $o/head/bias_gelu.log 2>&1; echo "bias_gelu rc=$? $(el) s" >> $o/progress
kill $arch; gzip -9 -n $o/*/*.log $o/*/*.csv $o/*.log 2>/dev/null; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
