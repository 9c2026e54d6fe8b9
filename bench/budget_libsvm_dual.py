#!/usr/bin/env python3
"""LIBSVM's dual optimum on a9a at the paper's settings (C = 32, gamma = 2^-7,
with bias), the oracle for BSCA with an unregularized bias (the same dual
problem): libsvm-official prints ``obj`` = -D* (C scaling). Compare with the
BSCA_BIAS dual column of bench/results/budget_paper.md.

    python bench/budget_libsvm_dual.py > bench/results/budget_libsvm_dual.txt

(about 60-200 s CPU on the shared machine; the time is not a benchmark).
"""
import argparse
import time


def main():
    argparse.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    from libsvm.svmutil import svm_parameter, svm_problem, svm_train

    from stochsvm import _testing

    Xtr, ytr, Xte, yte = _testing.load_benchmark("a9a")
    rows = [{int(j) + 1: float(v) for j, v in zip(Xtr.indices[Xtr.indptr[i]:Xtr.indptr[i + 1]],
                                                  Xtr.data[Xtr.indptr[i]:Xtr.indptr[i + 1]])}
            for i in range(Xtr.shape[0])]
    prob = svm_problem(list(ytr), rows)
    c0 = time.process_time()
    svm_train(prob, svm_parameter("-s 0 -t 2 -c 32 -g 0.0078125 -e 0.001 -m 200"))
    print("cpu", time.process_time() - c0, flush=True)


if __name__ == "__main__":
    main()
