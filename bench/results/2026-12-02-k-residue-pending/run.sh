#!/bin/bash
# A column-major A with K % 8 != 0 on the sm90 kernels (new: the working tree with
# k-residue.patch applied) against main (ref): both CLIs built side by side; on new,
# test_gemm_general (its new test_any_k_weight_gradients and the random calls) and the memcheck
# of --quick; then the weight-gradient shapes of dw-shapes.txt, NN, A column-major (hgemm-acol)
# beside the row-major call (hgemm) and cublaslt-best, ref and new alternated, two rounds, fp32
# and fp16 accumulation. Needs REF=<main's short hash> and scratch/ref.tar.gz (git archive of main
# without bench/results, data, docs, examples), carried. About 330 s with the machine's start;
# run the whole GPU suite (scripts/gpu-check OUT tests) on the tree before landing.
set -u
: "${REF:?set REF to the short hash of main}"
o=/tmp/o4; rm -rf $o; mkdir -p $o; t0=$(date +%s); unset HGEMM_JIT
el() { echo $(( $(date +%s) - t0 )); }
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 10; tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
here=$(dirname "$0")
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf scratch/ref.tar.gz -C /tmp/ref && ln -s $PWD/data /tmp/ref/data
( cmake -S /tmp/ref -B build-ref -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$REF > $o/build-ref.log 2>&1 &&
  cmake --build build-ref -j 8 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
refpid=$!
cmake -S . -B build-ab -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=$REF+k-residue > $o/build.log 2>&1 &&
  cmake --build build-ab -j 8 --target hgemm_cli test_gemm_general >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; grep -A8 -m3 "error" $o/build.log >> $o/progress; }
echo "built new $(el) s" >> $o/progress
timeout 200 build-ab/tests/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(el) s" >> $o/progress
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 build-ab/tests/test_gemm_general --quick > $o/memcheck.log 2>&1; echo "memcheck rc=$? $(el) s" >> $o/progress
wait $refpid
echo "built ref $(el) s" >> $o/progress
S=$here/dw-shapes.txt
for r in 1 2; do
  for side in ref new; do
    bin=build-ab/hgemm; [ $side = ref ] && bin=build-ref/hgemm
    for acc in f32 f16; do
      timeout 40 $bin bench --suite $S --impl hgemm,hgemm-acol,cublaslt-best --modes graph --layout nn --acc $acc \
        --out $o/dw-$side-$acc-$r.csv > $o/dw-$side-$acc-$r.log 2>&1
      echo "dw $side $acc $r rc=$? $(el) s" >> $o/progress
    done
  done
done
kill $arch; gzip -9 -n $o/*.log $o/*.csv 2>/dev/null; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
