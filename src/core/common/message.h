/* message.h -- one-line error messages for the calls that take a message buffer
 * (model_file.h). Private to the core. */
#ifndef STOCHSVM_MESSAGE_H
#define STOCHSVM_MESSAGE_H

#include "stochsvm/stochsvm.h"

/* Format a reason into message (if not NULL and size > 0, always
 * NUL-terminated, truncated to fit) and return status. */
SsStatus ss_message(SsStatus status, char *message, size_t size, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif /* STOCHSVM_MESSAGE_H */
