/* SPDX-License-Identifier: MIT */
/*
 * Sharing across engines and processes (vdla/shared_buffer.h, vdla/sync.h)
 * on the real driver: allocation as reconciled, duplicates with less
 * permission, a producer process writing a tensor on one vDLA and two
 * consumer processes reading it (on the second vDLA and on the CPU)
 * ordered by fences alone, a read-only importer trying every way to
 * write, and a signaler killed with its fences pending.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <thread>

#include <drm/vdla_accel.h>
#include <xf86drm.h>

#include <vdla/shared_buffer.h>
#include <vdla/sync.h>

#include "submit_env.h"
#include "umd_test.h"

namespace umd_test {

namespace {

using namespace vdla;

constexpr uint32_t kBytes = 4096;
constexpr auto kIpcTimeout = std::chrono::seconds(20);

/* The byte at @i of what producers write: no two neighbours equal, never 0. */
uint8_t pattern(size_t i)
{
	return static_cast<uint8_t>(1 + (i * 7 + i / 251) % 253);
}

/* Where @data differs from the pattern, or -1. */
long firstWrong(const uint8_t *data)
{
	for (size_t i = 0; i < kBytes; i++)
		if (data[i] != pattern(i))
			return static_cast<long>(i);
	return -1;
}

/* A tensor of 4096 INT8 [1,4,32,32] for @owner, through @accessors. */
AttrList tensorList(const std::string &owner, std::vector<Accessor> accessors,
	Permission permission)
{
	AttrList l(owner);
	EXPECT_TRUE(l.setTypes({ BufferType::Tensor }));
	EXPECT_TRUE(l.setTensorDataType(TensorDataType::Int8));
	EXPECT_TRUE(l.setTensorDims({ 1, 4, 32, 32 }));
	EXPECT_TRUE(l.setAccessors(std::move(accessors)));
	EXPECT_TRUE(l.setRequiredPermission(permission));
	return l;
}

SyncAttrList syncList(const std::string &owner, SyncPermission permission, Accessor engine)
{
	SyncAttrList l(owner);
	EXPECT_TRUE(l.setRequiredPermission(permission));
	EXPECT_TRUE(l.setAccessor(engine));
	return l;
}

/* In a child: returns @status unless @r failed with @errnum. */
#define CHILD_REFUSED(r, errnum, status, what)                                         \
	do {                                                                           \
		auto res_ = (r);                                                       \
		if (res_ || res_.error().code() != (errnum)) {                         \
			fprintf(stderr, "child: %s was not refused with %s\n", what,   \
				strerror(errnum));                                     \
			return status;                                                 \
		}                                                                      \
	} while (0)

class SharingTest : public UmdTest
{
protected:
	void SetUp() override
	{
		UmdTest::SetUp();
		if (HasFatalFailure())
			return;
		needTwoDevices();
	}

	std::unique_ptr<Device> open(size_t index)
	{
		auto d = Device::open(nodes_[index]);
		EXPECT_TRUE(succeeded(d));
		return d ? std::move(*d) : nullptr;
	}

	/* A source buffer holding the pattern, on @device. */
	std::unique_ptr<Buffer> patternSource(Device &device)
	{
		auto b = buffer(kBytes, &device);
		if (b)
			for (size_t i = 0; i < kBytes; i++)
				b->data()[i] = pattern(i);
		return b;
	}

};

TEST_F(SharingTest, AllocationFollowsTheReconciledList)
{
	/* Accessor::dla(n) is /dev/accel/accel<n>, whichever process asks. */
	EXPECT_EQ(std::to_string(device_->accelMinor()), node_.substr(node_.rfind("accel") + 5));
	auto second = open(1);
	ASSERT_TRUE(second);
	EXPECT_EQ(second->accelMinor(), 1u) << nodes_[1];

	AttrList camera = tensorList("camera", { Accessor::dla(0), Accessor::cpu() },
		Permission::ReadWrite);
	auto r = reconcile({ &camera });
	ASSERT_TRUE(r && r->list);
	auto shared = SharedBuffer::allocate(*device_, *r->list);
	ASSERT_TRUE(succeeded(shared));
	SharedBuffer &b = **shared;
	EXPECT_EQ(b.attributes().tensorDims(), r->list->tensorDims());
	EXPECT_EQ(b.permission(), Permission::ReadWrite);
	EXPECT_GE(b.buffer().size(), *r->list->size());
	EXPECT_EQ(b.buffer().placement(), Buffer::Placement::Memory);
	auto map = b.map();
	ASSERT_TRUE(succeeded(map));
	ASSERT_TRUE(succeeded(b.beginCpuAccess(Buffer::CpuAccess::Write)));
	(*map)[0] = 1;
	ASSERT_TRUE(succeeded(b.endCpuAccess(Buffer::CpuAccess::Write)));

	/* SRAM: one vDLA and no CPU; then it has no CPU view and no dma-buf. */
	AttrList layer = tensorList("layer", { Accessor::dla(0) }, Permission::ReadWrite);
	ASSERT_TRUE(layer.setMemoryDomain(MemoryDomain::Sram, false));
	auto s = reconcile({ &layer });
	ASSERT_TRUE(s && s->list);
	auto sram = SharedBuffer::allocate(*device_, *s->list);
	ASSERT_TRUE(succeeded(sram));
	EXPECT_EQ((*sram)->buffer().placement(), Buffer::Placement::Sram);
	EXPECT_EQ((*sram)->map().error().code(), EACCES);
	auto pair = IpcEndpoint::pair();
	ASSERT_TRUE(pair);
	EXPECT_EQ((*sram)->exportTo(*pair->first, Permission::ReadOnly).error().code(), EINVAL);
	EXPECT_EQ(SharedBuffer::allocate(*second, *s->list).error().code(), ENODEV)
		<< "SRAM reconciled for dla:0 allocated on dla:1";

	EXPECT_EQ(SharedBuffer::allocate(*device_, camera).error().code(), EINVAL)
		<< "an unreconciled list";
	AttrList wide("wide");
	ASSERT_TRUE(wide.setTypes({ BufferType::Raw }));
	ASSERT_TRUE(wide.setRawSize(4096));
	ASSERT_TRUE(wide.setRawAlignment(65536));
	auto w = reconcile({ &wide });
	ASSERT_TRUE(w && w->list);
	EXPECT_EQ(SharedBuffer::allocate(*device_, *w->list).error().code(), EINVAL)
		<< "an alignment beyond the page";

	/* A receiver that needs another shape refuses what it is sent. */
	ASSERT_TRUE(succeeded(b.exportTo(*pair->first, Permission::ReadOnly)));
	AttrList other = tensorList("other", { Accessor::cpu() }, Permission::ReadOnly);
	AttrList wider("wider");
	ASSERT_TRUE(wider.setTypes({ BufferType::Tensor }));
	ASSERT_TRUE(wider.setTensorDims({ 1, 4, 64, 64 }));
	auto refused = SharedBuffer::importFrom(*pair->second, *device_, Permission::ReadOnly,
		kIpcTimeout, &wider);
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code(), EBADMSG);
	EXPECT_NE(refused.error().reason().find("Tensor.Dims must be equal"), std::string::npos)
		<< refused.error().reason();
	ASSERT_TRUE(succeeded(b.exportTo(*pair->first, Permission::ReadOnly)));
	EXPECT_TRUE(succeeded(SharedBuffer::importFrom(*pair->second, *device_,
		Permission::ReadOnly, kIpcTimeout, &other)));

	/* No party writes: the allocator too holds it read-only. */
	AttrList reader = tensorList("reader", { Accessor::cpu() }, Permission::ReadOnly);
	auto ro = reconcile({ &reader });
	ASSERT_TRUE(ro && ro->list);
	auto readOnly = SharedBuffer::allocate(*device_, *ro->list);
	ASSERT_TRUE(succeeded(readOnly));
	EXPECT_EQ((*readOnly)->permission(), Permission::ReadOnly);
	EXPECT_EQ((*readOnly)->buffer().access(), Buffer::Access::ReadOnly);
}

/* Everything a holder of @b (read-only) could try to write with, refused. */
void expectNoWayToWrite(SharedBuffer &b, Device &device)
{
	auto map = b.map();
	ASSERT_TRUE(succeeded(map));
	const long page = sysconf(_SC_PAGESIZE);
	EXPECT_NE(mprotect(*map, page, PROT_READ | PROT_WRITE), 0) << "mprotect to writable";
	EXPECT_EQ(errno, EACCES);
	EXPECT_EQ(b.beginCpuAccess(Buffer::CpuAccess::Write).error().code(), EACCES);
	EXPECT_EQ(b.duplicate(Permission::ReadWrite).error().code(), EACCES);
	EXPECT_EQ(b.buffer().exportFd(Buffer::Access::ReadWrite).error().code(), EACCES);
	auto pair = IpcEndpoint::pair();
	ASSERT_TRUE(pair);
	EXPECT_EQ(b.exportTo(*pair->first, Permission::ReadWrite).error().code(), EACCES);

	/* Its read-only dma-buf: neither mapped writable nor imported writable. */
	auto fd = b.buffer().exportFd(Buffer::Access::ReadOnly);
	ASSERT_TRUE(succeeded(fd));
	UniqueFd dmabuf(*fd);
	void *p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf.get(), 0);
	EXPECT_EQ(p, MAP_FAILED) << "the read-only dma-buf mapped writable";
	if (p != MAP_FAILED)
		munmap(p, kBytes);
	EXPECT_EQ(Buffer::import(device, dmabuf.get(), Buffer::Access::ReadWrite).error().code(),
		EACCES);
	/* Opened again through /proc for writing: the kernel refuses a new file. */
	const std::string again = "/proc/self/fd/" + std::to_string(dmabuf.get());
	UniqueFd reopened(::open(again.c_str(), O_RDWR | O_CLOEXEC));
	EXPECT_FALSE(reopened.isValid()) << "a read-only dma-buf reopened for writing";
	if (reopened.isValid()) {
		EXPECT_FALSE(Buffer::import(device, reopened.get(), Buffer::Access::ReadWrite));
		void *w = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, reopened.get(), 0);
		EXPECT_EQ(w, MAP_FAILED) << "the reopened dma-buf mapped writable";
		if (w != MAP_FAILED)
			munmap(w, kBytes);
	}

	/* Through the node: the BO's mmap offset mapped writable. */
	drm_vdla_bo_info info = {};
	info.handle = b.buffer().handle();
	ASSERT_EQ(drmIoctl(b.buffer().device().fd(), DRM_IOCTL_VDLA_BO_INFO, &info), 0);
	p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, b.buffer().device().fd(),
		info.mmap_offset);
	EXPECT_EQ(p, MAP_FAILED) << "the read-only BO mapped writable through the node";
	if (p != MAP_FAILED)
		munmap(p, kBytes);

	/* A job: marked as written, refused at submit; marked as read, it faults. */
	auto ctx = Context::create(b.buffer().device());
	ASSERT_TRUE(succeeded(ctx));
	auto src = Buffer::create(b.buffer().device(), kBytes);
	ASSERT_TRUE(succeeded(src));
	auto task = copyTask(**src, b.buffer(), BufferUse::Write, kBytes).build(b.buffer().device());
	ASSERT_TRUE(succeeded(task));
	EXPECT_EQ((*ctx)->submit(*task).error().code(), EACCES);
	auto lying = copyTask(**src, b.buffer(), BufferUse::Read, kBytes).build(b.buffer().device());
	ASSERT_TRUE(succeeded(lying));
	auto done = Fence::create(b.buffer().device());
	ASSERT_TRUE(succeeded(done));
	ASSERT_TRUE(succeeded((*ctx)->submit(*lying, {}, { done->get() })));
	auto status = (*done)->waitStatus(0, kJobTimeout);
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->error, EFAULT) << "the device MMU let the job write";
}

TEST_F(SharingTest, ADuplicateWithLessPermissionCannotWrite)
{
	AttrList producer = tensorList("producer", { Accessor::dla(0), Accessor::cpu() },
		Permission::ReadWrite);
	auto r = reconcile({ &producer });
	ASSERT_TRUE(r && r->list);
	auto original = SharedBuffer::allocate(*device_, *r->list);
	ASSERT_TRUE(succeeded(original));
	auto map = (*original)->map();
	ASSERT_TRUE(succeeded(map));
	for (size_t i = 0; i < kBytes; i++)
		(*map)[i] = pattern(i);

	auto copy = (*original)->duplicate(Permission::ReadOnly);
	ASSERT_TRUE(succeeded(copy));
	EXPECT_EQ((*copy)->permission(), Permission::ReadOnly);
	EXPECT_EQ((*copy)->attributes().tensorDims(), r->list->tensorDims());
	auto view = (*copy)->map();
	ASSERT_TRUE(succeeded(view));
	EXPECT_EQ(firstWrong(*view), -1) << "the duplicate shows the original's bytes";
	expectNoWayToWrite(**copy, *device_);
	EXPECT_EQ(firstWrong(*map), -1) << "the data changed";

	/* The original is as writable as before. */
	(*map)[5] = 0;
	EXPECT_EQ((*view)[5], 0);
}

/*
 * The producer (this process) writes a tensor with a slow job on dla:0
 * and hands the buffer and the job's fence to two consumer processes at
 * once, before the job ends: one copies it on dla:1 in a job that waits
 * for the fence, the other reads it on the CPU after waiting for the
 * fence. Only the fence orders them: the copy on dla:1 ignores the
 * buffer's implicit fences (Context::setImplicitSync(false)), so without
 * the fence it would copy zeros, and the CPU finds the fence pending
 * first. The lists of both sides are reconciled in the producer from what
 * the consumers sent.
 */
TEST_F(SharingTest, AProducerAndTwoConsumerProcessesOrderedByFencesOnly)
{
	auto toDla = IpcEndpoint::pair();
	auto toCpu = IpcEndpoint::pair();
	ASSERT_TRUE(toDla && toCpu);

	pid_t dlaConsumer = guest::forkChild([&]() -> int {
		IpcEndpoint &ep = *toDla->second;
		auto device = Device::open(nodes_[1]);
		CHILD_CHECK(device, 10, "open dla:1");
		const AttrList needs = tensorList("classifier", { Accessor::dla(1) },
			Permission::ReadOnly);
		CHILD_CHECK(sendAttrList(ep, needs), 11, "send the list");
		CHILD_CHECK(sendSyncAttrList(ep, syncList("classifier", SyncPermission::WaitOnly,
						 Accessor::dla(1))),
			12, "send the sync list");
		auto shared = SharedBuffer::importFrom(ep, **device, Permission::ReadOnly, kIpcTimeout,
			&needs);
		CHILD_CHECK(shared, 13, "import the tensor");
		auto fence = SyncFence::importFrom(ep, kIpcTimeout);
		CHILD_CHECK(fence, 14, "import the fence");
		auto pending = fence->status();
		CHILD_CHECK(pending, 15, "the fence's status");
		if (pending->signalled) {
			fprintf(stderr, "child: the write ended before dla:1 queued its copy\n");
			return 25;
		}
		auto waitable = fence->toFence(**device);
		CHILD_CHECK(waitable, 15, "the fence for a job");
		auto out = Buffer::create(**device, kBytes);
		CHILD_CHECK(out, 16, "an output buffer");
		auto ctx = Context::create(**device);
		CHILD_CHECK(ctx, 17, "a context");
		/* The fence alone orders the copy, not the buffer's implicit fences. */
		(*ctx)->setImplicitSync(false);
		auto task = copyTask((*shared)->buffer(), **out, BufferUse::Write, kBytes)
				    .build(**device);
		CHILD_CHECK(task, 18, "build the copy");
		auto done = Fence::create(**device);
		CHILD_CHECK(done, 19, "a fence");
		CHILD_CHECK((*ctx)->submit(*task, { { waitable->get(), 0 } }, { done->get() }), 20,
			"submit the copy");
		auto status = (*done)->waitStatus(0, kJobTimeout);
		CHILD_CHECK(status, 21, "wait for the copy");
		if (status->error)
			return 22;
		auto map = (*out)->map();
		CHILD_CHECK(map, 23, "map the copy");
		long wrong = firstWrong(*map);
		if (wrong >= 0) {
			fprintf(stderr, "child: dla:1 read byte %ld as %u\n", wrong, (*map)[wrong]);
			return 24;
		}
		return 0;
	});
	pid_t cpuConsumer = guest::forkChild([&]() -> int {
		IpcEndpoint &ep = *toCpu->second;
		auto device = Device::open(nodes_[0]);
		CHILD_CHECK(device, 30, "open dla:0");
		AttrList viewer = tensorList("viewer", { Accessor::cpu() }, Permission::ReadOnly);
		if (!viewer.setNeedCpuAccess(true))
			return 31;
		CHILD_CHECK(sendAttrList(ep, viewer), 31, "send the list");
		SyncAttrList sync = syncList("viewer", SyncPermission::WaitOnly, Accessor::cpu());
		if (!sync.setNeedCpuWait(true) || !sync.setRequireTimestamps(true))
			return 32;
		CHILD_CHECK(sendSyncAttrList(ep, sync), 32, "send the sync list");
		auto shared = SharedBuffer::importFrom(ep, **device, Permission::ReadOnly, kIpcTimeout);
		CHILD_CHECK(shared, 33, "import the tensor");
		auto fence = SyncFence::importFrom(ep, kIpcTimeout);
		CHILD_CHECK(fence, 34, "import the fence");
		auto early = fence->status();
		CHILD_CHECK(early, 34, "the fence's status");
		if (early->signalled) {
			fprintf(stderr, "child: the write ended before the CPU had to wait\n");
			return 41;
		}
		auto status = fence->wait(kJobTimeout);
		CHILD_CHECK(status, 35, "wait for the fence");
		if (!status->signalled || status->error || status->timestamp.count() <= 0)
			return 36;
		CHILD_CHECK((*shared)->beginCpuAccess(Buffer::CpuAccess::Read), 37, "begin");
		auto map = (*shared)->map();
		CHILD_CHECK(map, 38, "map");
		long wrong = firstWrong(*map);
		CHILD_CHECK((*shared)->endCpuAccess(Buffer::CpuAccess::Read), 39, "end");
		if (wrong >= 0) {
			fprintf(stderr, "child: the CPU read byte %ld as %u\n", wrong, (*map)[wrong]);
			return 40;
		}
		return 0;
	});
	ASSERT_GT(dlaConsumer, 0);
	ASSERT_GT(cpuConsumer, 0);
	toDla->second.reset();
	toCpu->second.reset();

	/* The consumers' lists, reconciled with ours. */
	auto classifier = receiveAttrList(*toDla->first, kIpcTimeout);
	auto viewer = receiveAttrList(*toCpu->first, kIpcTimeout);
	ASSERT_TRUE(succeeded(classifier));
	ASSERT_TRUE(succeeded(viewer));
	AttrList mine = tensorList("producer", { Accessor::dla(0) }, Permission::ReadWrite);
	auto r = reconcile({ &mine, &*classifier, &*viewer });
	ASSERT_TRUE(r && r->list) << r->conflicts.front().message();
	EXPECT_EQ(*r->list->accessors(),
		(std::vector<Accessor>{ Accessor::cpu(), Accessor::dla(0), Accessor::dla(1) }));
	auto syncFromDla = receiveSyncAttrList(*toDla->first, kIpcTimeout);
	auto syncFromCpu = receiveSyncAttrList(*toCpu->first, kIpcTimeout);
	ASSERT_TRUE(succeeded(syncFromDla));
	ASSERT_TRUE(succeeded(syncFromCpu));
	SyncAttrList signaler = syncList("producer", SyncPermission::SignalOnly, Accessor::dla(0));
	auto rs = reconcileSync({ &signaler, &*syncFromDla, &*syncFromCpu });
	ASSERT_TRUE(rs && rs->list) << rs->conflicts.front().message();
	EXPECT_TRUE(*rs->list->requireTimestamps());

	auto shared = SharedBuffer::allocate(*device_, *r->list);
	ASSERT_TRUE(succeeded(shared));
	auto sync = SyncObject::allocate(*device_, *rs->list);
	ASSERT_TRUE(succeeded(sync));

	/* The write, slowed down so that it is still running when both have it. */
	guest::FaultInjection faults(guest::nodeIndex(node_));
	ASSERT_EQ(faults.set("bdma", "delay", 0, 400000), 0);
	auto src = patternSource(*device_);
	auto ctx = context();
	ASSERT_TRUE(src && ctx);
	auto task = copyTask(*src, (*shared)->buffer(), BufferUse::Write, kBytes).build(*device_);
	ASSERT_TRUE(succeeded(task));
	auto point = (*sync)->submit(*ctx, *task);
	ASSERT_TRUE(succeeded(point));
	for (auto *ep : { toDla->first.get(), toCpu->first.get() }) {
		ASSERT_TRUE(succeeded((*shared)->exportTo(*ep, Permission::ReadOnly)));
		ASSERT_TRUE(succeeded((*sync)->exportFence(*ep, *point)));
	}
	EXPECT_FALSE(*(*sync)->timeline().signalled(*point))
		<< "the write ended before the consumers had it: the test proves nothing";

	EXPECT_EQ(guest::waitChild(dlaConsumer), 0) << "the consumer on dla:1";
	EXPECT_EQ(guest::waitChild(cpuConsumer), 0) << "the consumer on the CPU";
}

/*
 * A consumer given the tensor read-only tries every way to write it: its
 * own import read-write, the dma-buf mapped or imported writable, the BO
 * mapped writable through the node, jobs, duplicates and exports with more
 * permission, and a re-export passed on to a third process. Nothing
 * writes, and the producer sees its data intact.
 */
TEST_F(SharingTest, AReadOnlyImporterCannotWriteByAnyPath)
{
	auto pair = IpcEndpoint::pair();
	ASSERT_TRUE(pair);
	pid_t importer = guest::forkChild([&]() -> int {
		IpcEndpoint &ep = *pair->second;
		auto device = Device::open(nodes_[0]);
		CHILD_CHECK(device, 10, "open");
		/* First offer: asked read-write, refused before any import. */
		CHILD_REFUSED(SharedBuffer::importFrom(ep, **device, Permission::ReadWrite,
				      kIpcTimeout),
			EACCES, 11, "a read-write import of a read-only export");
		/* Second offer: the raw dma-buf, forced read-write through the kernel. */
		auto raw = ep.receive(kIpcBuffer, kIpcTimeout);
		CHILD_CHECK(raw, 12, "receive");
		if (raw->fds.size() != 1)
			return 13;
		CHILD_REFUSED(Buffer::import(**device, raw->fds[0].get(), Buffer::Access::ReadWrite),
			EACCES, 14, "the kernel's read-write import");
		/* Third offer: imported as granted, then every path tried. */
		auto shared = SharedBuffer::importFrom(ep, **device, Permission::ReadOnly, kIpcTimeout);
		CHILD_CHECK(shared, 15, "import");
		/* The child's failures print as they happen; its status says there were some. */
		expectNoWayToWrite(**shared, **device);
		if (::testing::Test::HasFailure())
			return 16;
		/* Passed on to a third process: read-only there too. */
		auto onward = IpcEndpoint::pair();
		CHILD_CHECK(onward, 17, "pair");
		CHILD_CHECK((*shared)->exportTo(*onward->first, Permission::ReadOnly), 18, "re-export");
		CHILD_CHECK((*shared)->exportTo(*onward->first, Permission::ReadOnly), 18, "re-export");
		pid_t third = guest::forkChild([&]() -> int {
			auto d = Device::open(nodes_[1]);
			CHILD_CHECK(d, 50, "open dla:1");
			CHILD_REFUSED(SharedBuffer::importFrom(*onward->second, **d,
					      Permission::ReadWrite, kIpcTimeout),
				EACCES, 51, "a read-write import of a re-export");
			/* The kernel's word, not libvdla's: the raw dma-buf. */
			auto raw = onward->second->receive(kIpcBuffer, kIpcTimeout);
			CHILD_CHECK(raw, 52, "receive");
			if (raw->fds.size() != 1)
				return 53;
			CHILD_REFUSED(Buffer::import(**d, raw->fds[0].get(), Buffer::Access::ReadWrite),
				EACCES, 54, "the kernel's read-write import on dla:1");
			void *p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED,
				raw->fds[0].get(), 0);
			if (p != MAP_FAILED)
				return 55;
			return 0;
		});
		if (guest::waitChild(third) != 0)
			return 19;
		auto map = (*shared)->map();
		CHILD_CHECK(map, 20, "map");
		return firstWrong(*map) == -1 ? 0 : 21;
	});
	ASSERT_GT(importer, 0);
	pair->second.reset();

	AttrList producer = tensorList("producer", { Accessor::dla(0), Accessor::cpu() },
		Permission::ReadWrite);
	auto r = reconcile({ &producer });
	ASSERT_TRUE(r && r->list);
	auto shared = SharedBuffer::allocate(*device_, *r->list);
	ASSERT_TRUE(succeeded(shared));
	auto map = (*shared)->map();
	ASSERT_TRUE(succeeded(map));
	for (size_t i = 0; i < kBytes; i++)
		(*map)[i] = pattern(i);
	for (int offer = 0; offer < 3; offer++)
		ASSERT_TRUE(succeeded((*shared)->exportTo(*pair->first, Permission::ReadOnly)));
	/* A fourth, for the onward process, is the importer's own. */
	EXPECT_EQ(guest::waitChild(importer), 0);
	EXPECT_EQ(firstWrong(*map), -1) << "the read-only importer wrote";
}

/*
 * The signaler process is killed while its job is held back by another
 * job of its own: the fence its waiter holds ends with an error (ESRCH:
 * the job never ran), without hanging, well within the wait.
 */
TEST_F(SharingTest, AKilledSignalersFenceEndsWithAnError)
{
	guest::FaultInjection faults(guest::nodeIndex(node_));
	ASSERT_EQ(faults.set("bdma", "delay", 0, 300000), 0);
	auto pair = IpcEndpoint::pair();
	ASSERT_TRUE(pair);
	pid_t signaler = guest::forkChild([&]() -> int {
		IpcEndpoint &ep = *pair->second;
		auto device = Device::open(nodes_[0]);
		CHILD_CHECK(device, 10, "open");
		auto waiter = receiveSyncAttrList(ep, kIpcTimeout);
		CHILD_CHECK(waiter, 11, "the waiter's list");
		SyncAttrList mine = syncList("producer", SyncPermission::SignalOnly, Accessor::dla(0));
		auto r = reconcileSync({ &mine, &*waiter });
		if (!r || !r->list)
			return 12;
		auto sync = SyncObject::allocate(**device, *r->list);
		CHILD_CHECK(sync, 13, "sync object");
		auto gateCtx = Context::create(**device);
		auto ctx = Context::create(**device);
		auto a = Buffer::create(**device, kBytes);
		auto b = Buffer::create(**device, kBytes);
		auto c = Buffer::create(**device, kBytes);
		auto gate = Fence::create(**device);
		if (!gateCtx || !ctx || !a || !b || !c || !gate)
			return 14;
		auto slow = copyTask(**a, **b, BufferUse::Write, kBytes).build(**device);
		auto held = copyTask(**b, **c, BufferUse::Write, kBytes).build(**device);
		CHILD_CHECK(slow, 15, "build");
		CHILD_CHECK(held, 15, "build");
		CHILD_CHECK((*gateCtx)->submit(*slow, {}, { gate->get() }), 16, "the gate job");
		const uint64_t point = (*sync)->nextPoint();
		CHILD_CHECK((*ctx)->submit(*held, { { gate->get(), 0 } },
				    { &(*sync)->timeline(), point }),
			17, "the held job");
		CHILD_CHECK((*sync)->exportFence(ep, point), 18, "export the fence");
		pause();
		return 19;
	});
	ASSERT_GT(signaler, 0);
	pair->second.reset();
	SyncAttrList waiter = syncList("viewer", SyncPermission::WaitOnly, Accessor::cpu());
	ASSERT_TRUE(succeeded(sendSyncAttrList(*pair->first, waiter)));
	auto fence = SyncFence::importFrom(*pair->first, kIpcTimeout);
	ASSERT_TRUE(succeeded(fence));
	EXPECT_EQ(fence->point(), 1u);
	auto pending = fence->status();
	ASSERT_TRUE(succeeded(pending));
	EXPECT_FALSE(pending->signalled) << "the job ended before its signaler was killed";
	ASSERT_EQ(kill(signaler, SIGKILL), 0);
	EXPECT_EQ(guest::waitChild(signaler), 128 + SIGKILL);

	const auto start = std::chrono::steady_clock::now();
	auto status = fence->wait(std::chrono::seconds(20));
	ASSERT_TRUE(succeeded(status)) << "the waiter hung";
	EXPECT_TRUE(status->signalled);
	EXPECT_EQ(status->error, ESRCH) << strerror(status->error);
	EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

/*
 * A CPU signaler: its point has a fence once signalled, stamped with the
 * time of the signal, and the waiter receives it signalled, also after
 * later points. Before, there is none to send. A DLA signaler's points
 * made by submit() can be sent after later ones too.
 */
TEST_F(SharingTest, ACpuSignalerExportsItsPointOnceSignalled)
{
	SyncAttrList cpu = syncList("cpu", SyncPermission::SignalOnly, Accessor::cpu());
	SyncAttrList dla = syncList("dla", SyncPermission::WaitOnly, Accessor::dla(0));
	auto r = reconcileSync({ &cpu, &dla });
	ASSERT_TRUE(r && r->list);
	auto sync = SyncObject::allocate(*device_, *r->list);
	ASSERT_TRUE(succeeded(sync));
	auto pair = IpcEndpoint::pair();
	ASSERT_TRUE(pair);
	const uint64_t point = (*sync)->nextPoint();
	EXPECT_EQ((*sync)->exportFence(*pair->first, point).error().code(), EINVAL);
	/* Each point stamped when it was signalled, and sent after later ones. */
	std::vector<std::pair<int64_t, int64_t>> around;
	for (uint64_t p = point; p < point + 3; p++) {
		if (p > point) {
			ASSERT_EQ((*sync)->nextPoint(), p);
		}
		const int64_t before = guest::monotonicNs();
		ASSERT_TRUE(succeeded((*sync)->signal(p)));
		around.emplace_back(before, guest::monotonicNs());
		std::this_thread::sleep_for(std::chrono::milliseconds(2));
	}
	for (uint64_t p = point; p < point + 3; p++) {
		ASSERT_TRUE(succeeded((*sync)->exportFence(*pair->first, p)))
			<< "point " << p << " after a later one";
		auto fence = SyncFence::importFrom(*pair->second, kIpcTimeout);
		ASSERT_TRUE(succeeded(fence));
		EXPECT_EQ(fence->point(), p);
		auto status = fence->wait(std::chrono::nanoseconds(0));
		ASSERT_TRUE(succeeded(status));
		EXPECT_TRUE(status->signalled);
		EXPECT_EQ(status->error, 0);
		EXPECT_GE(status->timestamp.count(), around[p - point].first) << "point " << p;
		EXPECT_LE(status->timestamp.count(), around[p - point].second) << "point " << p;
	}

	/* A DLA signaler's object refuses CPU signals. */
	SyncAttrList dlaSignals = syncList("dla", SyncPermission::SignalOnly, Accessor::dla(0));
	SyncAttrList cpuWaits = syncList("cpu", SyncPermission::WaitOnly, Accessor::cpu());
	auto r2 = reconcileSync({ &dlaSignals, &cpuWaits });
	ASSERT_TRUE(r2 && r2->list);
	auto dlaSync = SyncObject::allocate(*device_, *r2->list);
	ASSERT_TRUE(succeeded(dlaSync));
	EXPECT_EQ((*dlaSync)->signal((*dlaSync)->nextPoint()).error().code(), EPERM);
	/* Jobs through submit(): each point kept, sent after later ones end. */
	auto ctx = context();
	auto src = buffer(kBytes), dst = buffer(kBytes);
	ASSERT_TRUE(ctx && src && dst);
	auto task = copyTask(*src, *dst, BufferUse::Write, kBytes).build(*device_);
	ASSERT_TRUE(succeeded(task));
	auto first = (*dlaSync)->submit(*ctx, *task);
	auto second = (*dlaSync)->submit(*ctx, *task);
	ASSERT_TRUE(succeeded(first));
	ASSERT_TRUE(succeeded(second));
	ASSERT_TRUE(succeeded((*dlaSync)->timeline().waitPoint(*second, kJobTimeout)));
	ASSERT_TRUE(succeeded((*dlaSync)->exportFence(*pair->first, *first)));
	auto old = SyncFence::importFrom(*pair->second, kIpcTimeout);
	ASSERT_TRUE(succeeded(old));
	auto oldStatus = old->status();
	ASSERT_TRUE(succeeded(oldStatus));
	EXPECT_TRUE(oldStatus->signalled);
	EXPECT_EQ(oldStatus->error, 0);
	auto other = open(1);
	ASSERT_TRUE(other);
	EXPECT_EQ(SyncObject::allocate(*other, *r2->list).error().code(), ENODEV);
}

/* The C API (vdla/vdla_share.h), from share_c_api_guest.c, compiled as C. */
extern "C" const char *share_c_api_guest(void);

TEST_F(SharingTest, TheCApiSharesABuffer)
{
	const char *failure = share_c_api_guest();
	EXPECT_EQ(failure, nullptr) << failure;
}

} /* namespace */

} /* namespace umd_test */
