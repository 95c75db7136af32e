/* SPDX-License-Identifier: MIT */
/*
 * vdla's exact integer convolution (qemu-device/core/conv_int.c) on every
 * kernel set the host can run, whatever VDLA_COMPUTE_PATH says, against a
 * plain 64-bit reference: the values that saturate 16-bit pair sums, the
 * longest reduction the spec allows, INT16 sums at the chunk boundaries of
 * the split AVX2 path and at the edges of the 32-bit saturation. Also the
 * rule that decides where oneDNN's INT8 convolution is exact.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "conv.h"
#include "conv_int.h"
#include "reference.h"
#include "scratch.h"
#include "vdla_core.h"
#include "vdla_regs.h"

namespace {

struct KernelSet {
	const char *name;
	const conv_int_kernels *kernels;
	uint32_t path; /* the compute path that needs them */
};

const KernelSet kKernelSets[] = {
	{ "scalar", &conv_int_scalar_kernels, VDLA_COMPUTE_PATH_SCALAR },
	{ "avx2", &conv_int_avx2_kernels, VDLA_COMPUTE_PATH_AVX2 },
};

void PrintTo(const KernelSet &set, std::ostream *os)
{
	*os << set.name;
}

/* A convolution on host buffers. */
struct Problem {
	uint32_t n = 1, groups = 1, ic = 1, ih = 1, iw = 1, oc = 1, kh = 1, kw = 1;
	uint32_t sy = 1, sx = 1, dy = 1, dx = 1;
	uint32_t pt = 0, pb = 0, pl = 0, pr = 0;
	int32_t padValue = 0;
	bool int16 = false;
	std::vector<int32_t> src, wgt; /* dense NCHW and OIHW */

	uint32_t oh() const { return (ih + pt + pb - ((kh - 1) * dy + 1)) / sy + 1; }
	uint32_t ow() const { return (iw + pl + pr - ((kw - 1) * dx + 1)) / sx + 1; }
	size_t srcSize() const { return size_t(n) * ic * ih * iw; }
	size_t wgtSize() const { return size_t(oc) * (ic / groups) * kh * kw; }
	size_t dstSize() const { return size_t(n) * oc * oh() * ow(); }
};

/* The project's CPU reference (docs/hw-spec.md, "CONV"): exact sums, saturated to 32 bits. */
std::vector<int32_t> reference(const Problem &p)
{
	uint32_t dtype = p.int16 ? VDLA_DTYPE_INT16 : VDLA_DTYPE_INT8;
	vdla_ref::Tensor src(dtype, p.n, p.ic, p.ih, p.iw), wgt(dtype, p.oc, p.ic / p.groups, p.kh, p.kw);
	src.i.assign(p.src.begin(), p.src.end());
	wgt.i.assign(p.wgt.begin(), p.wgt.end());
	vdla_ref::ConvParams params;
	params.strideX = p.sx, params.strideY = p.sy, params.dilX = p.dx, params.dilY = p.dy;
	params.padL = p.pl, params.padR = p.pr, params.padT = p.pt, params.padB = p.pb;
	params.groups = p.groups;
	params.padValue = p.padValue;
	vdla_ref::Tensor out = vdla_ref::conv(src, wgt, params);
	return std::vector<int32_t>(out.i.begin(), out.i.end());
}

template <typename T>
std::vector<T> narrow(const std::vector<int32_t> &v)
{
	return std::vector<T>(v.begin(), v.end());
}

/* The problem on @kernels through conv_int, as the CONV engine runs it. */
std::vector<int32_t> run(const Problem &p, const conv_int_kernels *kernels)
{
	std::vector<int8_t> src8 = narrow<int8_t>(p.src), wgt8 = narrow<int8_t>(p.wgt);
	std::vector<int16_t> src16 = narrow<int16_t>(p.src), wgt16 = narrow<int16_t>(p.wgt);
	std::vector<int32_t> dst(p.dstSize(), 0x5a5a5a5a);
	conv_problem c = {};
	c.n = p.n, c.groups = p.groups, c.ic = p.ic, c.ih = p.ih, c.iw = p.iw;
	c.oc = p.oc, c.oh = p.oh(), c.ow = p.ow(), c.kh = p.kh, c.kw = p.kw;
	c.sy = p.sy, c.sx = p.sx, c.dy = p.dy, c.dx = p.dx;
	c.pt = p.pt, c.pb = p.pb, c.pl = p.pl, c.pr = p.pr;
	c.src = { p.int16 ? (void *)src16.data() : (void *)src8.data(),
		{ int64_t(p.ic) * p.ih * p.iw, int64_t(p.ih) * p.iw, p.iw, 1 } };
	c.wgt = { p.int16 ? (void *)wgt16.data() : (void *)wgt8.data(),
		{ int64_t(p.ic / p.groups) * p.kh * p.kw, int64_t(p.kh) * p.kw, p.kw, 1 } };
	c.dst = { dst.data(), { int64_t(p.oc) * c.oh * c.ow, int64_t(c.oh) * c.ow, c.ow, 1 } };
	scratch_pool pool = {};
	EXPECT_EQ(conv_int(&pool, &c, p.int16, p.padValue, kernels, nullptr), 0);
	scratch_release(&pool);
	return dst;
}

::testing::AssertionResult same(const std::vector<int32_t> &want, const std::vector<int32_t> &got)
{
	size_t wrong = 0, first = 0;
	for (size_t i = 0; i < want.size(); i++)
		if (want[i] != got[i] && !wrong++)
			first = i;
	if (!wrong)
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure()
		<< wrong << " of " << want.size() << " outputs differ; first at " << first
		<< ": expected " << want[first] << ", got " << got[first];
}

/* Values drawn from @pool, deterministically. */
std::vector<int32_t> drawn(std::mt19937 &rng, size_t n, const std::vector<int32_t> &pool)
{
	std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
	std::vector<int32_t> v(n);
	for (auto &x : v)
		x = pool[pick(rng)];
	return v;
}

const std::vector<int32_t> kInt8Extremes = { -128, -127, 127, 126, -128, 127, 1, -1 };
const std::vector<int32_t> kInt16Extremes
	= { -32768, 32767, -32768, 32767, -32767, 32766, 255, 256, -256, -1, 1, 128, -129 };

class ConvKernels : public ::testing::TestWithParam<KernelSet>
{
protected:
	void SetUp() override
	{
		const char *why = "";
		if (!vdla_compute_path_available(GetParam().path, &why))
			GTEST_SKIP() << GetParam().name << " kernels cannot run here: " << why;
	}

	void expectExact(const Problem &p)
	{
		EXPECT_TRUE(same(reference(p), run(p, GetParam().kernels)))
			<< (p.int16 ? "INT16 " : "INT8 ") << p.n << "x" << p.ic << "x" << p.ih << "x"
			<< p.iw << " * " << p.oc << "x" << p.ic / p.groups << "x" << p.kh << "x" << p.kw
			<< " groups " << p.groups;
	}
};

TEST_P(ConvKernels, Int8ValuesThatSaturate16BitPairSumsAccumulateExactly)
{
	/* 127 * 127 + 127 * 127 > 32767: a 16-bit pair sum would clip. */
	std::mt19937 rng(1);
	Problem p;
	p.ic = 256, p.ih = 7, p.iw = 8, p.oc = 7, p.kh = p.kw = 3;
	p.src = drawn(rng, p.srcSize(), kInt8Extremes);
	p.wgt = drawn(rng, p.wgtSize(), kInt8Extremes);
	expectExact(p);
}

TEST_P(ConvKernels, Int8LongestReductionOfExtremesReachesTwoToThe30)
{
	/* 65536 taps of -128 * -128 = 2^30; of -128 * 127 = -2^30 + 2^23. */
	Problem p;
	p.ic = 4096, p.kh = p.kw = 4, p.ih = p.iw = 4, p.oc = 3;
	p.src.assign(p.srcSize(), -128);
	p.wgt.assign(p.wgtSize(), -128);
	std::fill(p.wgt.begin() + 65536, p.wgt.begin() + 2 * 65536, 127);
	for (size_t i = 2 * 65536; i < p.wgt.size(); i++)
		p.wgt[i] = i % 2 ? 127 : -128;
	std::vector<int32_t> want = reference(p);
	ASSERT_EQ(want[0], 1 << 30);
	ASSERT_EQ(want[1], -(1 << 30) + (1 << 23));
	EXPECT_TRUE(same(want, run(p, GetParam().kernels)));
}

TEST_P(ConvKernels, Int16SumsAreExactAcrossTheSplitChunkBoundaries)
{
	/*
	 * The AVX2 path splits INT16 weights into halves and reductions into
	 * chunks of 2048 taps. -32768 * -1 has the low half 255, the largest
	 * lane sums a chunk can build: one more step per chunk would wrap.
	 * The totals stay inside 32 bits: this is about exactness.
	 */
	std::mt19937 rng(2);
	for (uint32_t taps : { 1u, 15u, 16u, 17u, 2047u, 2048u, 2049u, 4096u, 6143u, 65535u }) {
		Problem p;
		p.int16 = true;
		p.ic = taps, p.ih = 1, p.iw = 4, p.oc = 5;
		p.src.resize(p.srcSize());
		p.wgt.resize(p.wgtSize());
		std::uniform_int_distribution<int32_t> input(-300, 300), weight(-500, 500);
		for (size_t i = 0; i < p.srcSize(); i++)
			p.src[i] = i % p.iw == 0 ? -32768 : input(rng); /* output 0's taps */
		for (size_t i = 0; i < p.wgtSize(); i++)
			p.wgt[i] = i < taps ? -1 : 2 * weight(rng) + 1;
		std::vector<int32_t> want = reference(p);
		ASSERT_EQ(want[0], int64_t(taps) * 32768);
		EXPECT_TRUE(same(want, run(p, GetParam().kernels))) << taps << " taps";
	}
}

TEST_P(ConvKernels, Int16ExtremesSaturateTo32BitsExactlyAtTheEdges)
{
	Problem p;
	p.int16 = true;
	p.ic = 4, p.oc = 6;
	p.src = { -32768, -32768, -32768, -32768 };
	p.wgt = {
		-32768, -32768, 0, 0,	    /* 2^31: the pair sum VPMADDWD cannot hold, saturates */
		-32768, -32768, 1, -1,	    /* 2^31 + 0 still saturates */
		-32768, 32767, 0, 0,	    /* 2^30 - 2^30 + 2^15 = 32768 */
		32767, 32767, 32767, 32767, /* -4 * 32767 * 32768, about -2^32: saturates low */
		-32768, 32767, 1, 0,	    /* 2^15 - 2^15 = 0 */
		-32768, -32767, 0, 1,	    /* 2^31 - 2^15 - 2^15 = 2^31 - 2^16 */
	};
	std::vector<int32_t> want = reference(p);
	ASSERT_EQ(want[0], INT32_MAX);
	ASSERT_EQ(want[3], INT32_MIN);
	ASSERT_EQ(want[5], INT32_MAX - 65535);
	EXPECT_TRUE(same(want, run(p, GetParam().kernels)));
}

TEST_P(ConvKernels, Int16LongReductionsOfExtremesSaturateOrCancelExactly)
{
	/* Sums up to 2^46, far outside 32 bits until they cancel. */
	std::mt19937 rng(3);
	Problem p;
	p.int16 = true;
	p.ic = 520, p.ih = 5, p.iw = 6, p.oc = 9, p.kh = p.kw = 3;
	p.src = drawn(rng, p.srcSize(), kInt16Extremes);
	p.wgt = drawn(rng, p.wgtSize(), kInt16Extremes);
	/* Make some channels cancel to small values: w and -w on equal inputs. */
	for (size_t i = 0; i < p.wgtSize() / p.oc; i++)
		p.wgt[i] = i % 2 ? 257 : -257;
	expectExact(p);
}

TEST_P(ConvKernels, RandomGeometriesOfExtremesMatchTheReference)
{
	std::mt19937 rng(4);
	for (int round = 0; round < 40; round++) {
		std::uniform_int_distribution<uint32_t> small(1, 3), kernel(1, 5), ch(1, 20);
		Problem p;
		p.int16 = round % 2;
		p.n = small(rng) == 3 ? 2 : 1;
		p.groups = round % 5 == 0 ? ch(rng) : small(rng);
		p.ic = p.groups * ch(rng);
		p.oc = p.groups * (round % 5 == 0 ? 1 : ch(rng));
		p.kh = kernel(rng), p.kw = kernel(rng);
		p.sy = small(rng), p.sx = small(rng), p.dy = small(rng), p.dx = small(rng);
		p.pt = small(rng) - 1, p.pb = small(rng) - 1, p.pl = small(rng) - 1, p.pr = small(rng) - 1;
		p.ih = (p.kh - 1) * p.dy + 1 + ch(rng) % 9;
		p.iw = (p.kw - 1) * p.dx + 1 + ch(rng) % 9;
		const auto &pool = p.int16 ? kInt16Extremes : kInt8Extremes;
		p.padValue = pool[ch(rng) % pool.size()];
		p.src = drawn(rng, p.srcSize(), pool);
		p.wgt = drawn(rng, p.wgtSize(), pool);
		expectExact(p);
	}
}

INSTANTIATE_TEST_SUITE_P(Kernels, ConvKernels, ::testing::ValuesIn(kKernelSets),
	[](const ::testing::TestParamInfo<KernelSet> &info) { return std::string(info.param.name); });

/* ---- Where oneDNN's INT8 convolution is exact ------------------------------ */

conv_problem int8Weights(std::vector<int8_t> &wgt, uint32_t oc, uint32_t taps)
{
	conv_problem c = {};
	c.n = 1, c.groups = 1, c.ic = taps, c.oc = oc, c.kh = c.kw = 1;
	c.wgt = { wgt.data(), { int64_t(taps), 1, 1, 1 } };
	return c;
}

TEST(OnednnInt8Rule, AllowsWeightsWhose255FoldL1NormIsAtMostTwoToThe24)
{
	/* 2^24 / 255 = 65793.0...: 65793 is the largest norm allowed. */
	uint32_t taps = 600;
	std::vector<int8_t> wgt(2 * taps, 0);
	/* Channel 0: 516 * 127 + 128 + 127 + 6 = 65793, with mixed signs. */
	for (uint32_t i = 0; i < 516; i++)
		wgt[i] = i % 2 ? 127 : -127;
	wgt[516] = -128;
	wgt[517] = 127;
	wgt[518] = -6;
	conv_problem c = int8Weights(wgt, 2, taps);
	EXPECT_TRUE(conv_onednn_int8_is_exact(&c));
	wgt[519] = 1; /* 65794 */
	EXPECT_FALSE(conv_onednn_int8_is_exact(&c));
	wgt[519] = 0;
	wgt[taps + 7] = -128; /* the largest channel decides, wherever it is */
	EXPECT_TRUE(conv_onednn_int8_is_exact(&c));
	for (uint32_t i = taps; i < 2 * taps; i++)
		wgt[i] = 127; /* 76200 */
	EXPECT_FALSE(conv_onednn_int8_is_exact(&c));
}

} /* namespace */
