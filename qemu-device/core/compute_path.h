/* SPDX-License-Identifier: MIT */
/*
 * Compute paths inside the core; the public half (names, availability, the
 * best path) is in vdla_core.h.
 */
#ifndef VDLA_COMPUTE_PATH_H
#define VDLA_COMPUTE_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "vdla_core.h"
#include "vdla_regs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct conv_int_kernels;

/* The INT8/INT16 kernels of an available VDLA_COMPUTE_PATH_*. */
const struct conv_int_kernels *compute_path_int_kernels(uint32_t path);

/*
 * Runs oneDNN's INT8 convolution on values that saturate 16-bit pair sums
 * and on odd weights, and says whether it matched the scalar kernels. The
 * onednn path is offered only if it does (once per process).
 */
bool compute_path_onednn_self_test(void);

#ifdef __cplusplus
}
#endif

#endif /* VDLA_COMPUTE_PATH_H */
