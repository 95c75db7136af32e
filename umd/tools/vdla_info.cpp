/* SPDX-License-Identifier: MIT */
/*
 * vdla-info: lists every vDLA device with the values its driver reads from
 * the hardware. Exits 1 with a reason when there is nothing to list.
 */
#include <cstdio>
#include <cstring>
#include <iostream>

#include <drm/vdla_accel.h>
#include <vdla/device.h>

namespace {

std::string joined(const std::vector<std::string> &words)
{
	std::string text;
	for (const auto &word : words)
		text += (text.empty() ? "" : " ") + word;
	return text.empty() ? "none" : text;
}

/* The compute path, or why it is not known. */
std::string computeText(const vdla::Device &device)
{
	auto compute = device.compute();
	if (!compute)
		return "unknown (" + compute.error().message() + ")";
	if (compute->path == DRM_VDLA_COMPUTE_PATH_UNKNOWN)
		return "unknown (hardware before 2.1)";
	return vdla::computePathName(compute->path) + " (float on oneDNN "
		+ vdla::computeIsaName(compute->floatIsa) + ")";
}

void printDevice(const vdla::Device &device)
{
	const vdla::DeviceInfo &info = device.info();
	char ids[64];
	std::snprintf(ids, sizeof(ids), "%04x:%04x rev %02x", info.pciVendorId, info.pciDeviceId,
		      info.pciRevision);
	char caps[16];
	std::snprintf(caps, sizeof(caps), "0x%08x", info.capabilities);

	std::cout << info.node << "\n"
		  << "  pci address:    " << info.pciAddress << "\n"
		  << "  pci id:         " << ids << "\n"
		  << "  hardware:       vDLA " << info.hardwareVersion.toString() << "\n"
		  << "  capabilities:   " << joined(vdla::capabilityNames(info.capabilities))
		  << " (" << caps << ")\n"
		  << "  compute:        " << computeText(device) << "\n"
		  << "  msi-x vectors:  " << info.irqVectors << "\n"
		  << "  driver:         vdla " << info.driverVersion.toString() << "\n";
}

} /* namespace */

int main(int argc, char **argv)
{
	if (argc > 1) {
		std::cerr << "usage: vdla-info\n"
			  << "Lists every vDLA device and its capabilities.\n";
		return std::strcmp(argv[1], "--help") == 0 ? 0 : 2;
	}

	auto nodes = vdla::Device::enumerate();
	if (!nodes) {
		std::cerr << "vdla-info: " << nodes.error().message() << "\n";
		return 1;
	}
	if (nodes->empty()) {
		if (!vdla::driverLoaded())
			std::cerr << "vdla-info: the vdla kernel driver is not loaded "
				     "(load it with 'modprobe vdla' or 'insmod vdla.ko')\n";
		else
			std::cerr << "vdla-info: the vdla driver is loaded but no vDLA device "
				     "was found under /dev/accel\n";
		return 1;
	}

	int status = 0;
	for (const auto &node : *nodes) {
		auto device = vdla::Device::open(node);
		if (!device) {
			std::cerr << "vdla-info: " << device.error().message() << "\n";
			status = 1;
			continue;
		}
		printDevice(**device);
	}
	return status;
}
