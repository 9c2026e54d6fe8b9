/* svm_errors.c -- the linear object's last-error message (svm.h,
 * ss_svm_get_last_error) and the names it uses for solvers and losses.
 *
 * Every public function that takes a (non-const) SsSvm and returns a status
 * ends with ss_svm_fail (a message "function: what was wrong, got value")
 * or ss_svm_succeed (the message cleared). The solvers report through the
 * same functions, so this file sits below them and calls only
 * common/last_error.c: no call goes back up to the object (svm.c).
 */
#include "svm_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

SsStatus ss_svm_fail(SsSvm *self, SsStatus status, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  ss_last_error_vset(&self->last_error, status, format, args);
  va_end(args);
  return status;
}

SsStatus ss_svm_succeed(SsSvm *self) { return ss_last_error_clear(&self->last_error); }

SsStatus ss_svm_refuse_while_training(SsSvm *self, const char *call)
{
  return ss_svm_fail(self, SS_ERR_BAD_STATE,
                     "%s: this object is training (a call from its diagnostic or interrupt "
                     "function): its callbacks may call getters only", call);
}

const char *ss_svm_get_last_error(const SsSvm *self) { return self ? self->last_error.text : ""; }

const char *ss_svm_solver_name(SsSolver solver)
{
  switch (solver) {
    case SS_SOLVER_NONE: return "none";
    case SS_SOLVER_SGD: return "sgd";
    case SS_SOLVER_SDCA: return "sdca";
    case SS_SOLVER_SVMSGD2: return "svmsgd2";
    case SS_SOLVER_SGDQN: return "sgdqn";
    case SS_SOLVER_RES: return "res";
    case SS_SOLVER_LRES: return "lres";
  }
  return "unknown";
}

const char *ss_svm_loss_name(SsLoss loss)
{
  switch (loss) {
    case SS_LOSS_HINGE: return "hinge";
    case SS_LOSS_HINGE2: return "hinge2";
    case SS_LOSS_L1: return "l1";
    case SS_LOSS_L2: return "l2";
    case SS_LOSS_LOGISTIC: return "logistic";
    case SS_LOSS_CUSTOM: return "custom";
  }
  return "unknown";
}

SsStatus ss_svm_require_solver(SsSvm *self, const char *call, unsigned solvers)
{
  if (solvers & SS_SOLVER_BIT(self->solver)) return SS_OK;
  static const SsSolver all[] = {SS_SOLVER_SGD, SS_SOLVER_SDCA, SS_SOLVER_SVMSGD2, SS_SOLVER_SGDQN,
                                 SS_SOLVER_RES, SS_SOLVER_LRES};
  char names[64] = "";
  int count = 0, total = 0;
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) total += (solvers & SS_SOLVER_BIT(all[k])) != 0;
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) {
    if (!(solvers & SS_SOLVER_BIT(all[k]))) continue;
    const char *separator = count == 0 ? "" : count == total - 1 ? " and " : ", ";
    size_t used = strlen(names);
    snprintf(names + used, sizeof names - used, "%s%s", separator, ss_svm_solver_name(all[k]));
    ++count;
  }
  return ss_svm_fail(self, SS_ERR_BAD_STATE, "%s applies to solver%s %s, this object's solver is %s", call,
                     total > 1 ? "s" : "", names, ss_svm_solver_name(self->solver));
}
