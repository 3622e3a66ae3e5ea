#!/bin/bash
# Held-out: the H200's own table against the H100's (two rounds, alternated), then llm-tune (the
# tuned shapes) through the H200's table; every run hgemm against cublaslt-best interleaved.
set -u
t0=$(date +%s); out=${OUT:?}
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw --format=csv > $out/env.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=${HGEMM_GIT_HASH:?} > $out/build.log 2>&1 &&
  cmake --build build-gpu -j $(nproc) >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
mkdir -p /tmp/h100 && cp data/tables/nvidia-h100-* /tmp/h100/
build-gpu/hgemm info > $out/info-h200.log 2>&1; HGEMM_DB=/tmp/h100 build-gpu/hgemm info > $out/info-h100.log 2>&1
for r in ${ROUNDS:-1 2}; do for t in h200 h100; do for acc in f32 f16; do
  db=/tmp/h100; [ $t = h200 ] && db=$PWD/data/tables
  HGEMM_DB=$db build-gpu/hgemm bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph,latency \
    --layout tn,nn --acc $acc --out $out/heldout-$t-$r-$acc.csv > $out/heldout-$t-$r-$acc.log 2>&1
  echo "heldout $t $r $acc rc=$? $(( $(date +%s) - t0 )) s"
done; done; done
for acc in ${TUNED_ACCS:-f32 f16}; do
  build-gpu/hgemm bench --suite llm-tune --impl hgemm,cublaslt-best --modes graph,latency \
    --layout tn,nn --acc $acc --out $out/tuned-llm-$acc.csv > $out/tuned-llm-$acc.log 2>&1
  echo "llm-tune $acc rc=$? $(( $(date +%s) - t0 )) s"
done
gzip -9 -n $out/*.csv; tar czf /tmp/all.tgz -C $out . && rm -f $out/* && mv /tmp/all.tgz $out/
