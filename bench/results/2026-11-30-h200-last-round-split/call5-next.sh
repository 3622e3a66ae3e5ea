#!/bin/bash
# Landing gate for the last round's split as a kernel flavour (next.patch: the working tree's change on main).
# 1) build ref (main: the patch reversed) and new (the working tree, with the GPU tests);
# 2) new: test_sm90_family, memcheck_sm90, memcheck_sm90_split_k, memcheck_sm90_tail_split;
# 3) A/B ref vs new, each interleaved with cublaslt-best (graph): the calls the rule changes
#    (rule-calls.txt: m n k layout acc), two rounds; then llm-heldout and llm-fresh, fp32, tn,nn;
# 4) leads: regret-probe.txt (dispatch-replay --regret --min 1.04 over the suites' picks: another
#    config measured 4% faster in some earlier file), pick and that config and cublaslt-best
#    interleaved in one process, new build, as time allows.
# Run: REFHASH=<main> NEWHASH=<tree> bash scratch/ab/call5-next.sh  (carry scratch/ab)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o/ab $o/tests $o/rule
t0=$(date +%s); unset HGEMM_JIT
el() { echo $(( $(date +%s) - t0 )); }
git apply -R scratch/ab/next.patch || { echo UNPATCH FAILED; exit 1; }
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=$REFHASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-ref
echo "build $(el) s"
git apply scratch/ab/next.patch || { echo PATCH FAILED; exit 1; }
cmake -S . -B /tmp/b -DHGEMM_GIT_HASH=$NEWHASH >> $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli test_sm90_family >> $o/build.log 2>&1 || { echo REBUILD FAILED; grep -B2 -A12 "error" $o/build.log | head -60; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-new
echo "rebuild $(el) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
timeout 120 stdbuf -oL /tmp/b/tests/test_sm90_family > $o/tests/sm90_family.log 2>&1; echo "family rc=$?"
grep -c "^ok" $o/tests/sm90_family.log; grep -m8 "^FAIL" $o/tests/sm90_family.log; tail -n 2 $o/tests/sm90_family.log
(cd /tmp/b && timeout 150 ctest -R "memcheck_sm90" --output-on-failure > $o/tests/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "Test +#|tests passed" $o/tests/memcheck.log)
echo "tests $(el) s"; tar czf $OUT/all.tgz -C $o --exclude build.log .
for round in 1 2; do
  while read m n k lay acc; do
    for side in ref new; do
      timeout 30 /tmp/b/hgemm-$side bench --shape ${m}x${n}x${k} --layout $lay --acc $acc --modes graph \
        --impl hgemm,cublaslt-best --out $o/rule/rule-$round-$side-$m-$n-$k-$lay-$acc.csv >> $o/rule/bench.log 2>&1 || echo "rule rc=$? $side $m $n $k $lay $acc"
    done
  done < scratch/ab/rule-calls.txt
  echo "rule round $round $(el) s"
done
tar czf $OUT/all.tgz -C $o --exclude build.log .
for s in llm-heldout llm-fresh; do
  for side in ref new; do
    [ $(el) -lt 470 ] || break
    timeout $(( 490 - $(el) )) /tmp/b/hgemm-$side bench --suite $s --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 \
      --out $o/ab/$s-f32-$side.csv > $o/ab/$s-f32-$side.log 2>&1 || echo "suite rc=$? $s $side"
    echo "$s $side $(el) s"
  done
done
mkdir -p $o/probe
while read m n k lay acc pick alt; do
  [ $(el) -lt 540 ] || break
  timeout 20 /tmp/b/hgemm-new bench --shape ${m}x${n}x${k} --layout $lay --acc $acc --modes graph \
    --impl config:$pick,config:$alt,cublaslt-best --out $o/probe/probe-$m-$n-$k-$lay-$acc.csv >> $o/probe/bench.log 2>&1 || echo "probe rc=$? $m $n $k $lay $acc"
done < scratch/ab/regret-probe.txt
echo "probe $(el) s"
gzip $o/ab/* $o/rule/* $o/tests/*.log $o/probe/*
tar czf $OUT/all.tgz -C $o --exclude build.log .
