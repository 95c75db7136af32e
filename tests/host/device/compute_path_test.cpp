/* SPDX-License-Identifier: MIT */
/*
 * Compute paths against docs/hw-spec.md ("Compute paths", "COMPUTE"): which
 * paths a host offers, checked against the CPU's own CPUID bits; which one
 * a core picks by itself; that a forced path is used and reported in the
 * COMPUTE register; and that a path the host cannot run exactly is refused
 * with its reason instead of computing wrong sums.
 */
#include <gtest/gtest.h>

#include <cpuid.h>

#include <cstdarg>
#include <cstring>
#include <string>
#include <vector>

#include "compute_path.h"
#include "vdla_core.h"
#include "vdla_regs.h"

namespace {

/*
 * AVX2 from CPUID leaf 7 and the OS's XCR0 (SSE and AVX state saved), read
 * here without the core's helper.
 */
bool cpuidSaysAvx2()
{
	unsigned int eax, ebx, ecx, edx;
	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE) || !(ecx & bit_AVX))
		return false;
	unsigned int xcr0_lo, xcr0_hi;
	__asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
	if ((xcr0_lo & 0x6) != 0x6)
		return false;
	if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
		return false;
	return ebx & bit_AVX2;
}

bool isaHasVnniOrAmx(uint32_t isa)
{
	return isa == VDLA_COMPUTE_ISA_AVX2_VNNI || isa == VDLA_COMPUTE_ISA_AVX512_VNNI
		|| isa == VDLA_COMPUTE_ISA_AVX512_BF16 || isa == VDLA_COMPUTE_ISA_AMX;
}

const uint32_t kPaths[]
	= { VDLA_COMPUTE_PATH_SCALAR, VDLA_COMPUTE_PATH_AVX2, VDLA_COMPUTE_PATH_ONEDNN };

/* A core with nothing but the required callbacks: these tests run no operation. */
class ComputePathCore : public ::testing::Test
{
protected:
	struct vdla_core *create(uint32_t path, const char **error)
	{
		struct vdla_core_config config;
		vdla_core_default_config(&config);
		config.compute_path = path;
		struct vdla_core_host host = {};
		host.raise_irq = [](void *, unsigned int) {};
		host.clock_ns = [](void *) { return uint64_t(0); };
		host.guest_error = [](void *, const char *, va_list) {};
		host.dma_read = [](void *, uint64_t, void *, uint64_t) { return -1; };
		host.dma_map = [](void *, uint64_t, uint64_t, bool) -> void * { return nullptr; };
		host.dma_unmap = [](void *, void *, uint64_t, bool, uint64_t) {};
		return vdla_core_create(&host, &config, error);
	}
};

TEST(ComputePath, NamesRoundTripAndUnknownNamesAreRefused)
{
	for (uint32_t path = 0; path < VDLA_COMPUTE_PATHS; path++) {
		uint32_t parsed = 99;
		EXPECT_EQ(vdla_compute_path_from_name(vdla_compute_path_name(path), &parsed), 0);
		EXPECT_EQ(parsed, path);
	}
	EXPECT_STREQ(vdla_compute_path_name(0), "auto");
	EXPECT_STREQ(vdla_compute_path_name(VDLA_COMPUTE_PATH_SCALAR), "scalar");
	EXPECT_STREQ(vdla_compute_path_name(VDLA_COMPUTE_PATH_AVX2), "avx2");
	EXPECT_STREQ(vdla_compute_path_name(VDLA_COMPUTE_PATH_ONEDNN), "onednn");
	uint32_t unchanged = 7;
	for (const char *bad : { "", "AVX2", "avx512", "onednn ", "scalar2" })
		EXPECT_EQ(vdla_compute_path_from_name(bad, &unchanged), -1) << bad;
	EXPECT_EQ(vdla_compute_path_from_name(nullptr, &unchanged), -1);
	EXPECT_EQ(unchanged, 7u);
}

TEST(ComputePath, ScalarRunsOnEveryHost)
{
	EXPECT_TRUE(vdla_compute_path_available(VDLA_COMPUTE_PATH_SCALAR, nullptr));
}

TEST(ComputePath, Avx2IsOfferedExactlyWhenCpuidAndTheOsHaveIt)
{
	const char *why = nullptr;
	bool offered = vdla_compute_path_available(VDLA_COMPUTE_PATH_AVX2, &why);
	EXPECT_EQ(offered, cpuidSaysAvx2());
	if (!offered)
		EXPECT_STREQ(why, "the host CPU has no AVX2");
}

TEST(ComputePath, OnednnIsOfferedOnlyWhereItsInt8UsesVnniOrAmx)
{
	const char *why = nullptr;
	bool offered = vdla_compute_path_available(VDLA_COMPUTE_PATH_ONEDNN, &why);
	uint32_t isa = vdla_compute_float_isa();
	if (!isaHasVnniOrAmx(isa)) {
		EXPECT_FALSE(offered) << "oneDNN ISA " << vdla_compute_isa_name(isa);
		ASSERT_NE(why, nullptr);
		EXPECT_NE(std::string(why).find("VNNI"), std::string::npos) << why;
	} else {
		/* Such a host must also pass the self-test on saturating values. */
		EXPECT_TRUE(offered) << why;
	}
}

TEST(ComputePath, OnednnSelfTestFailsExactlyWhereItsInt8LacksVnniAndAmx)
{
	/*
	 * The self-test's values saturate 16-bit pair sums and its weights are
	 * odd: without VNNI or AMX oneDNN must get them wrong (else the test
	 * is too weak to guard the onednn path), with them right.
	 */
	uint32_t isa = vdla_compute_float_isa();
	EXPECT_EQ(compute_path_onednn_self_test(), isaHasVnniOrAmx(isa))
		<< "oneDNN ISA " << vdla_compute_isa_name(isa);
}

TEST(ComputePath, UnknownPathsAreNotAvailable)
{
	const char *why = nullptr;
	EXPECT_FALSE(vdla_compute_path_available(0, &why));
	EXPECT_FALSE(vdla_compute_path_available(VDLA_COMPUTE_PATHS, &why));
	EXPECT_STREQ(why, "no such compute path");
}

TEST(ComputePath, BestIsTheFastestAvailablePath)
{
	uint32_t expected = vdla_compute_path_available(VDLA_COMPUTE_PATH_ONEDNN, nullptr)
		? VDLA_COMPUTE_PATH_ONEDNN
		: vdla_compute_path_available(VDLA_COMPUTE_PATH_AVX2, nullptr)
		? VDLA_COMPUTE_PATH_AVX2
		: VDLA_COMPUTE_PATH_SCALAR;
	EXPECT_EQ(vdla_compute_path_best(), expected);
}

TEST(ComputePath, IsaNamesFollowTheRegisterValues)
{
	EXPECT_STREQ(vdla_compute_isa_name(VDLA_COMPUTE_ISA_SSE41), "sse41");
	EXPECT_STREQ(vdla_compute_isa_name(VDLA_COMPUTE_ISA_AVX2), "avx2");
	EXPECT_STREQ(vdla_compute_isa_name(VDLA_COMPUTE_ISA_AVX512_VNNI), "avx512_core_vnni");
	EXPECT_STREQ(vdla_compute_isa_name(VDLA_COMPUTE_ISA_AMX), "avx512_core_amx");
	EXPECT_STREQ(vdla_compute_isa_name(VDLA_COMPUTE_ISAS), "unknown");
	EXPECT_LT(vdla_compute_float_isa(), uint32_t(VDLA_COMPUTE_ISAS));
}

TEST_F(ComputePathCore, AutoUsesTheBestPathAndReportsIt)
{
	const char *error = nullptr;
	struct vdla_core *core = create(0, &error);
	ASSERT_NE(core, nullptr) << error;
	uint32_t compute = vdla_core_mmio_read(core, VDLA_REG_COMPUTE, 4);
	EXPECT_EQ(VDLA_COMPUTE_PATH(compute), vdla_compute_path_best());
	EXPECT_EQ(VDLA_COMPUTE_FLOAT_ISA(compute), vdla_compute_float_isa());
	EXPECT_EQ(compute >> 16, 0u) << "reserved bits";
	EXPECT_EQ(vdla_core_compute(core), compute);
	/* A soft reset does not change how the host computes. */
	vdla_core_mmio_write(core, VDLA_REG_RESET, VDLA_RESET_SOFT, 4);
	EXPECT_EQ(vdla_core_mmio_read(core, VDLA_REG_COMPUTE, 4), compute);
	vdla_core_destroy(core);
}

TEST_F(ComputePathCore, AForcedPathIsUsedWhereAvailableAndRefusedWithItsReasonElsewhere)
{
	for (uint32_t path : kPaths) {
		const char *why = nullptr;
		bool available = vdla_compute_path_available(path, &why);
		const char *error = nullptr;
		struct vdla_core *core = create(path, &error);
		if (available) {
			ASSERT_NE(core, nullptr) << vdla_compute_path_name(path) << ": " << error;
			EXPECT_EQ(VDLA_COMPUTE_PATH(vdla_core_mmio_read(core, VDLA_REG_COMPUTE, 4)),
				path);
			vdla_core_destroy(core);
		} else {
			EXPECT_EQ(core, nullptr) << vdla_compute_path_name(path);
			EXPECT_STREQ(error, why) << vdla_compute_path_name(path);
		}
	}
}

TEST_F(ComputePathCore, AnUnknownPathIsRefused)
{
	const char *error = nullptr;
	EXPECT_EQ(create(VDLA_COMPUTE_PATHS, &error), nullptr);
	EXPECT_STREQ(error, "the compute path must be auto, scalar, avx2 or onednn");
}

} /* namespace */
