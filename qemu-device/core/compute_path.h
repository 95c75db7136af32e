/* SPDX-License-Identifier: MIT */
/*
 * Compute paths inside the core; the public half (names, availability, the
 * best path) is in vdla_core.h.
 */
#ifndef VDLA_COMPUTE_PATH_H
#define VDLA_COMPUTE_PATH_H

#include <stdint.h>

#include "vdla_core.h"
#include "vdla_regs.h"

struct conv_int_kernels;

/* The INT8/INT16 kernels of an available VDLA_COMPUTE_PATH_*. */
const struct conv_int_kernels *compute_path_int_kernels(uint32_t path);

#endif /* VDLA_COMPUTE_PATH_H */
