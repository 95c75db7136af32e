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
	std::vector<double> micros;
	micros.reserve(count);
	for (int i = 0; i < count + 100; i++) {
		auto start = clock::now();
		auto latency = (*device)->testInterrupt(std::chrono::milliseconds(1000));
		auto end = clock::now();
		if (!latency) {
			std::fprintf(stderr, "vdla-bench-irq: %s\n", latency.error().message().c_str());
			return 1;
		}
		if (i >= 100) /* the first round trips warm caches and the TB cache */
			micros.push_back(std::chrono::duration<double, std::micro>(end - start).count());
	}

	std::sort(micros.begin(), micros.end());
	auto percentile = [&](double p) {
		return micros[std::min(micros.size() - 1, static_cast<size_t>(p * micros.size()))];
	};
	std::printf("{\"bench\": \"irq_roundtrip_us_p50\", \"value\": %.1f, \"unit\": \"us\", \"samples\": %d}\n",
		    percentile(0.50), count);
	std::printf("{\"bench\": \"irq_roundtrip_us_p99\", \"value\": %.1f, \"unit\": \"us\", \"samples\": %d}\n",
		    percentile(0.99), count);
	return 0;
}
