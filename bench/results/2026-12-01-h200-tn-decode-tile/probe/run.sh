#!/bin/bash
# TN decode rule: the narrow swap-AB tile from 1 token (new) against main's decode kernels below
# 12 tokens (ref), alternated, cublaslt-best the control.
export HGEMM_USER_TABLE=/tmp/absent-user.table
o=/tmp/o2; rm -rf $o; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
AB_REF=scratch/ab/ref.tar.gz AB_REF_HASH=b74e639 HGEMM_GIT_HASH=b74e639+tn-swap-from-1 AB_LAYOUTS=tn AB_ROUNDS=2 \
  ARCHIVE=$OUT/all.tgz timeout 585 scripts/gpu-check $o ab-scratch/fresh-small.txt ab-scratch/tn-decode-probe.txt > $o/gpu-check.log 2>&1
echo "rc=$?"
gzip -9 -n $o/*.csv $o/*.log 2>/dev/null; tar czf $OUT/all.tgz -C $o .
grep -E "^step|build:" $o/gpu-check.log 2>/dev/null || zcat $o/gpu-check.log.gz | grep -E "^step|build:"
