/* SPDX-License-Identifier: MIT */
/*
 * Linked into every host suite that runs the device core. When
 * VDLA_COMPUTE_PATH names a compute path this host cannot run, the suite
 * stops before its first test with exit status 77, which tests/run-all
 * reports as skipped: googletest would count tests skipped from a global
 * environment as passed. Otherwise it says which path its tests use.
 */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <gtest/gtest.h>

#include "device_harness.h"
#include "vdla_core.h"

namespace {

constexpr int kExitSkipped = 77;

class ComputePathEnvironment : public ::testing::Environment
{
public:
	void SetUp() override
	{
		uint32_t forced;
		try {
			forced = vdla_test::computePathFromEnvironment();
		} catch (const std::runtime_error &e) {
			std::fprintf(stderr, "%s\n", e.what());
			std::exit(EXIT_FAILURE);
		}
		uint32_t path = forced ? forced : vdla_compute_path_best();
		const char *why = "";
		if (!vdla_compute_path_available(path, &why)) {
			std::printf("[  SKIPPED ] every test: compute path %s is not available on "
				    "this host: %s\n",
				vdla_compute_path_name(path), why);
			std::fflush(stdout);
			std::exit(kExitSkipped);
		}
		std::printf("[ COMPUTE  ] compute path %s%s, float on oneDNN %s\n",
			vdla_compute_path_name(path), forced ? " (VDLA_COMPUTE_PATH)" : "",
			vdla_compute_isa_name(vdla_compute_float_isa()));
	}
};

const auto *const kEnvironment
	= ::testing::AddGlobalTestEnvironment(new ComputePathEnvironment);

} /* namespace */
