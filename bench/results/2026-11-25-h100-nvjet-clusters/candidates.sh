#!/usr/bin/env bash
set -u
T0=$(date +%s)
W=/tmp/wc; rm -rf $W; mkdir -p $W
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=ON > $W/cmake.log 2>&1
cmake --build build-gpu -j16 --target hgemm_cli > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
export HGEMM_JIT=1 HGEMM_JIT_CACHE=/tmp/jitc HGEMM_USER_TABLE=/tmp/absent
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/env.txt
$H jit build $(cut -d' ' -f2- bench/results/2026-11-25-h100-nvjet-clusters/candidates.txt | tr ' ' '\n' | sort -u) --jobs 16 > $W/jit.log 2>&1; echo "jit rc $? $(( $(date +%s) - T0 )) s"
i=0
while read s cfgs; do
  i=$((i+1))
  imp=cublaslt-best; for c in $cfgs; do imp=$imp,config:$c; done
  timeout 90 $H bench --shape $s --impl $imp --modes graph --layout tn --acc f32 --loops 9 --out $W/cand-$i.csv < /dev/null > $W/cand-$i.log 2>&1
  echo "$s rc $? $(( $(date +%s) - T0 )) s"
done < bench/results/2026-11-25-h100-nvjet-clusters/candidates.txt
cd $W && tar czf $OUT/cand.tgz *.csv *.log env.txt
