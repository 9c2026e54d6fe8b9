/* row_kernels.h -- dot and axpy of one data row against a double vector, for
 * dense and CSR rows of float and double values (one template, two types). */
#ifndef STOCHSVM_ROW_KERNELS_H
#define STOCHSVM_ROW_KERNELS_H

#include <stdint.h>

#define SS_T float
#define SS_SFX f32
#include "row_kernels_t.h"
#undef SS_T
#undef SS_SFX

#define SS_T double
#define SS_SFX f64
#include "row_kernels_t.h"
#undef SS_T
#undef SS_SFX

#endif /* STOCHSVM_ROW_KERNELS_H */
