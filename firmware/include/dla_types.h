/* SPDX-License-Identifier: MIT */
/*
 * Fixed-width types for the firmware core, from the host environment: the
 * kernel's own in a kernel build, the compiler's freestanding headers
 * otherwise (which are not the C library).
 */
#ifndef DLA_TYPES_H
#define DLA_TYPES_H

#ifdef __KERNEL__
#include <linux/stddef.h>
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#endif /* DLA_TYPES_H */
