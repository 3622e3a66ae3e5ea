#!/usr/bin/env bash
set -u
T0=$(date +%s)
W=/tmp/w3; rm -rf $W; mkdir -p $W
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=OFF > $W/cmake.log 2>&1
cmake --build build-gpu -j16 > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/env.txt
(cd build-gpu && timeout 330 ctest -R "^(test_jit|test_sm90_family)$" --output-on-failure > $W/tests.log 2>&1); echo "tests rc $? $(( $(date +%s) - T0 )) s"
grep -E "passed|failed|FAIL" $W/tests.log | tail -8
export HGEMM_USER_TABLE=/tmp/absent
i=0
while read s acc old new; do
  i=$((i+1))
  timeout 30 $H bench --shape $s --impl config:$old,config:$new,cublaslt-best --modes graph --layout nn --acc $acc --out $W/pair-$i.csv < /dev/null > $W/pair-$i.log 2>&1
  tw=${new/_nn_swap/_tn_swap}
  timeout 30 $H bench --shape $s --impl config:$tw,cublaslt-best --modes graph --layout tn --acc $acc --out $W/tn-$i.csv < /dev/null > $W/tn-$i.log 2>&1
  [ $(( $(date +%s) - T0 )) -gt 520 ] && break
done < scratch/pairs.txt
echo "pairs $i $(( $(date +%s) - T0 )) s"
for s in 1x1536x7168 8x5120x5120 16x2048x4096 4x28672x3584; do
  imp=hgemm,cublaslt-best
  for sk in 1 2 4 8; do imp=$imp,config:sm90_ws_32x64x64_s12_c1x1_w2_m8_st_sk${sk}_f32_nn_swap,config:sm90_ws_48x64x64_s12_c1x1_w1_m8_st_sk${sk}_f32_nn_swap; done
  timeout 40 $H bench --shape $s --impl $imp --modes graph --layout nn --acc f32 --out $W/dec-$s.csv < /dev/null > $W/dec-$s.log 2>&1
  [ $(( $(date +%s) - T0 )) -gt 570 ] && break
done
echo "done $(( $(date +%s) - T0 )) s"
cd $W && tar czf $OUT/w3.tgz *.csv *.log env.txt
