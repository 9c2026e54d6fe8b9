/* last_error.h -- the short message an object keeps about its last failed
 * call (ss_svm_get_last_error, ss_kernel_svm_get_last_error).
 *
 * A fixed buffer inside the object: setting it allocates nothing, touches no
 * global state and prints nothing. Every call that returns a status sets it
 * (on failure) or clears it (on success); a message longer than the buffer
 * is cut.
 */
#ifndef STOCHSVM_LAST_ERROR_H
#define STOCHSVM_LAST_ERROR_H

#include "stochsvm/stochsvm.h"

#include <stdarg.h>

/** Bytes of a last-error message, the terminating zero included. */
#define SS_LAST_ERROR_SIZE 256

typedef struct SsLastError {
  char text[SS_LAST_ERROR_SIZE]; /**< "" after a call that succeeded */
} SsLastError;

#if defined(__GNUC__) || defined(__clang__)
#define SS_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define SS_PRINTF_LIKE(f, a)
#endif

/** Format the message ("function: what was wrong, got value") and return
 *  @p status, so that a failing path reads `return fail(...)`. */
SsStatus ss_last_error_vset(SsLastError *error, SsStatus status, const char *format, va_list args);
/** Clear the message and return SS_OK. */
SsStatus ss_last_error_clear(SsLastError *error);

#endif /* STOCHSVM_LAST_ERROR_H */
