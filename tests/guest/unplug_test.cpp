/* SPDX-License-Identifier: MIT */
/*
 * Unbinding the driver from a vDLA (what a hot-unplug does) while a file
 * has a running job, ready jobs and a job blocked on a fence that never
 * signals: every fence ends with ENODEV at once, the old node answers
 * ENODEV, closing it frees everything (the driver WARNs at the device's
 * release if a BO, mapping, job or context is left, and the harness fails
 * the run on a WARN), the device bound again works, and then the module
 * unloads and loads again. A job's fence outlives its device and keeps the
 * module loaded while it exists.
 *
 * Part of vdla-module-tests: it takes a device away, so it runs last.
 */
#include <gtest/gtest.h>

#include <linux/sync_file.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <xf86drm.h>

#include <vdla/device.h>

#include "guest_env.h"
#include "submit_env.h"
#include "task_writer.h"

namespace {

using namespace guest;
using namespace std::chrono_literals;

std::string pciAddressOf(const std::string &node)
{
	auto device = vdla::Device::open(node);
	return device.ok() ? (*device)->info().pciAddress : std::string();
}

/* The node of the vDLA at @address, or "" once @timeout passed. */
std::string nodeOf(const std::string &address, std::chrono::milliseconds timeout)
{
	auto deadline = std::chrono::steady_clock::now() + timeout;
	do {
		for (const auto &node : nodePaths()) {
			if (pciAddressOf(node) == address)
				return node;
		}
		std::this_thread::sleep_for(20ms);
	} while (std::chrono::steady_clock::now() < deadline);
	return {};
}

bool waitState(int index, const std::string &key, long value)
{
	for (int i = 0; i < 500; i++) {
		auto state = readState(index);
		if (state.count(key) && state[key] == value)
			return true;
		std::this_thread::sleep_for(10ms);
	}
	return false;
}

/* @ops BDMA copies of 64 bytes, each after the previous one. */
struct CopyJob {
	Bo desc, src, dst;

	CopyJob(int fd, unsigned ops)
		: desc(fd, sizeof(vdla_task_header) + uint64_t(ops) * sizeof(vdla_task_op)),
		  src(fd, 4096), dst(fd, 4096)
	{
		TaskWriter task;
		for (unsigned k = 0; k < ops; k++) {
			uint16_t op = task.copy(1, (k * 64) % 4096, 2, (k * 64) % 4096, 64);
			if (k)
				task.link(uint16_t(op - 1), op);
		}
		if (desc.map())
			task.write(desc.map(), desc.size());
		if (src.map())
			src.fill(0x5a);
	}
	int error() const
	{
		return desc.error() ? desc.error() : src.error() ? src.error() : dst.error();
	}
	Submission submission(uint32_t ctx, const Syncobj &out,
		std::vector<drm_vdla_sync> inSyncs = {}) const
	{
		Submission s;
		s.ctx = ctx;
		s.addresses = { desc.entry(), src.entry(), dst.entry(DRM_VDLA_ADDRESS_FLAG_WRITE) };
		s.outSync = out.sync();
		s.inSyncs = std::move(inSyncs);
		return s;
	}
};

/* SYNC_IOC_FILE_INFO's names for the fence of @syncFile. */
std::pair<std::string, std::string> fenceNames(int syncFile)
{
	sync_fence_info fence = {};
	sync_file_info info = {};
	info.num_fences = 1;
	info.sync_fence_info = reinterpret_cast<uintptr_t>(&fence);
	if (ioctlError(syncFile, SYNC_IOC_FILE_INFO, &info))
		return {};
	return { fence.driver_name, fence.obj_name };
}

/*
 * Unbinds the device of @paths[0] under live work, checks every fence,
 * closes everything of it, binds it again and checks it works. Everything
 * the test opened is closed when this returns.
 */
void unbindWithLiveWorkAndRebind(const std::vector<std::string> &paths)
{
	/* The second device's hung job stays pending for the whole test. */
	ParamOverride timeout("job_timeout_ms", "60000");
	ASSERT_EQ(timeout.error(), 0);
	const std::string address = pciAddressOf(paths[0]);
	ASSERT_FALSE(address.empty());

	Node b(paths[1]);
	ASSERT_TRUE(b.valid());
	FaultInjection hangB(b.index());
	ASSERT_EQ(hangB.set("bdma", "hang", 1), 0);
	Ctx ctxB(b.fd());
	CopyJob hungJob(b.fd(), 1);
	Syncobj hung(b.fd());
	ASSERT_EQ(hungJob.error(), 0);
	ASSERT_EQ(submit(b.fd(), hungJob.submission(ctxB.id(), hung)), 0);

	/* The first device's objects live in this scope; the sync file outlives them. */
	int longFile = -1;
	{
		Node a(paths[0]);
		ASSERT_TRUE(a.valid());
		/* A syncobj of the first device holding the hung job's fence. */
		Syncobj never(a.fd());
		int hungFile = hung.exportSyncFile();
		ASSERT_GE(hungFile, 0);
		ASSERT_EQ(drmSyncobjImportSyncFile(a.fd(), never.handle(), hungFile), 0);
		::close(hungFile);

		/* A running job of 100 BDMA operations of 20 ms each, ready jobs, blocked ones. */
		FaultInjection slowA(a.index());
		ASSERT_EQ(slowA.set("bdma", "delay", 0, 20000), 0);
		Ctx ctx1(a.fd()), ctx2(a.fd()), ctx3(a.fd());
		/* Jobs 1 to 5 each with BOs of its own: no implicit fence between them. */
		std::vector<CopyJob> jobs;
		jobs.emplace_back(a.fd(), 100);
		for (int i = 1; i < 6; i++)
			jobs.emplace_back(a.fd(), 1);
		std::vector<Syncobj> fences;
		for (size_t i = 0; i < jobs.size(); i++) {
			ASSERT_EQ(jobs[i].error(), 0);
			fences.emplace_back(a.fd());
		}
		const uint32_t ctxOf[] = { ctx1.id(), ctx1.id(), ctx1.id(), ctx2.id(), ctx3.id(),
			ctx3.id() };
		ASSERT_EQ(submit(a.fd(), jobs[0].submission(ctxOf[0], fences[0])), 0);
		ASSERT_TRUE(waitState(a.index(), "running", 1));
		for (size_t i = 1; i < jobs.size(); i++) {
			/* Job 4 waits for the hung job; job 5 is behind it in its context. */
			std::vector<drm_vdla_sync> in;
			if (i == 4)
				in.push_back(never.sync());
			ASSERT_EQ(submit(a.fd(), jobs[i].submission(ctxOf[i], fences[i], in)), 0)
				<< "job " << i;
		}
		auto state = readState(a.index());
		EXPECT_EQ(state["running"], 1);
		EXPECT_EQ(state["queued"], 3);
		EXPECT_EQ(state["waiting"], 2);
		/* After the unbind the node refuses every ioctl: the sync files are made now. */
		std::vector<int> syncFiles;
		for (const Syncobj &fence : fences) {
			syncFiles.push_back(fence.exportSyncFile());
			ASSERT_GE(syncFiles.back(), 0);
		}
		longFile = ::dup(syncFiles[0]);

		ASSERT_EQ(writeSysfs("/sys/bus/pci/drivers/vdla/unbind", address), 0);

		/* Every fence ended, with ENODEV, by the time the unbind returned. */
		for (size_t i = 0; i < syncFiles.size(); i++) {
			FenceInfo info = syncFileInfo(syncFiles[i]);
			EXPECT_TRUE(info.ok) << "job " << i;
			EXPECT_EQ(info.status, -ENODEV) << "job " << i;
			::close(syncFiles[i]);
		}
		EXPECT_FALSE(hung.signalled()) << "the other device's job ended with this one";

		/* The node is gone for every ioctl, the DRM core's too. */
		drm_vdla_query query = {};
		query.query = DRM_VDLA_QUERY_DEVICE;
		EXPECT_EQ(ioctlError(a.fd(), DRM_IOCTL_VDLA_QUERY, &query), ENODEV);
		EXPECT_EQ(submit(a.fd(), jobs[1].submission(ctx1.id(), fences[1])), ENODEV);
		uint32_t handle = 0;
		EXPECT_EQ(drmSyncobjCreate(a.fd(), 0, &handle) ? errno : 0, ENODEV);
		slowA.clear();
		/*
		 * Leaving the scope closes the node: everything of the first
		 * device goes, and its release WARNs on what would be left.
		 */
	}

	/* The sync file still answers, from the fence alone. */
	FenceInfo info = syncFileInfo(longFile);
	EXPECT_TRUE(info.ok);
	EXPECT_EQ(info.status, -ENODEV);
	auto [driver, timeline] = fenceNames(longFile);
	EXPECT_EQ(driver, "vdla");
	EXPECT_EQ(timeline, "vdla-context");
	::close(longFile);

	/* Bound again, it works, and starts with nothing alive. */
	ASSERT_EQ(writeSysfs("/sys/bus/pci/drivers/vdla/bind", address), 0);
	std::string node = nodeOf(address, 5000ms);
	ASSERT_FALSE(node.empty()) << "no node for " << address << " after the bind";
	Node again(node);
	ASSERT_TRUE(again.valid());
	{
		Ctx ctx(again.fd());
		CopyJob job(again.fd(), 4);
		Syncobj done(again.fd());
		ASSERT_EQ(job.error(), 0);
		ASSERT_EQ(submit(again.fd(), job.submission(ctx.id(), done)), 0);
		ASSERT_EQ(done.wait(10000), 0);
		EXPECT_EQ(done.fence().status, 1);
		uint8_t *out = job.dst.map();
		ASSERT_NE(out, nullptr);
		for (int i = 0; i < 4 * 64; i++)
			ASSERT_EQ(out[i], 0x5a) << "byte " << i;
	}
	EXPECT_TRUE(waitState(again.index(), "jobs", 0));
	EXPECT_EQ(readState(again.index())["contexts"], 0);

	/* The other device's job ends when its file goes. */
	EXPECT_FALSE(hung.signalled());
	hangB.clear();
}

/* Waits for the fences the driver made to be freed (after an RCU grace period), then unloads. */
int unloadWhenFree()
{
	int ret = EWOULDBLOCK;
	for (int i = 0; i < 200 && ret == EWOULDBLOCK; i++) {
		std::this_thread::sleep_for(10ms);
		ret = unloadDriver();
	}
	return ret;
}

TEST(Unplug, UnbindWithLiveWorkEndsEveryFenceWithEnodevAndRebindWorks)
{
	std::vector<std::string> paths = nodePaths();
	ASSERT_GE(paths.size(), 2u) << "needs a vDLA to unplug and one whose job never ends";
	unbindWithLiveWorkAndRebind(paths);
	if (HasFatalFailure())
		return;
	/* Then the module unloads cleanly and comes back with every device. */
	ASSERT_EQ(unloadWhenFree(), 0);
	ASSERT_EQ(loadDriver(), 0);
	ASSERT_TRUE(waitForNodes(expectedDevices(), 5000ms));
}

TEST(Unplug, AFenceKeepsTheModuleLoadedAndOutlivesItsDevice)
{
	std::vector<std::string> paths = nodePaths();
	ASSERT_FALSE(paths.empty());
	int syncFile = -1;
	{
		Node node(paths[0]);
		ASSERT_TRUE(node.valid());
		Ctx ctx(node.fd());
		CopyJob job(node.fd(), 1);
		Syncobj done(node.fd());
		ASSERT_EQ(job.error(), 0);
		ASSERT_EQ(submit(node.fd(), job.submission(ctx.id(), done)), 0);
		ASSERT_EQ(done.wait(10000), 0);
		syncFile = done.exportSyncFile();
		ASSERT_GE(syncFile, 0);
	}
	/* Nothing is open but the fence: unloading would leave it pointing at nothing. */
	EXPECT_EQ(unloadDriver(), EWOULDBLOCK);
	FenceInfo info = syncFileInfo(syncFile);
	EXPECT_EQ(info.status, 1);
	EXPECT_EQ(fenceNames(syncFile).first, "vdla");
	::close(syncFile);

	/* The fence is freed after an RCU grace period; then the module goes. */
	ASSERT_EQ(unloadWhenFree(), 0);
	ASSERT_EQ(loadDriver(), 0);
	ASSERT_TRUE(waitForNodes(expectedDevices(), 5000ms));
}

} /* namespace */
