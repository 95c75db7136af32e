// SPDX-License-Identifier: MIT
/*
 * Compute paths: which host code runs the CONV engine (docs/hw-spec.md,
 * "Compute paths"). The device's integer results must not depend on the
 * host, so a path is offered only where it is exact:
 *
 * - onednn: INT8 on oneDNN. Its INT8 kernels sum exactly with VNNI
 *   (VPDPBUSD) or AMX; without them they multiply through VPMADDUBSW,
 *   which saturates pair sums at 16 bits, and halve the weights to make
 *   that rarer: wrong sums. So the path needs oneDNN to be using VNNI or
 *   AMX in this process (ONEDNN_MAX_CPU_ISA can forbid them), and a
 *   known-answer self-test on values that saturate 16-bit pair sums must
 *   pass. INT16 runs on the AVX2 kernels, which every such CPU has.
 * - avx2: INT8 and INT16 on vdla's AVX2 kernels (conv_int_avx2.c).
 * - scalar: INT8 and INT16 in portable C (conv_int_scalar.c).
 *
 * FP16 and FP32 run on oneDNN on every path.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "compute_path.h"
#include "conv.h"
#include "conv_int.h"
#include "scratch.h"

static const char *const path_names[VDLA_COMPUTE_PATHS] = {
	[0] = "auto",
	[VDLA_COMPUTE_PATH_SCALAR] = "scalar",
	[VDLA_COMPUTE_PATH_AVX2] = "avx2",
	[VDLA_COMPUTE_PATH_ONEDNN] = "onednn",
};

static const char *const isa_names[VDLA_COMPUTE_ISAS] = {
	[VDLA_COMPUTE_ISA_OTHER] = "other",
	[VDLA_COMPUTE_ISA_SSE41] = "sse41",
	[VDLA_COMPUTE_ISA_AVX] = "avx",
	[VDLA_COMPUTE_ISA_AVX2] = "avx2",
	[VDLA_COMPUTE_ISA_AVX2_VNNI] = "avx2_vnni",
	[VDLA_COMPUTE_ISA_AVX512_CORE] = "avx512_core",
	[VDLA_COMPUTE_ISA_AVX512_VNNI] = "avx512_core_vnni",
	[VDLA_COMPUTE_ISA_AVX512_BF16] = "avx512_core_bf16",
	[VDLA_COMPUTE_ISA_AMX] = "avx512_core_amx",
};

const char *vdla_compute_path_name(uint32_t path)
{
	return path < VDLA_COMPUTE_PATHS ? path_names[path] : "unknown";
}

int vdla_compute_path_from_name(const char *name, uint32_t *path)
{
	for (uint32_t p = 0; p < VDLA_COMPUTE_PATHS; p++) {
		if (name && !strcmp(name, path_names[p])) {
			*path = p;
			return 0;
		}
	}
	return -1;
}

const char *vdla_compute_isa_name(uint32_t isa)
{
	return isa < VDLA_COMPUTE_ISAS ? isa_names[isa] : "unknown";
}

uint32_t vdla_compute_float_isa(void)
{
	switch (dnnl_get_effective_cpu_isa()) {
	case dnnl_cpu_isa_sse41:
		return VDLA_COMPUTE_ISA_SSE41;
	case dnnl_cpu_isa_avx:
		return VDLA_COMPUTE_ISA_AVX;
	case dnnl_cpu_isa_avx2:
		return VDLA_COMPUTE_ISA_AVX2;
	case dnnl_cpu_isa_avx2_vnni:
		return VDLA_COMPUTE_ISA_AVX2_VNNI;
	case dnnl_cpu_isa_avx512_core:
		return VDLA_COMPUTE_ISA_AVX512_CORE;
	case dnnl_cpu_isa_avx512_core_vnni:
		return VDLA_COMPUTE_ISA_AVX512_VNNI;
	case dnnl_cpu_isa_avx512_core_bf16:
		return VDLA_COMPUTE_ISA_AVX512_BF16;
	case dnnl_cpu_isa_avx512_core_amx:
		return VDLA_COMPUTE_ISA_AMX;
	default:
		return VDLA_COMPUTE_ISA_OTHER;
	}
}

static bool host_has_avx2(void)
{
	/* libgcc checks that the OS saves the YMM registers too. */
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

/* The instruction sets on which oneDNN's INT8 kernels multiply with VNNI or AMX. */
static bool isa_sums_int8_exactly(uint32_t isa)
{
	return isa == VDLA_COMPUTE_ISA_AVX2_VNNI || isa == VDLA_COMPUTE_ISA_AVX512_VNNI ||
	       isa == VDLA_COMPUTE_ISA_AVX512_BF16 || isa == VDLA_COMPUTE_ISA_AMX;
}

/* ---- oneDNN's INT8 self-test --------------------------------------------- */

/*
 * Values that break 16-bit pair sums: with the +128 shift oneDNN applies to
 * signed inputs, 127 becomes 255 and 255 * 127 * 2 overflows int16; odd
 * weights are what halving them gets wrong.
 */
static const int8_t probe_values[] = { 127, 127, -128, 127, 1, -1, 63, -127, 126, 127 };

struct probe_shape {
	uint32_t ic, hw, oc, k, groups;
};

static const struct probe_shape probe_shapes[] = {
	{ 64, 6, 16, 3, 1 },	/* 3x3: direct and blocked kernels */
	{ 256, 4, 32, 1, 1 },	/* 1x1: pointwise and GEMM kernels */
	{ 32, 6, 32, 3, 32 },	/* depthwise */
};

/* Whether oneDNN and the scalar kernels agree on @s; false if either fails. */
static bool probe_one(void **slot, struct scratch_pool *pool, const struct probe_shape *s)
{
	struct conv_problem p = {
		.n = 1, .groups = s->groups, .ic = s->ic, .ih = s->hw, .iw = s->hw,
		.oc = s->oc, .oh = s->hw - s->k + 1, .ow = s->hw - s->k + 1,
		.kh = s->k, .kw = s->k, .sy = 1, .sx = 1, .dy = 1, .dx = 1,
	};
	size_t src_n = (size_t)p.ic * p.ih * p.iw;
	size_t wgt_n = (size_t)p.oc * (p.ic / p.groups) * p.kh * p.kw;
	size_t dst_n = (size_t)p.oc * p.oh * p.ow;
	int8_t *src = malloc(src_n), *wgt = malloc(wgt_n);
	int32_t *got = malloc(dst_n * sizeof(*got)), *want = malloc(dst_n * sizeof(*want));
	bool same = false;

	if (!src || !wgt || !got || !want)
		goto out;
	for (size_t i = 0; i < src_n; i++)
		src[i] = i % 7 ? 127 : probe_values[i % sizeof(probe_values)];
	for (size_t i = 0; i < wgt_n; i++)
		wgt[i] = probe_values[(i * 7 + 3) % sizeof(probe_values)];
	p.src = (struct conv_operand){ src, { src_n, p.ih * p.iw, p.iw, 1 } };
	p.wgt = (struct conv_operand){ wgt, { wgt_n / p.oc, p.kh * p.kw, p.kw, 1 } };
	p.dst = (struct conv_operand){ got, { dst_n, p.oh * p.ow, p.ow, 1 } };
	if (conv_onednn(slot, pool, &p, 1, NULL))
		goto out;
	p.dst.data = want;
	if (conv_int(pool, &p, false, 0, &conv_int_scalar_kernels, NULL))
		goto out;
	same = !memcmp(got, want, dst_n * sizeof(*got));
out:
	free(src);
	free(wgt);
	free(got);
	free(want);
	return same;
}

bool compute_path_onednn_self_test(void)
{
	struct scratch_pool pool = { 0 };
	void *slot = NULL;
	bool exact = true;

	for (size_t i = 0; i < sizeof(probe_shapes) / sizeof(probe_shapes[0]); i++)
		exact = exact && probe_one(&slot, &pool, &probe_shapes[i]);
	conv_onednn_release(&slot);
	scratch_release(&pool);
	return exact;
}

static bool onednn_int8_probe_passed;

static void probe_onednn_int8(void)
{
	onednn_int8_probe_passed = compute_path_onednn_self_test();
}

static bool onednn_int8_is_exact(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, probe_onednn_int8);
	return onednn_int8_probe_passed;
}

/* ---- Choosing a path ------------------------------------------------------ */

bool vdla_compute_path_available(uint32_t path, const char **why)
{
	const char *problem = NULL;

	switch (path) {
	case VDLA_COMPUTE_PATH_SCALAR:
		break;
	case VDLA_COMPUTE_PATH_AVX2:
		if (!host_has_avx2())
			problem = "the host CPU has no AVX2";
		break;
	case VDLA_COMPUTE_PATH_ONEDNN:
		if (!host_has_avx2())
			problem = "the host CPU has no AVX2, which the INT16 kernels of this path need";
		else if (!isa_sums_int8_exactly(vdla_compute_float_isa()))
			problem = "oneDNN does not use VNNI or AMX on this host, and its INT8 convolution is not exact without them";
		else if (!onednn_int8_is_exact())
			problem = "oneDNN's INT8 convolution failed its exactness self-test on this host";
		break;
	default:
		problem = "no such compute path";
		break;
	}
	if (problem && why)
		*why = problem;
	return !problem;
}

uint32_t vdla_compute_path_best(void)
{
	if (vdla_compute_path_available(VDLA_COMPUTE_PATH_ONEDNN, NULL))
		return VDLA_COMPUTE_PATH_ONEDNN;
	if (vdla_compute_path_available(VDLA_COMPUTE_PATH_AVX2, NULL))
		return VDLA_COMPUTE_PATH_AVX2;
	return VDLA_COMPUTE_PATH_SCALAR;
}

const struct conv_int_kernels *compute_path_int_kernels(uint32_t path)
{
	return path == VDLA_COMPUTE_PATH_SCALAR ? &conv_int_scalar_kernels : &conv_int_avx2_kernels;
}
