#!/bin/sh
test_description='pyscan: static scan of the bundled CUDA examples'
. ./test-lib.sh
test_done
