// SPDX-License-Identifier: GPL-2.0-only
/* The tracepoints' definitions (vdla_trace.h). */
#define CREATE_TRACE_POINTS
#include "vdla_trace.h"
