/* SPDX-License-Identifier: MIT */
/*
 * vdla::Device: one vDLA accel node, its identity and capabilities.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <vdla/result.h>

namespace vdla {

struct Version {
	unsigned int major = 0;
	unsigned int minor = 0;
	unsigned int patch = 0;

	/* Decodes the VERSION register layout: major << 16 | minor << 8 | patch. */
	static Version fromRegister(uint32_t value);
	std::string toString() const;
	bool operator==(const Version &other) const;
	/* Whether this is @major.@minor or later (a feature's first version). */
	bool atLeast(unsigned int major, unsigned int minor) const;
};

struct DeviceInfo {
	/* Device node, e.g. /dev/accel/accel0. */
	std::string node;
	/* PCI address, e.g. 0000:00:03.0. */
	std::string pciAddress;
	uint16_t pciVendorId = 0;
	uint16_t pciDeviceId = 0;
	uint8_t pciRevision = 0;
	Version hardwareVersion;
	/* DRM_VDLA_CAP_* bits. */
	uint32_t capabilities = 0;
	uint32_t irqVectors = 0;
	Version driverVersion;
};

/* The device SRAM at one moment (other files allocate and free it). */
struct MemoryInfo {
	/* Where tasks see the first byte of SRAM; 0 without SRAM. */
	uint64_t sramBase = 0;
	uint64_t sramSize = 0;
	/* Bytes no SRAM buffer holds. */
	uint64_t sramFree = 0;
	/* The largest SRAM buffer that could be created now. */
	uint64_t sramLargestFree = 0;
};

/*
 * How the emulated device computes on its host (docs/hw-spec.md, "Compute
 * paths"), for bug reports: results do not depend on it.
 */
struct ComputeInfo {
	/* DRM_VDLA_COMPUTE_PATH_*: 0 when the hardware does not say (before 2.1). */
	uint32_t path = 0;
	/* DRM_VDLA_COMPUTE_ISA_*: the instruction set of float convolutions. */
	uint32_t floatIsa = 0;
};

/* "scalar", "avx2", "onednn"; "unknown" for 0 and "pathN" for a newer path. */
std::string computePathName(uint32_t path);
/* "sse41", "avx2", "avx512_core_amx", ...; "other" for 0 and "isaN" beyond. */
std::string computeIsaName(uint32_t isa);

/* Names of the capability bits set in @caps; unknown bits as "bitN". */
std::vector<std::string> capabilityNames(uint32_t caps);

/* Whether the vdla kernel module is loaded, judged from @sysRoot/module. */
bool driverLoaded(const std::string &sysRoot = "/sys");

class Device
{
public:
	/*
	 * Device nodes under @accelDir that the vdla driver serves, in numeric
	 * order. A missing directory means no accel devices: an empty list.
	 */
	static Result<std::vector<std::string>> enumerate(const std::string &accelDir = "/dev/accel");

	/* Opens @node and queries it; fails if it is not a vdla device. */
	static Result<std::unique_ptr<Device>> open(const std::string &node);

	~Device();
	Device(const Device &) = delete;
	Device &operator=(const Device &) = delete;

	const DeviceInfo &info() const;
	/* The open file descriptor; owned by the Device. */
	int fd() const;
	/*
	 * The minor number of its accel node, the N of /dev/accel/accelN: the
	 * number Accessor::dla() names the device by, the same in every
	 * process of the system whatever nodes each may open.
	 */
	uint32_t accelMinor() const;

	/*
	 * Makes the device raise its test interrupt and waits up to @timeout
	 * for the driver to see it. Returns the latency the driver measured.
	 * With @masked the interrupt is never delivered: the call fails with
	 * ETIMEDOUT, which tests the timeout path.
	 */
	Result<std::chrono::nanoseconds> testInterrupt(std::chrono::milliseconds timeout,
						       bool masked = false) const;

	/*
	 * The SRAM's size and how much is free. Errors: EINVAL from a driver
	 * before 1.4, which has no SRAM buffers.
	 */
	Result<MemoryInfo> memory() const;

	/* The compute path. Errors: EINVAL from a driver before 1.5. */
	Result<ComputeInfo> compute() const;

private:
	class Private;
	explicit Device(std::unique_ptr<Private> d);
	std::unique_ptr<Private> d_;
};

} /* namespace vdla */
