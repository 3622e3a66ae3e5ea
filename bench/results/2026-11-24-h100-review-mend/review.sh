#!/usr/bin/env bash
set -u
H=$1; O=$OUT/rv; mkdir -p $O
HGEMM_GIT_HASH=$H scripts/gpu-check $O/gpu tests > $O/gpu-check.log 2>&1; echo "gpu-check rc $?" >> $O/rc.txt
B=build-gpu/hgemm
timeout 60 $B bench --suite scratch/heads.txt --batch 64 --impl hgemm,cublaslt-best --modes graph --layout tn --acc f32 --out $O/batch64-f32.csv > $O/batch64.log 2>&1; echo "batch rc $?" >> $O/rc.txt
timeout 90 $B bench --suite scratch/epi.txt --epilogue bias_gelu --impl hgemm,hgemm-unfused,cublaslt-best --modes graph --layout tn --acc f32 --out $O/bias_gelu-f32.csv > $O/epi.log 2>&1; echo "epi rc $?" >> $O/rc.txt
cat $O/rc.txt; tail -n 6 $O/gpu-check.log; grep "ms:" $O/batch64.log $O/epi.log
