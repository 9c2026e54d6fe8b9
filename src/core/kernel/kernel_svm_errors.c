/* kernel_svm_errors.c -- the kernel object's last-error message
 * (kernel_svm.h, ss_kernel_svm_get_last_error) and its solver names.
 *
 * As svm_errors.c for the linear object: every failing path of a public
 * function on a (non-const) SsKernelSvm ends with ss_kernel_svm_fail, every
 * successful one with ss_kernel_svm_succeed. The budget adapter and the
 * solvers report through these too, so they live below the object and call
 * only common/last_error.c.
 */
#include "kernel_internal.h"

#include <stdarg.h>

SsStatus ss_kernel_svm_fail(SsKernelSvm *self, SsStatus status, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  ss_last_error_vset(&self->last_error, status, format, args);
  va_end(args);
  return status;
}

SsStatus ss_kernel_svm_succeed(SsKernelSvm *self) { return ss_last_error_clear(&self->last_error); }

SsStatus ss_kernel_svm_refuse_while_training(SsKernelSvm *self, const char *call)
{
  return ss_kernel_svm_fail(self, SS_ERR_BAD_STATE,
                            "%s: this object is training (a call from its diagnostic or interrupt "
                            "function): its callbacks may call getters and decision_function only",
                            call);
}

const char *ss_kernel_svm_get_last_error(const SsKernelSvm *self) { return self ? self->last_error.text : ""; }

const char *ss_kernel_svm_solver_name(SsKernelSolver solver)
{
  switch (solver) {
    case SS_KSOLVER_NONE: return "none";
    case SS_KSOLVER_SBP: return "sbp";
    case SS_KSOLVER_PEGASOS: return "pegasos";
    case SS_KSOLVER_SDCA: return "sdca";
    case SS_KSOLVER_PERCEPTRON: return "perceptron";
    case SS_KSOLVER_BSCA: return "bsca";
    case SS_KSOLVER_BSGD: return "bsgd";
  }
  return "unknown";
}
