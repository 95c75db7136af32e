/* SPDX-License-Identifier: MIT */
/*
 * vdla-bench-irq [ROUND_TRIPS]: times DRM_IOCTL_VDLA_TEST_IRQ as userspace
 * sees it (ioctl entry to return: register write, MSI-X, hard and threaded
 * handlers, wake-up) and prints p50 and p99 as JSON lines.
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <vdla/device.h>

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
			    "\"samples\": %d, \"driver_us\": %.1f}\n",
			    int(p * 100), percentile(micros, p), count, percentile(kernelMicros, p));
	}
	return 0;
}
