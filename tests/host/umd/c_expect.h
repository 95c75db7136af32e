/* SPDX-License-Identifier: MIT */
/*
 * For the C API's checks, written in C: EXPECT(cond) returns from the
 * calling function a text naming the failed condition, its place and
 * libvdla's last error; the googletest test that calls it reports that.
 */
#ifndef VDLA_TESTS_C_EXPECT_H
#define VDLA_TESTS_C_EXPECT_H

#include <stdio.h>

#include <vdla/vdla_share.h>

static char failure[512];

#define EXPECT(cond)                                                                     \
	do {                                                                             \
		if (!(cond)) {                                                           \
			snprintf(failure, sizeof(failure), "%s:%d: %s (last error: %s)",  \
				__FILE__, __LINE__, #cond, vdla_last_error());           \
			return failure;                                                  \
		}                                                                        \
	} while (0)

#endif /* VDLA_TESTS_C_EXPECT_H */
