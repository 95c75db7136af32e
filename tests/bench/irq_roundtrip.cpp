/* SPDX-License-Identifier: MIT */
/*
 * vdla-bench-irq [ROUND_TRIPS]: times DRM_IOCTL_VDLA_TEST_IRQ as userspace
 * sees it (ioctl entry to return: register write, MSI-X, hard and threaded
 * handlers, wake-up) and prints p50 and p99 as JSON lines.
 */
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <vdla/device.h>

namespace {

/*
 * The CPU that handles @pciAddress's interrupt, or -1. The driver names its
 * interrupt after the PCI device, as /proc/interrupts shows.
 */
int interruptCpu(const std::string &pciAddress)
{
	std::ifstream interrupts("/proc/interrupts");
	std::string line;
	while (std::getline(interrupts, line)) {
		if (line.size() < pciAddress.size() ||
		    line.compare(line.size() - pciAddress.size(), pciAddress.size(), pciAddress) != 0)
			continue;
		int irq = std::atoi(line.c_str());
		std::ifstream affinity("/proc/irq/" + std::to_string(irq) + "/effective_affinity_list");
		int cpu = -1;
		if (affinity >> cpu)
			return cpu;
	}
	return -1;
}

} /* namespace */

int main(int argc, char **argv)
{
	int count = argc > 1 ? std::atoi(argv[1]) : 2000;
	if (count < 1) {
		std::fprintf(stderr, "usage: vdla-bench-irq [ROUND_TRIPS>=1]\n");
		return 2;
	}

	auto nodes = vdla::Device::enumerate();
	if (!nodes || nodes->empty()) {
		std::fprintf(stderr, "vdla-bench-irq: no vDLA device\n");
		return 1;
	}
	auto device = vdla::Device::open(nodes->front());
	if (!device) {
		std::fprintf(stderr, "vdla-bench-irq: %s\n", device.error().message().c_str());
		return 1;
	}

	/*
	 * Run on the CPU that takes the interrupt: otherwise every round trip
	 * also pays a cross-CPU wake-up, which under TCG (each vCPU a host
	 * thread) costs about 100 us and makes the figure bimodal.
	 */
	int cpu = interruptCpu((*device)->info().pciAddress);
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}

	using clock = std::chrono::steady_clock;
	std::vector<double> micros, kernelMicros;
	micros.reserve(count);
	kernelMicros.reserve(count);
	for (int i = 0; i < count + 100; i++) {
		auto start = clock::now();
		auto latency = (*device)->testInterrupt(std::chrono::milliseconds(1000));
		auto end = clock::now();
		if (!latency) {
			std::fprintf(stderr, "vdla-bench-irq: %s\n", latency.error().message().c_str());
			return 1;
		}
		if (i >= 100) { /* the first round trips warm caches and the TB cache */
			micros.push_back(std::chrono::duration<double, std::micro>(end - start).count());
			kernelMicros.push_back(latency->count() / 1000.0);
		}
	}

	std::sort(micros.begin(), micros.end());
	std::sort(kernelMicros.begin(), kernelMicros.end());
	auto percentile = [](const std::vector<double> &v, double p) {
		return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
	};
	/*
	 * The round trip as userspace sees it; "driver_us" is the part from the
	 * register write raising the interrupt to the driver's interrupt thread.
	 */
	for (double p : { 0.50, 0.99 }) {
		std::printf("{\"bench\": \"irq_roundtrip_us_p%d\", \"value\": %.1f, \"unit\": \"us\", "
			    "\"samples\": %d, \"driver_us\": %.1f, \"pinned_to_irq_cpu\": %s}\n",
			    int(p * 100), percentile(micros, p), count, percentile(kernelMicros, p),
			    cpu >= 0 ? "true" : "false");
	}
	return 0;
}
