/* SPDX-License-Identifier: MIT */
#include <vdla/device.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <xf86drm.h>

#include <drm/vdla_accel.h>

#include <vdla/unique_fd.h>

#include "query.h"

namespace vdla {

namespace {

const char *const kDriverName = "vdla";
const char *const kAccelPrefix = "accel";

/* The accel minor number in "accelN", or -1 if @name is not of that form. */
int accelIndex(const std::string &name)
{
	const std::string prefix = kAccelPrefix;
	if (name.compare(0, prefix.size(), prefix) != 0 || name.size() == prefix.size())
		return -1;
	std::string digits = name.substr(prefix.size());
	auto isDigit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
	if (!std::all_of(digits.begin(), digits.end(), isDigit) || digits.size() > 6)
		return -1;
	return std::stoi(digits);
}

bool servedByVdla(int fd)
{
	drmVersionPtr version = drmGetVersion(fd);
	if (!version)
		return false;
	bool match = version->name && std::strcmp(version->name, kDriverName) == 0;
	drmFreeVersion(version);
	return match;
}

/*
 * domain:bus:device.function; @domain is the whole number (driver 1.6),
 * older drivers give only its low 16 bits, in @bus.
 */
std::string formatPciAddress(uint32_t domain, uint32_t bus)
{
	char text[32];
	if (!domain)
		domain = bus >> 16;
	std::snprintf(text, sizeof(text), "%04x:%02x:%02x.%x", domain, (bus >> 8) & 0xff,
		(bus >> 3) & 0x1f, bus & 0x7);
	return text;
}

Result<drm_vdla_query_device> queryDevice(int fd, const std::string &node)
{
	drm_vdla_query_device raw = {};
	if (int error = queryInto(fd, DRM_VDLA_QUERY_DEVICE, &raw))
		return Error(error, node + ": device query failed");
	return raw;
}

} /* namespace */

Version Version::fromRegister(uint32_t value)
{
	return { (value >> 16) & 0xffff, (value >> 8) & 0xff, value & 0xff };
}

std::string Version::toString() const
{
	return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

bool Version::operator==(const Version &other) const
{
	return major == other.major && minor == other.minor && patch == other.patch;
}

bool Version::atLeast(unsigned int wantMajor, unsigned int wantMinor) const
{
	return major > wantMajor || (major == wantMajor && minor >= wantMinor);
}

std::string computePathName(uint32_t path)
{
	switch (path) {
	case DRM_VDLA_COMPUTE_PATH_UNKNOWN:
		return "unknown";
	case DRM_VDLA_COMPUTE_PATH_SCALAR:
		return "scalar";
	case DRM_VDLA_COMPUTE_PATH_AVX2:
		return "avx2";
	case DRM_VDLA_COMPUTE_PATH_ONEDNN:
		return "onednn";
	default:
		return "path" + std::to_string(path);
	}
}

std::string computeIsaName(uint32_t isa)
{
	switch (isa) {
	case DRM_VDLA_COMPUTE_ISA_OTHER:
		return "other";
	case DRM_VDLA_COMPUTE_ISA_SSE41:
		return "sse41";
	case DRM_VDLA_COMPUTE_ISA_AVX:
		return "avx";
	case DRM_VDLA_COMPUTE_ISA_AVX2:
		return "avx2";
	case DRM_VDLA_COMPUTE_ISA_AVX2_VNNI:
		return "avx2_vnni";
	case DRM_VDLA_COMPUTE_ISA_AVX512_CORE:
		return "avx512_core";
	case DRM_VDLA_COMPUTE_ISA_AVX512_VNNI:
		return "avx512_core_vnni";
	case DRM_VDLA_COMPUTE_ISA_AVX512_BF16:
		return "avx512_core_bf16";
	case DRM_VDLA_COMPUTE_ISA_AMX:
		return "avx512_core_amx";
	default:
		return "isa" + std::to_string(isa);
	}
}

std::vector<std::string> capabilityNames(uint32_t caps)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} known[] = {
		{ DRM_VDLA_CAP_TEST_IRQ, "test-irq" },
		{ DRM_VDLA_CAP_SOFT_RESET, "soft-reset" },
		{ DRM_VDLA_CAP_TIMER, "timer" },
		{ DRM_VDLA_CAP_MMU, "mmu" },
		{ DRM_VDLA_CAP_SRAM, "sram" },
		{ DRM_VDLA_CAP_FUSION, "fusion" },
		{ DRM_VDLA_CAP_FAULT_INJECTION, "fault-injection" },
		{ DRM_VDLA_CAP_INT8, "int8" },
		{ DRM_VDLA_CAP_INT16, "int16" },
		{ DRM_VDLA_CAP_FP16, "fp16" },
		{ DRM_VDLA_CAP_FP32, "fp32" },
	};

	std::vector<std::string> names;
	for (const auto &cap : known) {
		if (caps & cap.bit) {
			names.push_back(cap.name);
			caps &= ~cap.bit;
		}
	}
	for (unsigned int bit = 0; bit < 32; bit++) {
		if (caps & (1u << bit))
			names.push_back("bit" + std::to_string(bit));
	}
	return names;
}

bool driverLoaded(const std::string &sysRoot)
{
	struct stat st;
	return ::stat((sysRoot + "/module/" + kDriverName).c_str(), &st) == 0
		&& S_ISDIR(st.st_mode);
}

class Device::Private
{
public:
	UniqueFd fd;
	DeviceInfo info;
	uint32_t accelMinor = 0;
};

Device::Device(std::unique_ptr<Private> d) : d_(std::move(d))
{
}

Device::~Device() = default;

const DeviceInfo &Device::info() const
{
	return d_->info;
}

int Device::fd() const
{
	return d_->fd.get();
}

uint32_t Device::accelMinor() const
{
	return d_->accelMinor;
}

Result<std::vector<std::string>> Device::enumerate(const std::string &accelDir)
{
	std::vector<std::pair<int, std::string>> found;

	DIR *dir = ::opendir(accelDir.c_str());
	if (!dir) {
		if (errno == ENOENT)
			return std::vector<std::string>{};
		return Error(errno, "cannot list " + accelDir);
	}
	while (struct dirent *entry = ::readdir(dir)) {
		int index = accelIndex(entry->d_name);
		if (index < 0)
			continue;
		std::string node = accelDir + "/" + entry->d_name;
		UniqueFd fd(::open(node.c_str(), O_RDWR | O_CLOEXEC));
		if (fd.isValid() && servedByVdla(fd.get()))
			found.emplace_back(index, node);
	}
	::closedir(dir);

	std::sort(found.begin(), found.end());
	std::vector<std::string> nodes;
	for (auto &entry : found)
		nodes.push_back(std::move(entry.second));
	return nodes;
}

Result<std::unique_ptr<Device>> Device::open(const std::string &node)
{
	auto d = std::make_unique<Private>();
	d->fd.reset(::open(node.c_str(), O_RDWR | O_CLOEXEC));
	if (!d->fd.isValid())
		return Error(errno, "cannot open " + node);
	if (!servedByVdla(d->fd.get()))
		return Error(ENODEV, node + " is not a vdla device");
	struct stat st;
	if (::fstat(d->fd.get(), &st))
		return Error(errno, "cannot stat " + node);
	d->accelMinor = minor(st.st_rdev);

	auto raw = queryDevice(d->fd.get(), node);
	if (!raw)
		return raw.error();

	DeviceInfo &info = d->info;
	info.node = node;
	info.pciAddress = formatPciAddress(raw->pci_domain, raw->pci_bus);
	info.pciVendorId = raw->pci_vendor_id;
	info.pciDeviceId = raw->pci_device_id;
	info.pciRevision = raw->pci_revision;
	info.hardwareVersion = Version::fromRegister(raw->hw_version);
	info.capabilities = raw->hw_caps;
	info.irqVectors = raw->irq_vectors;
	info.driverVersion = { raw->driver_major, raw->driver_minor, raw->driver_patch };

	return std::unique_ptr<Device>(new Device(std::move(d)));
}

Result<std::chrono::nanoseconds> Device::testInterrupt(
	std::chrono::milliseconds timeout, bool masked) const
{
	drm_vdla_test_irq args = {};
	args.flags = masked ? DRM_VDLA_TEST_IRQ_FLAG_MASKED : 0;
	args.timeout_ms = static_cast<uint32_t>(timeout.count());
	if (timeout.count() <= 0 || timeout.count() > DRM_VDLA_TEST_IRQ_MAX_TIMEOUT_MS)
		return Error(EINVAL,
			"test interrupt timeout must be 1.."
				+ std::to_string(DRM_VDLA_TEST_IRQ_MAX_TIMEOUT_MS) + " ms");
	if (drmIoctl(d_->fd.get(), DRM_IOCTL_VDLA_TEST_IRQ, &args))
		return Error(errno, d_->info.node + ": test interrupt failed");
	return std::chrono::nanoseconds(args.latency_ns);
}

Result<MemoryInfo> Device::memory() const
{
	drm_vdla_query_memory raw = {};
	if (int error = queryInto(d_->fd.get(), DRM_VDLA_QUERY_MEMORY, &raw))
		return Error(error, d_->info.node + ": memory query failed (driver before 1.4?)");

	MemoryInfo info;
	info.sramBase = raw.sram_base;
	info.sramSize = raw.sram_size;
	info.sramFree = raw.sram_free;
	info.sramLargestFree = raw.sram_largest_free;
	return info;
}

Result<ComputeInfo> Device::compute() const
{
	drm_vdla_query_compute raw = {};
	if (int error = queryInto(d_->fd.get(), DRM_VDLA_QUERY_COMPUTE, &raw))
		return Error(error, d_->info.node + ": compute query failed (driver before 1.5?)");

	ComputeInfo info;
	info.path = raw.path;
	info.floatIsa = raw.float_isa;
	return info;
}

} /* namespace vdla */
