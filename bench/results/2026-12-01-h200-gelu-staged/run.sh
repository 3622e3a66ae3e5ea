#!/bin/bash
# The tanh GELU applied as a TMA store stages each chunk (deferred epilogues: beside the next
# tile's wgmma) against main c241415 (ref): fused/plain over issue 20's twelve shapes, builds
# alternated; plain llm-heldout against cublaslt-best in both; verify; test_gemm_general.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 15; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf scratch/ab/ref.tar.gz -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=c241415 > $o/build-ref.log 2>&1 &&
  cmake --build /tmp/ref/b -j 6 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
refpid=$!
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=c241415+gelu-staged > $o/build.log 2>&1 &&
  cmake --build b -j 10 --target hgemm_cli test_gemm_general >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
wait $refpid
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
go() { [ $(( $(date +%s)-t0 )) -lt ${1:-480} ] && [ -x b/hgemm ] && [ -x /tmp/ref/b/hgemm ]; }
S=bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt
ab() {  # round dtype epilogue
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    go && $bin bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
      --dtype $2 --epilogue $3 --out $o/epi-$side-$1-$2-$3.csv > $o/epi-$side-$1-$2-$3.log 2>&1
    echo "$side $1 $2 $3 rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
}
ab 1 f16 bias_gelu
ab 1 f16 gelu
ab 2 f16 bias_gelu
ab 1 bf16 bias_gelu
ab 2 f16 gelu
for side in ref new; do
  bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
  go && $bin bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph --layout tn --acc f32 \
    --out $o/heldout-$side.csv > $o/heldout-$side.log 2>&1
  echo "heldout $side rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
for dt in f16 bf16; do
  go && timeout 60 b/hgemm verify --suite llm-heldout --acc f32 --dtype $dt --epilogue bias_gelu --out $o/verify-heldout-$dt.csv > $o/verify-heldout-$dt.log 2>&1
  echo "verify heldout $dt rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  go && timeout 60 b/hgemm verify --suite $S --acc f32 --dtype $dt --epilogue bias_gelu --out $o/verify-$dt.csv > $o/verify-$dt.log 2>&1
  echo "verify $dt rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
go 440 && timeout 150 b/tests/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go 530 && timeout 40 compute-sanitizer --tool memcheck --error-exitcode 1 b/tests/test_gemm_general --quick > $o/memcheck_gemm_general.log 2>&1; echo "memcheck_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 -n $o/*.log $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; zcat $o/test_gemm_general.log.gz 2>/dev/null | tail -1
