/* status.c -- version and status strings. */
#include "stochsvm/stochsvm.h"

const char *ss_version(void)
{
  return SS_VERSION_STRING;
}

const char *ss_status_string(SsStatus status)
{
  switch (status) {
    case SS_OK: return "success";
    case SS_ERR_ALLOC: return "out of memory";
    case SS_ERR_BAD_ARG: return "argument out of range";
    case SS_ERR_BAD_DATA: return "malformed data or labels";
    case SS_ERR_BAD_STATE: return "call not valid in the object's present state";
    case SS_ERR_NUMERIC: return "training produced a non-finite model";
    case SS_ERR_INTERRUPTED: return "training interrupted by a callback";
    case SS_ERR_IO: return "file input/output error";
    case SS_ERR_FORMAT: return "not a valid model file (truncated, corrupted or foreign)";
    case SS_ERR_VERSION: return "model file format newer than this library";
    case SS_ERR_DIVERGED: return "training diverged: the objective rose far above its value at w = 0";
  }
  return "unknown status code";
}
