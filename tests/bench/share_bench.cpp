/* SPDX-License-Identifier: MIT */
/*
 * vdla-bench-share [ROUNDS]: sharing between two processes, through
 * libvdla's public API (docs/sharing.md), printed as JSON lines:
 *
 *  share_tensor_us_p50, _p99  a 1 MiB tensor from one process to another:
 *                             exportTo, importFrom and map in the receiver,
 *                             until the receiver's reply arrives (one IPC
 *                             round trip included)
 *  xproc_fence_us_p50, _p99   a producer's job signals a fence a consumer
 *                             process waits for: from the fence's signal time
 *                             (the kernel's timestamp) to the consumer awake
 *  share_noop_ioctl_us_p50    DRM_IOCTL_VDLA_QUERY asking for a size, the
 *                             cheapest ioctl, timed in the same run
 */
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <drm/vdla_accel.h>
#include <xf86drm.h>

#include <vdla/context.h>
#include <vdla/device.h>
#include <vdla/ipc.h>
#include <vdla/shared_buffer.h>
#include <vdla/sync.h>
#include <vdla/task_builder.h>

#include "bench_stats.h"

namespace {

using namespace vdla;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

constexpr uint32_t kReply = 0x62656e31; /* an application kind: "ben1" */

using bench::micros;
using bench::percentile;

int fail(const char *what, const Error &e)
{
	std::fprintf(stderr, "vdla-bench-share: %s: %s\n", what, e.message().c_str());
	return 1;
}

int64_t monotonicNs()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/* The receiving process: imports each buffer and maps it, then each fence. */
int receiver(IpcEndpoint &ep, const std::string &node, int rounds)
{
	auto device = Device::open(node);
	if (!device)
		return fail("open", device.error());
	for (int i = 0; i < rounds; i++) {
		auto shared = SharedBuffer::importFrom(ep, **device, Permission::ReadOnly, 10s);
		if (!shared)
			return fail("importFrom", shared.error());
		auto map = (*shared)->map();
		if (!map)
			return fail("map", map.error());
		if (!ep.send(kReply, {}))
			return 1;
	}
	for (int i = 0; i < rounds; i++) {
		auto fence = SyncFence::importFrom(ep, 10s);
		if (!fence)
			return fail("SyncFence::importFrom", fence.error());
		/* Waiting already when it signals, or the sample does not count. */
		auto before = fence->status();
		auto status = fence->wait(10s);
		const int64_t awake = monotonicNs();
		if (!before || !status)
			return 1;
		int64_t latencyNs = before->signalled ? -1 : awake - status->timestamp.count();
		std::vector<uint8_t> reply(8);
		for (int b = 0; b < 8; b++)
			reply[b] = uint8_t(uint64_t(latencyNs) >> (8 * b));
		if (!ep.send(kReply, reply))
			return 1;
	}
	return 0;
}

} /* namespace */

int main(int argc, char **argv)
{
	const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
	auto nodes = Device::enumerate();
	if (!nodes || nodes->empty()) {
		std::fprintf(stderr, "vdla-bench-share: no vdla device\n");
		return 1;
	}
	auto pair = IpcEndpoint::pair();
	if (!pair)
		return fail("pair", pair.error());
	pid_t pid = fork();
	if (pid == 0) {
		pair->first.reset();
		_exit(receiver(*pair->second, nodes->front(), rounds));
	}
	pair->second.reset();
	IpcEndpoint &ep = *pair->first;
	auto device = Device::open(nodes->front());
	if (!device)
		return fail("open", device.error());

	AttrList list("bench");
	list.setTypes({ BufferType::Tensor });
	list.setTensorDataType(TensorDataType::Int8);
	list.setTensorDims({ 1, 16, 256, 256 });
	list.setAccessors({ Accessor::dla((*device)->accelMinor()), Accessor::cpu() });
	list.setRequiredPermission(Permission::ReadWrite);
	auto reconciled = reconcile({ &list });
	if (!reconciled || !reconciled->list)
		return 1;
	auto tensor = SharedBuffer::allocate(**device, *reconciled->list);
	if (!tensor)
		return fail("allocate", tensor.error());

	std::vector<double> share, noop;
	for (int i = 0; i < rounds; i++) {
		auto start = clock_type::now();
		if (auto sent = (*tensor)->exportTo(ep, Permission::ReadOnly); !sent)
			return fail("exportTo", sent.error());
		if (auto reply = ep.receive(kReply, 10s); !reply)
			return fail("reply", reply.error());
		share.push_back(micros(clock_type::now() - start));

		drm_vdla_query query = {};
		query.query = DRM_VDLA_QUERY_DEVICE;
		auto qstart = clock_type::now();
		if (drmIoctl((*device)->fd(), DRM_IOCTL_VDLA_QUERY, &query))
			return 1;
		noop.push_back(micros(clock_type::now() - qstart));
	}

	/* Fences: 16 copies of 4 MiB give the consumer time to be waiting. */
	SyncAttrList signaler("bench"), waiter("consumer");
	signaler.setRequiredPermission(SyncPermission::SignalOnly);
	signaler.setAccessor(Accessor::dla((*device)->accelMinor()));
	waiter.setRequiredPermission(SyncPermission::WaitOnly);
	waiter.setAccessor(Accessor::cpu());
	auto syncList = reconcileSync({ &signaler, &waiter });
	if (!syncList || !syncList->list)
		return 1;
	auto sync = SyncObject::allocate(**device, *syncList->list);
	auto context = Context::create(**device);
	auto src = Buffer::create(**device, 4 * 1024 * 1024);
	auto dst = Buffer::create(**device, 4 * 1024 * 1024);
	if (!sync || !context || !src || !dst)
		return 1;
	TaskBuilder builder;
	uint16_t from = builder.addBuffer(**src);
	uint16_t to = builder.addBuffer(**dst, BufferUse::Write);
	for (int i = 0; i < 16; i++)
		builder.copy({ from, 0 }, { to, 0 }, 4 * 1024 * 1024);
	auto task = builder.build(**device);
	if (!task)
		return fail("build", task.error());
	std::vector<double> fence;
	int late = 0;
	for (int i = 0; i < rounds; i++) {
		const uint64_t point = (*sync)->nextPoint();
		if (auto queued = (*context)->submit(*task, {}, { &(*sync)->timeline(), point }); !queued)
			return fail("submit", queued.error());
		if (auto sent = (*sync)->exportFence(ep, point); !sent)
			return fail("exportFence", sent.error());
		auto reply = ep.receive(kReply, 10s);
		if (!reply || reply->payload.size() != 8)
			return 1;
		int64_t ns = 0;
		for (int b = 0; b < 8; b++)
			ns |= int64_t(reply->payload[b]) << (8 * b);
		if (ns < 0)
			late++;
		else
			fence.push_back(double(ns) / 1000.0);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return 1;

	for (double p : { 0.50, 0.99 })
		std::printf("{\"bench\": \"share_tensor_us_p%d\", \"value\": %.1f, \"unit\": \"us\", "
			    "\"bytes\": %llu, \"samples\": %d}\n",
			int(p * 100), percentile(share, p),
			(unsigned long long)*reconciled->list->size(), rounds);
	for (double p : { 0.50, 0.99 })
		std::printf("{\"bench\": \"xproc_fence_us_p%d\", \"value\": %.1f, \"unit\": \"us\", "
			    "\"samples\": %zu, \"signalled_before_the_wait\": %d}\n",
			int(p * 100), percentile(fence, p), fence.size(), late);
	std::printf("{\"bench\": \"share_noop_ioctl_us_p50\", \"value\": %.2f, \"unit\": \"us\", "
		    "\"samples\": %d}\n",
		percentile(noop, 0.50), rounds);
	return 0;
}
