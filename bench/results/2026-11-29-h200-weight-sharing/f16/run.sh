#!/bin/bash
# Call 2: f16 A/B on the calls whose pick the new row may change, then the GPU suite.
set -u
export HGEMM_USER_TABLE=/tmp/absent-user.table
export AB_REF=scratch/ab/ref.tar AB_REF_HASH=e338fb9 AB_ROUNDS=2 AB_TAG=share AB_ACCS=f16
export ARCHIVE=$OUT/all.tgz HGEMM_GIT_HASH=$NEW_HASH TESTS_CPU=0
timeout 585 scripts/gpu-check /tmp/gt ab-scratch/ab/f16.txt (f16.txt here) tests
rc=$?
tar czf $OUT/all.tgz -C /tmp/gt .
echo "rc=$rc"
